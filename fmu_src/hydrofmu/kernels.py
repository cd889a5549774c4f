"""Impulse-response functions (IRFs) of the radiation and excitation forces.

Run-time module: numpy and the standard library only, project imports relative.

Definitions (``e^{+i omega t}`` convention, see :mod:`hydrofmu.hydrodata.model`):

- Radiation kernel, N/(m s), N/s, N m/s ... per DOF pair, shape (nt, n, n)::

      K(t) = 2/pi int_0^inf B(w) cos(w t) dw,   F_rad(t) = -int_0^T K(tau) q'(t - tau) dtau

- Excitation kernel, N/(m s) and N m/(m s), shape (nt, 6), non-causal::

      K_exc(t) = 1/pi Re int_0^inf X(w) e^{i w t} dw,   F_exc(t) = int K_exc(tau) eta(t - tau) dtau

  so that ``eta(t) = Re(a e^{i w t})`` gives ``F_exc(t) = Re(X(w) a e^{i w t})``.

How the frequency integrals are evaluated
-----------------------------------------
The BEM data is known only at its frequencies ``omega[0] < ... < omega[-1]``. The integrand
is taken as the piecewise-linear interpolant of the data (the "trapezoid" model of the
data, on its own, possibly non-uniform grid), and the product with ``cos(w t)`` /
``e^{i w t}`` is integrated *exactly* on each segment (a Filon-type rule). Unlike the
trapezoid rule applied to ``B(w) cos(w t)``, this stays exact for any ``t``: the cosine
may oscillate many times within one frequency step without aliasing.

Outside the data:

- Below the first frequency the integrand is linear down to its physical zero-frequency
  value: ``B(0) = 0`` for radiation, ``X(0) = Re X(omega[0])`` for excitation (the
  Hermitian extension ``X(-w) = conj X(w)`` is then continuous; for a floating body
  ``X(0)`` is the hydrostatic force per metre of elevation, e.g. ``rho g A_wp`` in heave).
  This fills ``[0, omega[0]]`` and avoids the long ``sin(omega[0] t)/t`` ripple that
  setting the data to zero below ``omega[0]`` (as BEMIO does) puts into the excitation
  kernel.
- Above ``omega_max`` (default: the last frequency) the integrand is zero. A jump there
  gives Gibbs ripples that decay like ``1/t``; the optional ``taper`` multiplies the data
  by a half-cosine window over the top fraction ``taper`` of ``[0, omega_max]`` so that
  the integrand reaches zero continuously (the ripples then decay like ``1/t^2``), at the
  price of removing part of the high-frequency content.

The back transforms (Ogilvie's relations) integrate the sampled kernel the same way: the
kernel is piecewise linear between its time samples and its product with ``sin(w t)`` /
``cos(w t)`` is integrated exactly over ``[0, T]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import ConfigError, HydroDataError, as_finite
from .hydrodata.model import DOF_NAMES, HydroData

__all__ = [
    "DEFAULT_DECAY_THRESHOLD",
    "DEFAULT_MAX_DURATION",
    "NEGLIGIBLE_FRACTION",
    "ROUNDTRIP_BAND_FRACTION",
    "IrfTime",
    "added_mass_from_irf",
    "cutoff_fraction",
    "damping_from_irf",
    "default_excitation_irf_time",
    "default_irf_time",
    "excitation_irf",
    "excitation_irf_from_arrays",
    "fourier_integral_linear",
    "irf_roundtrip_error",
    "radiation_irf",
    "radiation_irf_from_arrays",
]

#: Default decay threshold of :func:`default_irf_time`: the kernel is kept until its
#: normalised magnitude stays below this fraction of its maximum.
DEFAULT_DECAY_THRESHOLD: float = 1e-3
#: Default cap on the kernel duration chosen by :func:`default_irf_time`, s.
DEFAULT_MAX_DURATION: float = 60.0
#: Default upper end of the round-trip comparison band, as a fraction of ``omega_max``:
#: just below ``omega_max`` the rebuilt A(w) is biased by the missing B above it (a
#: logarithmic singularity at ``omega_max`` in the Kramers-Kronig relation).
ROUNDTRIP_BAND_FRACTION: float = 0.8

# Largest number of (t, segment) pairs evaluated at once (memory bound, ~32 MB complex).
_CHUNK_ELEMENTS = 2_000_000
# A DOF whose coefficient is below this fraction of the largest one of the same kind
# (translations 0-2, rotations 3-5, compared only among themselves since their units
# differ) is numerical noise, e.g. the yaw of an axisymmetric body.
NEGLIGIBLE_FRACTION: float = 1e-6
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


def _frequencies(omega: ArrayLike) -> NDArray[np.float64]:
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


def _time_grid(t: ArrayLike, *, name: str = "t", increasing: bool = False) -> NDArray[np.float64]:
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


def _cut_frequency(w: NDArray[np.float64], omega_max: float | None) -> float:
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


def _prepare_spectrum(
    omega: ArrayLike,
    values: ArrayLike,
    *,
    value_at_zero: NDArray[Any],
    omega_max: float | None,
    taper: float,
) -> tuple[NDArray[np.float64], NDArray[Any]]:
    """Frequency grid and values as integrated: zero-frequency point added, cut, tapered."""
    w = _frequencies(omega)
    v = np.asarray(values)
    if v.shape[0] != w.size:
        raise HydroDataError(
            f"data of shape {v.shape} does not match {w.size} frequencies",
            value=v.shape,
        )
    wc = _cut_frequency(w, omega_max)
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


# --------------------------------------------------------------------------------------
# Radiation
# --------------------------------------------------------------------------------------


def radiation_irf_from_arrays(
    omega: ArrayLike,
    damping: ArrayLike,
    t: ArrayLike,
    *,
    omega_max: float | None = None,
    taper: float = 0.0,
) -> NDArray[np.float64]:
    """Radiation kernel ``K(t) = 2/pi int_0^inf B(w) cos(w t) dw`` from arrays.

    Parameters
    ----------
    omega
        Frequencies of the data, shape (nw,), rad/s, strictly increasing, > 0.
    damping
        B(omega), shape (nw, n, n) (or (nw, ...)), N s/m, N s, N m s.
    t
        Times, shape (nt,), s (any values; the kernel is even in t).
    omega_max
        Upper end of the integral, rad/s; default (``None``) the last data frequency.
        Values above the last frequency are clipped to it (B is zero there anyway).
    taper
        Fraction of ``[0, omega_max]`` over which a half-cosine window brings B to zero
        at ``omega_max``; 0 (default) = hard cut.

    Returns
    -------
    numpy.ndarray
        K(t), shape (nt, n, n), N/(m s), N/s, N m/s (units of B per second).

    Notes
    -----
    B is taken as linear from B(0) = 0 to B(omega[0]) and zero above ``omega_max``; see
    the module docstring.
    """
    b = np.asarray(damping, dtype=float)
    tv = _time_grid(t)
    w, v = _prepare_spectrum(
        omega, b, value_at_zero=np.zeros(b.shape[1:]), omega_max=omega_max, taper=taper
    )
    return (2.0 / np.pi) * fourier_integral_linear(w, v, tv).real


def radiation_irf(
    hd: HydroData,
    t: ArrayLike,
    *,
    omega_max: float | None = None,
    taper: float = 0.0,
) -> NDArray[np.float64]:
    """Radiation kernel K(t) of a body, shape (nt, 6, 6).

    Parameters
    ----------
    hd
        Hydrodynamic data (uses ``omega`` and ``radiation_damping``).
    t
        Times, shape (nt,), s, usually ``0, dt, ..., T`` (see :func:`default_irf_time`).
    omega_max, taper
        Truncation and taper of the frequency integral, see
        :func:`radiation_irf_from_arrays`.

    Returns
    -------
    numpy.ndarray
        K(t), shape (nt, 6, 6), indexed ``[t, influenced, radiating]``; N/(m s) (force
        per translational velocity per s), N/s, N m/s (moment per angular velocity per s).
    """
    return radiation_irf_from_arrays(
        hd.omega, hd.radiation_damping, t, omega_max=omega_max, taper=taper
    )


@dataclass(frozen=True)
class IrfTime:
    """A kernel time grid and why it was chosen.

    Attributes
    ----------
    t
        Times, shape (nt,), s: ``0, dt, ..., duration`` (radiation) or
        ``-duration, ..., duration`` (excitation).
    dt
        Time step, s.
    duration
        Length of the kernel (one-sided for the excitation kernel), s.
    threshold
        Decay threshold used (fraction of the kernel's maximum).
    tail
        Largest normalised magnitude of the kernel at or beyond ``duration``
        (``<= threshold`` unless ``capped``).
    capped
        True when the kernel had not decayed below ``threshold`` within the maximum
        duration (or the explicitly requested duration is shorter than the decay).
    kind
        ``"radiation"`` or ``"excitation"``.
    """

    t: NDArray[np.float64]
    dt: float
    duration: float
    threshold: float
    tail: float
    capped: bool
    kind: str

    def describe(self) -> str:
        """One-line report of the choice, for logs and the export report."""
        span = (
            f"0-{self.duration:.6g} s"
            if self.kind == "radiation"
            else f"+-{self.duration:.6g} s"
        )
        state = (
            f"NOT decayed: still {self.tail:.2e} of its maximum at the end"
            if self.capped
            else f"decayed below {self.threshold:.1e} of its maximum (tail {self.tail:.2e})"
        )
        return f"{self.kind} IRF over {span}, dt {self.dt:.6g} s, {self.t.size} samples; {state}"


def _check_duration_args(
    dt: float, duration: float | None, threshold: float, max_duration: float
) -> tuple[float, float | None, float, float]:
    dtv = as_finite(dt, "dt")
    if dtv <= 0.0:
        raise ConfigError(f"dt={dt!r} s must be > 0", value=dt)
    thr = as_finite(threshold, "threshold")
    if not 0.0 < thr < 1.0:
        raise ConfigError(f"threshold={threshold!r} must be in (0, 1)", value=threshold)
    tmax = as_finite(max_duration, "max_duration")
    if tmax < dtv:
        raise ConfigError(
            f"max_duration={max_duration!r} s must be at least dt={dtv:.6g} s",
            value=max_duration,
        )
    dur = None
    if duration is not None:
        dur = as_finite(duration, "duration")
        if dur < dtv:
            raise ConfigError(
                f"duration={duration!r} s must be at least dt={dtv:.6g} s", value=duration
            )
    return dtv, dur, thr, tmax


def _choose_duration(
    t_probe: NDArray[np.float64],
    envelope: NDArray[np.float64],
    dt: float,
    duration: float | None,
    threshold: float,
    max_duration: float,
) -> tuple[float, float, bool]:
    """Duration (multiple of dt), tail beyond it, capped flag, from a probed envelope."""
    if duration is None:
        above = np.nonzero(envelope > threshold)[0]
        t_last = float(t_probe[above[-1]]) if above.size else 0.0
        n = max(1, math.ceil(t_last / dt - 1e-9))
        n_cap = max(1, math.floor(max_duration / dt + 1e-9))
        capped = n > n_cap or (above.size > 0 and above[-1] == t_probe.size - 1)
        n = min(n, n_cap)
    else:
        n = max(1, round(duration / dt))
        capped = False
    dur = n * dt
    beyond = t_probe >= dur - 1e-9
    tail = float(envelope[beyond].max()) if np.any(beyond) else float(envelope[-1])
    if duration is not None:
        capped = tail > threshold
    return dur, tail, capped


def default_irf_time(
    hd: HydroData,
    dt: float,
    duration: float | None = None,
    *,
    threshold: float = DEFAULT_DECAY_THRESHOLD,
    max_duration: float = DEFAULT_MAX_DURATION,
    omega_max: float | None = None,
    taper: float = 0.0,
) -> IrfTime:
    """Choose the time grid ``0, dt, ..., T`` of the radiation kernel.

    ``T`` is the first multiple of ``dt`` after which the normalised kernel
    ``|K_ij(t)| / sqrt(max|K_ii| max|K_jj|)`` (all pairs of DOFs whose diagonal is not
    negligible, see :data:`NEGLIGIBLE_FRACTION`)
    stays below ``threshold``, capped at ``max_duration``. The decay is probed on a grid
    of step ``pi / (4 omega_max)`` (four points per half period of the fastest
    oscillation in K) up to ``max(max_duration, duration)``.

    Parameters
    ----------
    hd
        Hydrodynamic data.
    dt
        Time step of the kernel, s (the simulator's convolution step).
    duration
        Imposed duration, s (rounded to a multiple of ``dt``); ``None`` = choose it.
        The returned ``tail`` then says how much of the kernel it leaves out.
    threshold
        Decay fraction, default :data:`DEFAULT_DECAY_THRESHOLD` (1e-3).
    max_duration
        Cap on the chosen duration, s, default :data:`DEFAULT_MAX_DURATION` (60 s).
    omega_max, taper
        As in :func:`radiation_irf_from_arrays`.

    Returns
    -------
    IrfTime
        The grid, the duration and the measured tail; ``describe()`` gives a report line.
    """
    dtv, dur, thr, tmax = _check_duration_args(dt, duration, threshold, max_duration)
    wc = _cut_frequency(_frequencies(hd.omega), omega_max)
    t_end = max(tmax, dur or 0.0)
    t_probe = np.linspace(0.0, t_end, math.ceil(t_end / (np.pi / (4.0 * wc))) + 1)
    k = radiation_irf(hd, t_probe, omega_max=omega_max, taper=taper)
    envelope = _radiation_envelope(k)
    dur_chosen, tail, capped = _choose_duration(t_probe, envelope, dtv, dur, thr, tmax)
    n = round(dur_chosen / dtv)
    return IrfTime(
        t=np.arange(n + 1) * dtv,
        dt=dtv,
        duration=dur_chosen,
        threshold=thr,
        tail=tail,
        capped=capped,
        kind="radiation",
    )


def _active_dofs(scale: NDArray[np.float64]) -> NDArray[np.bool_]:
    """DOFs whose magnitude ``scale`` (n,) is not negligible, see NEGLIGIBLE_FRACTION.

    For 6 DOFs translations and rotations are compared separately; otherwise all at once.
    """
    groups = [np.arange(3), np.arange(3, 6)] if scale.size == 6 else [np.arange(scale.size)]
    active = np.zeros(scale.size, dtype=bool)
    for g in groups:
        top = float(scale[g].max())
        active[g] = (scale[g] > NEGLIGIBLE_FRACTION * top) & (top > 0.0)
    return active


def _radiation_envelope(k: NDArray[np.float64]) -> NDArray[np.float64]:
    """max over DOF pairs of |K_ij(t)| / sqrt(max|K_ii| max|K_jj|), shape (nt,)."""
    diag = np.abs(np.diagonal(k, axis1=1, axis2=2)).max(axis=0)
    active = _active_dofs(diag)
    if not np.any(active):
        return np.zeros(k.shape[0])
    idx = np.nonzero(active)[0]
    sub = np.abs(k[:, idx][:, :, idx])
    scale = np.sqrt(np.outer(diag[idx], diag[idx]))
    return (sub / scale).reshape(k.shape[0], -1).max(axis=1)


# --------------------------------------------------------------------------------------
# Excitation
# --------------------------------------------------------------------------------------


def excitation_irf_from_arrays(
    omega: ArrayLike,
    excitation: ArrayLike,
    t: ArrayLike,
    *,
    omega_max: float | None = None,
    taper: float = 0.0,
) -> NDArray[np.float64]:
    """Excitation kernel ``K_exc(t) = 1/pi Re int_0^inf X(w) e^{i w t} dw`` from arrays.

    Parameters
    ----------
    omega
        Frequencies, shape (nw,), rad/s, strictly increasing, > 0.
    excitation
        X(omega) for one heading, shape (nw, m) (m = 6 DOFs), complex, N/m and N m/m,
        ``e^{+i omega t}`` convention.
    t
        Times, shape (nt,), s, usually symmetric ``-T ... T`` (the kernel is non-causal).
    omega_max, taper
        As in :func:`radiation_irf_from_arrays`.

    Returns
    -------
    numpy.ndarray
        K_exc(t), shape (nt, m), N/(m s) and N m/(m s).

    Notes
    -----
    X is taken as linear from ``X(0) = Re X(omega[0])`` to ``X(omega[0])`` and zero
    above ``omega_max``. With this kernel, ``eta(t) = Re(a e^{i w t})`` gives
    ``int K_exc(tau) eta(t - tau) dtau = Re(X(w) a e^{i w t})``.
    """
    x = np.asarray(excitation, dtype=complex)
    tv = _time_grid(t)
    w, v = _prepare_spectrum(
        omega, x, value_at_zero=x[0].real.astype(complex), omega_max=omega_max, taper=taper
    )
    return fourier_integral_linear(w, v, tv).real / np.pi


def excitation_irf(
    hd: HydroData,
    t: ArrayLike,
    direction: float = 0.0,
    *,
    omega_max: float | None = None,
    taper: float = 0.0,
) -> NDArray[np.float64]:
    """Excitation kernel of a body for one wave heading, shape (nt, 6).

    Parameters
    ----------
    hd
        Hydrodynamic data (uses ``omega``, ``excitation``, ``wave_direction``).
    t
        Times, shape (nt,), s, usually ``-T, ..., T``.
    direction
        Wave heading, rad; must be one of ``hd.wave_direction``.
    omega_max, taper
        As in :func:`radiation_irf_from_arrays`.

    Returns
    -------
    numpy.ndarray
        K_exc(t), shape (nt, 6), N/(m s) and N m/(m s), relating the elevation at the
        reference point to the excitation force:
        ``F(t) = int K_exc(tau) eta(t - tau) dtau``.

    Raises
    ------
    HydroDataError
        If ``direction`` is not in the data.
    """
    ib = hd.direction_index(direction)
    return excitation_irf_from_arrays(
        hd.omega, hd.excitation[:, ib, :], t, omega_max=omega_max, taper=taper
    )


def default_excitation_irf_time(
    hd: HydroData,
    dt: float,
    direction: float = 0.0,
    duration: float | None = None,
    *,
    threshold: float = DEFAULT_DECAY_THRESHOLD,
    max_duration: float = DEFAULT_MAX_DURATION,
    omega_max: float | None = None,
    taper: float = 0.0,
) -> IrfTime:
    """Choose the symmetric time grid ``-T, ..., T`` of the excitation kernel.

    ``T`` is the first multiple of ``dt`` beyond which ``|K_exc,i(t)| / max|K_exc,i|``
    (every DOF whose kernel is not negligible, both signs of t) stays below ``threshold``, capped
    at ``max_duration``; probed as in :func:`default_irf_time`.

    Parameters
    ----------
    hd
        Hydrodynamic data.
    dt
        Time step, s.
    direction
        Wave heading, rad.
    duration
        Imposed half-length, s; ``None`` = choose it.
    threshold, max_duration, omega_max, taper
        As in :func:`default_irf_time`.

    Returns
    -------
    IrfTime
        With ``kind="excitation"`` and ``t`` from ``-duration`` to ``duration``.
    """
    dtv, dur, thr, tmax = _check_duration_args(dt, duration, threshold, max_duration)
    wc = _cut_frequency(_frequencies(hd.omega), omega_max)
    t_end = max(tmax, dur or 0.0)
    n_probe = math.ceil(t_end / (np.pi / (4.0 * wc))) + 1
    t_pos = np.linspace(0.0, t_end, n_probe)
    kx = excitation_irf(
        hd, np.concatenate([-t_pos, t_pos]), direction, omega_max=omega_max, taper=taper
    )
    mag = np.abs(kx)
    peak = mag.max(axis=0)
    active = _active_dofs(peak)
    if np.any(active):
        norm = mag[:, active] / peak[active]
        env2 = norm.max(axis=1)
        envelope = np.maximum(env2[:n_probe], env2[n_probe:])
    else:
        envelope = np.zeros(n_probe)
    dur_chosen, tail, capped = _choose_duration(t_pos, envelope, dtv, dur, thr, tmax)
    n = round(dur_chosen / dtv)
    return IrfTime(
        t=np.arange(-n, n + 1) * dtv,
        dt=dtv,
        duration=dur_chosen,
        threshold=thr,
        tail=tail,
        capped=capped,
        kind="excitation",
    )


def cutoff_fraction(
    kx: ArrayLike, t: ArrayLike, preview_time: float
) -> NDArray[np.float64]:
    """Fraction of the excitation kernel left out by a finite preview time, per DOF.

    With the elevation known up to ``t + P`` (``P = preview_time``), the convolution
    ``int K_exc(tau) eta(t - tau) dtau`` can use only ``tau >= -P``. This returns the
    **L1 fraction** of the kernel that is cut off::

        f_i = int_{tau < -P} |K_exc,i| dtau / int |K_exc,i| dtau

    over the given samples (trapezoid on ``|K|``, linear interpolation of the cumulative
    integral at ``-P``). It is non-increasing in ``P``; 0 for a DOF whose kernel is zero.

    Parameters
    ----------
    kx
        Excitation kernel, shape (nt, m) (or (nt,)), any units.
    t
        Times, shape (nt,), s, strictly increasing.
    preview_time
        Preview time P, s, >= 0.

    Returns
    -------
    numpy.ndarray
        Cut-off fractions in [0, 1], shape (m,) (a 0-d array for a 1-D ``kx``).
    """
    tv = _time_grid(t, increasing=True)
    p = as_finite(preview_time, "preview_time")
    if p < 0.0:
        raise ConfigError(f"preview_time={preview_time!r} s must be >= 0", value=preview_time)
    k = np.abs(np.asarray(kx, dtype=float))
    if k.shape[0] != tv.size:
        raise ConfigError(
            f"kernel of shape {k.shape} does not match {tv.size} times", value=k.shape
        )
    seg = 0.5 * (k[1:] + k[:-1]) * np.diff(tv).reshape((-1,) + (1,) * (k.ndim - 1))
    cum = np.concatenate([np.zeros((1, *k.shape[1:])), np.cumsum(seg, axis=0)])
    total = cum[-1]
    cut_pos = -p
    if cut_pos <= tv[0]:
        cut = np.zeros_like(total)
    elif cut_pos >= tv[-1]:
        cut = total.copy()
    else:
        j = int(np.searchsorted(tv, cut_pos)) - 1
        frac = (cut_pos - tv[j]) / (tv[j + 1] - tv[j])
        cut = cum[j] + frac * (cum[j + 1] - cum[j])
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(total > 0.0, cut / np.where(total > 0.0, total, 1.0), 0.0)
    return np.clip(out, 0.0, 1.0)


# --------------------------------------------------------------------------------------
# Back transforms (Ogilvie)
# --------------------------------------------------------------------------------------


def _kernel_and_omega(
    k: ArrayLike, t: ArrayLike, omega: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    tv = _time_grid(t, increasing=True)
    if abs(tv[0]) > 1e-12 * max(1.0, abs(tv[-1])):
        raise ConfigError(
            f"the radiation kernel's times must start at t = 0 s, got t[0] = {tv[0]!r}",
            value=tv[0],
        )
    kv = np.asarray(k, dtype=float)
    if kv.shape[0] != tv.size:
        raise ConfigError(
            f"kernel of shape {kv.shape} does not match {tv.size} times", value=kv.shape
        )
    w = np.atleast_1d(np.asarray(omega, dtype=float))
    if w.ndim != 1 or not np.all(np.isfinite(w)) or np.any(w <= 0.0):
        raise ConfigError(
            "omega must be a 1-D array of finite frequencies > 0 rad/s, got "
            f"{np.array2string(w, threshold=8)}",
            value=w,
        )
    return kv, tv, w


def added_mass_from_irf(
    k: ArrayLike, t: ArrayLike, a_inf: ArrayLike, omega: ArrayLike
) -> NDArray[np.float64]:
    """Added mass rebuilt from the kernel (Ogilvie 1964).

    ``A(w) = A_inf - (1/w) int_0^T K(t) sin(w t) dt``, with K piecewise linear between
    its samples (integral exact for that interpolant).

    Parameters
    ----------
    k
        K(t), shape (nt, n, n), N/(m s) ...
    t
        Times, shape (nt,), s, strictly increasing, ``t[0] = 0``.
    a_inf
        Infinite-frequency added mass, shape (n, n), kg, kg m, kg m^2.
    omega
        Frequencies, shape (nw,), rad/s, > 0.

    Returns
    -------
    numpy.ndarray
        A(omega), shape (nw, n, n), units of ``a_inf``.
    """
    kv, tv, w = _kernel_and_omega(k, t, omega)
    f = fourier_integral_linear(tv, kv, w)
    return np.asarray(a_inf, dtype=float)[None] - f.imag / w.reshape((-1,) + (1,) * (kv.ndim - 1))


def damping_from_irf(k: ArrayLike, t: ArrayLike, omega: ArrayLike) -> NDArray[np.float64]:
    """Radiation damping rebuilt from the kernel: ``B(w) = int_0^T K(t) cos(w t) dt``.

    Parameters
    ----------
    k
        K(t), shape (nt, n, n).
    t
        Times, shape (nt,), s, strictly increasing, ``t[0] = 0``.
    omega
        Frequencies, shape (nw,), rad/s, > 0.

    Returns
    -------
    numpy.ndarray
        B(omega), shape (nw, n, n), N s/m, N s, N m s.
    """
    kv, tv, w = _kernel_and_omega(k, t, omega)
    return fourier_integral_linear(tv, kv, w).real


def irf_roundtrip_error(
    hd: HydroData,
    t: ArrayLike,
    *,
    band: tuple[float, float] | None = None,
    omega_max: float | None = None,
    taper: float = 0.0,
) -> dict[str, Any]:
    """How well the kernel on ``t`` reproduces the data's A(w) and B(w).

    The kernel is computed with :func:`radiation_irf`, then A(w) is rebuilt with
    :func:`added_mass_from_irf` (using ``hd.added_mass_inf``) and B(w) with
    :func:`damping_from_irf`, at the data frequencies inside ``band``. For each DOF i
    the error is::

        max_{w in band} |A_rebuilt,ii(w) - A_ii(w)| / max_{w in band} |A_ii(w)|

    (same for B): a relative error normalised by the DOF's largest value in the band, so
    that a coefficient crossing zero does not blow it up. A DOF whose data is negligible
    in the band (below :data:`NEGLIGIBLE_FRACTION` of the largest DOF of its kind, e.g.
    the yaw of an axisymmetric body, which BEM codes return as noise) gets NaN.

    Parameters
    ----------
    hd
        Hydrodynamic data.
    t
        Kernel times, shape (nt,), s, ``0 ... T`` (e.g. ``default_irf_time(...).t``).
    band
        Frequency band (w_lo, w_hi) of the comparison, rad/s. Default: from the first
        data frequency to :data:`ROUNDTRIP_BAND_FRACTION` (0.8) times the effective
        ``omega_max`` -- just below ``omega_max`` the missing B above it biases the
        rebuilt A (measured on the BEMIO sphere: ~0.25 % below 0.8 omega_max, rising to
        ~1.1 % at omega_max).
    omega_max, taper
        As in :func:`radiation_irf_from_arrays`.

    Returns
    -------
    dict
        ``"added_mass"``, ``"damping"``: per-DOF errors, shape (6,) (NaN where not
        applicable); ``"added_mass_max"``, ``"damping_max"``: their maxima (float);
        ``"worst_added_mass_dof"``, ``"worst_damping_dof"``: DOF names;
        ``"band"``: (w_lo, w_hi) rad/s actually used; ``"n_frequencies"``: number of
        data frequencies compared; ``"duration"``: T, s; ``"definition"``: the formula
        above as text.
    """
    tv = _time_grid(t, increasing=True)
    w = _frequencies(hd.omega)
    wc = _cut_frequency(w, omega_max)
    if band is None:
        lo, hi = float(w[0]), ROUNDTRIP_BAND_FRACTION * wc
    else:
        try:
            lo, hi = (as_finite(b, "band") for b in band)
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                f"band={band!r} must be a pair (w_lo, w_hi) in rad/s", value=band
            ) from exc
    sel = (w >= lo) & (w <= hi)
    if not np.any(sel):
        raise ConfigError(
            f"band={band!r} rad/s holds none of the data frequencies "
            f"[{w[0]:.6g}, {w[-1]:.6g}] rad/s",
            value=band,
        )
    wb = w[sel]
    k = radiation_irf(hd, tv, omega_max=omega_max, taper=taper)
    a_r = added_mass_from_irf(k, tv, hd.added_mass_inf, wb)
    b_r = damping_from_irf(k, tv, wb)

    def _errors(rebuilt: NDArray[np.float64], data: NDArray[np.float64]) -> NDArray[np.float64]:
        d = np.diagonal(data, axis1=1, axis2=2)
        r = np.diagonal(rebuilt, axis1=1, axis2=2)
        scale = np.abs(d).max(axis=0)
        err = np.abs(r - d).max(axis=0)
        out = np.full(d.shape[1], np.nan)
        nz = _active_dofs(scale)
        out[nz] = err[nz] / scale[nz]
        return out

    ea = _errors(a_r, hd.added_mass[sel])
    eb = _errors(b_r, hd.radiation_damping[sel])

    def _worst(e: NDArray[np.float64]) -> str:
        return DOF_NAMES[int(np.nanargmax(e))] if np.any(np.isfinite(e)) else ""

    return {
        "added_mass": ea,
        "damping": eb,
        "added_mass_max": float(np.nanmax(ea)) if np.any(np.isfinite(ea)) else float("nan"),
        "damping_max": float(np.nanmax(eb)) if np.any(np.isfinite(eb)) else float("nan"),
        "worst_added_mass_dof": _worst(ea),
        "worst_damping_dof": _worst(eb),
        "band": (float(wb[0]), float(wb[-1])),
        "n_frequencies": int(wb.size),
        "duration": float(tv[-1]),
        "definition": (
            "per DOF: max over band of |rebuilt - data| / max over band of |data| "
            "(diagonal terms; A via Ogilvie with the data's A_inf)"
        ),
    }
