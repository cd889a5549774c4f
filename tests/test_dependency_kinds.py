"""``ModelStructure``'s dependency kinds (issue 29, point 2; FMI 2.0 section 2.2.8) on the
motion FMUs, Python and native: every output/input pair declared ``constant``, ``fixed`` or
``tunable`` has a directional derivative that is the same at different states, times, input
values and tunable parameters (seeded random), and it is the declared factor (the free
body's ``(M + A_inf)^-1``); a pair declared ``dependent`` is shown not to be such a factor;
both FMUs declare the same structure, and fmpy's validator accepts them."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.cosim.fmu_unit import FmuUnit
from hydrofmu.export.fmu import build_fmu
from hydrofmu.runtime.simulator.dependency_kinds import KINDS, left_side_kind, widest
from hydrofmu.runtime.simulator.layout import ModelInterface
from native_helpers import build_pair
from test_native_tunable import pto_config

pytestmark = pytest.mark.fmu

EPS = np.finfo(float).eps
#: The kinds whose factor must not change with the state, the time or the inputs.
LINEAR = ("constant", "fixed", "tunable")


def _names(fmu: Path, causality: str) -> list[str]:
    root = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))
    return [v.get("name") for v in root.iter("ScalarVariable")
            if v.get("causality") == causality]


def declared(fmu: Path) -> dict[str, dict[str, str]]:
    """Output name -> {input name: dependenciesKind} of the FMU's ModelStructure."""
    root = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))
    names = [v.get("name") for v in root.iter("ScalarVariable")]
    out = {}
    for u in root.find("ModelStructure").find("Outputs"):
        deps = [names[int(i) - 1] for i in (u.get("dependencies") or "").split()]
        kinds = (u.get("dependenciesKind") or "").split()
        out[names[int(u.get("index")) - 1]] = dict(zip(deps, kinds, strict=True))
    return out


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(Python, native) FMUs: the free sphere (six DOFs), state-space radiation, a linear
    heave PTO (tunable damping and stiffness), the exact scheme."""
    return build_pair(*pto_config(), tmp_path_factory.mktemp("kinds"), "Kinds",
                      platforms=("linux64",))


def test_widest_orders_the_kinds_as_fmi_does() -> None:
    assert widest() == "constant"
    assert widest("constant", "fixed") == "fixed"
    assert widest("tunable", "constant", "discrete") == "discrete"
    assert widest(*KINDS) == "dependent"
    with pytest.raises(ValueError, match=r"unknown dependenciesKind.*'linear'"):
        widest("fixed", "linear")


def test_the_left_side_turning_with_a_body_makes_the_solve_dependent() -> None:
    """Small rotations: ``L_r^-1`` is chosen by the fixed added-mass parameters; a body with
    rotations = "large" has a mass matrix that turns with it."""
    bodies, config = pto_config()
    assert left_side_kind(config) == "fixed"
    big = copy.deepcopy(config)
    big["bodies"][0]["rotations"] = "large"
    assert left_side_kind(big) == "dependent"
    kinds = ModelInterface.output_dependencies(bodies, big)
    assert kinds["body.acceleration[3]"]["body.F_pto[3]"] == "dependent"
    assert ModelInterface.output_dependencies(bodies, config)[
        "body.acceleration[3]"]["body.F_pto[3]"] == "fixed"


def test_both_fmus_declare_the_same_kinds_and_validate(pair: tuple[Path, Path]) -> None:
    """One writer: the native and the Python FMU declare the same dependencies with the same
    kinds; the PTO force reaches the solved outputs through ``(M + A_inf)^-1`` (fixed), the
    elevation input through its ramped filter (dependent); pose, velocity and the forces of
    the state have none; fmpy's validator finds no problem."""
    from fmpy.validation import validate_fmu

    python, native = pair
    kinds = declared(python)
    assert kinds == declared(native)
    for i in range(1, 7):
        assert kinds[f"body.pose[{i}]"] == kinds[f"body.velocity[{i}]"] == {}
        assert kinds[f"body.F_radiation[{i}]"] == {}
        for q in ("acceleration", "F_added_mass", "F_constraint"):
            row = kinds[f"body.{q}[{i}]"]
            assert {row[f"body.F_pto[{j}]"] for j in range(1, 7)} == {"fixed"}
            assert row["wave.elevation_input"] == "dependent"
        assert kinds[f"body.F_excitation[{i}]"] == {"wave.elevation_input": "dependent"}
    for fmu in pair:
        assert validate_fmu(str(fmu)) == [], fmu


