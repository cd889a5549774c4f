"""The command line answers every user error with one line and no traceback (issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hydrofmu.cli import commands as cli
from paths import CAPYTAINE_CYLINDER

BASE = """\
[simulation]
max_internal_step = 0.01
[wave]
type = "regular"
{wave}
[radiation]
method = "constant"
[[bodies]]
name = "body"
hydro = "{hydro}"
dofs = ["heave"]
"""


def write_config(tmp_path: Path, wave: str = "height = 2.0\nperiod = 8.0",
                 hydro: str = "builtin:sphere") -> Path:
    path = tmp_path / "config.toml"
    path.write_text(BASE.format(wave=wave, hydro=hydro))
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    status = cli.main([*args])
    out, err = capsys.readouterr()
    return status, err.splitlines(), out


def one_error(lines: list[str]) -> str:
    errors = [ln for ln in lines if ln.startswith("error: ")]
    assert len(errors) == 1, lines
    assert all(ln.startswith(("error: ", "warning: ")) for ln in lines), lines
    return errors[0]


@pytest.mark.parametrize("command", ["build", "run"])
def test_unwritable_output_is_one_line_before_any_work(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], reached: list[str]
) -> None:
    config = write_config(tmp_path)
    target = "/proc/no/x.fmu" if command == "build" else "/proc/no/x.csv"
    status, lines, _ = run(capsys, command, str(config), "-o", target)
    assert status == 2
    assert "cannot write -o /proc/no/" in one_error(lines)
    assert reached == []  # refused before the configuration is read: no build, no run
    # the probes are where the command reads: a writable target reaches the first one
    suffix = ".fmu" if command == "build" else ".csv"
    status, _, _ = run(capsys, command, str(config), "-o", str(tmp_path / f"x{suffix}"))
    assert status == 1 and reached == ["load_config"]


def test_unwritable_plot_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path)
    status, lines, _ = run(capsys, "run", str(config), "-o", str(tmp_path / "r.csv"),
                           "--plot", "/proc/no/p.png")
    assert status == 2 and "cannot write --plot /proc/no/p.png" in one_error(lines)


@pytest.mark.parametrize(("wave", "expected"), [
    ("height = true\nperiod = 8.0", "[wave] height = true is not valid: it must be a number"),
    ('height = 2.0\nperiod = "8"', "[wave] period = '8' is not valid: it must be a number"),
    ("height = 2.0\nperiod = 8.0\nseed = 1.5", "[wave] seed = 1.5 is not valid: it must be an "
     "integer"),
    ("height = 2.0\nperiod = 8.0\nspectrum = 3", "[wave] spectrum = 3 is not valid: it must be "
     "a string"),
])
def test_wrong_toml_types_name_the_key(
    wave: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, lines, _ = run(capsys, "check", str(write_config(tmp_path, wave)))
    assert status == 2 and expected in one_error(lines)


@pytest.mark.parametrize(("wave", "expected"), [
    ("height = 2.0\nperiod = 8.0\ngamma = 50.0", "wave.gamma = 50.0 is above its maximum 20.0"),
    ("height = 2.0\nperiod = 8.0\ntype = 'irregular'\nn_components = 1000000000",
     "wave.n_components = 1000000000 is above its maximum 100000"),
])
def test_build_applies_the_initialization_checks_before_allocating(
    wave: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracemalloc

    import hydrofmu.export.fmu

    config = write_config(tmp_path, wave.replace("type = 'irregular'", ""))
    if "irregular" in wave:
        config.write_text(config.read_text().replace('type = "regular"', 'type = "irregular"'))
    reached: list[str] = []

    def build_fmu(*args, **kwargs):
        reached.append("build_fmu")
        raise RuntimeError("build_fmu was reached")

    # refused while the configuration is read, as fmi2ExitInitializationMode would refuse
    # it: the build is not reached
    monkeypatch.setattr(hydrofmu.export.fmu, "build_fmu", build_fmu)
    tracemalloc.start()
    try:
        status, lines, _ = run(capsys, "build", str(config), "-o", str(tmp_path / "x.fmu"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status == 2 and expected in one_error(lines)
    assert reached == []
    assert not (tmp_path / "x.fmu").exists()
    # the probe is where the command builds (the Python FMU, asked for: the probe is its
    # build): a valid configuration reaches it
    status, _, _ = run(capsys, "build", str(write_config(tmp_path)), "-o",
                       str(tmp_path / "x.fmu"), "--python")
    assert status == 1 and reached == ["build_fmu"]
    # Nothing sized by the refused value was allocated (numpy's arrays are traced): 1e9
    # wave components are 8 GB per float array. Observed peak: 76 MB when this test runs
    # first in its process (the first imports), 0.5 MB after the other tests of the file.
    # 1 GiB is ~7x below one such array and 14x above the import peak.
    assert peak < 2**30, peak


def test_missing_files_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "check", str(tmp_path / "nope.toml"))
    assert status == 2 and "configuration file not found" in one_error(lines)
    config = write_config(tmp_path, hydro=str(tmp_path / "missing.h5"))
    status, lines, _ = run(capsys, "check", str(config))
    assert status == 2 and "hydrodynamic data file not found" in one_error(lines)
    status, lines, _ = run(capsys, "info", str(tmp_path / "missing.nc"))
    assert status == 2 and "missing.nc" in one_error(lines)


def test_unreadable_config_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "config.toml"
    folder.mkdir()  # a folder where the file should be
    status, lines, _ = run(capsys, "check", str(folder))
    assert status == 2
    one_error(lines)


def test_warnings_are_one_line_each_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cylinder's data warns (a dropped NaN frequency, an asymmetric A_inf)."""
    config = write_config(tmp_path, hydro=str(CAPYTAINE_CYLINDER))
    status, lines, _ = run(capsys, "check", str(config))
    assert status == 0
    assert lines and all(ln.startswith("warning: ") for ln in lines), lines
    assert len(lines) == len(set(lines))
    assert any("asymmetric" in ln for ln in lines)


def test_traceback_only_with_debug(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, "height = true\nperiod = 8.0")
    status, lines, _ = run(capsys, "--debug", "check", str(config))
    assert status == 2 and any(ln.startswith("Traceback") for ln in lines)
    status, lines, _ = run(capsys, "check", str(config))
    assert not any("Traceback" in ln for ln in lines)


def test_unexpected_exception_is_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import hydrofmu.config.configuration

    def broken(path: object, overrides: object = None) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(hydrofmu.config.configuration, "load_config", broken)
    status, lines, _ = run(capsys, "check", str(write_config(tmp_path)))
    assert status == 1
    assert "internal error (ZeroDivisionError: a bug), rerun with --debug" in one_error(lines)
