"""The integrator family: registry, method data, measured convergence order, memory."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hydrofmu.runtime.errors import ConfigError, IntegrationError
from hydrofmu.runtime.schemes.adams_bashforth import ADAMS_BASHFORTH, AdamsBashforth
from hydrofmu.runtime.schemes.base import TimeScheme
from hydrofmu.runtime.schemes.registry import SCHEMES, make_scheme
from hydrofmu.runtime.schemes.runge_kutta import RUNGE_KUTTA, ExplicitRungeKutta
from hydrofmu.runtime.schemes.semi_implicit import (
    AverageConstantAcceleration,
    BackwardEuler,
    Midpoint,
    SemiImplicit,
    WilsonTheta,
)

#: Every fixed name, and each semi-implicit family with 1, 3 and 10 substeps.
CONCRETE = sorted(
    [n for n, c in SCHEMES.items() if not issubclass(c, SemiImplicit)]
    + [f"{c.name}{k}" for n, c in SCHEMES.items() if issubclass(c, SemiImplicit)
       for k in (1, 3, 10)]
)

MOORDYN_NAMES = {"euler", "heun", "rk2", "rk3", "rk4", "ab2", "ab3", "ab4", "ab5", "leuler",
                 "lab2", "lab3", "lab4", "lab5", "beulerN", "midpointN", "andersonN", "acaN",
                 "wilsonN"}


def test_every_moordyn_name_is_registered() -> None:
    assert MOORDYN_NAMES <= set(SCHEMES)
    assert set(SCHEMES) - MOORDYN_NAMES == {"rk2heun"}


@pytest.mark.parametrize("cls", RUNGE_KUTTA, ids=lambda c: c.name)
def test_tableau_consistency(cls: type[ExplicitRungeKutta]) -> None:
    """Sum B = 1, A.sum(1) = C, explicit, and the order conditions up to the order."""
    a, b, c = cls.A, cls.B, cls.C
    assert b.sum() == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(a.sum(axis=1), c, atol=1e-15)
    assert np.all(np.triu(a) == 0.0)  # explicit
    conditions = {
        2: [(b @ c, 1 / 2)],
        3: [(b @ c**2, 1 / 3), (b @ a @ c, 1 / 6)],
        4: [(b @ c**3, 1 / 4), (b @ (c * (a @ c)), 1 / 8), (b @ a @ c**2, 1 / 12),
            (b @ a @ a @ c, 1 / 24)],
    }
    for p in range(2, cls.order + 1):
        for value, exact in conditions[p]:
            assert value == pytest.approx(exact, abs=1e-14)  # rational data to round-off
    if cls.order < 4:  # the next order's conditions must fail, or the order is understated
        assert any(abs(v - e) > 1e-3 for v, e in conditions[cls.order + 1])


@pytest.mark.parametrize("cls", ADAMS_BASHFORTH, ids=lambda c: c.name)
def test_adams_bashforth_coefficients(cls: type[AdamsBashforth]) -> None:
    """Exact on polynomials of degree < P: sum_j beta_j (-j)^k = 1/(k+1), k = 0..P-1."""
    p = cls.BETA.size
    assert p == cls.order
    j = np.arange(p)
    for k in range(p):
        assert cls.BETA @ (-j) ** k == pytest.approx(1.0 / (k + 1), abs=1e-13)
    assert cls.STARTER.order >= min(p, 4)


def test_relaxation_constants_are_moordyns() -> None:
    """MoorDyn-C v2.7.1 source/Time.cpp: Euler family (0.9, 0), Newmark (0.9, 0.15),
    Wilson (0.015, 0), theta = 1.37; relaxation formula of ImplicitSchemeBase::Relax."""
    assert (BackwardEuler.C0, BackwardEuler.C1) == (0.9, 0.0)
    assert (Midpoint.C0, Midpoint.C1, Midpoint.STAGE) == (0.9, 0.0, 0.5)
    assert (AverageConstantAcceleration.C0, AverageConstantAcceleration.C1) == (0.9, 0.15)
    assert (WilsonTheta.C0, WilsonTheta.C1, WilsonTheta.THETA) == (0.015, 0.0, 1.37)
    aca = make_scheme("aca4")
    # i = 1 of 4: x = 4 (2/4 - 1/2) = 0, tanh 0 = 0 -> 0.9 * 3/4 + 0.15 * 1/2
    assert aca.relax(1) == pytest.approx(0.9 * 0.75 + 0.15 * 0.5, abs=1e-15)
    assert make_scheme("beuler1").relax(0) == 0.0  # one iteration: nothing to relax


def _spring_error(scheme: TimeScheme, h: float, w: float, t_end: float) -> float:
    """Error at t_end of r'' = -w^2 r, r(0) = 1, r'(0) = 0 (exact: cos w t), in r units."""

    def f(t: float, y: np.ndarray) -> np.ndarray:
        return np.array([y[1], -w * w * y[0]])

    y = np.array([1.0, 0.0])
    for i in range(round(t_end / h)):
        y = scheme.step(f, i * h, y, h)
    return float(np.hypot(y[0] - math.cos(w * t_end), (y[1] + w * math.sin(w * t_end)) / w))