def _jacobians(fmu: Path, name: str, outputs: list[str], inputs: list[str]
               ) -> tuple[list[np.ndarray], np.ndarray]:
    """The Jacobian at three points of one seeded run (different states, times, input values,
    and a tunable PTO damping changed between them), and the largest |output| and
    max(1, |input|) seen (the Python FMU's difference rounds to eps |y| / max(1, |u|))."""
    unit = FmuUnit(fmu, name)
    all_inputs = _names(fmu, "input")
    rng = np.random.default_rng(2029)
    jacs, scale, step = [], np.zeros(len(outputs)), np.ones(len(inputs))
    try:
        for k, (steps, damping) in enumerate(((7, 2e5), (16, 5e5), (29, 8e4))):
            if k:
                unit.set(["pto.p1.damping"], [damping])
            for _ in range(steps):
                unit.set(all_inputs, [3e4 * rng.standard_normal() if "F_pto" in n else 0.0
                                      for n in all_inputs])
                unit.do_step(0.1)
            u = unit.get(inputs)
            jacs.append(unit.jacobian(outputs, inputs))
            scale = np.maximum(scale, np.abs(unit.get(outputs)))
            step = np.maximum(step, np.abs(u))
    finally:
        unit.close()
    return jacs, scale[:, None] / step[None, :]


@pytest.mark.parametrize("runtime", ["python", "native"])
def test_linear_kinds_have_one_factor_and_it_is_the_declared_one(
        runtime: str, pair: tuple[Path, Path]) -> None:
    """Every pair declared constant/fixed/tunable: its derivative at three seeded points (40
    steps apart in state and time, new inputs, the tunable PTO damping changed) is one
    number, and for the free body it is the factor the kind names: acceleration =
    ``(M + A_inf)^-1 F_pto``, ``F_added_mass = -A_inf (M + A_inf)^-1 F_pto``, no constraint
    force. Tolerance: the native derivative reads the same columns of the output map (a few
    eps of |J|); the Python one is the central difference of outputs affine in the input,
    exact but for the rounding of the outputs, eps |y| / max(1, |u|) (the shim's step):
    32 eps of both."""
    fmu = pair[runtime == "native"]
    kinds = declared(fmu)
    pairs = [(o, i) for o, row in kinds.items() for i, k in row.items() if k in LINEAR]
    outputs = sorted({o for o, _ in pairs})
    inputs = sorted({i for _, i in pairs})
    assert len(pairs) == 3 * 6 * 6  # acceleration, F_added_mass, F_constraint on F_pto
    jacs, rounding = _jacobians(fmu, f"kinds_{runtime}", outputs, inputs)
    tol = 32 * EPS * (rounding + np.abs(jacs[0]))
    rows = {o: outputs.index(o) for o in outputs}
    cols = {i: inputs.index(i) for i in inputs}
    for jac in jacs[1:]:
        for o, i in pairs:
            r, c = rows[o], cols[i]
            assert abs(jac[r, c] - jacs[0][r, c]) <= tol[r, c], (o, i, jac[r, c], jacs[0][r, c])
    bodies, config = pto_config()
    mass = np.array(config["bodies"][0]["mass_matrix"])
    a_inf = bodies[0].added_mass_inf
    factor = {"acceleration": np.linalg.inv(mass + a_inf),
              "F_added_mass": -a_inf @ np.linalg.inv(mass + a_inf),
              "F_constraint": np.zeros((6, 6))}
    for q, expected in factor.items():
        got = np.array([[jacs[0][rows[f"body.{q}[{a}]"], cols[f"body.F_pto[{b}]"]]
                         for b in range(1, 7)] for a in range(1, 7)])
        # the FMU's LU solve of the same 6 x 6 matrix: a few eps of the inverse's scale
        # (its condition number, mass and inertia ~1e5..1e7, is ~1e2)
        assert np.allclose(got, expected, rtol=0, atol=1e3 * EPS * np.max(np.abs(expected))
                           + np.max(tol)), (q, np.max(np.abs(got - expected)))


def test_a_dependent_pair_has_no_single_factor(tmp_path: Path) -> None:
    """The elevation input (wave.type = "input") reaches the excitation through its filter
    and the half-cosine ramp: the Python FMU's derivative of ``F_excitation[3]`` in the
    input changes with the time during the ramp, so no constant, fixed or tunable factor
    exists (declared dependent). Its ratio between two times is the ramp's."""
    bodies, config = pto_config({"type": "input", "ramp_time": 5.0})
    fmu = build_fmu(bodies, config, tmp_path / "Input.fmu", model_name="Input")
    assert declared(fmu)["body.F_excitation[3]"] == {"wave.elevation_input": "dependent"}
    unit = FmuUnit(fmu, "kinds_input")
    rng = np.random.default_rng(7)
    derivative = []
    try:
        for steps in (10, 15, 30):  # t = 1 s, 2.5 s (in the ramp), 5.5 s (after it)
            for _ in range(steps):
                unit.set(["wave.elevation_input"], [0.5 * rng.standard_normal()])
                unit.do_step(0.1)
            derivative.append(unit.jacobian(["body.F_excitation[3]"],
                                            ["wave.elevation_input"])[0, 0])
    finally:
        unit.close()
    assert derivative[2] != 0.0
    # the half-cosine ramp (1 - cos(pi t / T)) / 2 at t = 1 and 2.5 s, of the full value
    ramp = [(1 - np.cos(np.pi * t / 5.0)) / 2 for t in (1.0, 2.5)]
    assert np.allclose(np.array(derivative[:2]) / derivative[2], ramp, rtol=1e-9)


