"""Shared tools of the physics validation tests: model set-up, frequency-domain
predictions from the same data, and signal analysis (peaks, sinusoid fits)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import scipy.optimize
from numpy.typing import NDArray

from hydrofmu.config.configuration import resolve
from hydrofmu.runtime.hydrodata.model import HydroData
from hydrofmu.runtime.simulator.simulator import Simulator
from paths import DATA_DIR

SHARED = DATA_DIR
BEMIO_SPHERE = SHARED / "sphere_bemio.h5"


def bemio_sphere_body(**extra: Any) -> dict[str, Any]:
    """The IEA OES Task 10 sphere of ``sphere_bemio.h5`` (mass and inertia as the issue)."""
    body = {"name": "body", "hydro": str(BEMIO_SPHERE), "mass": 261.8e3,
            "inertia": [2.0e7, 2.0e7, 3.0e7]}
    body.update(extra)
    return body


def default_sphere_body(**extra: Any) -> dict[str, Any]:
    """The embedded default sphere (Capytaine, r = 5 m, cog 2 m below the centre)."""
    body = {"name": "body", "hydro": "builtin:sphere"}
    body.update(extra)
    return body


def make_simulator(body: dict[str, Any], **sections: dict[str, Any]) -> Simulator:
    """A Simulator for one body with configuration sections given as dictionaries."""
    data: dict[str, Any] = {"bodies": [body]}
    data.update(sections)
    bodies, cfg = resolve(data, Path.cwd())
    return Simulator(bodies, cfg)


def run(sim: Simulator, stop: float, h: float,
        inputs: Any = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Step ``sim`` to ``stop`` with communication step ``h``; outputs at every point.

    ``inputs(t) -> vector`` gives the input vector held over each step.
    """
    n = round(stop / h)
    t = np.arange(n + 1) * h
    out = np.empty((n + 1, sim.output_vector().size))
    if inputs is not None:
        sim.set_input_vector(inputs(t[0]))
    out[0] = sim.output_vector()
    for i in range(n):
        if inputs is not None:
            sim.set_input_vector(inputs(t[i]))
        sim.step(t[i], h)
        out[i + 1] = sim.output_vector()
    return t, out


def column(sim: Simulator, name: str) -> int:
    """Index of an output name in :meth:`Simulator.output_vector`."""
    return Simulator.output_names(sim.bodies, sim.config).index(name)


def lhs_matrices(sim: Simulator, hd: HydroData, omega: float) -> tuple[NDArray, NDArray]:
    """``M + A(w)`` and ``B(w)`` of body 0 at one frequency, (6, 6) each."""
    a, b = hd.coefficients_at(omega)
    return sim.mass[:6, :6] + a, b


def rao(sim: Simulator, hd: HydroData, omega: float, direction: float = 0.0,
        dofs: NDArray[np.bool_] | None = None) -> NDArray[np.complex128]:
    """Frequency-domain response per metre of wave amplitude, e^{+iwt}, free DOFs only.

    ``x = (-w^2 (M + A(w)) + i w B(w) + K)^{-1} X(w)`` with the same data and the same
    stiffness as the time-domain model (fixed DOFs removed).
    """
    free = sim.free[:6] if dofs is None else dofs
    m, b = lhs_matrices(sim, hd, omega)
    k = sim.part("hydrostatics").stiffness[:6, :6] + sim.part("viscous").linear[:6, :6] * 0.0
    z = -omega**2 * m + 1j * omega * b + k
    x = hd.excitation_at(omega, direction)
    idx = np.flatnonzero(free)
    out = np.zeros(6, dtype=complex)
    out[idx] = np.linalg.solve(z[np.ix_(idx, idx)], x[idx])
    return out


def natural_frequency(mass: float, stiffness: float, added: Any, lo: float, hi: float) -> float:
    """Solve ``w^2 (m + A(w)) = K`` for ``w`` in ``[lo, hi]`` (rad/s)."""
    return float(scipy.optimize.brentq(lambda w: w * w * (mass + added(w)) - stiffness, lo, hi))


def fit_sinusoid(t: NDArray, x: NDArray, omegas: list[float],
                 trend: bool = False) -> list[complex]:
    """Least-squares ``x = c0 [+ c1 t] + sum Re(z_k e^{i w_k t})``; returns the ``z_k``."""
    cols = [np.ones_like(t)]
    if trend:
        cols.append(t - t.mean())
    for w in omegas:
        cols += [np.cos(w * t), -np.sin(w * t)]
    a = np.column_stack(cols)
    coef, *_ = np.linalg.lstsq(a, x, rcond=None)
    k0 = 2 if trend else 1
    return [complex(coef[k0 + 2 * i], coef[k0 + 2 * i + 1]) for i in range(len(omegas))]


def peaks(t: NDArray, x: NDArray) -> tuple[NDArray, NDArray]:
    """Local maxima refined by a parabola through the three samples around each."""
    i = np.flatnonzero((x[1:-1] > x[:-2]) & (x[1:-1] >= x[2:])) + 1
    y0, y1, y2 = x[i - 1], x[i], x[i + 1]
    den = y0 - 2 * y1 + y2
    d = 0.5 * (y0 - y2) / den
    dt = t[1] - t[0]
    return t[i] + d * dt, y1 - 0.25 * (y0 - y2) * d


def log_decrement(tp: NDArray, xp: NDArray, n: int) -> tuple[float, float]:
    """Mean damped period and logarithmic decrement over the first ``n`` cycles."""
    period = float(np.mean(np.diff(tp[: n + 1])))
    delta = float(np.mean(np.log(xp[:n] / xp[1 : n + 1])))
    return period, delta


def damped_prediction(m_plus_a: float, b: float, k: float) -> tuple[float, float]:
    """Damped period (s) and logarithmic decrement of ``(m+A) x'' + B x' + K x = 0``."""
    wn = math.sqrt(k / m_plus_a)
    zeta = b / (2.0 * m_plus_a * wn)
    wd = wn * math.sqrt(1.0 - zeta * zeta)
    return 2.0 * math.pi / wd, 2.0 * math.pi * zeta / math.sqrt(1.0 - zeta * zeta)


def exact_decay(hd: HydroData, m: float, k: float, dof: int, x0: float,
                t: NDArray) -> NDArray[np.float64]:
    """Free decay of one DOF from ``x0`` at rest, by Fourier inversion of the same data.

    ``x(t) = x0 (1 - K int_0^t h)``, ``h(t) = 1/pi int_0^inf Re(H(w) e^{iwt}) dw`` with
    ``H = 1 / (-w^2 (m + A(w)) + i w B(w) + K)``; A, B linear between data points,
    ``A -> A_inf`` and ``B -> 0`` above the data, ``B`` linear to 0 below it. An
    independent route to the answer (no time stepping, no IRF).
    """
    w = np.linspace(1e-4, 60.0, 600_001)
    a = np.interp(w, hd.omega, hd.added_mass[:, dof, dof], right=hd.added_mass_inf[dof, dof])
    b = np.interp(w, hd.omega, hd.radiation_damping[:, dof, dof], right=0.0)
    low = w < hd.omega[0]
    b[low] *= w[low] / hd.omega[0]
    h = 1.0 / (-(w**2) * (m + a) + 1j * w * b + k)
    return np.array([
        x0 * (1.0 - k / np.pi * np.trapezoid((h * np.expm1(1j * w * ti) / (1j * w)).real, w))
        for ti in t
    ])
