"""The hydrodynamic-load FMU (``[export] kind = "loads"``): driven with the motion FMU's own
motion it returns the forces the motion FMU reports; its outputs are direct feedthrough of
the motion inputs (declared in ModelStructure with their kinds); ``A_inf`` is handed out;
what belongs to the importer (joints, PTOs) is refused by name."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pytest

import hydrofmu
from hydrofmu.cosim.fmu_unit import FmuUnit
from hydrofmu.export.fmu import build_fmu
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.loads.model import LoadModel, hermite_motion

pytestmark = pytest.mark.fmu

DOF = range(1, 7)
QUANTITIES = ("pose", "velocity", "acceleration")


def _config(kind: str) -> dict:
    model = hydrofmu.Model.default()
    config = copy.deepcopy(model.config)
    config["export"]["kind"] = kind
    config["export"]["runtime"] = "python"
    config["wave"]["ramp_time"] = 1.0  # forces of full size within the short run
    return config


@pytest.fixture(scope="module")
def fmus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("loads")
    bodies = hydrofmu.Model.default().bodies
    return {kind: build_fmu(bodies, _config(kind), folder / f"{kind.title()}.fmu",
                            model_name=kind.title()) for kind in ("motion", "loads")}


def test_driven_by_the_motion_fmus_motion_it_returns_its_forces(fmus) -> None:
    motion = FmuUnit(fmus["motion"], "motion")
    load = FmuUnit(fmus["loads"], "loads")
    channels = ["F_radiation", "F_excitation", "F_hydrostatic", "F_mooring", "F_viscous",
                "F_added_mass"]
    forces = [f"body.{c}[{i}]" for c in channels for i in DOF]
    kin = [f"body.{q}[{i}]" for q in QUANTITIES for i in DOF]
    h = 0.01  # = max_internal_step: the radiation history's grid, as in the motion FMU
    ref, got = [], []
    try:
        for _ in range(301):
            load.set(kin, motion.get(kin))
            ref.append(motion.get(forces))
            got.append(load.get(forces))
            motion.do_step(h)
            load.do_step(h)
    finally:
        motion.close()
        load.close()
    ref, got = np.array(ref), np.array(got)
    # The same parts evaluated on the same history and motion: the motion FMU's outputs at
    # a communication point are those parts' forces there. Differences are round-off of
    # the time sums (t += h in the two loops), far below 1e-12 of each force's peak (the
    # issue's acceptance bound); channels that are zero (no mooring, no drag) stay zero.
    for k, name in enumerate(forces):
        peak = np.max(np.abs(ref[:, k]))
        assert np.max(np.abs(got[:, k] - ref[:, k])) <= 1e-12 * peak, (name, peak)
    assert np.max(np.abs(ref[:, forces.index("body.F_radiation[3]")])) > 0.0


def test_outputs_are_direct_feedthrough_and_a_inf_is_handed_out(fmus) -> None:
    load = FmuUnit(fmus["loads"], "loads")
    a_inf = hydrofmu.Model.default().bodies[0].added_mass_inf
    try:
        got = load.get([f"A_inf[{i},{j}]" for i in DOF for j in DOF]).reshape(6, 6)
        assert np.array_equal(got, a_inf)
        rng = np.random.default_rng(29)
        acc = rng.normal(size=6)
        load.set([f"body.acceleration[{i}]" for i in DOF], acc)
        f_am = load.get([f"body.F_added_mass[{i}]" for i in DOF])
        # -A_inf a, one small mat-vec: round-off of six products.
        assert np.allclose(f_am, -a_inf @ acc, rtol=1e-14, atol=1e-14 * np.abs(a_inf).max())
        before = load.get(["body.F_hydrostatic[3]", "body.F_hydro[3]"])
        load.set(["body.pose[3]"], [0.5])  # no step: the output follows the input
        after = load.get(["body.F_hydrostatic[3]", "body.F_hydro[3]", "body.F_total[3]"])
        k33 = hydrofmu.Model.default().bodies[0].hydrostatic_stiffness[2, 2]
        # Linear hydrostatics: the change is -K33 dz to round-off of the force's size.
        assert after[0] - before[0] == pytest.approx(-0.5 * k33, rel=1e-12)
        assert after[1] - before[1] == pytest.approx(-0.5 * k33, rel=1e-12)
        assert after[2] == pytest.approx(after[1] + f_am[2], rel=1e-12)
    finally:
        load.close()


def test_model_structure_declares_dependencies_with_their_kinds(fmus) -> None:
    with zipfile.ZipFile(fmus["loads"]) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    names = [v.get("name") for v in root.iter("ScalarVariable")]
    deps = {}
    for u in root.find("ModelStructure/Outputs"):
        d = u.get("dependencies", "").split()
        k = u.get("dependenciesKind", "").split()
        deps[names[int(u.get("index")) - 1]] = dict(
            zip((names[int(i) - 1] for i in d), k, strict=True))
    acc = {f"body.acceleration[{i}]" for i in DOF}
    assert set(deps["body.F_added_mass[3]"]) == acc
    assert set(deps["body.F_added_mass[3]"].values()) == {"constant"}
    assert {f"body.pose[{i}]" for i in DOF} <= set(deps["body.F_hydro[1]"])
    # The radiation memory inside a step longer than its grid is sampled on the Hermite
    # motion, which takes the step's end acceleration: F_radiation (so F_hydro) reads it
    # (tests/test_directional_derivative.py differences it); the hydrostatics do not.
    assert acc <= set(deps["body.F_radiation[1]"]) and acc <= set(deps["body.F_hydro[1]"])
    assert not acc & set(deps["body.F_hydrostatic[3]"])
    assert deps["A_inf[1,1]"] == {}
    assert acc <= set(deps["body.F_total[3]"])


def test_joints_and_ptos_are_refused_by_name() -> None:
    model = hydrofmu.Model.default()
    config = _config("loads")
    config["ptos"] = [{"name": "p", "body": "body", "dof": "heave", "damping": 1.0,
                       "stiffness": 0.0}]
    with pytest.raises(ConfigError, match=r"joints and PTOs belong to the importer"):
        LoadModel.output_names(model.bodies, config)


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"\[export\] kind = 'load'.*motion, loads"):
        hydrofmu.Model.from_dict({"export": {"kind": "load"},
                                  "bodies": [{"name": "b", "hydro": "builtin:sphere"}]})


def test_a_step_off_the_history_grid_is_refused_with_the_fix() -> None:
    model = hydrofmu.Model.default()
    lm = LoadModel(model.bodies, _config("loads"))
    lm.step(0.0, 0.02)  # two grid samples: fine
    with pytest.raises(hydrofmu.HydroFMUError, match=r"multiple of it.*max_internal_step"):
        lm.step(0.02, 0.015)


def test_memory_is_committed_by_steps_only() -> None:
    model = hydrofmu.Model.default()
    lm = LoadModel(model.bodies, _config("loads"))
    rng = np.random.default_rng(7)
    u0 = rng.normal(size=lm.u.size) * 0.1
    lm.set_input_vector(u0)
    lm.step(0.0, 0.01)
    lm.set_input_vector(u0 * 0.5)
    first = lm.output_vector()
    lm.set_input_vector(rng.normal(size=lm.u.size))  # an importer's trial input
    lm.output_vector()
    lm.set_input_vector(u0 * 0.5)
    assert np.array_equal(lm.output_vector(), first)  # the trial left no trace
    state = lm.get_state()
    lm.step(0.01, 0.01)
    lm.set_state(state)
    assert np.array_equal(lm.output_vector(), first)


def test_hermite_motion_is_exact_for_a_quintic() -> None:
    rng = np.random.default_rng(3)
    c = rng.normal(size=6)
    h = 0.7

    def at(t: float) -> np.ndarray:
        p = np.polynomial.Polynomial(c)
        return np.array([p(t), p.deriv()(t), p.deriv(2)(t)])

    for tau in (0.0, 0.2, 0.5, 0.7):
        q, v = hermite_motion(h, at(0.0), at(h), tau)
        # A quintic is reproduced: round-off of the basis sums only.
        assert q == pytest.approx(at(tau)[0], rel=1e-12, abs=1e-12)
        assert v == pytest.approx(at(tau)[1], rel=1e-12, abs=1e-12)


def test_the_fmu_state_restores_the_memory(fmus) -> None:
    load = FmuUnit(fmus["loads"], "loads")
    rng = np.random.default_rng(11)
    kin = [f"body.{q}[{i}]" for q in QUANTITIES for i in DOF]
    out = [f"body.F_radiation[{i}]" for i in DOF]
    try:
        for _ in range(20):
            load.set(kin, rng.normal(size=18) * 0.1)
            load.do_step(0.01)
        saved = load.get_state()
        probe = rng.normal(size=18) * 0.1
        load.set(kin, probe)
        first = load.get(out)
        for _ in range(5):  # another history
            load.set(kin, rng.normal(size=18))
            load.do_step(0.01)
        load.set_state(saved)
        load.set(kin, probe)
        assert np.array_equal(load.get(out), first)  # the same arrays: bit-identical
        load.free_state(saved)
    finally:
        load.close()


@pytest.mark.parametrize(("radiation", "step"), [("convolution", 0.02), ("convolution", 0.04),
                                                   ("state_space", 0.01),
                                                   ("state_space", 0.04)])
def test_longer_steps_and_part_states_follow_the_motion(radiation: str, step: float) -> None:
    """In process: the simulator's motion drives the load model at communication steps of
    several history samples (the samples inside from the Hermite motion) and with
    state-space radiation (its states integrated by RK4 along that motion)."""
    from hydrofmu.runtime.simulator.simulator import Simulator

    model = hydrofmu.Model.from_dict({
        "simulation": {"max_internal_step": 0.01},
        "wave": {"type": "regular", "height": 2.0, "period": 6.0, "ramp_time": 2.0},
        "bodies": [{"name": "body", "hydro": "builtin:sphere", "radiation": radiation,
                    "dofs": ["surge", "heave", "pitch"]}]})
    sim = Simulator(model.bodies, model.config)
    load = LoadModel(model.bodies, model.config)
    names = Simulator.output_names(model.bodies, model.config)
    inputs = LoadModel.input_names(model.bodies, model.config)
    k = LoadModel.output_names(model.bodies, model.config).index("body.F_radiation[3]")
    ks = names.index("body.F_radiation[3]")
    t, err, peak = 0.0, 0.0, 0.0
    for _ in range(round(5.0 / step)):
        values = dict(zip(names, sim.output_vector(), strict=True))
        load.set_input_vector(np.array([values.get(n, 0.0) for n in inputs]))
        err = max(err, abs(load.output_vector()[k] - values["body.F_radiation[3]"]))
        peak = max(peak, abs(sim.output_vector()[ks]))
        sim.step(t, step)
        load.step(t, step)
        t += step
    # The Hermite motion is fourth-order accurate in the velocity (and RK4 on the states):
    # measured 1.5e-10 to 6e-10 of the peak at these steps (0.01 s samples); 1e-8 bounds
    # it with margin, far below what an interpolation error of lower order would give.
    assert err <= 1e-8 * peak, err / peak


@pytest.mark.parametrize("step", [0.01, 0.04])
def test_an_elevation_input_is_held_over_the_step_as_in_the_motion_fmu(step: float) -> None:
    """``wave.type = "input"``: the samples inside a step take the input of its start (the
    importer's held input, as the motion FMU sees it), the newest the new one."""
    from hydrofmu.runtime.simulator.simulator import Simulator

    model = hydrofmu.Model.from_dict({
        "simulation": {"max_internal_step": 0.01}, "wave": {"type": "input"},
        "bodies": [{"name": "body", "hydro": "builtin:sphere",
                    "dofs": ["surge", "heave", "pitch"]}]})
    sim = Simulator(model.bodies, model.config)
    load = LoadModel(model.bodies, model.config)
    names = Simulator.output_names(model.bodies, model.config)
    sim_inputs = Simulator.input_names(model.bodies, model.config)
    inputs = LoadModel.input_names(model.bodies, model.config)
    k = LoadModel.output_names(model.bodies, model.config).index("body.F_excitation[3]")
    t, err, peak = 0.0, 0.0, 0.0
    for _ in range(round(6.0 / step)):
        eta = np.sin(2.0 * np.pi * t / 6.0) * min(1.0, t / 2.0)
        u = np.zeros(len(sim_inputs))
        u[sim_inputs.index("wave.elevation_input")] = eta
        sim.set_input_vector(u)
        values = dict(zip(names, sim.output_vector(), strict=True))
        values["wave.elevation_input"] = eta
        load.set_input_vector(np.array([values.get(n, 0.0) for n in inputs]))
        err = max(err, abs(load.output_vector()[k] - values["body.F_excitation[3]"]))
        peak = max(peak, abs(values["body.F_excitation[3]"]))
        sim.step(t, step)
        load.step(t, step)
        t += step
    # The same filter on the same elevation history: round-off (measured 3e-14).
    assert err <= 1e-12 * peak, err / peak


def test_large_rotations_are_refused_by_name(tmp_path: Path) -> None:
    """A body with rotations = "large" (its pose by a quaternion, which the load FMU's
    small-rotation pose input cannot carry): the load model and both builds refuse it
    before any other check, naming the body and the two fixes."""
    import warnings

    from hydrofmu.config.nonlinear import NonlinearMeshWarning
    from hydrofmu.export.native import build_native_fmu
    from panel_meshes import sphere, write_stl

    write_stl(tmp_path / "hull.stl", sphere(5.0, 5))
    with warnings.catch_warnings():  # the coarse hull's volume is not the data's
        warnings.simplefilter("ignore", NonlinearMeshWarning)
        model = hydrofmu.Model.from_dict({  # a valid large-rotation motion model
            "simulation": {"time_scheme": "rk4", "max_internal_step": 0.05},
            "wave": {"type": "regular", "height": 2.0, "period": 6.0, "ramp_time": 5.0},
            "export": {"kind": "loads"},
            "bodies": [{"name": "body", "hydro": "builtin:sphere", "rotations": "large",
                        "radiation": "constant", "mesh": "hull.stl",
                        "nonlinear": "instantaneous"}]}, base_dir=tmp_path)
    config = copy.deepcopy(model.config)
    match = r"'body' has rotations = 'large'.*kind = 'motion'.*rotations = 'small'"
    with pytest.raises(ConfigError, match=match):
        LoadModel(list(model.bodies), config)
    for runtime in ("python", "native"):
        config["export"]["runtime"] = runtime
        # the Python build checks the model with the FMU's bundled package: its ConfigError
        with pytest.raises(Exception, match=match) as caught:
            if runtime == "python":
                build_fmu(model.bodies, config, tmp_path / "P.fmu", model_name="P")
            else:
                build_native_fmu(model.bodies, config, tmp_path / "N.fmu", model_name="N",
                                 platforms=("linux64",))
        assert type(caught.value).__name__ == "ConfigError"
    assert not list(tmp_path.glob("*.fmu"))
    motion = copy.deepcopy(model.config)
    motion["export"]["kind"] = "motion"
    from hydrofmu.runtime.simulator.simulator import Simulator

    Simulator(list(model.bodies), motion)  # the same file's motion model initializes
