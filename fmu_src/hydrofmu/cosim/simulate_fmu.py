"""Run a built FMU with fmpy and get the same labelled results as :meth:`Model.simulate`.

:func:`simulate_fmu` takes FMPy's arguments (``fmpy.simulate_fmu``'s names, all optional:
the FMU's ``<DefaultExperiment>`` gives the times) and returns an ``xarray.Dataset``; on a
hydrofmu FMU the outputs are also structured over ``body``, ``dof``, ``joint``, ``pto`` and
``line`` (:func:`hydrofmu.api.dimensions.add_dimensions`), as ``Model.simulate`` returns
them.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..api.dimensions import add_dimensions
from ..api.results import InputSignal, input_function, to_dataset
from ..runtime.errors import ConfigError

if TYPE_CHECKING:
    import xarray

#: What ``generationTool`` of a hydrofmu FMU's model description starts with (the Python
#: and the native FMU): their outputs follow the structured names that
#: :func:`~hydrofmu.api.dimensions.add_dimensions` reads.
HYDROFMU_TOOL = "hydrofmu"


def _model_description(path: Path) -> Any:
    """The FMU's model description, or a :class:`ConfigError` naming the file and the fix."""
    from fmpy import read_model_description

    if not path.exists():
        raise ConfigError(
            f"FMU not found: {path} (from {Path.cwd()}); give the path of a .fmu file, e.g. "
            "one written by `hydrofmu build CONFIG.toml -o MODEL.fmu` or Model.build_fmu",
            value=str(path))
    try:
        return read_model_description(str(path))
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise ConfigError(f"{path} is not an FMU (a zip archive with a "
                          f"modelDescription.xml): {exc}; rebuild it or check the path",
                          value=str(path)) from exc


def _experiment(md: Any, start_time: float | None, stop_time: float | None,
                output_interval: float | None) -> tuple[float, float, float]:
    """Start, stop and output interval (s): the arguments given, else the FMU's
    ``<DefaultExperiment>``, else FMPy's defaults (start 0, stop start + 1 s, about 500
    output points). Checked as ``[simulation]`` is (one message)."""
    from ..config.run_settings import check_simulation

    experiment = md.defaultExperiment
    declared = {"start_time": getattr(experiment, "startTime", None),
                "stop_time": getattr(experiment, "stopTime", None),
                "output_interval": getattr(experiment, "stepSize", None)}
    given = {"start_time": start_time, "stop_time": stop_time,
             "output_interval": output_interval}
    times = {k: (v if v is not None else declared[k]) for k, v in given.items()}
    if times["start_time"] is None:
        times["start_time"] = 0.0
    if times["stop_time"] is None:
        times["stop_time"] = float(times["start_time"]) + 1.0
    if times["output_interval"] is None:
        from fmpy.simulation import auto_interval

        times["output_interval"] = auto_interval(float(times["stop_time"])
                                                 - float(times["start_time"]))
    names = {k: k if v is not None else f"<DefaultExperiment> of the FMU ({k})"
             for k, v in given.items()}
    check_simulation(times, names)
    return (float(times["start_time"]), float(times["stop_time"]),
            float(times["output_interval"]))


def _input_signals(signals: Mapping[str, InputSignal], declared: set[str], path: Path,
                   times: NDArray[np.float64]) -> NDArray[Any]:
    """fmpy's structured input array from signals by name, sampled at ``times``."""
    unknown = sorted(set(signals) - declared)
    if unknown:
        raise ConfigError(f"unknown input(s) {unknown} of {path.name}; its inputs: "
                          f"{sorted(declared)}", value=unknown)
    signal = np.zeros(len(times), dtype=[("time", np.float64)]
                      + [(name, np.float64) for name in signals])
    signal["time"] = times
    for name, s in signals.items():
        f = input_function(name, s)
        signal[name] = [f(t) for t in times]
    return signal


