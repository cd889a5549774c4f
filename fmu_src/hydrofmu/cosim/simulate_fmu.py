"""Run a built FMU with fmpy and get the same labelled results as :meth:`Model.simulate`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api.results import InputSignal, input_function, to_dataset
from ..runtime.errors import ConfigError

if TYPE_CHECKING:
    import xarray


def simulate_fmu(
    fmu: str | os.PathLike[str],
    stop_time: float,
    output_interval: float,
    inputs: Mapping[str, InputSignal] | None = None,
    parameters: Mapping[str, Any] | None = None,
    *,
    start_time: float = 0.0,
) -> xarray.Dataset:
    """Simulate an FMI 2.0 co-simulation FMU with fmpy.

    Parameters
    ----------
    fmu
        The ``.fmu`` file (any FMU; hydrofmu's or another).
    stop_time, output_interval, start_time
        s; the output interval is the communication step.
    inputs
        Input signals by name (see :meth:`~hydrofmu.api.model.Model.simulate`); sampled at every
        communication point and handed to fmpy, which interpolates them linearly.
    parameters
        Start values by variable name.

    Returns
    -------
    xarray.Dataset
        A ``time`` coordinate and one variable per output, with the ``units`` and
        ``description`` the FMU declares.
    """
    from fmpy import read_model_description

    from .fmpy_run import simulate

    path = Path(fmu)
    md = read_model_description(str(path))
    outputs = [v for v in md.modelVariables if v.causality == "output"]
    inputs_declared = {v.name for v in md.modelVariables if v.causality == "input"}
    signals = dict(inputs or {})
    unknown = sorted(set(signals) - inputs_declared)
    if unknown:
        raise ConfigError(f"unknown input(s) {unknown} of {path.name}; its inputs: "
                          f"{sorted(inputs_declared)}", value=unknown)
    signal = None
    if signals:
        h = float(output_interval)
        n = round((float(stop_time) - float(start_time)) / h)
        times = float(start_time) + np.arange(n + 1) * h
        signal = np.zeros(len(times), dtype=[("time", np.float64)]
                          + [(name, np.float64) for name in signals])
        signal["time"] = times
        for name, s in signals.items():
            f = input_function(name, s)
            signal[name] = [f(t) for t in times]
    result = simulate(path, stop_time=float(stop_time), output_interval=float(output_interval),
                      start_time=float(start_time), start_values=dict(parameters or {}),
                      inputs=signal, outputs=[v.name for v in outputs])

    def unit(v: Any) -> str | None:
        if v.unit:
            return v.unit
        declared = getattr(v, "declaredType", None)
        return getattr(declared, "unit", None) if declared is not None else None

    names = [v.name for v in outputs]
    values = np.column_stack([result[n] for n in names]) if names else np.empty((len(result), 0))
    return to_dataset(result["time"], names, values, [unit(v) for v in outputs],
                      descriptions=[v.description or "" for v in outputs],
                      attrs={"source": f"fmpy: {path.name}", "model_name": md.modelName,
                             "output_interval": float(output_interval)})
