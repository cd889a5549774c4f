"""The native runtime against an oracle (issue 31, point 6): seeded random FMI call
sequences (``tests/fuzz_driver.py``) with steps up to DBL_MAX, start times near +-1e300,
NaN and infinite values, unknown value references and foreign FMU states, every status
checked against the one FMI 2.0 and the model description prescribe; the runtime built
with AddressSanitizer and UndefinedBehaviorSanitizer (float-cast-overflow included, which
gcc's ``-fsanitize=undefined`` leaves out); and seeded mutations of the C runtime that the
oracle must catch (a test that cannot fail proves nothing)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from drift_helpers import drift_current_config
from hydrofmu.config.configuration import default_config
from hydrofmu.export.native import build_native_fmu
from hydrofmu.export.native.compile import (
    BODY_KERNEL_DIR,
    C_SOURCES,
    FLAGS,
    LINE_KERNEL_DIR,
    PANEL_KERNEL_DIR,
    RUNTIME_DIR,
)
from test_exact_scheme import POSE

pytestmark = pytest.mark.fmu

FUZZ_DRIVER = Path(__file__).parent / "fuzz_driver.py"
#: AddressSanitizer and UndefinedBehaviorSanitizer, float-cast-overflow named: gcc's
#: -fsanitize=undefined does not include it (a double out of an int's range converted to
#: int, the undefined behaviour that hung hfn_expm on arm64).
SANITIZE = ("-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer")
#: Mutations of the runtime (file, text, replacement) the oracle must catch.
MUTATIONS = {
    "negative steps accepted": ("fmi2Functions.c", [
        ("if (!(isfinite(h) && h > 0.0)) {", "if (!(isfinite(h) && h != 0.0)) {"),
        ("if (!(t + h > t) || !(t + h > fmu_time) || !isfinite(t + h)) {",
         "if (!(t + h != t) || !isfinite(t + h)) {"),
    ]),
    "a non-finite derivative seed accepted": ("hfn_deriv.c", [
        ("if (!isfinite(dknown[i])) {", "if (0) {"),
    ]),
    "fmi2OK for an unknown value reference": ("fmi2Functions.c", [
        ('REFUSE(c, "no Real variable has value reference %u", (unsigned)r);\n'
         "            value[i] = NAN;\n            status = fmi2Error;",
         'REFUSE(c, "no Real variable has value reference %u", (unsigned)r);\n'
         "            value[i] = NAN;"),
    ]),
}


def _unpacked(folder: Path, drag: bool, drift: bool = False) -> Path:
    bodies, config = default_config(radiation={"method": "state_space"})
    if drift:  # drift loads and hull drag in a current (tests/drift_helpers.py), rk4
        bodies, config = drift_current_config("state_space")
    config["bodies"][0]["initial_pose"] = list(POSE)
    # exact: the linear map of any step length (e^{F h} by hfn_expm, the float-to-int guard
    # the sanitizer test removes); rk4 would step this linear model in the RK mode.
    config["simulation"]["time_scheme"] = "rk4" if drift else "exact"
    if drag and not drift:  # the Runge-Kutta mode: internal steps on a grid, a step limit
        config["bodies"][0]["quadratic_damping"] = [0.0, 0.0, 5e4, 0.0, 0.0, 0.0]
        config["simulation"]["time_scheme"] = "rk4"
    fmu = build_native_fmu(bodies, config, folder / "Sphere.fmu", model_name="Sphere",
                           platforms=("linux64",))
    target = folder / "unpacked"
    zipfile.ZipFile(fmu).extractall(target)
    return target


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sphere's native FMU (state-space radiation, every DOF moving, the exact scheme),
    unpacked."""
    return _unpacked(tmp_path_factory.mktemp("oracle"), drag=False)


@pytest.fixture(scope="module")
def unpacked_load(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sphere's native load FMU (state-space radiation; its states carried along the
    Hermite motion), unpacked."""
    folder = tmp_path_factory.mktemp("oracle_load")
    bodies, config = default_config(radiation={"method": "state_space"})
    config["export"]["kind"] = "loads"
    fmu = build_native_fmu(bodies, config, folder / "Sphere.fmu", model_name="Sphere",
                           platforms=("linux64",))
    target = folder / "unpacked"
    zipfile.ZipFile(fmu).extractall(target)
    return target


@pytest.fixture(scope="module")
def unpacked_load_conv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sphere's native load FMU with convolution radiation (the velocity history in its
    state, pushed along the Hermite motion; a 5 s kernel on a 0.05 s grid) and heave drag,
    unpacked."""
    folder = tmp_path_factory.mktemp("oracle_load_conv")
    bodies, config = default_config(radiation={"method": "convolution", "irf_duration": 5.0},
                                    simulation={"max_internal_step": 0.05})
    config["export"]["kind"] = "loads"
    config["bodies"][0]["quadratic_damping"] = [0.0, 0.0, 5e4, 0.0, 0.0, 0.0]  # and drag
    fmu = build_native_fmu(bodies, config, folder / "Sphere.fmu", model_name="Sphere",
                           platforms=("linux64",))
    target = folder / "unpacked"
    zipfile.ZipFile(fmu).extractall(target)
    return target


