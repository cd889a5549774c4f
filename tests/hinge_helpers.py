"""Frequency-domain answers for hinged models, from the same data the simulator uses.

A model whose constraint basis ``T`` (``q = T q_r``) leaves the hinge angle free has, at a
wave frequency ``w``, the reduced impedance

    Z_r(w) = T^T (-w^2 (M + A(w)) + i w (B(w) + C) + K) T

with ``M`` the bodies' mass matrices, ``A``, ``B`` the data's diagonal blocks (interpolated
in frequency), ``K`` and ``C`` the stiffness and damping the linear parts declare
(hydrostatics, the PTOs, the hinge's static load, a linear viscous damping). Body-to-body
blocks act only between moving bodies; the helpers assert that at most one body moves.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.optimize
from numpy.typing import NDArray

from hydrofmu.runtime.irf.checks import added_mass_from_irf, damping_from_irf
from hydrofmu.runtime.irf.transforms import radiation_irf
from hydrofmu.runtime.simulator.simulator import Simulator
from physics_helpers import fit_sinusoid, run

#: Parts whose linear_matrices() are the K and C of the frequency-domain model (radiation
#: is taken from the data instead).
LINEAR_KINDS = ("hydrostatics", "pto.linear", "joint.static_load", "viscous")


def _moving_body(sim: Simulator) -> int:
    basis = sim.constraints.basis
    moving = [k for k in range(sim.n // 6) if np.any(basis[6 * k : 6 * k + 6])]
    assert len(moving) == 1, f"one moving body expected, got {moving}"
    return moving[0]


def irf_coefficients(sim: Simulator, k_body: int, w: float) -> tuple[NDArray, NDArray]:
    """A(w) and B(w) of body ``k_body`` as the simulator's convolution realises them: rebuilt
    from its radiation kernel (the configured IRF duration at the internal step) and its
    A_inf by Ogilvie's relations, each (6, 6)."""
    hd = sim.bodies[k_body]
    rad = sim.config["radiation"]
    t = np.arange(round(float(rad["irf_duration"]) / sim.dt) + 1) * sim.dt
    k = radiation_irf(hd, t, omega_max=rad["omega_max"], taper=float(rad["taper"]))
    return (added_mass_from_irf(k, t, hd.added_mass_inf, [w])[0],
            damping_from_irf(k, t, [w])[0])


def reduced_matrices(sim: Simulator, w: float, *, irf: bool = False
                     ) -> tuple[NDArray, NDArray, NDArray, NDArray, NDArray]:
    """``T^T M T``, ``T^T A(w) T``, ``T^T (B(w) + C) T``, ``T^T K T`` and ``T`` of a model
    with one moving body, each reduced matrix (n_r, n_r); ``A``, ``B`` from the data, or
    as the convolution realises them (``irf``, :func:`irf_coefficients`)."""
    k_body = _moving_body(sim)
    basis = sim.constraints.basis
    n = sim.n
    a = np.zeros((n, n))
    b = np.zeros((n, n))
    sl = slice(6 * k_body, 6 * k_body + 6)
    a[sl, sl], b[sl, sl] = (irf_coefficients(sim, k_body, w) if irf
                            else sim.bodies[k_body].coefficients_at(w))
    k = np.zeros((n, n))
    c = np.zeros((n, n))
    for part in sim.parts:
        if part.kind in LINEAR_KINDS:
            lin = part.linear_matrices()
            assert lin is not None, part.kind
            k += lin[0]
            c += lin[1]
    m = sim.mass
    return (basis.T @ m @ basis, basis.T @ a @ basis, basis.T @ (b + c) @ basis,
            basis.T @ k @ basis, basis)


def response(sim: Simulator, w: float, direction: float = 0.0, *, irf: bool = False
             ) -> NDArray[np.complex128]:
    """Complex amplitude of every body DOF per unit wave amplitude at ``w`` (rad/s), (n,);
    ``irf``: with A(w), B(w) as the convolution realises them."""
    k_body = _moving_body(sim)
    m, a, b, k, basis = reduced_matrices(sim, w, irf=irf)
    x = np.zeros(sim.n, dtype=complex)
    x[6 * k_body : 6 * k_body + 6] = sim.bodies[k_body].excitation_at(w, direction)
    z = -w * w * (m + a) + 1j * w * b + k
    return basis @ np.linalg.solve(z, basis.T @ x)


def natural_mode(sim: Simulator, lo: float, hi: float, *, irf: bool = False
                 ) -> tuple[float, float]:
    """Undamped natural frequency (rad/s) of a one-DOF reduced model, the root of
    ``K - w^2 (M + A(w))`` in ``[lo, hi]``, and the damping ratio there
    ``B / (2 w (M + A))``; ``irf`` as in :func:`reduced_matrices`."""

    def real_part(w: float) -> float:
        m, a, _, k, _ = reduced_matrices(sim, w, irf=irf)
        assert m.shape == (1, 1), "one free DOF expected"
        return float(k[0, 0] - w * w * (m[0, 0] + a[0, 0]))

    wn = scipy.optimize.brentq(real_part, lo, hi, xtol=1e-12)
    m, a, b, _, _ = reduced_matrices(sim, wn, irf=irf)
    zeta = float(b[0, 0] / (2.0 * wn * (m[0, 0] + a[0, 0])))
    return wn, zeta


def damped_period_and_decrement(wn: float, zeta: float) -> tuple[float, float]:
    """Damped period (s) and logarithmic decrement of a mode ``wn``, ``zeta``."""
    root = math.sqrt(1.0 - zeta * zeta)
    return 2.0 * math.pi / (wn * root), 2.0 * math.pi * zeta / root


def steady_rao(sim: Simulator, period: float, stop: float, h: float, key: str,
               window: float | None = None, transient: tuple[float, ...] = ()) -> complex:
    """Complex amplitude of output ``key`` per unit elevation, fitted over the last
    ``window`` seconds (default five periods) of a run to ``stop``, together with
    sinusoids at the ``transient`` frequencies (rad/s: a lightly damped free mode)."""
    names = sim.output_names(sim.bodies, sim.config)
    t, out = run(sim, stop, h)
    w = 2 * math.pi / period
    keep = t >= stop - (5 * period if window is None else window)
    eta = fit_sinusoid(t[keep], out[keep, names.index("wave.elevation")], [w])[0]
    return fit_sinusoid(t[keep], out[keep, names.index(key)], [w, *transient])[0] / eta
