"""Exact LTI stepping (``hydrofmu.lti``) against scipy's matrix exponential and a tight
adaptive integration of the same equations."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.integrate
import scipy.linalg

from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.linear.lti import discretize, expm, particular_solution, ramped_components
from hydrofmu.runtime.linear.stepper import ExactStepper, SinusoidSegment

#: solve_ivp (DOP853) at rtol 1e-12, atol 1e-14 is the reference; its global error on these
#: few-second, O(1) problems is ~1e-11, so 1e-9 relative leaves a margin of 100.
IVP_TOL = 1e-9


def _oscillator(n_modes: int = 2) -> np.ndarray:
    """A damped chain of masses and springs, x = [q, v]: a stable, non-normal system."""
    rng = np.random.default_rng(7)
    k = np.diag(rng.uniform(2.0, 40.0, n_modes))
    k[0, 1] = k[1, 0] = -1.0
    c = np.diag(rng.uniform(0.05, 0.8, n_modes))
    m = np.diag(rng.uniform(0.5, 2.0, n_modes))
    minv = np.linalg.inv(m)
    f = np.zeros((2 * n_modes, 2 * n_modes))
    f[:n_modes, n_modes:] = np.eye(n_modes)
    f[n_modes:, :n_modes] = -minv @ k
    f[n_modes:, n_modes:] = -minv @ c
    return f


@pytest.mark.parametrize("scale", [1e-3, 0.3, 4.0, 60.0])
def test_expm_matches_scipy(scale: float) -> None:
    rng = np.random.default_rng(11)
    for _ in range(5):
        a = scale * rng.standard_normal((7, 7)) / np.sqrt(7)
        ref = scipy.linalg.expm(a)
        # Both are backward-stable Pade(13) scaling-and-squaring: they differ by the
        # round-off amplified by up to s squarings (s ~ log2(||a|| / 5.4) <= 4 here):
        # 1e-12 relative leaves a margin of ~1e3 ulps.
        err = np.linalg.norm(expm(a) - ref) / np.linalg.norm(ref)
        assert err < 1e-12, (scale, err)


def test_expm_of_oscillator_is_periodic_propagator() -> None:
    """Undamped oscillator: e^{F T} = I over one period (an exact identity)."""
    w = 2.0 * np.pi
    f = np.array([[0.0, 1.0], [-(w**2), 0.0]])
    # the identity holds to round-off; 1e-12 allows the ~10 squarings' growth
    assert np.allclose(expm(f * 1.0), np.eye(2), atol=1e-12)


def test_discretize_linear_input_matches_integration() -> None:
    f = _oscillator()
    rng = np.random.default_rng(3)
    g = rng.standard_normal((4, 2))
    x0 = rng.standard_normal(4)
    u0, u1 = np.array([1.0, -2.0]), np.array([0.5, 3.0])
    h = 0.7
    phi, gam0, gam1 = discretize(f, g, h)
    x_exact = phi @ x0 + gam0 @ u0 + gam1 @ (u1 - u0)
    sol = scipy.integrate.solve_ivp(
        lambda t, x: f @ x + g @ (u0 + (u1 - u0) * t / h), (0.0, h), x0,
        method="DOP853", rtol=1e-12, atol=1e-14)
    assert np.allclose(x_exact, sol.y[:, -1], rtol=IVP_TOL, atol=IVP_TOL)


def test_ramped_components_reproduce_the_ramped_forcing() -> None:
    rng = np.random.default_rng(5)
    omega = rng.uniform(0.3, 2.0, 6)
    c = rng.standard_normal((6, 2)) + 1j * rng.standard_normal((6, 2))
    t0, tr = 1.5, 20.0
    w3, c3 = ramped_components(omega, c, t0, tr)
    for t in np.linspace(t0, t0 + tr, 17):
        ramp = 0.5 * (1.0 - np.cos(np.pi * (t - t0) / tr))
        direct = ramp * (np.exp(1j * omega * t) @ c).real
        # an algebraic identity (products of cosines): round-off only
        assert np.allclose((np.exp(1j * w3 * t) @ c3).real, direct, atol=1e-12)


def _ramped_case():
    f = _oscillator()
    rng = np.random.default_rng(9)
    g_w = rng.standard_normal((4, 1))
    g_u = rng.standard_normal((4, 1))
    omega = np.array([0.9, 1.7, 3.1])
    c = np.array([[1.0 + 0.5j], [-0.3 + 0.2j], [0.1 - 0.4j]])
    t0, tr = 0.0, 3.0
    w3, c3 = ramped_components(omega, c, t0, tr)
    segs = [
        SinusoidSegment(t_start=-np.inf, t_end=t0, omega=np.zeros(0),
                        amplitudes=np.zeros((0, 4), complex)),
        SinusoidSegment(t_start=t0, t_end=t0 + tr, omega=w3,
                        amplitudes=particular_solution(f, g_w, w3, c3)),
        SinusoidSegment(t_start=t0 + tr, t_end=np.inf, omega=omega,
                        amplitudes=particular_solution(f, g_w, omega, c)),
    ]

    def forcing(t: float) -> float:
        ramp = 0.0 if t <= t0 else (1.0 if t >= t0 + tr else
                                    0.5 * (1.0 - np.cos(np.pi * (t - t0) / tr)))
        return ramp * float((np.exp(1j * omega * t) @ c[:, 0]).real)

    return f, g_u, g_w, segs, forcing


def _pto(t: float) -> float:
    """A sampled input: piecewise linear between the 0.5 s samples (what a first-order hold
    reproduces exactly at a communication step of 0.5 s or a divisor of it)."""
    knots = np.arange(0.0, 10.5, 0.5)
    return float(np.interp(t, knots, np.sin(1.3 * knots)))


@pytest.mark.parametrize("h", [0.01, 0.1, 0.5])
def test_exact_stepper_through_the_ramp(h: float) -> None:
    f, g_u, g_w, segs, forcing = _ramped_case()
    stepper = ExactStepper(f=f, g_u=g_u, segments=segs, hold="linear")
    x = np.array([0.2, -0.1, 0.0, 0.3])
    t_end = 6.0
    n = round(t_end / h)
    for k in range(n):
        t = k * h
        x = stepper.step(t, x, h, np.array([_pto(t)]), np.array([_pto(t + h)]))
    sol = scipy.integrate.solve_ivp(
        lambda t, y: f @ y + g_w[:, 0] * forcing(t) + g_u[:, 0] * _pto(t), (0.0, t_end),
        [0.2, -0.1, 0.0, 0.3], method="DOP853", rtol=1e-12, atol=1e-14,
        t_eval=[t_end], max_step=0.05)
    # exact to round-off at any step length (the ramp end at 3 s splits a step when needed)
    assert np.allclose(x, sol.y[:, -1], rtol=IVP_TOL, atol=IVP_TOL), (h, x - sol.y[:, -1])


def test_particular_solution_refuses_resonance() -> None:
    w = 2.0
    f = np.array([[0.0, 1.0], [-(w**2), 0.0]])
    with pytest.raises(ConfigError, match="resonates"):
        particular_solution(f, np.eye(2)[:, 1:], [w], [[1.0]])


def test_bad_step_is_refused() -> None:
    with pytest.raises(ConfigError, match="step"):
        discretize(np.eye(2), np.ones((2, 1)), float("nan"))
