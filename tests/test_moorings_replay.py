"""The replay driver: interpolation, MOTION.csv checks and the command line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hydrofmu.cli.commands import main
from hydrofmu.cosim.replay import HermiteMotion, read_motion
from hydrofmu.runtime.errors import InputError
from hydrofmu.runtime.moorings.moordyn_input import read_moordyn

DATA = Path(__file__).parent / "data" / "moorings"


def test_hermite_motion_is_exact_for_cubics_inside_and_consistent_in_velocity() -> None:
    rng = np.random.default_rng(7)
    t = np.linspace(0.0, 10.0, 41)
    t[1:-1] += rng.uniform(-0.05, 0.05, 39)  # non-uniform samples, 0.15..0.35 s apart
    y = np.column_stack([np.sin(t), 0.5 * t])
    m = HermiteMotion(t=t, values=y)
    for tq in np.linspace(0.5, 9.5, 37):
        pos, vel = m(tq)
        # samples ~0.25 s apart: cubic Hermite with O(h^2) slopes, error O(h^3) ~ 2e-3 on
        # sin; a linear motion is reproduced exactly
        assert pos[0] == pytest.approx(np.sin(tq), abs=5e-3)
        assert pos[1] == pytest.approx(0.5 * tq, abs=1e-12)
        assert vel[1] == pytest.approx(0.5, abs=1e-12)
        # the velocity is the derivative of the position (central difference, 1e-6 s)
        p1, _ = m(tq + 1e-6)
        p0, _ = m(tq - 1e-6)
        np.testing.assert_allclose((p1 - p0) / 2e-6, vel, rtol=1e-5, atol=1e-7)
    # the samples are passed through exactly
    np.testing.assert_allclose(m(float(t[5]))[0], y[5], atol=1e-12)


def test_motion_file_errors_name_the_column(tmp_path: Path) -> None:
    model = read_moordyn(DATA / "chain_1line.txt")
    bad = tmp_path / "m.csv"
    bad.write_text("t,point2.x,point2.y\n0,0,0\n1,0,0\n")
    with pytest.raises(InputError, match=r"point2\.z"):
        read_motion(bad, model)
    bad.write_text("t,point2.x,point2.y,point2.z,point9.x\n0,0,0,-10,0\n1,0,0,-10,0\n")
    with pytest.raises(InputError, match=r"point9\.x"):
        read_motion(bad, model)
    bad.write_text("t,point2.x,point2.y,point2.z\n0,0,0,-10\n0,0,0,-10\n")
    t, c = read_motion(bad, model)
    with pytest.raises(InputError, match="increase"):
        HermiteMotion(t=t, values=c)
    bad.write_text("t,point2.x,point2.y,point2.z\n0,0,0,-10\n1,nan,0,-10\n")
    t, c = read_motion(bad, model)
    with pytest.raises(InputError, match="non-finite"):
        HermiteMotion(t=t, values=c)


def test_cli_replay_writes_forces_and_channels(tmp_path: Path, capsys) -> None:
    motion = tmp_path / "motion.csv"
    t = np.arange(0.0, 1.0 + 1e-9, 0.25)
    motion.write_text("t,point2.x,point2.y,point2.z\n" + "".join(
        f"{ti},{0.5 * ti},0.0,-10.0\n" for ti in t))
    lines = tmp_path / "lines.txt"
    lines.write_text((DATA / "chain_1line.txt").read_text().replace("250.0     20", "250.0     8"))
    out = tmp_path / "out.csv"
    assert main(["mooring", "replay", str(lines), str(motion), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "replay: 100.0 %" in err  # progress on stderr
    data = np.genfromtxt(out, delimiter=",", names=True)
    assert data.dtype.names == ("t", "point2Fx", "point2Fy", "point2Fz", "FairTen1", "AnchTen1")
    np.testing.assert_allclose(data["t"], t)
    # the fairlead tension is the norm of the force on the coupled point (same node force)
    np.testing.assert_allclose(
        data["FairTen1"], np.sqrt(data["point2Fx"] ** 2 + data["point2Fy"] ** 2
                                  + data["point2Fz"] ** 2), rtol=1e-12)
    # the line pulls the fairlead toward the anchor (at -x) and down
    assert np.all(data["point2Fx"] < 0) and np.all(data["point2Fz"] < 0)
    # an existing output is not overwritten without --force; the error is reported cleanly
    assert main(["mooring", "replay", str(lines), str(motion), "-o", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["mooring", "replay", str(lines), str(tmp_path / "none.csv"), "-o",
                 str(tmp_path / "o2.csv")]) == 2
    assert "none.csv" in capsys.readouterr().err


def test_replay_refuses_a_scheme_without_internal_steps(tmp_path: Path, capsys) -> None:
    """``tScheme = exact`` takes whole intervals by a linear map and has no internal steps to
    drive the lines with: the replay says so and names the fix instead of failing later."""
    motion = tmp_path / "motion.csv"
    motion.write_text("t,point2.x,point2.y,point2.z\n0.0,0.0,0.0,-10.0\n1.0,0.0,0.0,-10.0\n")
    text = (DATA / "chain_1line.txt").read_text()
    lines = tmp_path / "lines.txt"
    lines.write_text(text.replace("rk2           tScheme", "exact         tScheme"))
    assert "exact         tScheme" in lines.read_text()
    assert main(["mooring", "replay", str(lines), str(motion), "-o",
                 str(tmp_path / "out.csv")]) == 2
    err = capsys.readouterr().err
    assert "tScheme = 'exact'" in err and "RK4" in err
    assert not (tmp_path / "out.csv").exists()
