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

from hydrofmu.config.configuration import default_config
from hydrofmu.cosim.fmu_unit import FmuUnit
from hydrofmu.export.native.assemble import native_model
from hydrofmu.export.native.build import build_simulator, payload_model
from hydrofmu.export.native.derivative_blob import derivative_refusal
from native_helpers import build_pair
from test_exact_scheme import POSE
from test_native_tunable import pto_config

pytestmark = pytest.mark.fmu

EPS = np.finfo(float).eps
#: The input step of the central difference, in the input's unit (N, N m; m for the
#: elevation). At a fixed state the outputs are affine in the inputs (products of two
#: outputs: quadratic), so the difference has no truncation error at any h; a large h makes
#: its rounding small: see :func:`tolerance`.
H_FORCE, H_ELEVATION = 1e4, 0.1


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
        h = H_ELEVATION if "elevation" in name else H_FORCE
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
    quadratic outputs at a fixed state); each output is a sum over the state, the inputs
    and the forces (up to ~300 terms here), rounded to ~300 eps of its largest term, taken
    here as 1e3 |y| (cancellation in the output map); the difference divides the rounding
    of two such outputs by 2 h; the derivative's own sum rounds to ~300 eps |J|."""
    h = np.array([H_ELEVATION if "elevation" in n else H_FORCE for n in inputs])
    return 300 * EPS * (1e3 * scale[:, None] / h[None, :] + np.abs(jac)) + 1e-300


def _check_against_difference(fmu: Path, name: str) -> np.ndarray:
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
    return jac


@pytest.mark.parametrize("case", ["pto", "drag"])
def test_native_derivative_equals_the_fmus_central_difference(case: str,
                                                              request: pytest.FixtureRequest
                                                              ) -> None:
    """Exact mode (a PTO, products of outputs) and Runge-Kutta mode (drag, convolution
    radiation: their forces read the state only): d outputs / d inputs at the state after
    40 seeded steps, every entry."""
    _, native = request.getfixturevalue(case)
    assert _provides(native) == "true"
    jac = _check_against_difference(native, f"{case}_native")
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
