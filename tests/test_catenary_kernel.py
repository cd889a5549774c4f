"""The catenary solve in C (``runtime/moorings/catenary_kernel.c``, the one both FMUs call)
against the textbook elastic catenary written here independently.

The test writes Irvine's (1981) elastic catenary with seabed contact and Coulomb friction
(Jonkman 2007, eqs. 2-1 to 2-4 and the friction terms of MoorDyn/FAST's quasi-static
model) as plain forward formulas: for seeded random lines and fairlead tensions
``(HF, VF)`` it computes the span ``(XF, ZF)``; the C solve, given that span, must find the
tensions again. No solver is shared: the forward map below is a transcription of the
textbook, not of the kernel (no rewriting against cancellation, no Newton).

When the solve replaced the Python one (the record of that change): on 20,000 seeded random
geometries (lengths 10-1000 m, weights 1-1e4 N/m, EA 1e5-1e10 N or inextensible, seabed
with and without friction, slack to overstretched), all 18,229 solutions were
bit-identical to the Python solve's and the 1,771 refusals said the same words."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hydrofmu.runtime.moorings.catenary import Catenary, CatenaryError
from hydrofmu.runtime.moorings.frames import rotation
from hydrofmu.runtime.moorings.quasistatic import CatenaryBody, CatenaryMooring


def textbook_span(L: float, w: float, ea: float, hf: float, vf: float, seabed: bool,
                  cb: float) -> tuple[float, float]:
    """Irvine's elastic catenary: the fairlead's horizontal span and height above the
    anchor (m) for fairlead tensions ``hf`` > 0, ``vf`` (N)."""
    if seabed and vf < w * L:  # LB = L - VF/w on the bottom
        lb = L - vf / w
        xf = lb + hf / w * math.asinh(vf / hf) + hf * L / ea
        if cb > 0:  # friction: the tension falls along the bed to zero at LB - HF/(CB w)
            x0 = lb - hf / (cb * w)
            xf += cb * w / (2 * ea) * (-lb**2 + (x0 * max(x0, 0.0)))
        zf = hf / w * (math.sqrt(1 + (vf / hf) ** 2) - 1) + vf**2 / (2 * ea * w)
        return xf, zf
    va = vf - w * L
    xf = hf / w * (math.asinh(vf / hf) - math.asinh(va / hf)) + hf * L / ea
    zf = (hf / w * (math.sqrt(1 + (vf / hf) ** 2) - math.sqrt(1 + (va / hf) ** 2))
          + (vf * L - w * L**2 / 2) / ea)
    return xf, zf


def random_lines(n: int, seed: int):
    """Seeded lines and the tensions that hold them (slack on the bed to lifted)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        L = 10 ** rng.uniform(1.5, 3)
        w = 10 ** rng.uniform(1, 3.5)
        ea = math.inf if rng.random() < 0.15 else 10 ** rng.uniform(6, 10)
        seabed = bool(rng.random() < 0.7)
        cb = float(rng.uniform(0.05, 1.0)) if seabed and rng.random() < 0.4 else 0.0
        hf = w * L * 10 ** rng.uniform(-1.5, 1)
        vf = w * L * (rng.uniform(0.05, 1.6) if seabed else rng.uniform(-0.3, 1.6))
        yield L, w, ea, seabed, cb, hf, vf


def test_the_solve_finds_the_tensions_of_the_textbook_span() -> None:
    """2,000 seeded lines: the C solve, given the textbook span of (HF, VF), returns them.

    Tolerances: the solve stops as soon as the span's residual is below ``tol`` L =
    1e-10 L (measured: 9.9e-11 L at worst), so the span of the tensions found agrees with
    the textbook's to that (checked at 1.5e-10 L, the forward formulas' own rounding
    besides). The tensions then agree to that residual times the line's conditioning
    (dH/dX grows to EA/L for a taut, stiff line): measured 7.9e-8 of the larger tension at
    worst, checked at 1e-6."""
    worst, count = 0.0, 0
    for L, w, ea, seabed, cb, hf, vf in random_lines(2000, 31):
        xf, zf = textbook_span(L, w, ea, hf, vf, seabed, cb)
        if xf <= 1e-6 * L or math.hypot(xf, zf) >= L * (1.2 if math.isfinite(ea) else 1.0):
            continue
        sol = Catenary(length=L, weight=w, ea=ea, seabed=seabed, cb=cb).solve(xf, zf)
        scale = max(hf, abs(vf))
        worst = max(worst, abs(sol.HF - hf) / scale, abs(sol.VF - vf) / scale)
        rx, rz = textbook_span(L, w, ea, sol.HF, sol.VF, seabed, cb)
        assert abs(rx - xf) + abs(rz - zf) <= 1.5e-10 * L, (L, w, ea, hf, vf)
        count += 1
    assert count > 1500
    assert worst < 1e-6, worst


