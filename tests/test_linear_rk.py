"""Explicit Runge-Kutta schemes on a linear model, stepped by their own linear map over a
communication step (``schemes/linear_rk.py``): against the same scheme's stagewise steps,
and its pieces against closed forms (issue 11: state space with RK4 near the cost of an
empty FMU, with the same results)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config_data, resolve
from hydrofmu.export.fmu import build_fmu
from hydrofmu.runtime.errors import IntegrationError
from hydrofmu.runtime.schemes.linear_rk import discrete_particular, power_sum, stage_maps
from hydrofmu.runtime.schemes.runge_kutta import RK2, RK3, RK4, Euler
from hydrofmu.runtime.simulator.simulator import Simulator
from test_exact_scheme import SIX_DOF, heave_pto_force, rm3_constant, ss_sphere
from test_fmu import FMI_OK, drive

#: The map and the stagewise steps evaluate the same polynomial of ``h J`` and the same
#: forcing samples, summed in another order: per internal step they differ by a few ulps
#: of the state, and over 4000 steps of a stable system by at most ~1e-12 of its size
#: (measured 2e-11 of a column's peak, on an acceleration). 1e-9 of each output's peak
#: leaves a margin of 50 and catches any wrong term: a stage weight or a particular
#: solution off by 1e-6 moves the outputs by more.
FUSED_TOL = 1e-9


sphere = pytest.fixture(ss_sphere, scope="module", name="sphere")
rm3 = pytest.fixture(rm3_constant, scope="module", name="rm3")


def twin_runs(bodies: list[Any], cfg: dict[str, Any], params: dict[str, Any], *,
              duration: float, dt: float, force: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Outputs after every communication step of ``dt`` s: by the scheme's linear map (the
    default on a linear model) and by its stagewise internal steps."""
    fused = Simulator(bodies, cfg, params)
    stagewise = Simulator(bodies, cfg, params)
    assert fused.interval_stepper is not None, "the linear map is not used"
    stagewise.interval_stepper = None
    rows: dict[int, list[np.ndarray]] = {0: [], 1: []}
    for k in range(round(duration / dt)):
        for i, sim in enumerate((fused, stagewise)):
            if force is not None:
                force(k * dt, sim)
            sim.step(sim.time, dt)
            rows[i].append(sim.output_vector().copy())
    return np.array(rows[0]), np.array(rows[1])


def worst_difference(a: np.ndarray, b: np.ndarray) -> float:
    """Largest difference over the run, per output relative to its peak (outputs that stay
    below 1e-8 of the largest peak, round-off of zero, against that threshold)."""
    peak = np.max(np.abs(b), axis=0)
    scale = np.maximum(peak, 1e-8 * peak.max())
    return float(np.max(np.max(np.abs(a - b), axis=0) / scale))


@pytest.mark.parametrize(("scheme", "wave"), [("rk4", "regular"), ("rk4", "irregular"),
                                              ("rk3", "irregular"), ("rk2", "irregular"),
                                              ("euler", "regular")])
def test_linear_map_equals_the_stagewise_steps_on_the_sphere(sphere, scheme: str,
                                                             wave: str) -> None:
    """Six DOFs from an offset, 20 s ramp then 20 s of waves, a PTO input changing every
    step: every output equal to the stagewise run of the same scheme (0.01 s) to round-off."""
    bodies, cfg = sphere
    params = {**SIX_DOF, "time_scheme": scheme, "wave.type": wave, "wave.n_components": 60}
    fused, stagewise = twin_runs(bodies, cfg, params, duration=40.0, dt=0.1,
                                 force=heave_pto_force)
    diff = worst_difference(fused, stagewise)
    print(f"{scheme} {wave}: linear map vs stagewise {diff:.3g} of the peak")
    assert diff < FUSED_TOL


def test_linear_map_equals_the_stagewise_steps_on_rm3(rm3) -> None:
    """RM3 (prismatic joint with its PTO input, planar joint, constant radiation): the same
    with joints in the reduced coordinates."""
    bodies, cfg = rm3
    names_in = Simulator.input_names(bodies, cfg)

    def pto(t: float, sim: Simulator) -> None:
        u = np.zeros(sim.u.size)
        u[names_in.index("pto.F_pto")] = 1.0e5 * math.sin(0.7 * t)
        sim.set_input_vector(u)

    params = {"wave.ramp_time": 20.0, "float.initial_pose[3]": 0.2,
              "spar.initial_pose[3]": 0.2}
    fused, stagewise = twin_runs(bodies, cfg, params, duration=30.0, dt=0.1, force=pto)
    diff = worst_difference(fused, stagewise)
    print(f"rm3 rk4: linear map vs stagewise {diff:.3g} of the peak")
    assert diff < FUSED_TOL