@pytest.mark.parametrize("name", CONCRETE)
def test_measured_convergence_order(name: str) -> None:
    """Halving the step divides the error by 2^order: measured order within 0.15.

    y'' = -y over 2 s, steps 0.02 and 0.01: small enough for the asymptotic regime,
    large enough that ab5's error (~1e-11) stays far above round-off (~1e-15).
    """
    e1 = _spring_error(make_scheme(name), 0.02, 1.0, 2.0)
    e2 = _spring_error(make_scheme(name), 0.01, 1.0, 2.0)
    assert math.log2(e1 / e2) == pytest.approx(make_scheme(name).order, abs=0.15)


@pytest.mark.parametrize("name", CONCRETE)
def test_measured_order_on_the_seed_spring(name: str) -> None:
    """The seed's spring (w = 2 pi, one period) at h = 1/200 and 1/400 s: order within 0.3.

    w h <= 0.031: asymptotic regime for every scheme; the smallest error (ab5, ~2e-9)
    is six orders above round-off.
    """
    w = 2.0 * math.pi
    e1 = _spring_error(make_scheme(name), 1 / 200, w, 1.0)
    e2 = _spring_error(make_scheme(name), 1 / 400, w, 1.0)
    assert math.log2(e1 / e2) == pytest.approx(make_scheme(name).order, abs=0.3)


def test_time_dependent_rhs_uses_stage_times() -> None:
    """y' = cos t from 0: y = sin t; a scheme that ignored C would be first order."""
    for name in ("rk4", "heun", "ab3", "midpoint3", "aca3", "wilson3"):
        scheme = make_scheme(name)
        y = np.zeros(1)
        h = 0.01
        for i in range(200):
            y = scheme.step(lambda t, _y: np.array([math.cos(t)]), i * h, y, h)
        # second-order schemes: error ~ h^2 / 12 * |y'''| * t ~ 2e-5; 1e-4 leaves room
        assert y[0] == pytest.approx(math.sin(2.0), abs=1e-4), name


def test_names_errors_and_user_subclass() -> None:
    with pytest.raises(ConfigError, match=r"unknown time_scheme 'rk5'.*rk4.*available"):
        make_scheme("rk5")
    with pytest.raises(ConfigError, match=r"'beuler0'.*at least one substep.*beuler5"):
        make_scheme("beuler0")
    with pytest.raises(ConfigError, match=r"'midpointx'.*integer number of substeps"):
        make_scheme("midpointx")
    with pytest.raises(ConfigError, match=r"'aca'.*number of substeps.*aca5"):
        make_scheme("aca")
    with pytest.raises(ConfigError, match=r"did you mean 'lab3'"):
        make_scheme("lab33")
    assert make_scheme("RK4").name == "rk4"
    assert make_scheme(" Midpoint12 ").label == "midpoint12"
    assert make_scheme("midpoint12").substeps == 12

    class Mine(ExplicitRungeKutta):
        name = "mine"
        order = 2
        A = np.array([[0.0, 0.0], [0.5, 0.0]])
        B = np.array([0.0, 1.0])
        C = np.array([0.0, 0.5])

    assert isinstance(make_scheme(Mine), Mine)


def test_schemes_declare_what_another_stepper_may_replace() -> None:
    """An explicit Runge-Kutta scheme declares that its step is its tableau (a compiled or
    linear stepper may take it); no other scheme does, nor a subclass that changes the
    step. A carried derivative is handed out only for the time it belongs to."""
    for name, cls in SCHEMES.items():
        scheme = make_scheme(name.replace("N", "2") if name.endswith("N") else name)
        assert scheme.explicit_tableau == (cls in RUNGE_KUTTA), name

    class Changed(ExplicitRungeKutta):
        name, order, explicit_tableau = "changed", 1, False
        A, B, C = np.zeros((1, 1)), np.array([1.0]), np.array([0.0])

    assert not Changed().explicit_tableau
    scheme = make_scheme("midpoint3")
    f = lambda t, y: -y  # noqa: E731
    y = np.array([1.0, 2.0])
    assert scheme.carried(0.0, y.shape, 0.1) is None  # nothing before the first step
    scheme.step(f, 0.0, y, 0.1)
    d = scheme.carried(0.1, y.shape, 0.1)
    assert d is not None and d.shape == y.shape
    assert scheme.carried(0.2, y.shape, 0.1) is None  # another time: restart
    assert scheme.carried(0.1, (3,), 0.1) is None  # another state
    scheme.carry(np.array([5.0, 6.0]), 0.1)
    np.testing.assert_array_equal(scheme.get_state()["d"], [5.0, 6.0])


