"""The Simulator's bookkeeping: sub-stepping, state save/restore, bad inputs, divergence,
outputs (F_added_mass, constraint forces, feedthrough)."""

from __future__ import annotations

import numpy as np
import pytest

from hydrofmu.runtime.errors import ConfigError, InputError, IntegrationError
from hydrofmu.runtime.simulator.simulator import Simulator
from physics_helpers import column, default_sphere_body, make_simulator, run

WAVE = {"type": "irregular", "height": 2.0, "period": 8.0, "ramp_time": 5.0, "seed": 7,
        "n_components": 50}


def _sim(**kw) -> Simulator:
    body = default_sphere_body(dofs=kw.pop("dofs", ["surge", "heave", "pitch"]))
    return make_simulator(body, wave=kw.pop("wave", WAVE),
                          simulation={"max_internal_step": kw.pop("dt", 0.01)}, **kw)


def test_communication_step_does_not_change_the_result() -> None:
    """Comm steps of 0.1 s and 0.01 s give the same internal steps: equal to round-off."""
    _, a = run(_sim(), 30.0, 0.1)
    _, b = run(_sim(), 30.0, 0.01)
    np.testing.assert_allclose(a, b[::10], rtol=0, atol=1e-9 * np.abs(b).max())


def test_misaligned_communication_steps_stay_accurate() -> None:
    """Comm steps of 0.015 s cut internal steps at 0.01 s grid points: the history is
    still exact on the grid; the trapezoid head of the convolution is O(dt^2)."""
    _, a = run(_sim(), 30.0, 0.03)
    _, b = run(_sim(), 30.0, 0.015)
    sim = _sim()
    c = column(sim, "body.pose[3]")
    scale = np.abs(a[:, c]).max()
    assert np.max(np.abs(a[:, c] - b[::2, c])) < 1e-4 * scale


def test_state_restore_is_bit_identical() -> None:
    sim = _sim()
    _t, _ = run(sim, 10.0, 0.1)
    state = sim.get_state()
    _, first = run_from(sim, 10.0, 5.0, 0.1)
    sim.set_state(state)
    _, second = run_from(sim, 10.0, 5.0, 0.1)
    assert np.array_equal(first, second)


def run_from(sim: Simulator, t0: float, duration: float, h: float):
    n = round(duration / h)
    out = []
    for i in range(n):
        sim.step(t0 + i * h, h)
        out.append(sim.output_vector().copy())
    return None, np.array(out)


def test_nan_input_is_refused_and_state_kept() -> None:
    sim = _sim()
    run(sim, 1.0, 0.1)
    before = sim.get_state()
    out_before = sim.output_vector().copy()
    u = np.zeros(sim.u.size)
    u[2] = np.nan
    sim.set_input_vector(u)
    with pytest.raises(InputError, match=r"body.F_pto\[3\] = nan"):
        sim.step(1.0, 0.1)
    after = sim.get_state()
    assert all(np.array_equal(before[k], after[k]) for k in before if k != "u")
    assert np.array_equal(sim.output_vector(), out_before)  # last good outputs, finite


def test_diverging_step_raises_and_restores_state() -> None:
    """Explicit Euler on a stiff enough problem blows up: reported, state rolled back."""
    sim = _sim(dt=2.0, dofs=["heave"])
    from hydrofmu.runtime.schemes.registry import make_scheme

    sim.scheme = make_scheme("euler")
    first = sim.get_state()
    steps = 0
    with pytest.raises(IntegrationError, match=r"diverges|non-finite"):
        for i in range(400):
            start = sim.get_state()  # at the start of the step about to be taken
            sim.step(2.0 * i, 2.0)
            steps += 1
    # The failing step left every internal array as it was at the start of that step, to
    # the bit; and the good steps before it had moved the state (a rollback to tell apart
    # from no step at all).
    after = sim.get_state()
    assert steps > 0 and not np.array_equal(start["y"], first["y"])
    assert after.keys() == start.keys()
    for key in start:
        assert np.array_equal(after[key], start[key]), key


