"""Free points (MoorDyn ``Free``): a clump weight joining two chains.

Static: the equilibrium of the lumped-mass lines against the elastic catenary closed forms
(Irvine 1981) solved here with scipy, independently of the package's catenary solver.
Dynamic: the replay under a large fairlead surge against MoorDyn-C (the ``moordyn`` package,
run in a subprocess) for rk2, rk4 and midpoint5.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import fsolve

from hydrofmu.cosim.replay import replay_file
from hydrofmu.runtime.moorings.equilibrium import static_equilibrium
from hydrofmu.runtime.moorings.lines import LineSystem
from hydrofmu.runtime.moorings.moordyn_input import parse_moordyn
from test_moorings_lines import run_moordyn

DATA = Path(__file__).parent / "data" / "moorings"
TEXT = (DATA / "clump_2lines.txt").read_text()
G, RHO, EA = 9.80665, 1025.0, 5.0e8
W = (100.0 - RHO * math.pi / 4 * 0.1**2) * G  # submerged weight of the chain, N/m
CLUMP = (4000.0 - RHO * 0.5) * G  # submerged weight of the free point, N
L1, L2 = 120.0, 130.0  # anchor (-200, -100) -> clump -> fairlead (0, -10), m
FAIRLEAD = np.array([0.0, 0.0, -10.0])


def _span(h: float, va: float, length: float) -> tuple[float, float]:
    """Horizontal and vertical span of a suspended elastic catenary (Irvine 1981), m.

    ``h`` the horizontal tension, ``va`` the vertical tension at the lower-numbered end
    (positive up, pulling that end up), N.
    """
    vb = va + W * length
    x = h / W * (math.asinh(vb / h) - math.asinh(va / h)) + h * length / EA
    z = (h / W * (math.hypot(1.0, vb / h) - math.hypot(1.0, va / h))
         + (va * length + W * length**2 / 2) / EA)
    return x, z


def closed_form() -> tuple[np.ndarray, float, float]:
    """Clump position (x, z), fairlead tension of line 2 and anchor tension of line 1."""

    def equations(u: np.ndarray) -> list[float]:
        h, va1 = u
        x1, z1 = _span(h, va1, L1)
        # the clump: line 2 carries line 1's top tension and the clump's weight
        x2, z2 = _span(h, va1 + W * L1 + CLUMP, L2)
        return [x1 + x2 - 200.0, z1 + z2 - 90.0]

    h, va1 = fsolve(equations, [1e5, -5e4], xtol=1e-13)
    assert np.max(np.abs(equations(np.array([h, va1])))) < 1e-8
    x1, z1 = _span(h, va1, L1)
    vf = va1 + W * L1 + CLUMP + W * L2
    return np.array([-200.0 + x1, -100.0 + z1]), math.hypot(h, vf), math.hypot(h, va1)


def test_clump_weight_equilibrium_matches_the_catenary_closed_forms() -> None:
    clump, fair_exact, anch_exact = closed_form()
    assert clump[1] < -100.0  # the clump hangs below the anchor: line 1 dips, then rises
    pos_err, fair_err, anch_err = [], [], []
    for n in (10, 40):
        system = LineSystem(model=parse_moordyn(TEXT.replace("10      -", f"{n}      -")))
        x, info = static_equilibrium(system, FAIRLEAD)
        assert info["converged"], info
        # at rest: neither the nodes nor the free point accelerate (1e-6 g)
        acc = system.derivative(0.0, x, FAIRLEAD, np.zeros(3))
        assert np.max(np.abs(acc[3 * system.arrays.n_internal:6 * system.arrays.n_internal])) < 1e-5
        assert np.max(np.abs(acc[6 * system.arrays.n_internal + 3:])) < 1e-5
        ev = system.evaluate(x, FAIRLEAD, np.zeros(3))
        pos_err.append(np.max(np.abs(ev["point_r"][1, [0, 2]] - clump)))
        assert ev["point_r"][1, 1] == 0.0
        fair_err.append(abs(np.linalg.norm(ev["fnet"][system.arrays.end_b[1]]) / fair_exact - 1))
        anch_err.append(abs(np.linalg.norm(ev["fnet"][system.arrays.end_a[0]]) / anch_exact - 1))
    # lumping the chain's weight at the nodes errs as 1/N^2: measured 4.5 cm -> 0.3 cm on
    # the clump, 2.6e-4 -> 1.6e-5 on the fairlead tension, 3.5e-4 -> 2.2e-5 on the anchor's
    assert pos_err[1] < pos_err[0] / 8 and fair_err[1] < fair_err[0] / 8
    assert anch_err[1] < anch_err[0] / 8
    assert pos_err[1] < 0.01  # m
    assert fair_err[1] < 1e-4 and anch_err[1] < 1e-4


#: the schemes compared with MoorDyn-C (same scheme name and step in both codes)
DYNAMIC_SCHEMES = [("rk2", 0.002), ("rk4", 0.004), ("midpoint5", 0.004)]


@pytest.mark.slow
@pytest.mark.parametrize(("scheme", "dtm"), DYNAMIC_SCHEMES)
def test_clump_replay_follows_moordyn_under_large_surge(tmp_path: Path, scheme: str,
                                                        dtm: float) -> None:
    """8 m fairlead surge at 8 s period, faded in over 3 s, 10 s in all (a short record)."""
    lines = tmp_path / "lines.txt"
    # the free point starts near its equilibrium: from the file's (-100, -70) MoorDyn-C
    # 2.7.2's IC stage does not converge in TmaxIC = 60 s (it reports 3.6 m/s^2 left, the
    # clump 30 m off); the static test above starts there
    lines.write_text(TEXT.replace("-100.0  0.0     -70.0", "-84.2   0.0     -107.8")
                     .replace("rk2           tScheme", f"{scheme}           tScheme")
                     .replace("0.001         dtM", f"{dtm}         dtM"))
    t = np.round(np.arange(0.0, 10.0 + 1e-9, 0.1), 10)
    ramp = np.where(t < 3.0, 0.5 * (1 - np.cos(np.pi * t / 3.0)), 1.0)
    surge = 8.0 * np.sin(2 * np.pi * t / 8.0) * ramp
    motion = tmp_path / "motion.csv"
    with motion.open("w") as fh:
        fh.write("t,point3.x,point3.y,point3.z\n")
        for ti, xi in zip(t, surge, strict=True):
            fh.write(f"{float(ti)!r},{float(xi)!r},0.0,-10.0\n")
    md = run_moordyn(lines, motion, tmp_path / "md.csv")
    ours = np.genfromtxt(replay_file(lines, motion, tmp_path / "out.csv", quiet=True),
                         delimiter=",", names=True)
    np.testing.assert_allclose(ours["t"], md["t"], atol=1e-9)
    peak = md["FairTen2"].max()
    # the motion is large: the peak is 1.6 times the static tension (MoorDyn's own first
    # row, after its zero-length first step, is not its static state: ours is compared)
    assert peak > 1.5 * ours["FairTen2"][0]
    after = md["t"] >= 3.0  # the fade-in is over
    # same equations, scheme and step in both codes; measured after the fade-in: within
    # 0.33 % (rk2), 0.43 % (rk4), 0.69 % (midpoint5) of the peak (MoorDyn extrapolates the
    # fairlead linearly within its step; 0.08-0.19 % at half these steps and 12 s); the
    # acceptance is 2 %
    for ours_col, md_col in (("FairTen2", "FairTen2"), ("AnchTen1", "AnchTen1"),
                             ("FairTen1", "FairTen1"), ("point3Fx", "F0"), ("point3Fz", "F2")):
        err = np.max(np.abs(ours[ours_col][after] - md[md_col][after])) / peak
        assert err < 0.02, (ours_col, err)
