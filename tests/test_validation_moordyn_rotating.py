"""MoorDyn lines on a rotating body: hydrofmu's line model (through ``hydrofmu moorings
replay``, the same ``LineSystem`` as the FMU's ``mooring.moordyn`` part) against MoorDyn-C
(the ``moordyn`` package, in a subprocess: ``tests/moordyn_runner.py``) with a ``Coupled``
body carrying three chains (``tests/data/moorings/body_3lines.txt``: rk2, dtM = 1 ms in
the file, as the moordyn package needs: its setters crash at exit)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hydrofmu.cosim.replay import replay_file
from test_moorings_lines import run_moordyn

DATA = Path(__file__).parent / "data" / "moorings"
NAMES = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")


def _run_both(tmp_path: Path, t: np.ndarray, pose: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MoorDyn-C and the replay through the body motion ``pose`` (n, 6), m and rad."""
    work = tmp_path / "lines.txt"  # MoorDyn writes its output files beside its input
    work.write_text((DATA / "body_3lines.txt").read_text())
    motion = tmp_path / "motion.csv"
    with motion.open("w") as fh:
        fh.write("t,body1.x,body1.y,body1.z,body1.roll,body1.pitch,body1.yaw\n")
        for ti, row in zip(t, pose, strict=True):
            fh.write(",".join(repr(float(v)) for v in (ti, *row)) + "\n")
    md = run_moordyn(work, motion, tmp_path / "md.csv")
    ours = np.genfromtxt(replay_file(work, motion, tmp_path / "out.csv", quiet=True),
                         delimiter=",", names=True)
    np.testing.assert_allclose(ours["t"], md["t"], atol=1e-9)
    return md, ours


def _ramp(t: np.ndarray, duration: float) -> np.ndarray:
    return np.where(t < duration, 0.5 * (1.0 - np.cos(np.pi * t / duration)), 1.0)


def test_rotated_body_force_and_moment_agree_with_moordyn(tmp_path: Path) -> None:
    """The body is brought in 6 s to roll 8 deg, pitch -6 deg, yaw 15 deg (and 3, -2,
    0.5 m) and held; 14 s later the lines have settled and the 6-DOF force and moment on
    the body and the three fairlead tensions are compared. Both codes then solve the same
    statics: measured 2.4e-5 of the largest force component (moments: 2e-5 of it times
    the 10 m arm), 4e-5 relative on the tensions. Bound 1e-3, as the translated-body test
    of test_moorings_lines.py (each code's settling is what is left).

    With the combined rotation, the order of the three rotations matters: MoorDyn-C's
    ``RotXYZ`` is Rx Ry Rz; hydrofmu's former Rz Ry Rx gave moments 3-5 % (of the same
    scale) and tensions 1.2 % away from MoorDyn-C here."""
    t = np.round(np.arange(0.0, 20.0 + 1e-9, 0.1), 10)
    final = np.array([3.0, -2.0, 0.5, np.radians(8.0), np.radians(-6.0), np.radians(15.0)])
    md, ours = _run_both(tmp_path, t, np.outer(_ramp(t, 6.0), final))
    fscale = float(np.max(np.abs([md[f"F{j}"][-1] for j in range(3)])))
    for j, name in enumerate(NAMES):
        scale = fscale if j < 3 else 10.0 * fscale
        err = abs(ours[f"body1{name}"][-1] - md[f"F{j}"][-1]) / scale
        assert err < 1e-3, (name, err)
    for k in (1, 2, 3):
        assert ours[f"FairTen{k}"][-1] == pytest.approx(md[f"FairTen{k}"][-1], rel=1e-3)


@pytest.mark.parametrize(("dof", "amplitude", "period"), [(3, 8.0, 7.0), (4, 6.0, 9.0),
                                                          (5, 30.0, 11.0)])
def test_rotating_body_tensions_follow_moordyn(tmp_path: Path, dof: int, amplitude: float,
                                                period: float) -> None:
    """Roll, pitch or yaw oscillating (amplitude in deg), faded in over 5 s, 15 s in all:
    the fairlead tensions after the fade-in within 0.2 % of their peak (measured at most
    0.028 %: MoorDyn-C starts from a slightly different state, its first step being taken
    with the motion's velocity, and extrapolates the fairlead linearly within each dtM;
    7x margin). Single-axis motions, because MoorDyn-C takes the angle rates as the
    angular velocity, which is exact about one axis only.

    The body's 6-DOF force is not compared here: MoorDyn-C's coupled-body force includes
    the inertia of the fairlead nodes (half a segment's mass, -m a), hydrofmu's does not
    (a body model carries that mass): they differ by 0.06-8 % of each component's range
    here; the force is compared at rest in the test above."""
    t = np.round(np.arange(0.0, 15.0 + 1e-9, 0.1), 10)
    pose = np.zeros((t.size, 6))
    pose[:, dof] = np.radians(amplitude) * np.sin(2.0 * np.pi * t / period) * _ramp(t, 5.0)
    md, ours = _run_both(tmp_path, t, pose)
    after = t >= 5.0
    for k in (1, 2, 3):
        peak = float(md[f"FairTen{k}"].max())
        err = float(np.max(np.abs(ours[f"FairTen{k}"][after] - md[f"FairTen{k}"][after])))
        assert err < 2e-3 * peak, (k, err / peak)
    # the motion does load the lines: the largest swing of a tension is more than 3 % of
    # its peak (measured 6.8 % roll, 4.5 % pitch, 7.1 % yaw), 15x the agreement bound
    swing = max(float(np.ptp(md[f"FairTen{k}"][after]) / md[f"FairTen{k}"].max())
                for k in (1, 2, 3))
    assert swing > 0.03, swing
