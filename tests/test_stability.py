"""The stability survey (``docs/stability/run.py``) pinned: closed-form limits and the
seed's qualitative claims, with the survey's own code and criterion (amplitude at most 1.5
times the initial one after 20 natural periods, never above 10 times)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

_SPEC = importlib.util.spec_from_file_location(
    "stability_survey", Path(__file__).resolve().parents[1] / "docs" / "stability" / "run.py"
)
survey = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(survey)


def stable(name: str, zeta: float, *x: float) -> list[bool]:
    return [bool(v) for v in survey.stable_mask(name, zeta, np.array(x, dtype=float))]


@pytest.mark.parametrize(("name", "limit"), [("rk3", math.sqrt(3.0)),
                                             ("rk4", 2.0 * math.sqrt(2.0))])
def test_runge_kutta_limits_on_the_undamped_spring(name: str, limit: float) -> None:
    """RK3 and RK4 are stable on the imaginary axis up to w h = sqrt 3 and 2 sqrt 2
    (closed form); 5 % either side the growth per step is far from 1 (|R| <= 0.9 below,
    >= 1.1 above for both), so the 20-period criterion resolves the limit."""
    assert stable(name, 0.0, 0.95 * limit, 1.05 * limit) == [True, False]


def test_explicit_euler_never_survives_the_undamped_spring() -> None:
    """|1 + i w h| > 1: Euler grows at every step; over 20 periods exp(20 pi w h) > 1.5
    for w h >= 0.007."""
    assert stable("euler", 0.0, 0.01, 0.1, 1.0) == [False, False, False]


def test_stiff_heave_midpoint_survives_where_rk2_diverges() -> None:
    """Seed: the implicit midpoint is stable with few substeps where rk2 diverges. Stiff
    heave (sphere on a mooring of 100 K33, zeta ~ 0.006) at w h = 0.45 (h ~ 0.032 s): rk2
    (limit 0.38 in the survey) diverges, midpoint2 and midpoint3 survive, and so does
    midpoint10 at w h = 2.5, more than six times rk2's limit."""
    _, zeta = survey.heave_case()
    assert stable("rk2", zeta, 0.45) == [False]
    assert stable("midpoint2", zeta, 0.45) == [True]
    assert stable("midpoint3", zeta, 0.45) == [True]
    assert stable("midpoint10", zeta, 2.5) == [True]


def test_more_substeps_buy_stability() -> None:
    """beuler: the relaxed iteration converges for larger w h with more substeps
    (survey: 0.57, 1.21, 2.04 for N = 1, 5, 20)."""
    assert stable("beuler1", 0.0, 1.0) == [False]
    assert stable("beuler5", 0.0, 1.0) == [True]
    assert stable("beuler20", 0.0, 1.0, 1.9) == [True, True]


def test_aca_is_unconditionally_stable_when_its_iteration_converges() -> None:
    """Seed: aca (Newmark average constant acceleration = the trapezoid on the whole
    state) is unconditionally stable, |R| = 1 on the undamped spring, when its iteration
    converges. At w h = 3 (beyond rk4's 2 sqrt 2): with 400 substeps the last residual
    of MoorDyn's relaxed iteration is below 1e-3 (measured 5e-4) and the amplitude after
    20 periods is 1 within 2 % (measured 1.009; what is left of the residual); rk4
    diverges there, and aca20, whose iteration has not converged (relaxation weight of
    the old iterate 0.85 to 1.0), survives only by numerical dissipation."""
    from hydrofmu.runtime.schemes.registry import make_scheme

    x = 3.0
    scheme = make_scheme("aca400")
    y = np.array([1.0, 0.0])
    residual = 0.0
    for i in range(math.ceil(20 * 2 * math.pi / x)):
        y = scheme.step(lambda t, s: np.array([s[1], -x * x * s[0]]), float(i), y, 1.0)
        residual = max(residual, scheme.last_residual)
    assert residual < 1e-3
    assert math.hypot(y[0], y[1] / x) == pytest.approx(1.0, abs=0.02)
    assert stable("rk4", 0.0, x) == [False]
    assert stable("aca20", 0.0, x) == [True]
