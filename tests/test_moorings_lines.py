"""Lumped-mass lines: static equilibrium against the elastic catenary and MoorDyn-C;
dynamics under large fairlead motion against MoorDyn-C (the ``moordyn`` package, run in a
subprocess because its binding can crash the interpreter at exit)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.cosim.replay import replay_file
from hydrofmu.runtime.moorings.catenary import Catenary
from hydrofmu.runtime.moorings.equilibrium import initial_state
from hydrofmu.runtime.moorings.lines import LineSystem
from hydrofmu.runtime.moorings.moordyn_input import parse_moordyn, read_moordyn

HERE = Path(__file__).parent
DATA = HERE / "data" / "moorings"
TEXT = (DATA / "chain_1line.txt").read_text()
FAIRLEAD = np.array([0.0, 0.0, -10.0])
W = (100.0 - 1025.0 * math.pi / 4 * 0.1**2) * 9.80665  # submerged weight, N/m


def chain(n_segments: int = 20, scheme: str = "rk2", dtm: float = 0.001) -> str:
    return (TEXT.replace("250.0     20", f"250.0     {n_segments}")
            .replace("rk2           tScheme", f"{scheme}           tScheme")
            .replace("0.001         dtM", f"{dtm}         dtM"))


def test_settled_chain_converges_to_the_elastic_catenary() -> None:
    exact = Catenary(length=250.0, weight=W, ea=5e8).solve(220.0, 90.0).fairlead_tension
    errors = []
    for n in (10, 20, 40):
        system = LineSystem(model=parse_moordyn(chain(n)))
        x, info = initial_state(system, FAIRLEAD)
        assert info["converged"], info
        # settled: no node accelerates (residual force / node weight below 1e-6 g)
        acc = system.derivative(0.0, x, FAIRLEAD, np.zeros(3))[3 * system.arrays.n_internal:]
        assert np.max(np.abs(acc)) < 1e-5
        fair, _ = system.tensions(x, FAIRLEAD, np.zeros(3))
        errors.append(abs(fair[0] / exact - 1))
    # measured: 0.42 %, 0.14 %, 0.025 %: the lumped chain converges to the catenary
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.002


def test_settled_chain_agrees_with_moordyn_initial_conditions(tmp_path: Path) -> None:
    lines = tmp_path / "lines.txt"
    lines.write_text(chain(40))
    t = np.array([0.0, 0.1])
    motion = tmp_path / "motion.csv"
    _write_motion(motion, t, np.zeros_like(t))
    md = run_moordyn(lines, motion, tmp_path / "md.csv")
    system = LineSystem(model=read_moordyn(lines))
    x, _ = initial_state(system, FAIRLEAD)
    fair, anch = system.tensions(x, FAIRLEAD, np.zeros(3))
    exact = Catenary(length=250.0, weight=W, ea=5e8).solve(220.0, 90.0)
    # MoorDyn's IC stage stops at its own threshold (1e-6 here) after at most 60 s of
    # relaxation; both then sit within 0.05 % of each other and 0.2 % of the catenary
    assert md["FairTen1"][0] == pytest.approx(fair[0], rel=5e-4)
    assert md["AnchTen1"][0] == pytest.approx(anch[0], rel=5e-4)
    assert md["FairTen1"][0] == pytest.approx(exact.fairlead_tension, rel=2e-3)


def _write_motion(path: Path, t: np.ndarray, surge: np.ndarray) -> None:
    with path.open("w") as fh:
        fh.write("t,point2.x,point2.y,point2.z\n")
        for ti, xi in zip(t, surge, strict=True):
            fh.write(f"{float(ti)!r},{float(xi)!r},0.0,-10.0\n")


def run_moordyn(lines: Path, motion: Path, out: Path) -> np.ndarray:
    proc = subprocess.run([sys.executable, str(HERE / "moordyn_runner.py"), str(lines),
                           str(motion), str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return np.genfromtxt(out, delimiter=",", names=True, skip_footer=1)


#: the schemes compared with MoorDyn-C (same scheme name and step in both codes)
DYNAMIC_SCHEMES = [("rk2", 0.001), ("rk4", 0.002), ("midpoint5", 0.002)]


@pytest.mark.slow
@pytest.mark.parametrize(("scheme", "dtm"), DYNAMIC_SCHEMES)
def test_replay_follows_moordyn_under_large_surge(tmp_path: Path, scheme: str, dtm: float) -> None:
    """6 m surge amplitude at 10 s period, faded in over the first period, 20 s in all."""
    lines = tmp_path / "lines.txt"
    lines.write_text(chain(20, scheme, dtm))
    t = np.round(np.arange(0.0, 20.0 + 1e-9, 0.1), 10)
    ramp = np.where(t < 10.0, 0.5 * (1 - np.cos(np.pi * t / 10.0)), 1.0)
    motion = tmp_path / "motion.csv"
    _write_motion(motion, t, 6.0 * np.sin(2 * np.pi * t / 10.0) * ramp)
    md = run_moordyn(lines, motion, tmp_path / "md.csv")
    out = replay_file(lines, motion, tmp_path / "out.csv", quiet=True)
    ours = np.genfromtxt(out, delimiter=",", names=True)
    np.testing.assert_allclose(ours["t"], md["t"], atol=1e-9)
    peak = md["FairTen1"].max()
    assert peak > 1.8 * md["FairTen1"][0]  # the motion is large: tension doubles
    after = md["t"] >= 10.0  # the fade-in is over
    # the two codes solve the same equations with the same scheme and step; measured
    # differences are ~0.2 % of the peak (end-of-IC differences and MoorDyn's linear
    # extrapolation of the fairlead within a step); the acceptance is 2 %
    for ours_col, md_col in (("FairTen1", "FairTen1"), ("point2Fx", "F0"), ("point2Fz", "F2")):
        err = np.max(np.abs(ours[ours_col][after] - md[md_col][after])) / peak
        assert err < 0.02, (ours_col, err)


def test_coupled_body_force_and_moment_agree_with_moordyn(tmp_path: Path) -> None:
    """Three chains on a coupled body displaced 8 m in surge and 3 m in sway, at rest."""
    lines = DATA / "body_3lines.txt"
    motion = tmp_path / "motion.csv"
    motion.write_text("t,body1.x,body1.y,body1.z,body1.roll,body1.pitch,body1.yaw\n"
                      "0.0,8.0,3.0,0.0,0.0,0.0,0.0\n0.1,8.0,3.0,0.0,0.0,0.0,0.0\n")
    work = tmp_path / "lines.txt"  # MoorDyn writes its output beside its input
    work.write_text(lines.read_text())
    md = run_moordyn(work, motion, tmp_path / "md.csv")
    ours = np.genfromtxt(replay_file(work, motion, tmp_path / "out.csv", quiet=True),
                         delimiter=",", names=True)
    fscale = np.max(np.abs([md[f"F{j}"][0] for j in range(3)]))
    # moments about the body reference point; the arm of the fairleads is ~10 m
    mscale = 10.0 * fscale
    for j, name in enumerate(("Fx", "Fy", "Fz", "Mx", "My", "Mz")):
        scale = fscale if j < 3 else mscale
        # both settle to their own IC threshold (1e-6); measured differences ~1e-4
        assert abs(ours[f"body1{name}"][0] - md[f"F{j}"][0]) < 1e-3 * scale, name
    for k in (1, 2, 3):
        assert ours[f"FairTen{k}"][0] == pytest.approx(md[f"FairTen{k}"][0], rel=1e-3)
    assert ours["AnchTen3"][0] == pytest.approx(md["AnchTen3"][0], rel=1e-3)
    # the body's force is the sum of the three fairlead forces: surge offset is resisted
    assert ours["body1Fx"][0] < 0 and ours["body1Fy"][0] < 0


@pytest.mark.slow
def test_moordyn_style_relaxation_approaches_the_newton_equilibrium() -> None:
    """The fallback IC (dynamic relaxation, drag x CdScaleIC) heads to the same state."""
    from hydrofmu.runtime.moorings.equilibrium import relax, static_equilibrium

    system = LineSystem(model=parse_moordyn(chain(8)))
    xn, info = static_equilibrium(system, FAIRLEAD)
    assert info["converged"]
    exact = system.tensions(xn, FAIRLEAD, np.zeros(3))[0][0]
    xr, _ = relax(system, FAIRLEAD, tmax=10.0, thresh=1e-9, dt=0.002)
    relaxed = system.tensions(xr, FAIRLEAD, np.zeros(3))[0][0]
    # measured: 3.9 % off after 5 s, 0.37 % after 10 s, 0.004 % after 20 s of relaxation
    assert relaxed == pytest.approx(exact, rel=0.01)
