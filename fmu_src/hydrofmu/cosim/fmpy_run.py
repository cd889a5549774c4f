"""Drive a built FMU with fmpy, write the results as CSV (build-time side; the plot is
:mod:`hydrofmu.cosim.plots`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..progress import Progress
from ..runtime.errors import ExportError
from .fmpy_logger import restore_default_logger


def simulate(
    fmu: str | Path,
    *,
    stop_time: float,
    output_interval: float,
    start_time: float = 0.0,
    start_values: dict[str, Any] | None = None,
    inputs: NDArray[Any] | None = None,
    outputs: list[str] | None = None,
    progress: bool = False,
    label: str | None = None,
) -> NDArray[Any]:
    """Simulate an FMU with fmpy and return its structured result array.

    Parameters
    ----------
    fmu
        Path of the ``.fmu``.
    stop_time, start_time
        Simulation interval, s.
    output_interval
        Communication step, s (fmpy otherwise picks a coarse one).
    start_values
        Parameter values by name.
    inputs
        fmpy input signal: a structured array with a ``time`` field and one field per input
        (linearly interpolated by fmpy).
    outputs
        Output names to record (default: all).
    progress
        A progress bar over the communication steps on stderr (:mod:`hydrofmu.progress`).
    label
        How a failure names the model (default: "the FMU <path>"; ``hydrofmu run`` names the
        configuration, its FMU being temporary).

    Raises
    ------
    ExportError
        A call failed, or the FMU ended the run before ``stop_time`` (a discarded step): the
        message gives the time reached and the FMU's last warning or error.
    """
    from fmpy import simulate_fmu
    from fmpy.fmi1 import FMICallException

    problems: list[str] = []

    def logger(_env: Any, _instance: Any, status: int, _category: Any, message: bytes) -> None:
        # Keep the FMU's warnings and errors: its reason is what the user needs when a
        # call fails (fmpy's exception names only the call and the status).
        if status >= 1:
            problems.append(message.decode("utf-8", "replace"))

    n_steps = max(1, round((stop_time - start_time) / output_interval))
    bar = Progress(n_steps, enabled=progress, unit="step", desc="simulate")
    chunk = max(1, n_steps // 100)  # at most ~100 updates of the display

    reached = [start_time]

    def step_finished(time: float, _recorder: Any) -> bool:
        reached[0] = time
        done = min(n_steps, round((time - start_time) / output_interval))
        if progress and (done - bar.done >= chunk or done == n_steps):
            bar.update(done - bar.done)
        return True

    name = label or f"the FMU {fmu}"
    try:
        result = simulate_fmu(
            str(fmu),
            start_time=start_time,
            stop_time=stop_time,
            output_interval=output_interval,
            start_values=start_values or {},
            input=inputs,
            output=outputs,
            validate=False,
            logger=logger,
            step_finished=step_finished,
        )
    except FMICallException as exc:
        reason = f": {problems[-1]}" if problems else ""
        raise ExportError(f"{name} failed during the simulation after t = {reached[0]:.6g} s "
                          f"({exc}){reason}", value=str(fmu)) from exc
    finally:
        restore_default_logger()  # fmpy's proxy would keep this run's freed logger
        bar.close()
    end = float(result["time"][-1]) if result.size else start_time
    if end < stop_time - 0.5 * output_interval:
        # fmpy ends the run quietly when a step is discarded and the FMU says it is
        # terminated (a diverging step): a short record is a failure, not a result.
        reason = f": {problems[-1]}" if problems else ""
        raise ExportError(f"{name} stopped at t = {end:.6g} s of stop_time = {stop_time:g} s "
                          f"(a step was discarded){reason}", value=end)
    return result


def output_units(fmu: str | Path) -> dict[str, str]:
    """The unit of each variable of an FMU's model description (``""`` when it has none)."""
    from fmpy import read_model_description

    md = read_model_description(str(fmu))
    return {v.name: (v.unit or (v.declaredType.unit if v.declaredType else None) or "")
            for v in md.modelVariables}


def write_csv(result: NDArray[Any], path: str | Path,
              units: dict[str, str] | None = None) -> Path:
    """Write a structured result array as CSV with a header row; returns the path.

    The header names each column ``<name> [<unit>]`` (``time [s]``) when ``units`` gives
    the unit (see :func:`output_units`), else ``<name>``.
    """
    path = Path(path)
    names = list(result.dtype.names or ())
    units = {"time": "s", **(units or {})}
    header = [f"{n} [{units[n]}]" if units.get(n) else n for n in names]
    data = np.column_stack([np.asarray(result[n], dtype=float) for n in names])
    np.savetxt(path, data, delimiter=",", header=",".join(header), comments="", fmt="%.10g")
    return path


def summary(result: NDArray[Any], *, body: str | Sequence[str] = "body",
            last: float = 0.5) -> str:
    """Short text summary: amplitudes over the last ``last`` fraction of the record, for
    one body or each of several (``body`` a name or a list of names)."""
    t = np.asarray(result["time"])
    keep = t >= t[0] + (1.0 - last) * (t[-1] - t[0])
    lines = [f"simulated {t[0]:.3g} .. {t[-1]:.3g} s, {t.size} output points"]
    labels = ("surge", "sway", "heave", "roll", "pitch", "yaw")
    units = ("m", "m", "m", "rad", "rad", "rad")
    names = [body] if isinstance(body, str) else list(body)
    for name in names:
        prefix = f"{name} " if len(names) > 1 else ""
        for i, (lab, u) in enumerate(zip(labels, units, strict=True)):
            x = np.asarray(result[f"{name}.pose[{i + 1}]"])[keep]
            amp = 0.5 * (x.max() - x.min())
            if amp > 1e-9:  # DOFs the wave does not excite stay at round-off level
                lines.append(f"  {prefix}{lab:6s} amplitude (last {last:.0%}): {amp:.4g} {u}")
    eta = np.asarray(result["wave.elevation"])[keep]
    lines.append(f"  wave elevation amplitude: {0.5 * (eta.max() - eta.min()):.4g} m")
    return "\n".join(lines)
