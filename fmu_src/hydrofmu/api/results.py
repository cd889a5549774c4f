"""Results as labelled data: an ``xarray.Dataset`` with a time coordinate and units, and the
input signals that :meth:`~hydrofmu.api.model.Model.simulate` and
:func:`~hydrofmu.cosim.simulate_fmu.simulate_fmu` take."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import ConfigError
from ..runtime.fmi.names import describe

if TYPE_CHECKING:
    import xarray

#: An input signal: a constant, a function of time (s), or ``(times, values)`` sampled
#: points, linearly interpolated (held at the ends), as fmpy interpolates its inputs.
InputSignal = float | Callable[[float], float] | tuple[Sequence[float], Sequence[float]]


def input_function(name: str, signal: InputSignal) -> Callable[[float], float]:
    """``signal`` as a function of time; a :class:`ConfigError` naming ``name`` when it is
    none of the accepted forms or not finite."""
    if callable(signal):
        return lambda t: float(signal(t))
    if isinstance(signal, tuple | list) and len(signal) == 2:
        t = np.asarray(signal[0], dtype=float)
        v = np.asarray(signal[1], dtype=float)
        if t.ndim != 1 or t.shape != v.shape or t.size < 1 or np.any(np.diff(t) < 0):
            raise ConfigError(f"input {name!r}: (times, values) must be two 1-D sequences of "
                              "the same length, times increasing", value=name)
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(v))):
            raise ConfigError(f"input {name!r}: non-finite times or values", value=name)
        return lambda x: float(np.interp(x, t, v))
    try:
        value = float(signal)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ConfigError(f"input {name!r}: expected a number, a function of t or "
                          f"(times, values), got {type(signal).__name__}", value=name) from None
    if not np.isfinite(value):
        raise ConfigError(f"input {name!r} is not finite: {value!r}", value=name)
    return lambda t: value


def to_dataset(
    time: NDArray[np.float64],
    names: Sequence[str],
    values: NDArray[np.float64],
    units: Sequence[str | None],
    *,
    descriptions: Sequence[str] | None = None,
    attrs: Mapping[str, Any] | None = None,
) -> xarray.Dataset:
    """Outputs over time as a dataset.

    Parameters
    ----------
    time
        Communication points, s, shape (n,).
    names, units
        Output names and SI units (``None`` or ``""`` for dimensionless), one per column.
    values
        Output values, shape (n, len(names)).
    descriptions
        One per output; default: the plain-language description of each structured name.
    attrs
        Attributes of the dataset.
    """
    import xarray as xr

    values = np.asarray(values, dtype=float)
    descriptions = list(descriptions) if descriptions is not None else [describe(n)
                                                                        for n in names]
    data = {
        name: ("time", values[:, k], {"units": units[k] or "1", "description": descriptions[k]})
        for k, name in enumerate(names)
    }
    return xr.Dataset(data, coords={"time": ("time", np.asarray(time, dtype=float),
                                             {"units": "s", "description": "Time"})},
                      attrs=dict(attrs or {}))