@pytest.mark.parametrize("xf", [60.0, 120.0, 180.0])
def test_anchor_tension_by_friction_and_the_profile_end(xf: float) -> None:
    """With friction the anchor holds HF - CB w LB (at least 0); the profile's last point
    is the fairlead (x, z) = (XF, ZF) and its tension the fairlead tension."""
    cat = Catenary(length=250.0, weight=700.0, ea=5e8, cb=0.3)
    sol = cat.solve(xf + 100.0, 80.0)
    assert sol.HA == pytest.approx(max(sol.HF - 0.3 * 700.0 * sol.LB, 0.0), rel=1e-12)
    x, z, t = cat.profile(sol, np.array([0.0, 250.0]))
    assert x[-1] == pytest.approx(xf + 100.0, rel=1e-9)  # the solve's tolerance, 1e-10 L
    assert z[-1] == pytest.approx(80.0, rel=1e-9)
    assert t[-1] == pytest.approx(sol.fairlead_tension, rel=1e-12)


def test_slack_line_on_the_bed_hangs_vertically() -> None:
    """A span shorter than the bed length: HF = 0, the suspended part hangs straight up
    (ZF = Ls + w Ls^2 / (2 EA)), VF its weight."""
    L, w, ea, zf = 250.0, 700.0, 5e8, 40.0
    sol = Catenary(length=L, weight=w, ea=ea).solve(100.0, zf)
    ls = sol.VF / w
    assert sol.HF == 0.0 and ls + w * ls**2 / (2 * ea) == pytest.approx(zf, rel=1e-14)
    assert sol.LB == pytest.approx(L - ls, rel=1e-14)


@pytest.mark.parametrize(("xf", "zf", "words"), [
    (math.nan, 10.0, "must be finite"),
    (1e-12, 10.0, "vertical line is not supported"),
    (100.0, -5.0, "below an anchor that lies on the seabed"),
    (300.0, 10.0, "cannot reach"),
])
def test_each_refusal_says_why(xf: float, zf: float, words: str) -> None:
    """Every span the line cannot take is an error naming the value and the fix, never a
    NaN (the native FMU logs the same words from the same C)."""
    with pytest.raises(CatenaryError, match=words):
        Catenary(length=250.0, weight=700.0, ea=5e8).solve(xf, zf)


def test_a_body_s_lines_are_the_sum_of_their_solves() -> None:
    """``hf_cat_body`` (the lines on a body, one C call) against the solves written out:
    the fairlead at pose + R(angles) fairlead (frames.rotation), the force (-HF e, -VF) and
    its moment about the reference point, summed; the tensions per line. Round-off only
    (the arm's three products summed in another order, amplified by the line's stiffness
    in the solve): measured 2.3e-15 of the force and 8e-15 of a tension, checked at 1e-13."""
    rng = np.random.default_rng(5)
    anchors = [np.array([150.0, 0.0, -50.0]), np.array([-75.0, 129.9, -50.0]),
               np.array([-75.0, -129.9, -50.0])]
    fairs = [np.array([4.6, 0.0, -2.0]), np.array([-2.3, 3.98, -2.0]),
             np.array([-2.3, -3.98, -2.0])]
    moorings = [CatenaryMooring(anchor=a, fairlead=f,
                                line=Catenary(length=170.0, weight=470.6, ea=2e8))
                for a, f in zip(anchors, fairs, strict=True)]
    body = CatenaryBody(moorings)
    for _ in range(50):
        pose = np.concatenate([rng.uniform(-3, 3, 3), rng.uniform(-0.1, 0.1, 3)])
        force, tensions = body.evaluate(pose)
        want = np.zeros(6)
        for k, m in enumerate(moorings):
            arm = rotation(pose[3:]) @ m.fairlead
            rel = pose[:3] + arm - m.anchor
            xf = math.hypot(rel[0], rel[1])
            sol = m.line.solve(xf, rel[2])
            f = np.array([-sol.HF * rel[0] / xf, -sol.HF * rel[1] / xf, -sol.VF])
            want += np.concatenate([f, np.cross(arm, f)])
            assert tensions[2 * k] == pytest.approx(sol.fairlead_tension, rel=1e-13)
            assert tensions[2 * k + 1] == pytest.approx(sol.anchor_tension, rel=1e-13)
        assert np.max(np.abs(force - want)) <= 1e-13 * np.max(np.abs(want))


def test_a_line_that_fails_on_a_body_is_named() -> None:
    """The second of two lines cannot reach: the error names it (1-based) and the reason."""
    far = CatenaryMooring(anchor=np.array([500.0, 0.0, -50.0]),
                          fairlead=np.zeros(3),
                          line=Catenary(length=170.0, weight=470.6, ea=2e8))
    near = CatenaryMooring(anchor=np.array([-150.0, 0.0, -50.0]), fairlead=np.zeros(3),
                           line=Catenary(length=170.0, weight=470.6, ea=2e8))
    with pytest.raises(CatenaryError, match="line 2: the line cannot reach"):
        CatenaryBody([near, far]).evaluate(np.zeros(6))
