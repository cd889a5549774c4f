"""Every example runs as a newcomer would run it, and prints what it promises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from paths import BEMIO_SPHERE

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.fmu


def _run(args: list[str], cwd: Path) -> str:
    proc = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_decay_example(tmp_path: Path) -> None:
    """Both spheres: FMU decay period within 1.5 % of the prediction (see test_decay)."""
    out = _run([str(EXAMPLES / "decay_test.py"), "--out", str(tmp_path)], tmp_path)
    rows = re.findall(r"^(\w+_sphere)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", out, re.M)
    assert {r[0] for r in rows} == {"default_sphere", "bemio_sphere"}
    for _, tm, tp, _, _ in rows:
        assert float(tm) == pytest.approx(float(tp), rel=0.015)
    assert len(list(tmp_path.glob("*.fmu"))) == 2


def test_regular_waves_example(tmp_path: Path) -> None:
    """Heave amplitude through the FMU within 2 % of the RAO, phase within 0.02 rad."""
    # 6 s, not the configurations' 8 s: the FMU parameter wave.period overrides them.
    out = _run([str(EXAMPLES / "regular_waves.py"), "--out", str(tmp_path), "--periods", "6"],
               tmp_path)
    rows = re.findall(r"^(\S+\.toml)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(-?[\d.]+)$", out, re.M)
    assert len(rows) == 2
    for _, _, fmu, rao, phase in rows:
        assert float(fmu) == pytest.approx(float(rao), rel=0.02)
        assert abs(float(phase)) < 0.02


@pytest.mark.parametrize("config", sorted(p.name for p in EXAMPLES.glob("*.toml")))
def test_config_examples_run_through_the_cli(config: str, tmp_path: Path) -> None:
    csv = tmp_path / "out.csv"
    out = _run(["-m", "hydrofmu", "run", str(EXAMPLES / config), "-o", str(csv),
                "--stop-time", "20"], tmp_path)
    assert "wrote" in out
    header = csv.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[0] == "time [s]"  # every column carries its unit
    assert any(h.endswith(".pose[3] [m]") for h in header)
    assert len(csv.read_text(encoding="utf-8").splitlines()) > 100


def test_demo_writes_fmu_csv_and_plot(tmp_path: Path) -> None:
    out = _run(["-m", "hydrofmu", "demo", "--out", str(tmp_path / "demo")], tmp_path)
    assert "heave  amplitude" in out
    for name in ("DefaultSphere.fmu", "results.csv", "heave.png"):
        assert (tmp_path / "demo" / name).stat().st_size > 0
    # A second run may overwrite its own outputs ...
    _run(["-m", "hydrofmu", "demo", "--out", str(tmp_path / "demo")], tmp_path)
    # ... but never a folder the user filled.
    user = tmp_path / "mine"
    user.mkdir()
    (user / "notes.txt").write_text("keep me", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "hydrofmu", "demo", "--out", str(user)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 2
    assert "was not written by 'hydrofmu demo'" in proc.stderr
    assert (user / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_run_refuses_to_overwrite(tmp_path: Path) -> None:
    csv = tmp_path / "results.csv"
    csv.write_text("mine", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "hydrofmu", "run", str(EXAMPLES / "default_sphere_regular.toml"),
         "-o", str(csv)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 2
    assert "exists; choose another path or pass --force" in proc.stderr
    assert csv.read_text(encoding="utf-8") == "mine"


def test_build_and_info_commands(tmp_path: Path) -> None:
    """`hydrofmu build` writes a valid FMU and prints the model report; `info` summarises
    a BEM file; both refuse bad input with exit status 2 and a one-line message."""
    from fmpy.validation import validate_fmu

    fmu = tmp_path / "Case.fmu"
    out = _run(["-m", "hydrofmu", "build", str(EXAMPLES / "sphere_bemio_regular.toml"),
                "-o", str(fmu), "--name", "Case"], tmp_path)
    assert "model: radiation: convolution" in out and "round trip" in out
    assert validate_fmu(str(fmu)) == []
    again = subprocess.run([sys.executable, "-m", "hydrofmu", "build",
                            str(EXAMPLES / "sphere_bemio_regular.toml"), "-o", str(fmu)],
                           capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert again.returncode == 2 and "exists" in again.stderr
    info = _run(["-m", "hydrofmu", "info",
                 str(BEMIO_SPHERE)], tmp_path)
    assert "240 frequencies" in info and "A_inf diagonal (file)" in info
    bad = subprocess.run([sys.executable, "-m", "hydrofmu", "info", str(tmp_path / "no.nc")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert bad.returncode == 2 and bad.stderr.startswith("error:")
    assert "Traceback" not in bad.stderr