@pytest.fixture(scope="module")
def unpacked_load_exact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sphere's native load FMU with state-space radiation stepped exactly along the
    Hermite motion (time_scheme = "exact": the block exponential cached per step length),
    unpacked."""
    folder = tmp_path_factory.mktemp("oracle_load_exact")
    bodies, config = default_config(radiation={"method": "state_space"},
                                    simulation={"time_scheme": "exact"})
    config["export"]["kind"] = "loads"
    fmu = build_native_fmu(bodies, config, folder / "Sphere.fmu", model_name="Sphere",
                           platforms=("linux64",))
    target = folder / "unpacked"
    zipfile.ZipFile(fmu).extractall(target)
    return target


@pytest.fixture(scope="module")
def unpacked_rk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same with heave drag: stepped in the Runge-Kutta mode (rk4, 0.01 s)."""
    return _unpacked(tmp_path_factory.mktemp("oracle_rk"), drag=True)


@pytest.fixture(scope="module")
def unpacked_catenary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped catenary-moored body (three quasi-static chains solved in C at every
    stage, rk4 at 0.02 s), unpacked."""
    from hydrofmu.api.model import Model

    folder = tmp_path_factory.mktemp("oracle_catenary")
    model = Model.from_toml(Path(__file__).resolve().parents[1] / "examples" / "catenary"
                            / "catenary_moored.toml")
    fmu = build_native_fmu(model.bodies, model.config, folder / "Catenary.fmu",
                           model_name="Catenary", platforms=("linux64",))
    target = folder / "unpacked"
    zipfile.ZipFile(fmu).extractall(target)
    return target


@pytest.fixture(scope="module")
def unpacked_panels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sphere with nonlinear hydrostatics and Froude-Krylov (a coarse hull of 224
    triangles, the instantaneous surface, surge, heave and pitch): the panel kernel in the
    Runge-Kutta mode (rk4, 0.05 s)."""
    import warnings

    import hydrofmu
    from hydrofmu.config.nonlinear import NonlinearMeshWarning
    from panel_meshes import sphere, write_stl

    folder = tmp_path_factory.mktemp("oracle_panels")
    write_stl(folder / "hull.stl", sphere(5.0, 8))
    with warnings.catch_warnings():  # the coarse hull's volume is not the data's
        warnings.simplefilter("ignore", NonlinearMeshWarning)
        model = hydrofmu.Model.from_dict({
            "simulation": {"time_scheme": "rk4", "max_internal_step": 0.05},
            "wave": {"type": "regular", "height": 2.0, "period": 6.0, "ramp_time": 5.0},
            "bodies": [{"name": "body", "hydro": "builtin:sphere", "radiation": "constant",
                        "dofs": ["surge", "heave", "pitch"], "mesh": "hull.stl",
                        "nonlinear": "instantaneous"}]}, base_dir=folder)
    fmu = build_native_fmu(model.bodies, model.config, folder / "Sphere.fmu",
                           model_name="Sphere", platforms=("linux64",))
    target = folder / "unpacked"
    zipfile.ZipFile(fmu).extractall(target)
    return target


