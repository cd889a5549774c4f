"""Drive a built FMU with fmpy, write the results as CSV and a PNG plot (build-time side)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import ExportError


def simulate(
    fmu: str | Path,
    *,
    stop_time: float,
    output_interval: float,
    start_time: float = 0.0,
    start_values: dict[str, Any] | None = None,
    inputs: NDArray[Any] | None = None,
    outputs: list[str] | None = None,
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
    """
    from fmpy import simulate_fmu
    from fmpy.fmi1 import FMICallException

    problems: list[str] = []

    def logger(_env: Any, _instance: Any, status: int, _category: Any, message: bytes) -> None:
        # Keep the FMU's warnings and errors: its reason is what the user needs when a
        # call fails (fmpy's exception names only the call and the status).
        if status >= 1:
            problems.append(message.decode("utf-8", "replace"))

    try:
        return simulate_fmu(
            str(fmu),
            start_time=start_time,
            stop_time=stop_time,
            output_interval=output_interval,
            start_values=start_values or {},
            input=inputs,
            output=outputs,
            validate=False,
            logger=logger,
        )
    except FMICallException as exc:
        reason = f": {problems[-1]}" if problems else ""
        raise ExportError(f"the FMU {fmu} failed during simulation ({exc}){reason}",
                          value=str(fmu)) from exc


def write_csv(result: NDArray[Any], path: str | Path) -> Path:
    """Write a structured result array as CSV with a header row; returns the path."""
    path = Path(path)
    names = list(result.dtype.names or ())
    data = np.column_stack([np.asarray(result[n], dtype=float) for n in names])
    np.savetxt(path, data, delimiter=",", header=",".join(names), comments="", fmt="%.10g")
    return path


def plot(result: NDArray[Any], path: str | Path, *, body: str = "body") -> Path:
    """PNG with heave, the wave elevation and the heave force terms over time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = result["time"]
    fig, axes = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    axes[0].plot(t, result["wave.elevation"], color="tab:blue")
    axes[0].set_ylabel("wave elevation [m]")
    axes[1].plot(t, result[f"{body}.pose[3]"], color="tab:orange")
    axes[1].set_ylabel("heave [m]")
    for q in ("F_excitation", "F_radiation", "F_hydrostatic", "F_added_mass", "F_viscous"):
        name = f"{body}.{q}[3]"
        if name in result.dtype.names:
            axes[2].plot(t, np.asarray(result[name]) / 1e3, label=q)
    axes[2].set_ylabel("heave force [kN]")
    axes[2].set_xlabel("time [s]")
    axes[2].legend(loc="upper right", fontsize=8, ncol=3)
    for ax in axes:
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def summary(result: NDArray[Any], *, body: str = "body", last: float = 0.5) -> str:
    """Short text summary: amplitudes over the last ``last`` fraction of the record."""
    t = np.asarray(result["time"])
    keep = t >= t[0] + (1.0 - last) * (t[-1] - t[0])
    lines = [f"simulated {t[0]:.3g} .. {t[-1]:.3g} s, {t.size} output points"]
    labels = ("surge", "sway", "heave", "roll", "pitch", "yaw")
    units = ("m", "m", "m", "rad", "rad", "rad")
    for i, (lab, u) in enumerate(zip(labels, units, strict=True)):
        x = np.asarray(result[f"{body}.pose[{i + 1}]"])[keep]
        amp = 0.5 * (x.max() - x.min())
        if amp > 1e-9:  # DOFs the wave does not excite stay at round-off level
            lines.append(f"  {lab:6s} amplitude (last {last:.0%}): {amp:.4g} {u}")
    eta = np.asarray(result["wave.elevation"])[keep]
    lines.append(f"  wave elevation amplitude: {0.5 * (eta.max() - eta.min()):.4g} m")
    return "\n".join(lines)
