"""Impulse-response functions (IRFs) of the radiation and excitation forces: the transforms.

The segment-exact Fourier integrals are in :mod:`hydrofmu.runtime.irf.fourier`; the length
is chosen in :mod:`hydrofmu.statespace.irf_duration`; the checks of a kernel (the Ogilvie
round trip, the cut-off part of a non-causal kernel) are in :mod:`hydrofmu.runtime.irf.checks`.

Run-time module: numpy and the standard library only, project imports relative.

Definitions (``e^{+i omega t}`` convention, see :mod:`hydrofmu.runtime.hydrodata.model`):

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

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..hydrodata.model import HydroData
from .fourier import fourier_integral_linear, prepare_spectrum, time_grid

__all__ = [
    "NEGLIGIBLE_FRACTION",
    "excitation_irf",
    "excitation_irf_from_arrays",
    "fourier_integral_linear",
    "radiation_irf",
    "radiation_irf_from_arrays",
]


# A DOF whose coefficient is below this fraction of the largest one of the same kind
# (translations 0-2, rotations 3-5, compared only among themselves since their units
# differ) is numerical noise, e.g. the yaw of an axisymmetric body.
NEGLIGIBLE_FRACTION: float = 1e-6


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
    tv = time_grid(t)
    w, v = prepare_spectrum(
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

def active_dofs(scale: NDArray[np.float64]) -> NDArray[np.bool_]:
    """DOFs whose magnitude ``scale`` (n,) is not negligible, see NEGLIGIBLE_FRACTION.

    For 6 DOFs translations and rotations are compared separately; otherwise all at once.
    """
    groups = [np.arange(3), np.arange(3, 6)] if scale.size == 6 else [np.arange(scale.size)]
    active = np.zeros(scale.size, dtype=bool)
    for g in groups:
        top = float(scale[g].max())
        active[g] = (scale[g] > NEGLIGIBLE_FRACTION * top) & (top > 0.0)
    return active


def radiation_envelope(k: NDArray[np.float64]) -> NDArray[np.float64]:
    """``max`` over DOF pairs of ``|K_ij(t)| / sqrt(max|K_ii| max|K_jj|)``, shape (nt,)."""
    diag = np.abs(np.diagonal(k, axis1=1, axis2=2)).max(axis=0)
    active = active_dofs(diag)
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
    tv = time_grid(t)
    w, v = prepare_spectrum(
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

