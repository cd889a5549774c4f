"""The Fourier integrals behind the impulse-response functions
(:mod:`hydrofmu.runtime.irf.transforms`):
``int f(w) cos(w t) dw`` and ``int f(w) e^{i w t} dw`` of piecewise-linear data, exact per
segment (a Filon-type rule), and the preparation of the data (frequency checks, the
zero-frequency point, the cut at ``omega_max``, the taper). :mod:`hydrofmu.runtime.irf.transforms`
describes the method.

Run-time module: numpy and the standard library only, project imports relative.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, HydroDataError, as_finite

# Largest number of (t, segment) pairs evaluated at once (memory bound, ~32 MB complex).
_CHUNK_ELEMENTS = 2_000_000
# Below this |x| the segment kernel g(x) = (sin x - x cos x) / x^2 uses its series.
_SERIES_LIMIT = 1e-2


# --------------------------------------------------------------------------------------
# The transform
# --------------------------------------------------------------------------------------


def fourier_integral_linear(
    x: ArrayLike, values: ArrayLike, y: ArrayLike
) -> NDArray[np.complex128]:
    """Exact ``int_{x[0]}^{x[-1]} v(x) e^{i y x} dx`` of a piecewise-linear ``v``.

    ``v`` is the linear interpolant of ``values`` on the grid ``x``. On a segment of width
    ``h``, centre ``c``, mean value ``v_m`` and increment ``dv``::

        int = e^{i c y} (h v_m sinc(h y / 2) + i dv (h / 2) g(h y / 2)),
        g(s) = (sin s - s cos s) / s^2

    which is exact for any ``y`` and reduces to the trapezoid rule at ``y = 0``.

    Parameters
    ----------
    x
        Grid, shape (n,), strictly increasing (any unit, e.g. rad/s or s), n >= 2.
    values
        Samples, shape (n, ...), real or complex.
    y
        Conjugate variable, shape (m,) (s or rad/s).

    Returns
    -------
    numpy.ndarray
        Shape (m, ...), complex, in units of ``values`` times ``x``.
    """
    xg = np.asarray(x, dtype=float)
    v = np.asarray(values)
    yv = np.atleast_1d(np.asarray(y, dtype=float))
    if xg.ndim != 1 or xg.size < 2 or v.shape[0] != xg.size:
        raise HydroDataError(
            f"grid of shape {xg.shape} does not match values of shape {v.shape}; "
            "expected x (n,) with n >= 2 and values (n, ...)",
            value=xg.shape,
        )
    trailing = v.shape[1:]
    v2 = v.reshape(xg.size, -1)
    h = np.diff(xg)
    c = 0.5 * (xg[1:] + xg[:-1])
    vm = 0.5 * (v2[1:] + v2[:-1])
    dv = np.diff(v2, axis=0)
    out = np.empty((yv.size, v2.shape[1]), dtype=complex)
    step = max(1, _CHUNK_ELEMENTS // h.size)
    for i0 in range(0, yv.size, step):
        yc = yv[i0 : i0 + step, None]
        s = 0.5 * h * yc
        small = np.abs(s) < _SERIES_LIMIT
        s_safe = np.where(small, 1.0, s)
        g = np.where(
            small,
            s / 3.0 - s**3 / 30.0,
            (np.sin(s_safe) - s_safe * np.cos(s_safe)) / s_safe**2,
        )
        phase = np.exp(1j * c * yc)
        p_mat = phase * (h * np.sinc(s / np.pi))
        q_mat = phase * (0.5j * h * g)
        out[i0 : i0 + step] = p_mat @ vm + q_mat @ dv
    return out.reshape((yv.size, *trailing))


# --------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------


def check_frequencies(omega: ArrayLike) -> NDArray[np.float64]:
    w = np.asarray(omega, dtype=float)
    if w.ndim != 1 or w.size < 2:
        raise HydroDataError(
            f"omega must be a 1-D array of at least 2 frequencies, got shape {w.shape}",
            value=w.shape,
        )
    if not np.all(np.isfinite(w)) or w[0] < 0.0 or np.any(np.diff(w) <= 0.0):
        raise HydroDataError(
            "omega must be finite, >= 0 and strictly increasing (rad/s), got "
            f"{np.array2string(w, threshold=8)}",
            value=w,
        )
    return w


def time_grid(t: ArrayLike, *, name: str = "t", increasing: bool = False) -> NDArray[np.float64]:
    tv = np.asarray(t, dtype=float)
    if tv.ndim != 1 or tv.size < 1 or not np.all(np.isfinite(tv)):
        raise ConfigError(
            f"{name} must be a 1-D array of finite times in s, got shape {tv.shape}",
            value=tv,
        )
    if increasing and (tv.size < 2 or np.any(np.diff(tv) <= 0.0)):
        raise ConfigError(
            f"{name} must hold at least 2 strictly increasing times (s), got "
            f"{np.array2string(tv, threshold=8)}",
            value=tv,
        )
    return tv


def cut_frequency(w: NDArray[np.float64], omega_max: float | None) -> float:
    """The effective upper frequency: ``omega_max`` clipped to the data's last one."""
    if omega_max is None:
        return float(w[-1])
    wc = as_finite(omega_max, "omega_max")
    if wc <= w[0]:
        raise ConfigError(
            f"omega_max={omega_max!r} rad/s is not above the data's first frequency "
            f"{w[0]:.6g} rad/s; choose a value in ({w[0]:.6g}, {w[-1]:.6g}]",
            value=omega_max,
        )
    return min(wc, float(w[-1]))


def _check_taper(taper: float) -> float:
    tp = as_finite(taper, "taper")
    if not 0.0 <= tp < 1.0:
        raise ConfigError(
            f"taper={taper!r} must be a fraction in [0, 1) of the frequency range "
            "(0 = no taper)",
            value=taper,
        )
    return tp


def prepare_spectrum(
    omega: ArrayLike,
    values: ArrayLike,
    *,
    value_at_zero: NDArray[Any],
    omega_max: float | None,
    taper: float,
) -> tuple[NDArray[np.float64], NDArray[Any]]:
    """Frequency grid and values as integrated: zero-frequency point added, cut, tapered."""
    w = check_frequencies(omega)
    v = np.asarray(values)
    if v.shape[0] != w.size:
        raise HydroDataError(
            f"data of shape {v.shape} does not match {w.size} frequencies",
            value=v.shape,
        )
    wc = cut_frequency(w, omega_max)
    tp = _check_taper(taper)
    if w[0] > 0.0:
        w = np.concatenate([[0.0], w])
        v = np.concatenate([value_at_zero[None], v])
    if wc < w[-1]:
        keep = w < wc
        # value at the cut, linearly interpolated
        k = int(np.searchsorted(w, wc))
        frac = (wc - w[k - 1]) / (w[k] - w[k - 1])
        v_cut = v[k - 1] + frac * (v[k] - v[k - 1])
        w = np.concatenate([w[keep], [wc]])
        v = np.concatenate([v[keep], v_cut[None]])
    if tp > 0.0:
        w1 = (1.0 - tp) * wc
        arg = np.clip((w - w1) / (wc - w1), 0.0, 1.0)
        window = 0.5 * (1.0 + np.cos(np.pi * arg))
        v = v * window.reshape((-1,) + (1,) * (v.ndim - 1))
    return w, v
