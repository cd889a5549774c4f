"""fmi2GetDirectionalDerivative (issue 29, point 2): every directional derivative equals a
central difference of the FMU itself (inputs set at +-h, outputs read, no step), the
native and the Python FMU return the same Jacobian, what ``ModelStructure`` declares
covers every nonzero entry, and a model whose derivative the runtime cannot give says so
(``providesDirectionalDerivative = false``) and refuses the call by name."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pytest

import hydrofmu
from hydrofmu.config.configuration import default_config
from hydrofmu.cosim.fmu_unit import FmuUnit
from hydrofmu.export.native.assemble import native_model
from hydrofmu.export.native.build import build_simulator, payload_model
from hydrofmu.export.native.derivative_blob import derivative_refusal, shim_only
from native_helpers import build_pair
from test_exact_scheme import POSE
from test_native_tunable import pto_config

pytestmark = pytest.mark.fmu

EPS = np.finfo(float).eps
#: The input step of the central difference, in the input's unit: N or N m for a force, else
#: (m, m/s, m/s2, rad...) 0.1. At a fixed state the outputs are affine in the inputs
#: (products of two outputs: quadratic), so the difference has no truncation error at any
#: h; a large h makes its rounding small: see :func:`tolerance`.
H_FORCE, H_OTHER = 1e4, 0.1


def _step(name: str) -> float:
    return H_FORCE if ".F_" in name else H_OTHER


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("derivative")


@pytest.fixture(scope="module")
def pto(folder: Path) -> tuple[Path, Path]:
    """(Python, native) FMUs: the sphere, six DOFs, state-space radiation, a heave PTO
    (its power a product of outputs), the exact scheme."""
    return build_pair(*pto_config(), folder, "Pto", platforms=("linux64",))


@pytest.fixture(scope="module")
def drag(folder: Path) -> tuple[Path, Path]:
    """(Python, native) FMUs: the default sphere (convolution radiation) with quadratic drag
    on every DOF, stepped by rk4 (the native Runge-Kutta mode)."""
    bodies, config = default_config()
    config["bodies"][0]["initial_pose"] = list(POSE)
    config["bodies"][0]["quadratic_damping"] = [2e4, 2e4, 5e4, 1e6, 1e6, 1e5]
    return build_pair(bodies, config, folder, "Drag", scheme="rk4", platforms=("linux64",))


def _names(fmu: Path, causality: str) -> list[str]:
    root = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))
    return [v.get("name") for v in root.iter("ScalarVariable")
            if v.get("causality") == causality]


def _declared(fmu: Path) -> dict[str, dict[str, str]]:
    """Output name -> {input name: dependenciesKind} of its ModelStructure."""
    root = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))
    names = [v.get("name") for v in root.iter("ScalarVariable")]
    out = {}
    for u in root.find("ModelStructure").find("Outputs"):
        deps = [names[int(i) - 1] for i in (u.get("dependencies") or "").split()]
        kinds = (u.get("dependenciesKind") or "").split()
        out[names[int(u.get("index")) - 1]] = dict(zip(deps, kinds, strict=True))
    return out


def _provides(fmu: Path) -> str | None:
    root = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))
    return root.find("CoSimulation").get("providesDirectionalDerivative")


def _driven(fmu: Path, name: str, steps: int = 40) -> FmuUnit:
    """The FMU after ``steps`` steps of 0.1 s with seeded inputs (a state far from rest)."""
    unit = FmuUnit(fmu, name)
    inputs = _names(fmu, "input")
    rng = np.random.default_rng(29)
    for _ in range(steps):
        unit.set(inputs, [3e4 * rng.standard_normal() if "F_pto" in n
                          else 0.3 * rng.standard_normal() for n in inputs])
        unit.do_step(0.1)
    return unit


def central(unit: FmuUnit, outputs: list[str], inputs: list[str]
            ) -> tuple[np.ndarray, np.ndarray]:
    """The central difference of the outputs in each input (no step; the inputs set back)
    and the largest |output| seen per output (for the rounding bound)."""
    u0 = unit.get(inputs)
    cols, scale = [], np.abs(unit.get(outputs))
    for j, name in enumerate(inputs):
        h = _step(name)
        unit.set([name], [u0[j] + h])
        plus = unit.get(outputs)
        unit.set([name], [u0[j] - h])
        minus = unit.get(outputs)
        unit.set([name], [u0[j]])
        cols.append((plus - minus) / (2.0 * h))
        scale = np.maximum(scale, np.maximum(np.abs(plus), np.abs(minus)))
    return np.array(cols).T, scale


def tolerance(scale: np.ndarray, jac: np.ndarray, inputs: list[str]) -> np.ndarray:
    """Bound on |derivative - central difference| per entry: no truncation (affine or
    quadratic outputs at a fixed state), so only rounding: each output read is rounded to a
    few eps of its size (observed: the difference's error is 1.5 eps |y| / h at most over the
    four FMUs of this file and test_native_load.py, no cancellation beyond that), divided by
    2 h, and the derivative's own sum to a few eps |J|; 32 eps leaves a margin of 10."""
    h = np.array([_step(n) for n in inputs])
    return 32 * EPS * (scale[:, None] / h[None, :] + np.abs(jac)) + 1e-300


