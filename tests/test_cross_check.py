"""The FMI cross-check tree (``hydrofmu crosscheck``, :mod:`hydrofmu.cosim.cross_check`).

Two examples (the default sphere, native, and the OSWEC, native with a hinge PTO torque as
its driven input) are written through the command line; the tree must pass FMPy's own
validator of vendor repositories, follow the rules' CSV format, and each ``_ref.csv`` must
be what fmpy computes from ``_in.csv`` and ``_ref.opt`` alone. Every example of the
repository goes through the same command by hand (docs/guide/cross-check.md has the
figures).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.cross_check import validate_result
from fmpy.cross_check.validate_vendor_repo import validate_test_fmu
from fmpy.util import read_csv, read_ref_opt_file

from hydrofmu.cli.commands import main
from hydrofmu.cosim.cross_check import model_name, tool_folder, validate_tree
from hydrofmu.cosim.cross_check_files import MAX_CSV_BYTES, MAX_REF_VARIABLES, reproduce
from paths import ROOT

CONFIGS = [ROOT / "examples" / "default_sphere_regular.toml",
           ROOT / "examples" / "oswec" / "oswec.toml"]
NAMES = ["DefaultSphereRegular", "Oswec"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("xc") / "vendor repo"  # a space: the URI is encoded
    status = main(["crosscheck", *map(str, CONFIGS), "-o", str(out), "--max-rows", "801"])
    assert status == 0
    return out


def test_model_names() -> None:
    assert [model_name(c) for c in CONFIGS] == NAMES
    assert model_name("rm3/2body-case.toml") == "M2bodyCase"


def test_tree_validates_with_fmpy(tree: Path) -> None:
    count, problems = validate_tree(tree)
    assert problems == []
    assert count == len(NAMES)
    folder = tool_folder(tree)
    assert folder.parts[-6:] == ("fmus", "2.0", "cs", fmpy.platform, "hydrofmu", folder.name)
    for name in NAMES:
        model = folder / name
        assert sorted(p.name for p in model.iterdir()) == sorted(
            [f"{name}.fmu", f"{name}_in.csv", f"{name}_ref.csv", f"{name}_ref.opt",
             "README.md"])
        assert not (model / "notCompliantWithLatestRules").exists()
        # the schema, the variable names (as FMPy's cross-check tool reads them)
        md = fmpy.read_model_description(str(model / f"{name}.fmu"), validate=True,
                                         validate_variable_names=True)
        assert md.coSimulation is not None and md.fmiVersion == "2.0"
    assert "| `Oswec` | `oswec.toml` | native |" in (folder / "README.md").read_text()


def test_files_follow_the_rules(tree: Path) -> None:
    for name in NAMES:
        model = tool_folder(tree) / name
        md = fmpy.read_model_description(str(model / f"{name}.fmu"))
        inputs = [v.name for v in md.modelVariables if v.causality == "input"]
        opt = read_ref_opt_file(str(model / f"{name}_ref.opt"))
        for suffix in ("_in.csv", "_ref.csv"):
            path = model / f"{name}{suffix}"
            assert path.stat().st_size < MAX_CSV_BYTES
            header, *rows = path.read_text().splitlines()
            names = header.split(",")
            assert all(n.startswith('"') and n.endswith('"') for n in names)
            assert names[0] == '"time"'
            assert not any(r.endswith(",") or '"' in r for r in rows)
        data_in = read_csv(str(model / f"{name}_in.csv"))
        assert list(data_in.dtype.names[1:]) == inputs  # every input, none other
        ref = read_csv(str(model / f"{name}_ref.csv"))
        assert len(ref.dtype.names) - 1 <= MAX_REF_VARIABLES
        assert ref["time"][0] == opt["StartTime"]
        assert ref["time"][-1] == pytest.approx(opt["StopTime"], rel=1e-12)
        assert np.all(np.diff(ref["time"]) > 0)
        # the rows are the communication points: StepSize apart
        assert np.diff(ref["time"]) == pytest.approx(opt["StepSize"], rel=1e-9)
        # a PTO force that changes, on one input at least
        driven = [n for n in data_in.dtype.names[1:] if np.ptp(data_in[n]) > 0.0]
        assert driven
    oswec = read_csv(str(tool_folder(tree) / "Oswec" / "Oswec_in.csv"))
    assert np.ptp(oswec["hinge.T_pto"]) > 0.0  # the joint's PTO is the one driven
    assert "hinge.angle" in read_csv(str(tool_folder(tree) / "Oswec" / "Oswec_ref.csv")
                                     ).dtype.names


@pytest.mark.parametrize("name", NAMES)
def test_fmpy_reproduces_the_reference(tree: Path, name: str) -> None:
    """fmpy from ``_in.csv`` and ``_ref.opt`` alone gives ``_ref.csv``: the same FMU
    binary, the same inputs read back from the file, the same communication points, and
    the CSV holds the doubles' shortest round-trip repr, so the result is bit-identical."""
    model = tool_folder(tree) / name
    reference, result = reproduce(model)
    assert result.dtype.names == reference.dtype.names
    for n in reference.dtype.names:
        assert np.array_equal(result[n], reference[n]), n
    opt = read_ref_opt_file(str(model / f"{name}_ref.opt"))
    # and the cross-check's own comparison (epsilon band) passes
    assert validate_result(result, reference, opt["StartTime"], opt["StopTime"]) is None