def simulate_fmu(
    filename: str | os.PathLike[str],
    *,
    start_time: float | None = None,
    stop_time: float | None = None,
    output_interval: float | None = None,
    start_values: Mapping[str, Any] | None = None,
    input: Mapping[str, InputSignal] | NDArray[Any] | None = None,  # fmpy's name
    output: Sequence[str] | None = None,
) -> xarray.Dataset:
    """Simulate an FMI 2.0 co-simulation FMU with fmpy, with FMPy's arguments.

    ``simulate_fmu("RM3.fmu")`` runs the FMU's default experiment (a hydrofmu FMU declares
    ``[simulation]`` start_time, stop_time and output_interval). The arguments are
    keyword-only: FMPy's positional order (``validate`` second) and hydrofmu's former one
    (``stop_time, output_interval``) differ, so a positional call fails loudly.

    Parameters
    ----------
    filename
        The ``.fmu`` file (any FMU; hydrofmu's or another).
    start_time, stop_time, output_interval
        s; default: the FMU's ``<DefaultExperiment>`` (``startTime``, ``stopTime``,
        ``stepSize``), else FMPy's defaults. The output interval is the communication
        step (not enlarged as FMPy enlarges a default one to at most 1000 points).
    start_values
        Start values by variable name (the FMU's parameters), as FMPy's.
    input
        Input signals: a mapping of input names to a number, a function of time ``f(t)``
        or ``(times, values)`` (see :meth:`~hydrofmu.api.model.Model.simulate`), sampled
        at every communication point; or FMPy's structured array (a ``time`` field and
        one field per input), passed as it is. FMPy interpolates either linearly.
    output
        Variable names to record; default: every output.

    Returns
    -------
    xarray.Dataset
        A ``time`` coordinate and one variable per recorded name, with the ``units`` and
        ``description`` the FMU declares; on a hydrofmu FMU also the structured variables
        over ``body``, ``dof``, ``joint``, ``pto`` and ``line``
        (:func:`~hydrofmu.api.dimensions.add_dimensions`), so that
        ``ds.sel(body="float", dof="heave")["pose"]`` equals ``ds["float.pose[3]"]``.

    Raises
    ------
    ConfigError
        A missing file or one that is not an FMU (named, with the fix), bad times, an
        unknown input or output name, before the FMU runs.
    ExportError
        The FMU failed or stopped early (the message gives its last warning or error).
    """
    from .fmpy_run import simulate

    path = Path(filename)
    md = _model_description(path)
    t0, stop, h = _experiment(md, start_time, stop_time, output_interval)
    variables = {v.name: v for v in md.modelVariables}
    names = ([v.name for v in md.modelVariables if v.causality == "output"]
             if output is None else [str(n) for n in output])
    unknown = sorted(set(names) - set(variables))
    if unknown:
        raise ConfigError(f"unknown output(s) {unknown} of {path.name}; its outputs: "
                          f"{[v.name for v in md.modelVariables if v.causality == 'output']}",
                          value=unknown)
    signal = input
    if isinstance(input, Mapping):
        declared = {v.name for v in md.modelVariables if v.causality == "input"}
        times = t0 + np.arange(round((stop - t0) / h) + 1) * h
        signal = _input_signals(input, declared, path, times) if input else None
    result = simulate(path, stop_time=stop, output_interval=h, start_time=t0,
                      start_values=dict(start_values or {}), inputs=signal, outputs=names)

    def unit(v: Any) -> str | None:
        if v.unit:
            return v.unit
        declared = getattr(v, "declaredType", None)
        return getattr(declared, "unit", None) if declared is not None else None

    chosen = [variables[n] for n in names]
    values = np.column_stack([result[n] for n in names]) if names else np.empty((len(result), 0))
    ds = to_dataset(result["time"], names, values, [unit(v) for v in chosen],
                    descriptions=[v.description or "" for v in chosen],
                    attrs={"source": f"fmpy: {path.name}", "model_name": md.modelName,
                           "output_interval": h})
    if (md.generationTool or "").startswith(HYDROFMU_TOOL):
        return add_dimensions(ds)
    return ds