def test_steps_off_the_grid_and_a_ramp_ending_between_grid_times(sphere) -> None:
    """Communication steps of 0.015 s (not a whole number of 0.01 s internal steps) and a
    ramp ending at 20.005 s (between two grid times): those steps run stagewise, the others
    by the map, and the run equals the stagewise one to round-off."""
    bodies, cfg = sphere
    params = {**SIX_DOF, "wave.type": "irregular", "wave.n_components": 30,
              "wave.ramp_time": 20.005}
    for dt, duration in ((0.015, 24.0), (0.1, 24.0)):
        fused, stagewise = twin_runs(bodies, cfg, params, duration=duration, dt=dt,
                                     force=heave_pto_force)
        assert worst_difference(fused, stagewise) < FUSED_TOL, dt


@pytest.mark.parametrize("scheme", [Euler, RK2, RK3, RK4])
def test_stage_maps_are_the_stability_polynomial(scheme: type) -> None:
    """``R`` is the scheme's stability polynomial of ``Z = h J`` (``1 + z + ... +
    z^s / s!`` for these s-stage, order-s schemes) and the held-input map ``sum W_i`` is
    ``h (1 + z/2 + ... + z^(s-1) / s!)`` (its truncated phi_1); a random 6x6 ``J`` of
    norm ~1 and h = 0.3: products of O(1) matrices, 1e-13 is a few hundred ulps."""
    rng = np.random.default_rng(11)
    jac = rng.standard_normal((6, 6)) / 3.0
    h = 0.3
    r, w = stage_maps(scheme.A, scheme.B, jac, h)
    z = h * jac
    s = scheme.B.size
    power = np.eye(6)
    poly = np.eye(6)
    phi1 = np.eye(6)
    for k in range(1, s + 1):
        power = power @ z
        poly = poly + power / math.factorial(k)
        if k < s:
            phi1 = phi1 + power / math.factorial(k + 1)
    assert np.max(np.abs(r - poly)) < 1e-13
    assert np.max(np.abs(sum(w) - h * phi1)) < 1e-13


def test_power_sum_is_repeated_stepping() -> None:
    """``(R^m, sum_{i<m} R^i S)`` by binary powering equals m steps of ``d <- R d + S u``
    (a contracting R: round-off stays at a few ulps per step)."""
    rng = np.random.default_rng(5)
    r = 0.3 * rng.standard_normal((5, 5)) / math.sqrt(5)
    s = rng.standard_normal((5, 2))
    for m in (1, 2, 3, 7, 64, 1000):
        p, q = power_sum(r, s, m)
        pl, ql = np.eye(5), np.zeros((5, 2))
        for _ in range(m):
            pl, ql = r @ pl, r @ ql + s
        assert np.max(np.abs(p - pl)) < 1e-14 and np.max(np.abs(q - ql)) < 1e-13, m


def test_discrete_particular_solution_is_invariant_under_the_step() -> None:
    """``y_p(t) = Re(Y e^{i w t})`` satisfies one RK4 step of ``y' = J y + Re(F e^{i w t})``
    exactly: the step computed stage by stage from ``y_p(t)`` lands on ``y_p(t + h)``
    (to round-off of O(1) numbers)."""
    rng = np.random.default_rng(8)
    jac = rng.standard_normal((4, 4)) - 2.0 * np.eye(4)
    forcing = rng.standard_normal((2, 4)) + 1j * rng.standard_normal((2, 4))
    omega = np.array([0.7, 2.3])
    h = 0.05
    r, w = stage_maps(RK4.A, RK4.B, jac, h)
    y_amp = discrete_particular(r, w, RK4.C, h, omega, forcing)

    def yp(t: float) -> np.ndarray:
        return np.real(np.exp(1j * omega * t) @ y_amp)

    def f(t: float, y: np.ndarray) -> np.ndarray:
        return jac @ y + np.real(np.exp(1j * omega * t) @ forcing)

    for t in (0.0, 1.3, 17.2):
        k1 = f(t, yp(t))
        k2 = f(t + h / 2, yp(t) + h / 2 * k1)
        k3 = f(t + h / 2, yp(t) + h / 2 * k2)
        k4 = f(t + h, yp(t) + h * k3)
        step = yp(t) + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        assert np.max(np.abs(step - yp(t + h))) < 1e-13 * max(1.0, np.max(np.abs(yp(t))))


def test_a_diverging_step_is_refused_and_the_state_kept(sphere) -> None:
    """RK4 at 2 s internal steps is beyond its stability limit on this model (0.57 s): the
    map's result grows past the divergence limit; the step raises with the scheme, the step
    and the fix, and leaves the simulator as it was."""
    bodies, cfg = sphere
    sim = Simulator(bodies, cfg, {**SIX_DOF, "max_internal_step": 2.0})
    assert sim.interval_stepper is not None
    with pytest.raises(IntegrationError, match=r"diverges.*'rk4'.*max_internal_step"):
        for _ in range(1000):
            before = (sim.time, sim.y.copy(), sim.grid_index)
            sim.step(sim.time, 2.0)
    assert sim.time == before[0] and sim.grid_index == before[2]
    assert np.array_equal(sim.y, before[1])


