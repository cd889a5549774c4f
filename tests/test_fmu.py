"""The built FMU: validation, model description, stepping in fmpy and libcosim, failures,
state, several instances and several FMUs in one process.

FMUs are built here (in this process) under a folder whose name has a space, and driven by
``tests/fmu_driver.py`` in a subprocess (``python -I``) where ``hydrofmu`` is not
importable; every driver result records that ``hydrofmu`` was never imported and which
bundled ``_hydrofmu_<hash>`` package ran. The driver unpacks FMUs under ``tmp_path`` with a
space in the folder name too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config, load_config
from hydrofmu.export import bundle
from hydrofmu.export.bundle import check_runtime_imports
from hydrofmu.export.fmu import (
    build_fmu,
    model_name_problem,
    resource_path_problem,
    sanitize_model_name,
)
from hydrofmu.export.model_description import UNIT_DEFINITIONS, finalize_model_description
from hydrofmu.runtime.errors import ExportError
from hydrofmu.runtime.simulator.simulator import Simulator
from paths import ROOT

pytestmark = pytest.mark.fmu

DRIVER = Path(__file__).with_name("fmu_driver.py")
DT = 0.05  # communication step, s
FMI_OK, FMI_DISCARD, FMI_ERROR = 0, 2, 3


# ---------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session")
def fmu_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fmus") / "built fmus"
    folder.mkdir()
    return folder


@pytest.fixture(scope="session")
def default_fmu(fmu_dir: Path) -> Path:
    """The default body (sphere, regular waves, convolution radiation)."""
    bodies, config = default_config()
    return build_fmu(bodies, config, fmu_dir / "HydroFMU.fmu")


@pytest.fixture(scope="session")
def other_fmu(fmu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second, different model: another body name, waves and radiation method, built
    from a copy of the package whose code differs by a comment (as another hydrofmu
    version would), so that its bundled package has another name."""
    source = tmp_path_factory.mktemp("variant") / "runtime"
    shutil.copytree(bundle.RUNTIME_ROOT, source, ignore=shutil.ignore_patterns("__pycache__"))
    with (source / "errors.py").open("a") as f:
        f.write("\n# variant build for test_two_different_fmus_in_one_process\n")
    bodies, config = default_config(
        wave={"height": 1.0, "period": 6.0},
        radiation={"method": "constant"},
        bodies=[{"name": "buoy", "hydro": "builtin:sphere"}],
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bundle, "RUNTIME_ROOT", source)
        return build_fmu(bodies, config, fmu_dir / "OtherWEC.fmu", model_name="OtherWEC")


def bundled_package(fmu: Path) -> str:
    with zipfile.ZipFile(fmu) as z:
        names = {n.split("/")[1] for n in z.namelist() if n.startswith("resources/_hydrofmu_")}
    assert len(names) == 1, names
    return names.pop()


