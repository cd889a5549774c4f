"""Every command-line argument is checked before any data is read, and ``build``'s OSP
model description belongs to the FMU it is written for (issue 32, the new user's findings).

The refusals are shown to come first twice over: the ``reached`` probes of conftest.py
(loading the configuration, the simulator, the build, the run) stay untouched, and the
configuration names a BEM file that does not exist, so that a check coming after the data
would print "hydrodynamic data file not found" instead of the option's message.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from hydrofmu.cli import main
from hydrofmu.export.osp import (
    libcosim_name_note,
    osp_description_path,
    write_osp_model_description,
)
from hydrofmu.io.output_paths import check_output_path
from hydrofmu.runtime.errors import ConfigError, ExportError

CONFIG = """\
[simulation]
stop_time = 20.0
output_interval = 0.1
[wave]
type = "none"
[[bodies]]
name = "body"
hydro = "{hydro}"
dofs = ["heave"]
radiation = "constant"
"""


def _config(folder: Path, hydro: str) -> Path:
    path = folder / "case.toml"
    path.write_text(CONFIG.format(hydro=hydro), encoding="utf-8")
    return path


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "{config}", "-o", "{tmp}/r.csv", "--stop-time", "-5"],
         "--stop-time = -5.0 s must be later than [simulation] start_time = 0.0 s"),
        (["run", "{config}", "-o", "{tmp}/r.csv", "--output-interval", "-0.1"],
         "--output-interval = -0.1 s must be > 0"),
        (["build", "{config}", "-o", "{tmp}/x.txt"], "-o {tmp}/x.txt must end with '.fmu'"),
        (["build", "{config}", "-o", "{tmp}/x", "--name", "x"], "must end with '.fmu'"),
        (["build", "{config}", "-o", "{tmp}/x.fmu", "--name", "my model"],
         "--name 'my model' is not a valid model name"),
        (["bem", "{config}", "-o", "{tmp}/b.nc", "--jobs", "0"],
         "--jobs 0 must be a positive number of processes or -1"),
        (["sweep", "{config}", "--sea-states", "{config}", "-o", "{tmp}/s.nc",
          "--workers", "0"], "--workers 0 must be at least 1"),
    ],
)
def test_arguments_are_refused_before_the_bem_file_is_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reached: list[str],
    args: list[str], expected: str,
) -> None:
    config = _config(tmp_path, str(tmp_path / "missing.h5"))
    argv = [a.format(config=config, tmp=tmp_path) for a in args]
    assert main(argv) == 2
    err = _error(capsys)
    assert expected.format(tmp=tmp_path) in err, err
    assert "not found" not in err and reached == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["case.toml"]  # nothing written


def test_the_data_are_read_only_when_the_arguments_are_sound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The counterpart: with sound arguments, the same configuration fails on its data
    (so the refusals above are the arguments', not the configuration's)."""
    config = _config(tmp_path, str(tmp_path / "missing.h5"))
    assert main(["run", str(config), "-o", str(tmp_path / "r.csv"), "--stop-time", "5"]) == 2
    assert "hydrodynamic data file not found" in _error(capsys)


def test_a_file_where_a_folder_should_be_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reached: list[str]
) -> None:
    """``-o /etc/hostname/x.fmu``: the message says that a part of the path is a file, and
    does not suggest ``mkdir -p`` on it."""
    afile = tmp_path / "hostname"
    afile.write_text("a file\n", encoding="utf-8")
    for out in (afile / "x.fmu", afile / "sub" / "x.fmu"):
        with pytest.raises(ConfigError, match=re.escape(f"{afile} is a file, not a folder")):
            check_output_path(out, "-o")
        config = _config(tmp_path, "builtin:sphere")
        assert main(["build", str(config), "-o", str(out)]) == 2
        err = _error(capsys)
        assert f"{afile} is a file, not a folder" in err, err
        assert "mkdir" not in err and "does not exist" not in err, err
    for out in (afile, afile / "sub"):  # demo's --out is a folder
        assert main(["demo", "--out", str(out)]) == 2
        assert f"--out {out}: {afile} is a file, not a folder" in _error(capsys)
    assert reached == []
    # a missing folder under a real folder still says to create it
    with pytest.raises(ConfigError, match=r"does not exist.*mkdir -p"):
        check_output_path(tmp_path / "new" / "x.fmu", "-o")