def test_non_finite_state_raises() -> None:
    with pytest.raises(
        IntegrationError, match=r"'euler'.*non-finite state.*reduce max_internal_step"
    ):
        make_scheme("euler").step(lambda t, y: y * np.inf, 0.0, np.ones(2), 0.1)


def test_divergence_message_names_scheme_step_time_and_advice() -> None:
    """rk2 at w h = 1e4 grows ~(w h)^2 / 2 = 5e7 times in one step: exploding."""
    w = 1.0e4

    def f(t: float, y: np.ndarray) -> np.ndarray:
        return np.array([y[1], -w * w * y[0]])

    with pytest.raises(IntegrationError) as info:
        make_scheme("rk2").step(f, 3.0, np.array([1.0, 0.0]), 1.0)
    msg = str(info.value)
    for part in ("'rk2'", "exploding", "t = 3 s", "h = 1 s", "max_internal_step", "midpoint5"):
        assert part in msg, (part, msg)


def _counting(w: float = 2.0 * math.pi) -> tuple[list[int], object]:
    calls = [0]

    def f(t: float, y: np.ndarray) -> np.ndarray:
        calls[0] += 1
        return np.array([y[1], -w * w * y[0]])

    return calls, f


def test_evaluations_per_step() -> None:
    """MoorDyn's heun and beulerN/midpointN reuse the last derivative: 1 and N per step."""
    expected = {"heun": 1, "rk2heun": 2, "rk4": 4, "ab3": 1, "midpoint5": 5, "beuler3": 3,
                "aca5": 6, "wilson2": 3}
    for name, per_step in expected.items():
        scheme = make_scheme(name)
        calls, f = _counting()
        y, h = np.array([1.0, 0.0]), 0.01
        for i in range(3):  # start-up
            y = scheme.step(f, i * h, y, h)
        calls[0] = 0
        for i in range(3, 13):
            y = scheme.step(f, i * h, y, h)
        assert calls[0] == 10 * per_step, name


@pytest.mark.parametrize("name", ["ab2", "ab3", "ab5", "lab4", "heun", "midpoint3",
                                  "anderson4", "leuler"])
def test_memory_round_trip_and_restart(name: str) -> None:
    """get_state holds finite arrays only; restoring them continues bit-identically; an
    empty state restarts the scheme (a step-size change or an off-grid step too)."""
    _, f = _counting()
    scheme = make_scheme(name)
    y, h = np.array([1.0, 0.0]), 0.01
    for i in range(8):
        y = scheme.step(f, i * h, y, h)
    saved, y_saved = scheme.get_state(), y.copy()
    assert all(isinstance(v, np.ndarray) and np.all(np.isfinite(v)) for v in saved.values())
    run = []
    for i in range(8, 14):
        y = scheme.step(f, i * h, y, h)
        run.append(y)
    other = make_scheme(name)
    other.set_state(saved)
    y = y_saved
    for i, ref in zip(range(8, 14), run, strict=True):
        y = other.step(f, i * h, y, h)
        assert np.array_equal(y, ref)
    fresh = make_scheme(name)
    restarted = make_scheme(name)
    restarted.set_state({})
    assert np.array_equal(restarted.step(f, 0.08, y_saved, h), fresh.step(f, 0.08, y_saved, h))


def _simulator_pattern(name: str, h: float, comm: float, t_end: float) -> tuple[float, object]:
    """Step like system.Simulator: a grid of h from 0, cut at communication points."""
    w = 2.0 * math.pi

    def f(t: float, y: np.ndarray) -> np.ndarray:
        return np.array([y[1], -w * w * y[0]])

    scheme = make_scheme(name)
    y, t, k = np.array([1.0, 0.0]), 0.0, 0
    for j in range(1, round(t_end / comm) + 1):
        t_stop = j * comm
        while t < t_stop - 1e-12:
            t_grid = (k + 1) * h
            on_grid = t_grid <= t_stop + 1e-12
            t_next = t_grid if on_grid else t_stop
            y = scheme.step(f, t, y, t_next - t)
            t = t_next
            if on_grid:
                k += 1
                t = k * h
    err = float(np.hypot(y[0] - math.cos(w * t_end), (y[1] + w * math.sin(w * t_end)) / w))
    return err, scheme


@pytest.mark.parametrize("name", ["ab2", "ab3", "ab4"])
def test_multistep_order_survives_off_grid_communication_points(name: str) -> None:
    """Communication every 0.1 s on an internal grid of 0.03 s (then 0.015 s): two short
    steps per interval; they use the RK starter and leave the grid history intact, so the
    order stays within 0.3 of nominal and most steps are multistep ones."""
    e1, _ = _simulator_pattern(name, 0.03, 0.1, 2.0)
    e2, s2 = _simulator_pattern(name, 0.015, 0.1, 2.0)
    order = make_scheme(name).order
    assert math.log2(e1 / e2) == pytest.approx(order, abs=0.3)
    assert s2.multistep > 3 * s2.started  # the history survives the short steps