@pytest.fixture(scope="module")
def loads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python load FMU of the default sphere (convolution radiation, a linear
    viscous damping added so that F_viscous is not zero)."""
    import hydrofmu
    from test_loads_fmu import _config

    config = _config("loads")
    config["bodies"][0]["linear_damping"] = np.diag([1e4, 1e4, 2e4, 1e5, 1e5, 1e5]).tolist()
    return build_fmu(hydrofmu.Model.default().bodies, config,
                     tmp_path_factory.mktemp("kinds_loads") / "KindsLoads.fmu",
                     model_name="KindsLoads")


def test_the_load_fmus_constant_kinds_have_the_data_s_factors(loads: Path) -> None:
    """The load FMU: the channels whose parts are linear in the motion with matrices fixed
    at export are declared constant (hydrostatics on the pose: ``-K``; linear damping on the
    velocity: ``-B``; ``F_added_mass`` on the acceleration: ``-A_inf``; the excitation, which
    does not read the motion: 0), the radiation memory dependent. Each constant entry is
    the same at three seeded points of a run (different memories, times and motions) and is
    that matrix. Tolerance: the shim's central difference of outputs affine in the motion,
    rounding eps |y| / max(1, |u|): 32 eps of that and of |J|."""
    import hydrofmu

    kinds = declared(loads)
    assert kinds["body.F_hydrostatic[3]"]["body.pose[3]"] == "constant"
    assert kinds["body.F_radiation[3]"]["body.velocity[3]"] == "dependent"
    assert kinds["body.F_hydro[3]"]["body.pose[3]"] == "dependent"  # it sums the memory
    pairs = [(o, i) for o, row in kinds.items() for i, k in row.items() if k in LINEAR
             and not o.startswith("A_inf")]
    outputs, inputs = sorted({o for o, _ in pairs}), sorted({i for _, i in pairs})
    unit = FmuUnit(loads, "kinds_loads")
    motion = _names(loads, "input")
    rng = np.random.default_rng(4)
    jacs, scale, step = [], np.zeros(len(outputs)), np.ones(len(inputs))
    try:
        for steps in (5, 9, 14):
            for _ in range(steps):
                unit.set(motion, 0.3 * rng.standard_normal(len(motion)))
                unit.do_step(0.1)
            jacs.append(unit.jacobian(outputs, inputs))
            scale = np.maximum(scale, np.abs(unit.get(outputs)))
            step = np.maximum(step, np.abs(unit.get(inputs)))
    finally:
        unit.close()
    tol = 32 * EPS * (scale[:, None] / step[None, :] + np.abs(jacs[0]))
    rows, cols = {o: outputs.index(o) for o in outputs}, {i: inputs.index(i) for i in inputs}
    for jac in jacs[1:]:
        for o, i in pairs:
            assert abs(jac[rows[o], cols[i]] - jacs[0][rows[o], cols[i]]) <= tol[
                rows[o], cols[i]], (o, i)
    body = hydrofmu.Model.default().config["bodies"][0]
    factors = {("F_hydrostatic", "pose"): -np.array(body["hydrostatic_stiffness"]),
               ("F_viscous", "velocity"): -np.diag([1e4, 1e4, 2e4, 1e5, 1e5, 1e5]),
               ("F_added_mass", "acceleration"):
                   -hydrofmu.Model.default().bodies[0].added_mass_inf,
               ("F_excitation", "velocity"): np.zeros((6, 6))}
    for (q, m), expected in factors.items():
        got = np.array([[jacs[0][rows[f"body.{q}[{a}]"], cols[f"body.{m}[{b}]"]]
                         for b in range(1, 7)] for a in range(1, 7)])
        sub = np.array([[tol[rows[f"body.{q}[{a}]"], cols[f"body.{m}[{b}]"]]
                         for b in range(1, 7)] for a in range(1, 7)])
        assert np.all(np.abs(got - expected) <= sub + 1e3 * EPS * np.max(np.abs(expected))), q