def test_the_input_shapes_the_reference(tree: Path, tmp_path: Path) -> None:
    """The reference responds to ``_in.csv``: with the PTO force removed the heave of the
    sphere changes by a large part of its range (a 10 % weight force on a body whose heave
    stiffness is its waterplane's: tens of centimetres)."""
    model = tool_folder(tree) / "DefaultSphereRegular"
    copy = tmp_path / "DefaultSphereRegular"
    shutil.copytree(model, copy)
    in_csv = copy / "DefaultSphereRegular_in.csv"
    header, *rows = in_csv.read_text().splitlines()
    zeroed = [",".join([r.split(",")[0]] + ["0.0"] * (len(r.split(",")) - 1)) for r in rows]
    in_csv.write_text("\n".join([header, *zeroed]) + "\n")
    reference, result = reproduce(copy)
    heave = reference["body.pose[3]"]
    assert np.max(np.abs(result["body.pose[3]"] - heave)) > 0.1 * np.ptp(heave)


def test_validator_catches_a_broken_folder(tree: Path, tmp_path: Path) -> None:
    """The check can fail: a reference naming a variable the FMU does not have, and an
    options file without StopTime, are both reported by FMPy's validator."""
    broken = tmp_path / "Oswec"
    shutil.copytree(tool_folder(tree) / "Oswec", broken)
    ref = broken / "Oswec_ref.csv"
    ref.write_text(ref.read_text().replace('"hinge.angle"', '"hinge.angel"', 1))
    opt = broken / "Oswec_ref.opt"
    opt.write_text("".join(line + "\n" for line in opt.read_text().splitlines()
                           if not line.startswith("StopTime")))
    # the validator reads the platform, type and version from the path
    repo = tmp_path / "repo"
    target = tool_folder(repo) / "Oswec"
    shutil.copytree(broken, target)
    problems = validate_test_fmu(str(target))
    assert any("hinge.angel" in p for p in problems)
    assert any("StopTime" in p for p in problems)


def test_cli_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["crosscheck", str(tmp_path / "missing.toml"), "-o", str(tmp_path)]) == 2
    assert "missing.toml" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["crosscheck", str(CONFIGS[0]), "-o", str(blocker)]) == 2
    assert "is a file" in capsys.readouterr().err
    assert main(["crosscheck", str(CONFIGS[0]), str(CONFIGS[0]), "-o",
                 str(tmp_path / "x")]) == 2
    assert "same model name" in capsys.readouterr().err
