"""The length of an IRF kernel: how long the radiation or excitation memory is kept.

"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import ConfigError, as_finite
from ..runtime.hydrodata.model import HydroData
from ..runtime.irf.fourier import check_frequencies, cut_frequency
from ..runtime.irf.transforms import active_dofs, excitation_irf, radiation_envelope, radiation_irf

#: Default decay threshold of :func:`default_irf_time`: the kernel is kept until its
#: normalised magnitude stays below this fraction of its maximum.
DEFAULT_DECAY_THRESHOLD: float = 1e-3
#: Default cap on the kernel duration chosen by :func:`default_irf_time`, s.
DEFAULT_MAX_DURATION: float = 60.0


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
    wc = cut_frequency(check_frequencies(hd.omega), omega_max)
    t_end = max(tmax, dur or 0.0)
    t_probe = np.linspace(0.0, t_end, math.ceil(t_end / (np.pi / (4.0 * wc))) + 1)
    k = radiation_irf(hd, t_probe, omega_max=omega_max, taper=taper)
    envelope = radiation_envelope(k)
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
    wc = cut_frequency(check_frequencies(hd.omega), omega_max)
    t_end = max(tmax, dur or 0.0)
    n_probe = math.ceil(t_end / (np.pi / (4.0 * wc))) + 1
    t_pos = np.linspace(0.0, t_end, n_probe)
    kx = excitation_irf(
        hd, np.concatenate([-t_pos, t_pos]), direction, omega_max=omega_max, taper=taper
    )
    mag = np.abs(kx)
    peak = mag.max(axis=0)
    active = active_dofs(peak)
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

