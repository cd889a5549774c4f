"""Wave kinematics shared by the wave models: the ramp, the linear dispersion relation, the
elevation of a sum of components, and the small argument checks.

Run-time module: numpy and the standard library only, project imports relative.
Conventions: see :mod:`hydrofmu.runtime.waves.models`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, as_finite
from .spectra import check_positive_value

# Largest number of (t, component) pairs evaluated at once in ``elevation``.
_CHUNK_ELEMENTS = 2_000_000


# --------------------------------------------------------------------------------------
# Small checks
# --------------------------------------------------------------------------------------


def check_depth(value: Any) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"water_depth={value!r} is not a number", value=value) from exc
    if math.isnan(out) or out <= 0.0:
        raise ConfigError(
            f"water_depth={value!r} m must be > 0 (use inf for deep water)", value=value
        )
    return out


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value.lower() not in choices:
        raise ConfigError(
            f"{name}={value!r} is not one of {', '.join(repr(c) for c in choices)}",
            value=value,
        )
    return value.lower()


# --------------------------------------------------------------------------------------
# Ramp, dispersion
# --------------------------------------------------------------------------------------


def ramp(t: ArrayLike, ramp_time: float) -> NDArray[np.float64]:
    """Half-cosine fade-in of the excitation.

    ``r(t) = 0`` for ``t < 0``, ``0.5 (1 - cos(pi t / T_r))`` for ``0 <= t < T_r`` and 1
    after; ``ramp_time = 0`` means no ramp (1 everywhere).

    Parameters
    ----------
    t
        Time(s), s, any shape.
    ramp_time
        Ramp duration ``T_r``, s, >= 0.

    Returns
    -------
    numpy.ndarray
        Ramp factor in [0, 1], same shape as ``t`` (0-d for a scalar).
    """
    tr = as_finite(ramp_time, "ramp_time")
    if tr < 0.0:
        raise ConfigError(f"ramp_time={ramp_time!r} s must be >= 0", value=ramp_time)
    tv = np.asarray(t, dtype=float)
    if tr == 0.0:
        return np.ones_like(tv)
    s = np.clip(tv / tr, 0.0, 1.0)
    return 0.5 * (1.0 - np.cos(np.pi * s))


def wave_number(
    omega: ArrayLike, water_depth: float = math.inf, g: float = 9.81
) -> NDArray[np.float64]:
    """Wave number from the linear dispersion relation ``w^2 = g k tanh(k h)``.

    Parameters
    ----------
    omega
        Angular frequencies, rad/s, >= 0, any shape.
    water_depth
        Depth h, m, > 0; ``inf`` (default) for deep water, ``k = w^2 / g``.
    g
        Gravitational acceleration, m/s^2.

    Returns
    -------
    numpy.ndarray
        k, rad/m, same shape as ``omega``; relative accuracy ~1e-14 (Newton on
        ``x tanh x = w^2 h / g`` from Eckart's approximation).
    """
    h = check_depth(water_depth)
    gv = check_positive_value(g, "g", "m/s^2")
    w = np.asarray(omega, dtype=float)
    if np.any(~np.isfinite(w)) or np.any(w < 0.0):
        raise ConfigError("omega must be finite and >= 0 rad/s", value=w)
    k_deep = w**2 / gv
    if math.isinf(h):
        return k_deep
    y = k_deep * h
    x = y / np.sqrt(np.tanh(np.maximum(y, 1e-300)))  # Eckart (1952), within ~5 %
    for _ in range(50):
        th = np.tanh(x)
        f = x * th - y
        fp = th + x * (1.0 - th**2)
        step = np.divide(f, fp, out=np.zeros_like(x), where=fp > 0.0)
        x = x - step
        if np.all(np.abs(step) <= 1e-15 * np.maximum(x, 1e-300)):
            break
    return np.where(w > 0.0, x / h, 0.0)


def elevation_of_components(
    t: ArrayLike,
    x: float,
    y: float,
    omega: NDArray[np.float64],
    amplitude: NDArray[np.float64],
    phase: NDArray[np.float64],
    k: NDArray[np.float64],
    direction: float,
) -> NDArray[np.float64]:
    xv = as_finite(x, "x")
    yv = as_finite(y, "y")
    tv = np.asarray(t, dtype=float)
    flat = tv.reshape(-1)
    shift = phase - k * (xv * math.cos(direction) + yv * math.sin(direction))
    out = np.empty(flat.size)
    step = max(1, _CHUNK_ELEMENTS // max(1, omega.size))
    for i0 in range(0, flat.size, step):
        arg = np.multiply.outer(flat[i0 : i0 + step], omega) + shift
        out[i0 : i0 + step] = np.cos(arg) @ amplitude
    return out.reshape(tv.shape)


def readonly(a: NDArray[Any]) -> NDArray[Any]:
    a.setflags(write=False)
    return a