def _fake_fmu(path: Path, model_name: str) -> Path:
    """A zip with the model description of one body's PTO-force inputs and velocity
    outputs: what the OSP description is made from."""
    variables = "".join(
        f'<ScalarVariable name="body.{q}[{i}]" causality="{c}"><Real/></ScalarVariable>'
        for q, c in (("F_pto", "input"), ("velocity", "output")) for i in range(1, 7))
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("modelDescription.xml",
                   f'<fmiModelDescription modelName="{model_name}"><ModelVariables>'
                   f"{variables}</ModelVariables></fmiModelDescription>")
    return path


def test_the_osp_description_is_named_after_the_fmu_file(tmp_path: Path) -> None:
    """Two FMUs of one model name in one folder each get their own description (both
    named HydroFMU wrote one HydroFMU_OspModelDescription.xml, the second replacing the
    first)."""
    a = _fake_fmu(tmp_path / "a.fmu", "HydroFMU")
    b = _fake_fmu(tmp_path / "b.fmu", "HydroFMU")
    paths = [write_osp_model_description(f) for f in (a, b)]
    assert [p.name for p in paths] == ["a_OspModelDescription.xml",
                                       "b_OspModelDescription.xml"]
    assert osp_description_path(a) == paths[0]
    assert not (tmp_path / "HydroFMU_OspModelDescription.xml").exists()
    with pytest.raises(ExportError, match="exists; pass overwrite=True"):
        write_osp_model_description(a, overwrite=False)
    # libcosim looks for the model name: said when the file name differs, not otherwise
    note = libcosim_name_note(a)
    assert note is not None and "HydroFMU_OspModelDescription.xml" in note, note
    assert libcosim_name_note(_fake_fmu(tmp_path / "Case.fmu", "Case")) is None


def test_build_refuses_an_osp_description_it_did_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reached: list[str]
) -> None:
    """A ``<stem>_OspModelDescription.xml`` already beside a new FMU is kept: refused
    before any work, naming the file and the two ways out."""
    stray = tmp_path / "Case_OspModelDescription.xml"
    stray.write_text("<theirs/>", encoding="utf-8")
    config = _config(tmp_path, "builtin:sphere")
    assert main(["build", str(config), "-o", str(tmp_path / "Case.fmu"), "--name", "Case"]) == 2
    err = _error(capsys)
    assert str(stray) in err and "choose another -o or pass --force" in err, err
    assert reached == [] and stray.read_text(encoding="utf-8") == "<theirs/>"


@pytest.mark.fmu
def test_two_fmus_built_in_one_folder_keep_their_own_descriptions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real build, twice with the default model name: two FMUs, two descriptions, each
    naming the FMU's file; the note says what libcosim looks for."""
    config = _config(tmp_path, "builtin:sphere")
    for stem in ("one", "two"):
        # the Python FMU: quick to build (the native default is tests/test_native_default.py)
        assert main(["build", str(config), "-o", str(tmp_path / f"{stem}.fmu"), "--quiet",
                     "--python"]) == 0
        out = capsys.readouterr().out
        assert f"wrote {tmp_path / f'{stem}_OspModelDescription.xml'}" in out, out
        assert "libcosim looks for HydroFMU_OspModelDescription.xml" in out, out
    assert sorted(p.name for p in tmp_path.glob("*_OspModelDescription.xml")) == [
        "one_OspModelDescription.xml", "two_OspModelDescription.xml"]