def runtime_copy(unpacked: Path, folder: Path, sources: Path, *flags: str) -> Path:
    """A copy of the unpacked FMU whose linux64 library is built from ``sources``."""
    target = folder / "fmu"
    shutil.copytree(unpacked, target)
    library = next((target / "binaries" / "linux64").glob("*.so"))  # the model's one
    cmd = ["gcc", "-shared", "-fPIC", *FLAGS, *flags, f"-I{sources}",
           f"-I{LINE_KERNEL_DIR}", f"-I{PANEL_KERNEL_DIR}", f"-I{BODY_KERNEL_DIR}", "-o",
           str(library),
           *(str(sources / name) for name in C_SOURCES), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return target


def fuzz(fmu: Path, calls: int, seed: int, tmp: Path, env: dict[str, str] | None = None
         ) -> tuple[dict, subprocess.CompletedProcess]:
    """The oracle's run of ``calls`` seeded calls in an isolated interpreter (a crash fails
    the test through the return code, a hang through the timeout)."""
    result = tmp / f"fuzz_{seed}.json"
    base = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([sys.executable, "-I", str(FUZZ_DRIVER), str(fmu), str(calls),
                           str(seed), str(result)], env={**base, **(env or {})}, cwd=tmp,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(result.read_text()), proc


def sanitized_fuzz(unpacked: Path, tmp_path: Path, calls: int, seed: int) -> dict:
    """The oracle's fuzz of ``unpacked`` rebuilt with ASan and UBSan (float-cast-overflow
    too): ``calls`` seeded calls; no sanitizer report and no mismatch asserted; the
    driver's counts returned (skipped without gcc)."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc for the sanitizer build")
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                             text=True, check=True).stdout.strip()
    fmu = runtime_copy(unpacked, tmp_path, RUNTIME_DIR, "-g", *SANITIZE)
    env = {"LD_PRELOAD": libasan, "ASAN_OPTIONS": "detect_leaks=0",
           "UBSAN_OPTIONS": "print_stacktrace=1"}
    out, proc = fuzz(fmu, calls, seed, tmp_path, env)
    assert "runtime error" not in proc.stderr and "Sanitizer" not in proc.stderr, \
        proc.stderr[-4000:]
    assert "failure" not in out, out
    return out


@pytest.mark.parametrize("seed", [20261126, 7])
def test_the_runtime_passes_the_oracle_under_sanitizers(unpacked: Path, seed: int,
                                                        tmp_path: Path) -> None:
    """20,000 seeded calls on the runtime built with ASan and UBSan (the library loaded by
    fmpy in Python with libasan preloaded; leaks are checked by the C host's sanitizer
    tests): every status the oracle's, no sanitizer report, no crash, no hang; the
    sequence steps, is discarded and refused, restores states and passes foreign ones."""
    out = sanitized_fuzz(unpacked, tmp_path, 20000, seed)
    assert out["steps"] > 200 and out["discarded"] > 10 and out["restored"] > 100, out
    assert out["errors"] > 1000 and out["foreign"] > 500, out
    assert out.get("derivatives", 0) > 100, out  # fmi2GetDirectionalDerivative answered


@pytest.fixture(scope="module")
def unpacked_drift(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sphere with drift loads (Newman) and hull drag in a current, rk4."""
    return _unpacked(tmp_path_factory.mktemp("oracle_drift"), drag=True, drift=True)


@pytest.mark.parametrize("model", ["unpacked_rk", "unpacked_drift"])
def test_the_rk_mode_passes_the_oracle_under_sanitizers(model: str, tmp_path: Path,
                                                        request: pytest.FixtureRequest
                                                        ) -> None:
    """The Runge-Kutta mode (internal steps of 0.01 s on a grid, the step limit counted from
    the internal time, zero-length internal steps at |t| ~ 1e17 and 1e300 refused instead of
    looping) under the same oracle and sanitizers: no mismatch, no report, no hang; with
    heave drag, and with drift loads and the drag in a current (the wave height, which
    scales the drift by its square, among the fuzzed parameters)."""
    unpacked_rk = request.getfixturevalue(model)
    out = sanitized_fuzz(unpacked_rk, tmp_path, 10000, 20261126)
    assert out["steps"] > 100 and out["discarded"] > 5 and out["restored"] > 50, out


def test_the_catenary_passes_the_oracle_under_sanitizers(unpacked_catenary: Path,
                                                         tmp_path: Path) -> None:
    """The catenary moorings (the C solve at every stage; a line that cannot be solved at
    the fuzz's extreme inputs discards the step) under the same oracle and sanitizers: no
    mismatch, no report, no hang."""
    out = sanitized_fuzz(unpacked_catenary, tmp_path, 10000, 20261126)
    assert out["steps"] > 100 and out["discarded"] > 5 and out["restored"] > 50, out


def test_the_panels_pass_the_oracle_under_sanitizers(unpacked_panels: Path,
                                                     tmp_path: Path) -> None:
    """Nonlinear hydrostatics and Froude-Krylov (the panel kernel, issue 28) under the same
    oracle and sanitizers: poses from steps up to DBL_MAX and times near 1e300 (a pose the
    kernel refuses makes the step diverge and be refused), no mismatch, no report."""
    out = sanitized_fuzz(unpacked_panels, tmp_path, 5000, 20261128)
    assert out["steps"] > 50 and out["discarded"] > 2 and out["restored"] > 20, out


@pytest.fixture(scope="module")
def unpacked_large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A flap on a revolute joint with large rotations (the rigid-body kernel, issue 28):
    the OSWEC survival example (body-axes radiation, nonlinear hydrostatics on the hull),
    rk4 at its 0.02 s internal step."""
    import warnings

    import hydrofmu

    folder = tmp_path_factory.mktemp("oracle_large")
    examples = Path(__file__).resolve().parents[1] / "examples" / "oswec"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the BEM data's notes
        model = hydrofmu.Model.from_toml(examples / "oswec_survival.toml")
    fmu = build_native_fmu(model.bodies, model.config, folder / "Flap.fmu",
                           model_name="Flap", platforms=("linux64",))
    target = folder / "unpacked"
    zipfile.ZipFile(fmu).extractall(target)
    return target


def test_large_rotations_pass_the_oracle_under_sanitizers(unpacked_large: Path,
                                                         tmp_path: Path) -> None:
    """Large rotations (the rigid-body kernel's poses and solve, the force form) under the
    same oracle and sanitizers: a pose or solve the kernel refuses makes the step diverge
    and be refused; no mismatch, no report."""
    out = sanitized_fuzz(unpacked_large, tmp_path, 3000, 20261128)
    assert out["steps"] > 50 and out["discarded"] > 2 and out["restored"] > 20, out


def test_the_load_fmu_passes_the_oracle_under_sanitizers(unpacked_load: Path,
                                                          tmp_path: Path) -> None:
    """The native load FMU (steps on its grid only, the states carried to the current time
    at every output and derivative, restored states with any times) under the same oracle
    and sanitizers: no mismatch, no report, no hang."""
    out = sanitized_fuzz(unpacked_load, tmp_path, 10000, 20261128)
    assert out["steps"] > 100 and out["derivatives"] > 50 and out["restored"] > 50, out


def test_the_load_fmu_with_convolution_passes_the_oracle_under_sanitizers(
        unpacked_load_conv: Path, tmp_path: Path) -> None:
    """The native load FMU with convolution radiation (its ring buffer pushed by steps and
    on a kept copy by outputs and derivatives; restored states with any ring position)
    under the same oracle and sanitizers: no mismatch, no report, no hang."""
    out = sanitized_fuzz(unpacked_load_conv, tmp_path, 5000, 20261129)
    assert out["steps"] > 50 and out["derivatives"] > 25 and out["restored"] > 25, out


def test_the_exact_load_fmu_passes_the_oracle_under_sanitizers(
        unpacked_load_exact: Path, tmp_path: Path) -> None:
    """The native load FMU with time_scheme = "exact" (steps of any length on its grid:
    the exponential rebuilt for each new length, refused when it fails) under the same
    oracle and sanitizers: no mismatch, no report, no hang."""
    out = sanitized_fuzz(unpacked_load_exact, tmp_path, 3000, 20261130)
    assert out["steps"] > 30 and out["derivatives"] > 15 and out["restored"] > 15, out


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_the_oracle_catches_a_mutated_runtime(unpacked: Path, name: str,
                                              tmp_path: Path) -> None:
    """The runtime's sources patched in a temporary copy (a step of negative length
    accepted; fmi2OK answered for an unknown Real value reference): the oracle reports a
    mismatch within 20,000 calls of the first seed."""
    sources = tmp_path / "csrc"
    shutil.copytree(RUNTIME_DIR, sources)
    file, patches = MUTATIONS[name]
    text = (sources / file).read_text()
    for old, new in patches:
        assert text.count(old) == 1, f"mutation '{name}' no longer applies: {old!r}"
        text = text.replace(old, new)
    (sources / file).write_text(text)
    fmu = runtime_copy(unpacked, tmp_path, sources)
    out, _ = fuzz(fmu, 20000, 20261126, tmp_path)
    assert "failure" in out, f"the oracle let the mutation '{name}' pass: {out}"


def test_the_sanitizer_build_sees_an_unguarded_float_to_int(unpacked: Path,
                                                            tmp_path: Path) -> None:
    """hfn_expm's guard removed in a copy (``(int)ceil(log2(norm / theta))`` for an infinite
    norm, a step of DBL_MAX): the sanitizer build reports the float-cast-overflow the fuzz
    reaches. Shows that the flag is on and the fuzz reaches the extreme steps."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc for the sanitizer build")
    sources = tmp_path / "csrc"
    shutil.copytree(RUNTIME_DIR, sources)
    text = (sources / "hfn_linalg.c").read_text()
    old = "    if (!(norm <= DBL_MAX)) return -1;\n"
    assert text.count(old) == 1 and "if (!(squarings <= HFN_MAX_SQUARINGS)) return -1;" in text
    text = text.replace(old, "").replace("if (!(squarings <= HFN_MAX_SQUARINGS)) return -1;",
                                         "")
    (sources / "hfn_linalg.c").write_text(text)
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                             text=True, check=True).stdout.strip()
    fmu = runtime_copy(unpacked, tmp_path, sources, "-g", *SANITIZE)
    env = {"LD_PRELOAD": libasan, "ASAN_OPTIONS": "detect_leaks=0",
           "UBSAN_OPTIONS": "print_stacktrace=1"}
    result = tmp_path / "fuzz.json"
    base = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([sys.executable, "-I", str(FUZZ_DRIVER), str(fmu), "20000",
                           "20261126", str(result)], env={**base, **env}, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode != 0, "the unguarded conversion went unreported"
    assert "hfn_linalg.c" in proc.stderr and "outside the range" in proc.stderr, \
        proc.stderr[-3000:]
