"""The quasi-static elastic catenary against closed forms and limits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hydrofmu.runtime.moorings.catenary import Catenary, CatenaryError
from hydrofmu.runtime.moorings.quasistatic import CatenaryMooring

W = (100.0 - 1025.0 * math.pi / 4 * 0.1**2) * 9.80665  # submerged chain weight, N/m


def inextensible_seabed_span(h: float, zf: float, length: float, w: float) -> float:
    """Textbook inextensible catenary touching down on the seabed (Faltinsen 1990, ch. 8).

    Suspended length ``Ls = sqrt(ZF^2 + 2 ZF a)``, ``a = H/w``; span ``L - Ls + a asinh(Ls/a)``.
    """
    a = h / w
    ls = math.sqrt(zf * zf + 2 * zf * a)
    return length - ls + a * math.asinh(ls / a)


@pytest.mark.parametrize("xf", [170.0, 200.0, 222.0])
def test_inextensible_limit_matches_textbook_chain(xf: float) -> None:
    zf, length = 90.0, 250.0
    cat = Catenary(length=length, weight=W, ea=math.inf)
    sol = cat.solve(xf, zf)
    # invert the textbook span formula for H by bisection (independent of the solver)
    lo, hi = 1e-3, 1e9
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if inextensible_seabed_span(mid, zf, length, W) < xf else (lo, mid)
    # both are converged to round-off; 1e-7 leaves room for the bisection's last interval
    assert sol.HF == pytest.approx(lo, rel=1e-7)
    a = lo / W
    assert sol.VF == pytest.approx(W * math.sqrt(zf * zf + 2 * zf * a), rel=1e-7)
    assert sol.VA == 0.0 and sol.HA == sol.HF  # no friction: the bottom tension is HF


def test_taut_weightless_line_is_a_spring() -> None:
    ea, length = 1e8, 100.0
    cat = Catenary(length=length, weight=1e-6, ea=ea, seabed=False)
    xf, zf = 80.0, 60.5  # chord 100.3 m: 0.3 % strain
    sol = cat.solve(xf, zf)
    chord = math.hypot(xf, zf)
    # weight 1e-4 N in all against 3e5 N of tension: the straight spring is exact to ~1e-9
    assert sol.fairlead_tension == pytest.approx(ea * (chord - length) / length, rel=1e-6)
    assert sol.VF / sol.HF == pytest.approx(zf / xf, rel=1e-6)


def test_profile_satisfies_the_equilibrium_of_each_element() -> None:
    cat = Catenary(length=250.0, weight=W, ea=5e8)
    sol = cat.solve(220.0, 90.0)
    s = np.linspace(sol.LB + 1e-6, 250.0, 2001)
    x, z, t = cat.profile(sol, s)
    # slope of the suspended part equals V/H, with V = w (s - LB) (element equilibrium)
    slope = np.gradient(z, x)
    v = W * (s - sol.LB)
    # central differences on 2001 points: O(ds^2) error, ~1e-5 relative
    np.testing.assert_allclose(slope[1:-1], (v / sol.HF)[1:-1], rtol=2e-4, atol=2e-4)
    # the end reproduces the span and the tension there is the fairlead tension
    assert x[-1] == pytest.approx(220.0, abs=1e-7) and z[-1] == pytest.approx(90.0, abs=1e-7)
    assert t[-1] == pytest.approx(sol.fairlead_tension, rel=1e-12)
    # stretch: the arc length of the profile exceeds L by the integral of T/EA
    arc = np.sum(np.hypot(np.diff(x), np.diff(z)))
    stretch = np.trapezoid(t, s) / 5e8
    assert arc == pytest.approx(250.0 - sol.LB + stretch, rel=1e-6)  # chord sum on 2000 pieces


@pytest.mark.parametrize(("xf", "zf", "kind"), [(205.0, 90.0, "slack"), (220.0, 90.0, "seabed"),
                                                (238.0, 90.0, "lifted"), (250.5, 5.0, "taut")])
def test_slack_taut_and_lifted_lines_are_solved(xf: float, zf: float, kind: str) -> None:
    cat = Catenary(length=250.0, weight=W, ea=5e8)
    sol = cat.solve(xf, zf)
    rx, rz = cat.span(sol.HF, sol.VF)
    assert (rx, rz) == pytest.approx((xf, zf), abs=1e-6)  # solver tolerance 1e-10 * L
    if kind == "lifted":
        assert sol.LB == 0.0 and sol.VA > 0
    elif kind in ("seabed", "slack"):
        assert sol.LB > 0 and sol.VA == 0.0


def test_line_too_long_lies_slack_with_zero_horizontal_tension() -> None:
    cat = Catenary(length=250.0, weight=W, ea=5e8)
    sol = cat.solve(100.0, 90.0)
    assert sol.HF == 0.0
    # the hanging 90 m carries its own weight (stretch 90 m * w * 45 m / EA ~ 7 mm)
    assert sol.VF == pytest.approx(W * 90.0, rel=1e-4)


def test_seabed_friction_reduces_the_anchor_tension() -> None:
    plain = Catenary(length=250.0, weight=W, ea=5e8).solve(220.0, 90.0)
    rough = Catenary(length=250.0, weight=W, ea=5e8, cb=0.1).solve(220.0, 90.0)
    # CB w LB = 0.1 * 902 * 61 N ~ 5.5 kN taken by the bottom
    assert rough.HA == pytest.approx(rough.HF - 0.1 * W * rough.LB, rel=1e-9)
    assert rough.HF == pytest.approx(plain.HF, rel=1e-3)  # friction stretches the bed part less


def test_a_line_that_cannot_reach_is_refused() -> None:
    cat = Catenary(length=250.0, weight=W, ea=5e8)
    with pytest.raises(CatenaryError, match="cannot reach"):
        cat.solve(300.0, 200.0)
    with pytest.raises(CatenaryError, match="cannot reach"):
        Catenary(length=250.0, weight=W, ea=math.inf).solve(250.0, 10.0)
    with pytest.raises(CatenaryError, match="weight"):
        Catenary(length=250.0, weight=-1.0, ea=5e8)


def test_stiffness_at_the_body_is_symmetric_and_matches_the_force_slope() -> None:
    line = Catenary(length=250.0, weight=W, ea=5e8)
    moor = CatenaryMooring(anchor=np.array([-220.0, 0.0, -100.0]),
                           fairlead=np.array([0.0, 2.0, -10.0]), line=line)
    pose = np.zeros(6)
    k = moor.stiffness(pose)
    # a conservative line force has a symmetric stiffness in the translations; central
    # differences with 1e-4 m steps: relative error ~1e-6
    np.testing.assert_allclose(k[:3, :3], k[:3, :3].T, rtol=1e-4, atol=1e-3 * abs(k[0, 0]))
    assert k[0, 0] > 0 and k[2, 2] > 0
    # a small surge changes the force by -K dq (linearisation, 1 cm step: 2nd-order error)
    dq = np.array([0.01, 0, 0, 0, 0, 0])
    np.testing.assert_allclose(moor.force(pose + dq) - moor.force(pose), -k @ dq,
                               rtol=1e-2, atol=1e-3 * abs(k[0, 0]) * 0.01)
    # the moment is the fairlead arm crossed with the force
    f = moor.force(pose)
    np.testing.assert_allclose(f[3:], np.cross([0.0, 2.0, -10.0], f[:3]), rtol=1e-12)
