"""The integrator family: tableau consistency and measured convergence order."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hydrofmu.errors import ConfigError, IntegrationError
from hydrofmu.timeschemes import SCHEMES, ExplicitRungeKutta, TimeScheme, make_scheme


@pytest.mark.parametrize("name", sorted(SCHEMES))
def test_tableau_consistency(name: str) -> None:
    cls = SCHEMES[name]
    if not issubclass(cls, ExplicitRungeKutta):
        pytest.fail(f"{name} is not an explicit RK scheme; add its own consistency test")
    assert cls.B.sum() == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(cls.A.sum(axis=1), cls.C, atol=1e-15)
    assert np.all(np.triu(cls.A) == 0.0)  # explicit


def _oscillator_error(scheme: TimeScheme, h: float, t_end: float = 2.0) -> float:
    """Error at t_end of y'' = -y, y(0) = 1, y'(0) = 0 (exact: cos t)."""

    def f(t: float, y: np.ndarray) -> np.ndarray:
        return np.array([y[1], -y[0]])

    y = np.array([1.0, 0.0])
    n = round(t_end / h)
    for i in range(n):
        y = scheme.step(f, i * h, y, h)
    return float(np.hypot(y[0] - math.cos(t_end), y[1] + math.sin(t_end)))


@pytest.mark.parametrize("name", sorted(SCHEMES))
def test_measured_convergence_order(name: str) -> None:
    """Halving the step divides the error by 2^order: measured order within 0.15.

    Steps 0.02 and 0.01 on a 2 s oscillator: small enough for the asymptotic regime,
    large enough that RK4's error (~1e-10) stays far above round-off (~1e-15).
    """
    scheme = make_scheme(name)
    e1 = _oscillator_error(scheme, 0.02)
    e2 = _oscillator_error(scheme, 0.01)
    assert math.log2(e1 / e2) == pytest.approx(scheme.order, abs=0.15)


def test_time_dependent_rhs_uses_stage_times() -> None:
    """y' = cos t from 0: y = sin t; a scheme that ignored C would be first order."""
    scheme = make_scheme("rk4")
    y = np.zeros(1)
    h = 0.1
    for i in range(20):
        y = scheme.step(lambda t, _y: np.array([math.cos(t)]), i * h, y, h)
    assert y[0] == pytest.approx(math.sin(2.0), abs=1e-6)


def test_unknown_scheme_and_user_subclass() -> None:
    with pytest.raises(ConfigError, match=r"unknown time_scheme 'rk5'.*available"):
        make_scheme("rk5")
    assert make_scheme("RK4").name == "rk4"

    class Midpoint(ExplicitRungeKutta):
        name = "mine"
        order = 2
        A = np.array([[0.0, 0.0], [0.5, 0.0]])
        B = np.array([0.0, 1.0])
        C = np.array([0.0, 0.5])

    assert isinstance(make_scheme(Midpoint), Midpoint)


def test_non_finite_state_raises() -> None:
    with pytest.raises(IntegrationError, match=r"non-finite state.*reduce max_internal_step"):
        make_scheme("euler").step(lambda t, y: y * np.inf, 0.0, np.ones(2), 0.1)