def drive(scenario: str, request: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    """Run one driver scenario in an isolated interpreter; return its JSON result."""
    unpack = tmp_path / "unpack dir"
    unpack.mkdir(exist_ok=True)
    req_path = tmp_path / f"{scenario}.request.json"
    res_path = tmp_path / f"{scenario}.result.json"
    request = {**request, "result": str(res_path), "tempdir": str(unpack)}
    req_path.write_text(json.dumps(request))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run(
        [sys.executable, "-I", str(DRIVER), scenario, str(req_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, f"driver failed ({proc.returncode}):\n{proc.stderr}\n{proc.stdout}"
    result = json.loads(res_path.read_text())
    isolation = result["isolation"]
    assert isolation["hydrofmu_imported"] is False
    assert isolation["bundled_packages"], "no bundled _hydrofmu_* package was imported"
    return result


def model_description(fmu: Path) -> ET.Element:
    with zipfile.ZipFile(fmu) as z:
        return ET.fromstring(z.read("modelDescription.xml"))


# ---------------------------------------------------------------------------- description
def test_fmpy_validation_is_clean(default_fmu: Path, other_fmu: Path) -> None:
    from fmpy.validation import validate_fmu

    assert validate_fmu(str(default_fmu)) == []
    assert validate_fmu(str(other_fmu)) == []


def test_every_real_has_a_defined_unit(default_fmu: Path) -> None:
    root = model_description(default_fmu)
    defined = {u.get("name") for u in root.iter("Unit")}
    units = {}
    for sv in root.iter("ScalarVariable"):
        real = sv.find("Real")
        if real is not None:
            assert real.get("unit") in defined, sv.get("name")
            units[sv.get("name")] = real.get("unit")
    assert defined <= set(UNIT_DEFINITIONS)
    expected = {
        "body.pose[3]": "m",
        "body.pose[5]": "rad",
        "body.velocity[1]": "m/s",
        "body.acceleration[6]": "rad/s2",
        "body.F_pto[3]": "N",
        "body.F_pto[4]": "N.m",
        "body.F_radiation[5]": "N.m",
        "wave.elevation": "m",
        "wave.period": "s",
        "wave.direction": "rad",
        "added_mass.adj_mass_factor": "1",
    }
    assert {k: units[k] for k in expected} == expected


def test_output_dependencies_match_the_simulator(default_fmu: Path) -> None:
    bodies, config = default_config()
    expected = Simulator.output_dependencies(bodies, config)
    root = model_description(default_fmu)
    scalars = root.find("ModelVariables").findall("ScalarVariable")
    name_of = {str(i + 1): sv.get("name") for i, sv in enumerate(scalars)}
    outputs = root.find("ModelStructure/Outputs").findall("Unknown")
    declared = {}
    for unknown in outputs:
        deps = unknown.get("dependencies")
        assert deps is not None, "every output must declare its dependencies"
        kinds = unknown.get("dependenciesKind").split()
        assert len(kinds) == len(deps.split())
        declared[name_of[unknown.get("index")]] = sorted(name_of[i] for i in deps.split())
    assert declared == {k: sorted(v) for k, v in expected.items()}
    # Spot checks of the physics' claims as written into the XML.
    assert declared["body.pose[3]"] == []
    assert declared["wave.elevation"] == ["wave.elevation_input"]
    assert "body.F_pto[3]" in declared["body.acceleration[3]"]
    initial = root.find("ModelStructure/InitialUnknowns").findall("Unknown")
    assert [u.get("index") for u in initial] == [u.get("index") for u in outputs]


def test_state_capabilities_and_no_external_tool(default_fmu: Path) -> None:
    cs = model_description(default_fmu).find("CoSimulation")
    assert cs.get("needsExecutionTool") == "false"
    assert cs.get("canInterpolateInputs") == "false"
    assert cs.get("canGetAndSetFMUstate") == "true"
    assert cs.get("canSerializeFMUstate") == "true"


# ---------------------------------------------------------------------------- stepping
def test_simulate_with_pto_force_input(default_fmu: Path, tmp_path: Path) -> None:
    outputs = ["body.pose[3]", "body.velocity[3]", "body.acceleration[3]", "body.F_radiation[3]"]
    t = np.linspace(0.0, 20.0, 201)
    common = {"fmu": str(default_fmu), "dt": DT, "stop_time": 20.0, "outputs": outputs}
    force = 5.0e4 * np.sin(2 * np.pi * t / 5.0)
    with_pto = drive(
        "simulate",
        {**common, "input_time": t.tolist(), "inputs": {"body.F_pto[3]": force.tolist()}},
        tmp_path,
    )
    without = drive("simulate", {**common, "input_time": t.tolist(), "inputs": {}}, tmp_path)
    time = np.array(with_pto["time"])
    np.testing.assert_allclose(time, np.arange(401) * DT, rtol=0, atol=1e-9)
    for name in outputs:
        assert np.all(np.isfinite(with_pto["outputs"][name])), name
    # The PTO force acts: the heave responses differ by far more than round-off (the
    # default sphere heaves ~1 m in its 2 m waves; 50 kN moves it by centimetres).
    diff = np.abs(
        np.subtract(with_pto["outputs"]["body.pose[3]"], without["outputs"]["body.pose[3]"])
    )
    assert diff.max() > 1e-3
    assert with_pto["isolation"]["bundled_packages"] == [bundled_package(default_fmu)]


def test_libcosim_matches_fmpy(default_fmu: Path, tmp_path: Path) -> None:
    outputs = ["body.pose[3]", "body.velocity[3]", "body.acceleration[3]", "body.F_radiation[3]"]
    inputs = {"body.F_pto[3]": 1.0e3}
    n = 200
    cosim = drive(
        "cosim",
        {"fmu": str(default_fmu), "dt": DT, "steps": n, "inputs": inputs, "outputs": outputs},
        tmp_path,
    )
    assert cosim["ok"] and cosim["error_code"] == 0
    assert cosim["current_time_ns"] == n * round(DT * 1e9)
    ref = drive(
        "simulate",
        {
            "fmu": str(default_fmu),
            "dt": DT,
            "stop_time": n * DT,
            "outputs": outputs,
            "input_time": [0.0, n * DT],
            "inputs": {k: [v, v] for k, v in inputs.items()},
        },
        tmp_path,
    )
    np.testing.assert_allclose(np.array(cosim["time_ns"]) * 1e-9, ref["time"][1:], atol=1e-12)
    for name in outputs:
        a = np.array(cosim["outputs"][name])
        b = np.array(ref["outputs"][name][1:])  # fmpy also records t = 0
        # Same model and scheme; the communication times differ only by round-off (libcosim
        # counts integer nanoseconds, fmpy multiplies floats), which moves the wave phase by
        # ~1e-16 rad: 1e-9 of the signal's range is ample and still catches any real change.
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-9 * np.abs(b).max(), err_msg=name)


# ---------------------------------------------------------------------------- failures
def test_nan_input_is_discarded_with_a_message(default_fmu: Path, tmp_path: Path) -> None:
    r = drive(
        "nan_input", {"fmu": str(default_fmu), "dt": DT, "input_name": "body.F_pto[3]"}, tmp_path
    )
    assert r["nan_status"] == FMI_DISCARD
    text = " ".join(m[2] for m in r["messages"])
    assert "body.F_pto[3]" in text and "non-finite" in text
    assert r["outputs_finite"] and r["outputs_unchanged"]
    assert r["recover_status"] == FMI_OK


@pytest.mark.parametrize(
    ("name", "value", "phrase"),
    [
        ("time_scheme", "rk9", "rk9"),
        ("max_internal_step", -1.0, "max_internal_step"),
        ("wave.type", "tsunami", "tsunami"),
    ],
)
def test_bad_parameter_gives_error_status_and_message(
    default_fmu: Path, tmp_path: Path, name: str, value: Any, phrase: str
) -> None:
    r = drive(
        "bad_parameter",
        {"fmu": str(default_fmu), "dt": DT, "name": name, "value": value},
        tmp_path,
    )
    # Refused at fmi2ExitInitializationMode (fmi2Error through hydrofmu's shim, with the
    # message); every later step is refused too (state "error").
    assert r["exit_status"] == FMI_ERROR
    assert any(s == FMI_ERROR and phrase in m for s, _, m in r["exit_messages"]), r
    assert r["step_status"] == FMI_ERROR
    assert any(phrase in m for _, _, m in r["step_messages"]), r
    assert r["outputs_finite"]


def test_diverging_step_is_discarded_with_a_message(default_fmu: Path, tmp_path: Path) -> None:
    """Explicit Euler with 2 s internal steps on the sphere's heave (w_n dt ~ 2.9) grows
    ~3x per step: the step that crosses the divergence limit is refused (fmi2Discard)
    with a message, and the outputs keep their last good, finite values."""
    r = drive("diverge", {"fmu": str(default_fmu), "dt": 2.0, "max_steps": 200,
                          "parameters": {"time_scheme": "euler", "max_internal_step": 2.0}},
              tmp_path)
    assert r["statuses"][-1] == FMI_DISCARD, r["statuses"]
    assert all(s == FMI_OK for s in r["statuses"][:-1])
    text = " ".join(m[2] for m in r["messages"])
    assert "diverges" in text and "reduce max_internal_step" in text
    assert r["outputs_finite"] and r["outputs_kept"]


def test_unreadable_payload_fails_instantiation_cleanly(default_fmu: Path, tmp_path: Path) -> None:
    broken = tmp_path / "Broken.fmu"
    with zipfile.ZipFile(default_fmu) as zin, zipfile.ZipFile(broken, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "resources/model.npz":
                data = b"this is not an npz file"
            zout.writestr(info, data)
    r = drive("broken_model", {"fmu": str(broken)}, tmp_path)
    assert r["instantiated"] is False
    assert any("model.npz" in m or "model file" in m for _, _, m in r["messages"]), r


# ---------------------------------------------------------------------------- state
def test_state_restore_and_serialization_are_bit_identical(
    default_fmu: Path, tmp_path: Path
) -> None:
    r = drive(
        "state",
        {
            "fmu": str(default_fmu),
            "dt": DT,
            "steps_before": 40,
            "steps_after": 30,
            "input_name": "body.F_pto[3]",
            "input_value": 2.0e4,
        },
        tmp_path,
    )
    reference = np.array(r["reference"])
    assert reference.shape[0] == 30 and np.all(np.isfinite(reference))
    assert np.array_equal(np.array(r["restored"]), reference)
    assert np.array_equal(np.array(r["deserialized"]), reference)
    # Only the informational model report (status fmi2OK), no warning or error.
    assert [m for m in r["messages"] if m[0] != 0] == []
    assert any("radiation: convolution" in m[2] for m in r["messages"])
    assert r["garbage_status"] == FMI_ERROR  # refused (hydrofmu's shim), with the message
    assert any("cannot" in m for _, _, m in r["garbage_messages"]), r
    assert r["step_after_garbage"] == FMI_OK


# ---------------------------------------------------------------------------- instances
def test_two_instances_in_one_process(default_fmu: Path, tmp_path: Path) -> None:
    runs = [
        {"fmu": str(default_fmu), "inputs": {"body.F_pto[3]": 0.0}},
        {"fmu": str(default_fmu), "inputs": {"body.F_pto[3]": 3.0e4}},
    ]
    r = drive("instances", {"runs": runs, "dt": DT, "steps": 60}, tmp_path)
    for solo, together in zip(r["solo"], r["together"], strict=True):
        assert np.array_equal(np.array(solo), np.array(together))
    assert not np.array_equal(np.array(r["solo"][0]), np.array(r["solo"][1]))


def test_two_different_fmus_in_one_process(
    default_fmu: Path, other_fmu: Path, tmp_path: Path
) -> None:
    runs = [
        {"fmu": str(default_fmu), "inputs": {"body.F_pto[3]": 1.0e4}},
        {"fmu": str(other_fmu), "inputs": {"buoy.F_pto[3]": 1.0e4}},
    ]
    r = drive("instances", {"runs": runs, "dt": DT, "steps": 60}, tmp_path)
    assert r["model_names"] == ["HydroFMU", "OtherWEC"]
    assert_side_by_side(r, [default_fmu, other_fmu])


def assert_side_by_side(r: dict[str, Any], fmus: list[Path]) -> None:
    """Together in one process, each FMU gives exactly its solo outputs, each from its own
    bundled package."""
    for solo, together in zip(r["solo"], r["together"], strict=True):
        assert np.array_equal(np.array(solo), np.array(together))
    packages = [bundled_package(f) for f in fmus]
    assert packages[0] != packages[1]
    assert r["isolation"]["bundled_packages"] == sorted(packages)


@pytest.mark.slow
def test_same_code_with_and_without_the_line_kernel_in_one_process(
    default_fmu: Path, tmp_path: Path
) -> None:
    """The default FMU (no mooring) and a moored body whose lines must run the compiled
    kernel (``kernel = "c"``), same hydrofmu code, in one process, the default one first:
    their bundled packages differ (the kernel is part of the package's hash), so the
    moored FMU imports its own package with its kernel beside it instead of the default
    FMU's without one (which made it fall back to numpy, 2.4x slower, or fail with "c").
    Together, each gives exactly its solo outputs."""
    bodies, config = load_config(ROOT / "examples" / "moored_body.toml")
    config["moorings"][0]["kernel"] = "c"
    moored = build_fmu(bodies, config, tmp_path / "Moored.fmu", model_name="Moored")
    runs = [
        {"fmu": str(default_fmu), "inputs": {"body.F_pto[3]": 1.0e4}},
        {"fmu": str(moored), "inputs": {"body.F_pto[3]": 1.0e4}},
    ]
    r = drive("instances", {"runs": runs, "dt": DT, "steps": 40}, tmp_path)
    assert_side_by_side(r, [default_fmu, moored])


# ---------------------------------------------------------------------------- export
def test_existing_file_is_not_overwritten(default_fmu: Path, tmp_path: Path) -> None:
    target = tmp_path / "Mine.fmu"
    target.write_bytes(b"user data")
    bodies, config = default_config()
    with pytest.raises(ExportError, match=r"Mine\.fmu"):
        build_fmu(bodies, config, target)
    assert target.read_bytes() == b"user data"
    build_fmu(bodies, config, target, overwrite=True)
    assert zipfile.is_zipfile(target)


@pytest.mark.parametrize("name", ["2body", "my-wec", "class", "", "blåbær", "a" * 65])
def test_invalid_model_names_are_refused(name: str, tmp_path: Path) -> None:
    assert model_name_problem(name) is not None
    assert model_name_problem(sanitize_model_name(name)) is None
    bodies, config = default_config()
    with pytest.raises(ExportError, match="invalid model name"):
        build_fmu(bodies, config, tmp_path / "x.fmu", model_name=name)


def test_output_path_must_be_an_fmu_file(tmp_path: Path) -> None:
    bodies, config = default_config()
    with pytest.raises(ExportError, match=r"\.fmu"):
        build_fmu(bodies, config, tmp_path / "model.zip")


def test_non_ascii_folder_is_detected(tmp_path: Path) -> None:
    assert resource_path_problem(tmp_path / "with space") is None
    problem = resource_path_problem(tmp_path / "blåbær")
    assert problem is not None and "å" in problem
    target = tmp_path / "blåbær" / "HydroFMU.fmu"
    bodies, config = default_config()
    with pytest.warns(UserWarning, match="blåbær"):
        build_fmu(bodies, config, target)
    assert target.is_file()


def test_runtime_import_check() -> None:
    ok = {
        "errors.py": b"import math\nimport numpy as np\n",
        "system.py": b"from .errors import X\nfrom .forces.radiation import R\n",
        "forces/radiation.py": b"from ..errors import X\nfrom . import history\n",
        "forces/history.py": b"",
    }
    check_runtime_imports(ok)
    for bad, phrase in [
        (b"from hydrofmu.errors import X\n", "hydrofmu.errors"),
        (b"from .config import load_config\n", "config.py"),
        (b"import xarray\n", "xarray"),
        (b"from .forces import Radiation\n", "package __init__"),
        (b"def f():\n    from hydrofmu import errors\n", "hydrofmu"),
    ]:
        with pytest.raises(ExportError, match=phrase):
            check_runtime_imports({**ok, "system.py": bad})


def test_model_description_needs_units_and_dependencies() -> None:
    xml = b"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="M" guid="g">
  <CoSimulation modelIdentifier="M"/>
  <ModelVariables>
    <ScalarVariable name="u" valueReference="0" causality="input" variability="continuous">
      <Real start="0"/></ScalarVariable>
    <ScalarVariable name="y" valueReference="1" causality="output" variability="continuous">
      <Real/></ScalarVariable>
  </ModelVariables>
  <ModelStructure><Outputs><Unknown index="2"/></Outputs></ModelStructure>
</fmiModelDescription>"""
    out = ET.fromstring(
        finalize_model_description(xml, units={"u": "N", "y": "m"}, dependencies={"y": ["u"]})
    )
    assert [c.tag for c in out] == [
        "CoSimulation",
        "UnitDefinitions",
        "ModelVariables",
        "ModelStructure",
    ]
    assert out.find("ModelStructure/Outputs/Unknown").get("dependencies") == "1"
    with pytest.raises(ExportError, match="furlong"):
        finalize_model_description(xml, units={"u": "N", "y": "furlong"}, dependencies={"y": []})
    with pytest.raises(ExportError, match="without a unit"):
        finalize_model_description(xml, units={"u": "N"}, dependencies={"y": []})
    with pytest.raises(ExportError, match="not inputs"):
        finalize_model_description(xml, units={"u": "N", "y": "m"}, dependencies={"y": ["y"]})


def test_a_refused_run_names_the_fmus_reason(default_fmu: Path) -> None:
    """``hydrofmu run`` (fmpy's simulate_fmu, logging off) with a parameter the FMU refuses
    at initialization: the error carries the FMU's own reason, not only the status (the
    shim passes error messages to the host even with logging off)."""
    code = (
        "from hydrofmu.cosim.fmpy_run import simulate\n"
        "from hydrofmu.runtime.errors import ExportError\n"
        "try:\n"
        f"    simulate({str(default_fmu)!r}, stop_time=1.0, output_interval=0.1,\n"
        "             start_values={'wave.period': 0.01})\n"
        "except ExportError as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "fmi2ExitInitializationMode failed" in proc.stdout, proc.stdout
    assert "wave.period = 0.01 s is shorter than 4 internal steps" in proc.stdout, proc.stdout