@pytest.mark.fmu
@pytest.mark.slow
def test_linear_map_through_the_fmu(tmp_path: Path) -> None:
    """The state-space sphere's FMU with its default ``rk4`` (the linear map) driven by
    fmpy: the outputs equal the Simulator's stagewise RK4 run to round-off (FUSED_TOL of
    each output's peak, 30 s through the ramp), and the FMU state restores and
    deserializes bit-identically."""
    data = default_config_data(radiation={"method": "state_space"})
    bodies, cfg = resolve(data, Path.cwd(), where="fmu")
    assert cfg["simulation"]["time_scheme"] == "rk4"
    fmu = build_fmu(bodies, cfg, tmp_path / "Rk4Map.fmu")
    outputs = ["body.pose[3]", "body.velocity[5]", "body.acceleration[3]",
               "body.F_radiation[3]", "body.F_added_mass[1]", "wave.elevation"]
    params = {"wave.type": "irregular", "wave.n_components": 50, "body.initial_pose[3]": 0.5,
              "body.initial_pose[5]": 0.02}
    runs = [{"parameters": params, "dt": 0.1, "steps": 300, "outputs": outputs}]
    r = drive("sweep", {"fmu": str(fmu), "runs": runs}, tmp_path)["runs"][0]
    assert r["statuses"] == [FMI_OK] * 300
    sim = Simulator(bodies, cfg, params)
    sim.interval_stepper = None  # stagewise
    names = Simulator.output_names(bodies, cfg)
    ref = []
    for _ in range(300):
        sim.step(sim.time, 0.1)
        ref.append(sim.output_vector()[[names.index(n) for n in outputs]])
    assert worst_difference(np.array(r["rows"]), np.array(ref)) < FUSED_TOL
    state = drive("state", {"fmu": str(fmu), "dt": 0.1, "steps_before": 20, "steps_after": 20,
                            "input_name": "body.F_pto[3]", "input_value": 2.0e4,
                            "parameters": params}, tmp_path)
    assert state["restored"] == state["reference"]
    assert state["deserialized"] == state["reference"]


def test_times_summed_by_the_importer_stay_on_the_grid(sphere) -> None:
    """An importer that computes its communication times as ``t += 0.1`` drifts from the
    grid by one rounding of t per step (1.6e-9 s after 3000 s, far more than a few ulps):
    every step of a 3000 s run still goes by the map, none stagewise, and the grid
    tolerance covers the drift of a 30-hour run of such steps (1.8e-6 s) while staying
    far below the internal step (an off-grid step of 5 ms is still off the grid)."""
    bodies, cfg = sphere
    sim = Simulator(bodies, cfg, {"wave.type": "irregular", "wave.n_components": 30})
    stagewise = {"calls": 0}
    general = sim.scheme.internal_steps

    def counted(system: Simulator, t_end: float) -> None:
        stagewise["calls"] += 1
        general(system, t_end)

    sim.scheme.internal_steps = counted
    t = 0.0
    for _ in range(30000):
        sim.step(t, 0.1)
        t += 0.1
    assert abs(t - 3000.0) > 1e-9  # the drift is there
    assert stagewise["calls"] == 0
    t = 0.0
    for _ in range(1_080_000):
        t += 0.1
    drift = abs(t - 108000.0)
    assert drift > 1e-6
    assert sim.grid_tolerance(t) > drift
    assert sim.grid_tolerance(t) < 0.005


def _twin_simulators(make: Any, steps: int, dt: float) -> float:
    """Run two simulators from ``make()``, one by the map and one stagewise, ``steps`` steps
    of ``dt`` with a varying PTO input; their largest output difference (of the peak)."""
    fused, stagewise = make(), make()
    assert fused.interval_stepper is not None
    stagewise.interval_stepper = None
    rows: list[list[np.ndarray]] = [[], []]
    for k in range(steps):
        for i, sim in enumerate((fused, stagewise)):
            heave_pto_force(k * dt, sim)
            sim.step(sim.time, dt)
            rows[i].append(sim.output_vector().copy())
    return worst_difference(np.array(rows[0]), np.array(rows[1]))


def test_linear_mooring_and_a_late_start(sphere) -> None:
    """A linear mooring with pretension (its constant force and stiffness in the map), and a
    run that starts at 5.3 s (the grid and the ramp measured from there, the simulator
    initialized again as the FMU does at setup): equal to the stagewise steps."""
    from test_step_cost import _moored_sim

    assert _twin_simulators(_moored_sim, 300, 0.1) < FUSED_TOL
    bodies, cfg = sphere

    def late() -> Simulator:
        sim = Simulator(bodies, cfg, {**SIX_DOF, "wave.type": "irregular",
                                      "wave.n_components": 30})
        sim.initialize(5.3)
        return sim

    assert _twin_simulators(late, 300, 0.1) < FUSED_TOL