def _check_against_difference(fmu: Path, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The Jacobian after :func:`_driven`, checked entry by entry against the FMU's central
    difference and the declared dependencies; with its tolerance."""
    outputs, inputs = _names(fmu, "output"), _names(fmu, "input")
    unit = _driven(fmu, name)
    try:
        jac = unit.jacobian(outputs, inputs)
        diff, scale = central(unit, outputs, inputs)
    finally:
        unit.close()
    tol = tolerance(scale, jac, inputs)
    bad = np.argwhere(np.abs(jac - diff) > tol)
    assert bad.size == 0, [(outputs[i], inputs[j], jac[i, j], diff[i, j]) for i, j in bad[:5]]
    assert np.count_nonzero(jac) > 0  # the check saw derivatives, not only zeros
    declared = _declared(fmu)
    for i, j in np.argwhere(jac != 0.0):  # every nonzero entry is a declared dependency
        assert inputs[j] in declared[outputs[i]], (outputs[i], inputs[j])
    return jac, tol


@pytest.mark.parametrize("case", ["pto", "drag"])
def test_native_derivative_equals_the_fmus_central_difference(case: str,
                                                              request: pytest.FixtureRequest
                                                              ) -> None:
    """Exact mode (a PTO, products of outputs) and Runge-Kutta mode (drag, convolution
    radiation: their forces read the state only): d outputs / d inputs at the state after
    40 seeded steps, every entry."""
    _, native = request.getfixturevalue(case)
    assert _provides(native) == "true"
    jac, _ = _check_against_difference(native, f"{case}_native")
    outputs, inputs = _names(native, "output"), _names(native, "input")
    # the acceleration's response to a PTO force: a row of (M + A_inf)^-1, not zero
    k = inputs.index("body.F_pto[3]")
    assert jac[outputs.index("body.acceleration[3]"), k] > 0.0


def test_a_model_reading_the_elevation_input_declares_no_derivative() -> None:
    """The elevation input reaches the native outputs through its filter and preview, which
    the derivative does not carry: the build says so (no silent zero)."""
    bodies, config = default_config(radiation={"method": "state_space"},
                                    wave={"type": "input", "ramp_time": 5.0})
    config["bodies"][0]["quadratic_damping"] = [0.0, 0.0, 5e4, 0.0, 0.0, 0.0]
    config["simulation"]["time_scheme"] = "rk4"
    bodies, config = payload_model(bodies, copy.deepcopy(config))
    sim = build_simulator(bodies, config)
    why = derivative_refusal(native_model(sim, 0.1))
    assert "elevation input" in why and "wave.type = 'input'" in why


@pytest.mark.parametrize("case", ["pto", "drag"])
def test_python_derivative_through_the_shim_equals_its_central_difference(
        case: str, request: pytest.FixtureRequest) -> None:
    """The Python FMU answers fmi2GetDirectionalDerivative through its linux64 shim
    (pythonfmu's binary alone refuses it): every entry against the FMU's own central
    difference. It declares the capability only when every binary it carries answers
    (pythonfmu's win64 binary, shipped too, refuses it)."""
    python, _ = request.getfixturevalue(case)
    assert _provides(python) == ("true" if shim_only(python) else "false")
    _check_against_difference(python, f"{case}_python")


@pytest.mark.parametrize("case", ["pto", "drag"])
def test_native_and_python_jacobians_are_equal(case: str,
                                               request: pytest.FixtureRequest) -> None:
    """The same state (the same seeded steps; the two FMUs' states agree to ~1e-14 of their
    peaks, test_native_*), the same Jacobian: native exact, Python the central difference of
    its affine outputs with a step s = max(1, |u|) >= 1 (seed 1), which rounds to
    ~eps |y| / s <= eps |y|; the native sum to a few eps |J|: 32 eps of both."""
    python, native = request.getfixturevalue(case)
    outputs, inputs = _names(native, "output"), _names(native, "input")
    jac, scale = {}, None
    for kind, fmu in (("python", python), ("native", native)):
        unit = _driven(fmu, f"{case}_{kind}_pair")
        try:
            jac[kind] = unit.jacobian(outputs, inputs)
            y = np.abs(unit.get(outputs))
            scale = y if scale is None else np.maximum(scale, y)
        finally:
            unit.close()
    assert np.count_nonzero(jac["native"]) > 0
    tol = 32 * EPS * (scale[:, None] + np.abs(jac["native"]))
    assert np.all(np.abs(jac["python"] - jac["native"]) <= tol), np.max(
        np.abs(jac["python"] - jac["native"]))


@pytest.fixture(scope="module")
def loads(folder: Path) -> Path:
    """The Python load FMU of the default sphere (convolution radiation)."""
    from hydrofmu.export.fmu import build_fmu
    from test_loads_fmu import _config

    bodies = hydrofmu.Model.default().bodies
    return build_fmu(bodies, _config("loads"), folder / "Loads.fmu", model_name="Loads")


def test_load_fmu_derivative_equals_its_central_difference(loads: Path) -> None:
    """d(forces)/d(pose, velocity, acceleration) of the load FMU at a state with a radiation
    memory: every entry against the FMU's central difference; d F_added_mass / d a is the
    handed-out -A_inf (the declared 'constant' kind), the rest of A_inf's rows are zero."""
    assert _provides(loads) == ("true" if shim_only(loads) else "false")
    jac, _ = _check_against_difference(loads, "loads_python")
    outputs, inputs = _names(loads, "output"), _names(loads, "input")
    unit = FmuUnit(loads, "loads_a_inf")
    try:
        a_inf = unit.get([f"A_inf[{i},{j}]" for i in range(1, 7) for j in range(1, 7)])
    finally:
        unit.close()
    rows = [outputs.index(f"body.F_added_mass[{i}]") for i in range(1, 7)]
    cols = [inputs.index(f"body.acceleration[{i}]") for i in range(1, 7)]
    # -A_inf a differenced at 0.1 m/s2: exact up to eps |A_inf| (A_inf ~ 1e6 kg)
    assert np.allclose(jac[np.ix_(rows, cols)], -a_inf.reshape(6, 6), rtol=0,
                       atol=1e3 * EPS * np.max(np.abs(a_inf)))
    declared = _declared(loads)
    for i in rows:
        for j in cols:
            assert declared[outputs[i]][inputs[j]] == "constant"
    heave = outputs.index("body.F_hydrostatic[3]")
    assert jac[heave, inputs.index("body.pose[3]")] < 0.0  # -rho g A_wp


def test_load_model_with_parts_not_linear_in_the_motion_declares_no_derivative() -> None:
    """Quadratic drag (and moorings, second-order or nonlinear loads, user parts) make the
    load forces non-affine in the motion: named, not provided."""
    from hydrofmu.runtime.fmi.derivative import derivative_refusal

    config = copy.deepcopy(hydrofmu.Model.default().config)
    config["export"]["kind"] = "loads"
    assert derivative_refusal(config) == ""
    config["bodies"][0]["quadratic_damping"] = [0.0, 0.0, 5e4, 0.0, 0.0, 0.0]
    why = derivative_refusal(config)
    assert "quadratic_damping" in why and "not affine" in why
    config["export"]["kind"] = "motion"  # the motion FMU's outputs stay affine in u
    assert derivative_refusal(config) == ""


def test_the_python_fmu_declares_the_derivative_only_when_every_binary_answers(
        pto: tuple[Path, Path], tmp_path: Path) -> None:
    """The built Python FMU carries the shim on linux64 and on win64 (pythonfmu's binaries
    behind it), which both answer the call: declared. The same FMU with pythonfmu's win64
    binary alone in its place (a build without a Windows compiler) is not shim-only."""
    python, _ = pto
    assert shim_only(python) and _provides(python) == "true"
    bare = tmp_path / "bare.fmu"
    with zipfile.ZipFile(python) as zin, zipfile.ZipFile(bare, "w") as zout:
        for info in zin.infolist():
            if info.filename.startswith("binaries/win64/") and "_pythonfmu" not in info.filename:
                continue  # the shim out, pythonfmu's binary back under its own name
            name = info.filename.replace("_pythonfmu.dll", ".dll")
            zout.writestr(name, zin.read(info))
    assert not shim_only(bare)


def test_shim_fills_every_unknown_with_nan_on_a_dead_component(pto: tuple[Path, Path],
                                                               tmp_path: Path) -> None:
    """A call on a component that is not live returns fmi2Error with dvUnknown's nUnknown
    entries NaN (it used to fill nKnown of them: 3 unknowns and 1 known left two values),
    and writes nothing past them."""
    import ctypes

    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    python, _ = pto
    md = read_model_description(str(python))
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(python), tmp_path / "u"),
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="dead")
    dz = (ctypes.c_double * 4)(1.0, 2.0, 3.0, 4.0)
    vrs = (ctypes.c_uint * 3)(0, 1, 2)
    seed = (ctypes.c_double * 1)(1.0)
    status = fmu.dll.fmi2GetDirectionalDerivative(None, vrs, 3, vrs, 1, seed, dz)
    assert status == 3  # fmi2Error
    assert all(np.isnan(dz[i]) for i in range(3)) and dz[3] == 4.0


@pytest.mark.parametrize("kind", ["python", "native"])
def test_a_derivative_changes_nothing(kind: str, pto: tuple[Path, Path], drag: tuple[Path, Path],
                                      loads: Path) -> None:
    """Two instances driven alike, one asked for its whole Jacobian before every step: the
    same outputs bit for bit (the derivative evaluates the outputs at other inputs and
    restores them; the load FMU's memory is not committed by it)."""
    fmus = [pto[1], drag[1]] if kind == "native" else [pto[0], drag[0], loads]
    for fmu in fmus:
        outputs, inputs = _names(fmu, "output"), _names(fmu, "input")
        units = [FmuUnit(fmu, f"same_{kind}_{i}") for i in range(2)]
        rng = np.random.default_rng(5)
        try:
            for _ in range(15):
                u = [3e4 * rng.standard_normal() if ".F_" in n else 0.3 * rng.standard_normal()
                     for n in inputs]
                for unit in units:
                    unit.set(inputs, u)
                units[1].jacobian(outputs, inputs)
                assert np.array_equal(units[0].get(outputs), units[1].get(outputs))
                for unit in units:
                    unit.do_step(0.1)
            assert np.array_equal(units[0].get(outputs), units[1].get(outputs))
        finally:
            for unit in units:
                unit.close()