def test_added_mass_force_and_constraint_outputs() -> None:
    """F_added_mass = -A_inf q'' with the q'' of the same solve; the equation of motion
    balances on the free DOFs; the constraint force holds the fixed ones."""
    sim = _sim(dofs=["heave", "pitch"])
    run(sim, 12.0, 0.1)
    out = sim.output_vector()
    names = Simulator.output_names(sim.bodies, sim.config)

    def vec(q: str) -> np.ndarray:
        return np.array([out[names.index(f"body.{q}[{i}]")] for i in range(1, 7)])

    acc = vec("acceleration")
    np.testing.assert_allclose(vec("F_added_mass"), -sim.added[:6, :6] @ acc, rtol=1e-12)
    total = sum(vec(q) for q in ("F_radiation", "F_excitation", "F_hydrostatic",
                                 "F_mooring", "F_viscous", "F_constraint", "F_added_mass"))
    # Newton: M q'' = sum of all forces including the added-mass and constraint forces.
    np.testing.assert_allclose(sim.mass[:6, :6] @ acc, total, atol=1e-9 * np.abs(total).max())
    assert acc[0] == 0.0 and acc[1] == 0.0 and acc[3] == 0.0
    assert abs(vec("F_constraint")[0]) > 0.0  # surge held against the wave


def test_outputs_follow_inputs_without_a_step() -> None:
    """Declared feedthrough is real: a new PTO force changes q'' at the same instant."""
    sim = _sim(dofs=["heave"])
    run(sim, 2.0, 0.1)
    c = column(sim, "body.acceleration[3]")
    a0 = sim.output_vector()[c]
    u = np.zeros(sim.u.size)
    u[2] = 1.0e5
    sim.set_input_vector(u)
    a1 = sim.output_vector()[c]
    assert a1 - a0 == pytest.approx(1.0e5 / (sim.mass[2, 2] + sim.added[2, 2]), rel=1e-9)


def test_unknown_parameter_name() -> None:
    sim = _sim()
    with pytest.raises(ConfigError, match=r"unknown parameter 'wave\.heigth'.*wave\.height"):
        Simulator(sim.bodies, sim.config, {"wave.heigth": 1.0})


def test_short_preview_is_warned_about() -> None:
    """Preview 0 s cuts off ~57 % of the sphere's heave excitation IRF (the kernel leans
    to negative times): a warning names the DOFs and the fix; 10 s leaves < 5 %."""
    sim = _sim(dofs=["heave"], wave={"type": "input"})
    assert len(sim.warnings) == 1
    assert "body.heave" in sim.warnings[0]
    assert "larger preview_time" in sim.warnings[0]
    sim = _sim(dofs=["heave"], wave={"type": "input"}, excitation={"preview_time": 10.0})
    assert sim.warnings == []
    assert "body.heave" in sim.report[-1]


def test_late_start_with_accumulated_times() -> None:
    """An importer starting at t0 = 1e5 s and accumulating t += 0.1 (round-off ~1e-11 s)
    gets the same decay as one starting at 0: the internal grid absorbs the round-off
    instead of taking sliver steps (agreement 1e-8 of the 0.5 m release)."""
    def decay(t0: float) -> np.ndarray:
        sim = make_simulator(default_sphere_body(dofs=["heave"],
                                                 initial_pose=[0, 0, 0.5, 0, 0, 0]),
                             wave={"type": "none"},
                             simulation={"start_time": t0, "stop_time": t0 + 30.0})
        c = column(sim, "body.pose[3]")
        t, z = t0, []
        for _ in range(300):
            sim.step(t, 0.1)
            t += 0.1
            z.append(sim.output_vector()[c])
        assert sim.grid_index == 3000
        return np.array(z)

    np.testing.assert_allclose(decay(1.0e5), decay(0.0), rtol=0, atol=5e-9)
