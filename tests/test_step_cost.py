"""The cost of a step, structurally (no timing): the assembled linear right-hand side equals
the part sum to round-off, and over a long run the work per step and the memory do not grow
(constant evaluations per step, a fixed-size radiation history, no retained allocations).
"""

from __future__ import annotations

import tomllib
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hydrofmu.runtime.simulator.step_rhs as step_rhs_module
from hydrofmu.config.configuration import default_config, default_config_data, resolve
from hydrofmu.runtime.simulator.rhs import part_sum_rhs, state_matrices
from hydrofmu.runtime.simulator.simulator import Simulator
from hydrofmu.statespace.payload import add_realisation

ROOT = Path(__file__).resolve().parents[1]

# The two forms sum the same terms in another association: each derivative entry is a
# sum of at most a few hundred products, each rounded to 1.1e-16 relative, so the forms
# differ by well under 1e-13 of the largest term of a block; 1e-12 of the block's largest
# derivative leaves a margin of 10 and still catches any missing or doubled term (which
# moves the result by a whole term).
RHS_REL = 1e-12


def _sim(method: str = "state_space", **params: Any) -> Simulator:
    data = default_config_data(wave={"type": "irregular", "height": 2.0, "period": 8.0,
                                     "n_components": 40, "seed": 3})
    data["bodies"][0]["dofs"] = ["surge", "sway", "heave", "roll", "pitch", "yaw"]
    bodies, cfg = resolve(data, Path.cwd())
    if method == "state_space":
        add_realisation(bodies, cfg)
    return Simulator(bodies, cfg, {"radiation.method": method, **params})


def _moored_sim() -> Simulator:
    k = np.diag([1.0e5, 1.0e5, 2.0e5, 0.0, 0.0, 3.0e6])
    data = default_config_data(wave={"type": "regular", "height": 1.0, "period": 7.0})
    data["moorings"] = [{"type": "linear", "body": "body", "stiffness": k.tolist(),
                         "damping": (0.05 * k).tolist(),
                         "pretension": [0.0, 0.0, -1.0e4, 0.0, 0.0, 0.0]}]
    data["bodies"][0]["name"] = "body"
    bodies, cfg = resolve(data, Path.cwd())
    add_realisation(bodies, cfg)
    return Simulator(bodies, cfg, {"radiation.method": "state_space"})


def _drag_sim(method: str) -> Simulator:
    data = default_config_data(wave={"type": "regular", "height": 2.0, "period": 7.0})
    data["bodies"][0]["quadratic_damping"] = [0.0, 0.0, 5.0e4, 0.0, 2.0e8, 0.0]
    bodies, cfg = resolve(data, Path.cwd())
    return Simulator(bodies, cfg, {"radiation.method": method})


def _rm3_sim() -> Simulator:
    rm3 = ROOT / "examples" / "rm3"
    data = tomllib.loads((rm3 / "rm3.toml").read_text(encoding="utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # WAMIT's 4-digit data: asymmetry notes
        bodies, cfg = resolve(data, rm3)
    return Simulator(bodies, cfg, {"radiation.method": "constant"})


def _part_sum(sim: Simulator, t_n: float, y_n: np.ndarray):
    """The general right-hand side of the step from ``(t_n, y_n)``, whatever the model."""
    ctx = sim.ctx
    expand = sim.constraints.expand_pair
    lag = (sim.added_lagged @ sim.acc_prev) if sim.lagged else None
    ctx.t0, ctx.sn, ctx.u, ctx.vn = sim.t0, t_n - sim.grid_time, sim.u, expand(y_n)[1]
    forces = [p.force for p in sim.parts if p.active]
    stateful = [p for p in sim.parts if p.n_states]
    return part_sum_rhs(ctx, expand, forces, stateful, sim.assembly.acc_map, sim.nr,
                        sim.grid_time, lag)


MODELS = {
    "state space, 6 DOFs, irregular": lambda: _sim("state_space"),
    "constant, lagged added mass": lambda: _sim("constant", **{
        "added_mass.method": "lagged", "max_internal_step": 0.002}),
    "state space, linear mooring and pretension": _moored_sim,
    "RM3, joints and PTO, constant": _rm3_sim,
}
#: Models with parts that are not linear (no states): the linear form plus those parts.
MIXED = {
    "convolution (grid-aligned stages and a step off the grid)": lambda: _sim("convolution"),
    "constant, quadratic drag": lambda: _drag_sim("constant"),
    "convolution, quadratic drag": lambda: _drag_sim("convolution"),
}


@pytest.mark.parametrize("name", [*MODELS, *MIXED])
def test_linear_form_equals_the_part_sum(name: str) -> None:
    sim = MODELS[name]() if name in MODELS else MIXED[name]()
    assert sim.linear_form is not None and sim.linear_form.linear == (name in MODELS)
    for _ in range(30):  # some history in the convolution
        sim.step(sim.time, 0.1)
    rng = np.random.default_rng(11)
    sim.set_input_vector(rng.normal(scale=1.0e4, size=sim.u.size))
    sim.acc_prev = rng.normal(size=sim.n)  # a lagged added mass acts through it
    nr = sim.nr
    for _ in range(8):
        # stages of a step from the grid time, and of a step starting 0.3 dt after it
        t_n = sim.time + float(rng.choice([0.0, 0.3])) * sim.dt
        t = t_n + float(rng.uniform(0.0, sim.time + sim.dt - t_n))
        y = rng.normal(scale=0.3, size=sim.y.size)
        y_n = rng.normal(scale=0.3, size=sim.y.size)
        fast = sim.right_hand_side(t_n, y_n)(t, y)  # the simulator's choice: the linear form
        slow = _part_sum(sim, t_n, y_n)(t, y)
        for block in (slice(0, nr), slice(nr, 2 * nr), slice(2 * nr, None)):
            ref = slow[block]
            if ref.size:
                scale = max(float(np.max(np.abs(ref))), 1e-300)
                assert np.max(np.abs(fast[block] - ref)) <= RHS_REL * scale, name


def test_a_part_with_nonlinear_states_keeps_the_part_sum() -> None:
    """MoorDyn lines (node states, not linear): the general right-hand side."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = tomllib.loads((ROOT / "examples" / "moored_body.toml").read_text("utf-8"))
        bodies, cfg = resolve(data, ROOT / "examples")
    sim = Simulator(bodies, cfg)
    assert any(p.n_states and state_matrices(p, sim.n) is None for p in sim.parts)
    assert sim.linear_form is None


def _counted(make):
    """Wrap a right-hand-side factory: count the factories made and the evaluations of
    the functions they return (``counts["made"]``, ``counts["calls"]``)."""
    counts = {"made": 0, "calls": 0}

    def factory(*args, **kwargs):
        counts["made"] += 1
        rhs = make(*args, **kwargs)

        def counted(t, y):
            counts["calls"] += 1
            return rhs(t, y)

        return counted

    return factory, counts


def test_runs_with_and_without_the_linear_form_agree(monkeypatch) -> None:
    """200 communication steps (2000 RK4 steps) of the six-DOF body in irregular waves,
    stepped stagewise by RK4 with the assembled linear form on one side and with the part
    sum on the other. The scheme's linear map (schemes/linear_rk.py), which the simulator
    would otherwise use on this linear model and which uses neither, is switched off on
    both sides; the counts prove which right-hand side each run evaluated."""
    a, b = _sim("state_space"), _sim("state_space")
    for sim in (a, b):
        # the simulator chose the scheme's linear map on this model ...
        assert type(sim.interval_stepper).__name__ == "LinearRungeKutta"
        sim.interval_stepper = None  # ... and it is switched off: stagewise internal steps
    assert a.linear_form is not None and a.scheme is not b.scheme
    b.linear_form = None  # the part sum
    a.linear_form.rhs, linear = _counted(a.linear_form.rhs)
    part_sum, parts = _counted(step_rhs_module.part_sum_rhs)
    monkeypatch.setattr(step_rhs_module, "part_sum_rhs", part_sum)
    u = np.zeros(a.u.size)
    out_a, out_b = [], []
    t = 0.0
    for k in range(200):
        u[2] = 1.0e4 * np.sin(0.3 * k)
        for sim, out in ((a, out_a), (b, out_b)):
            sim.set_input_vector(u)
            sim.step(t, 0.1)
            out.append(sim.output_vector().copy())
        t += 0.1
    # 2000 internal steps of 4 stages each: the linear form only in a, the part sum only in
    # b (a factory per internal step, four evaluations of what it returns)
    assert linear == {"made": 2000, "calls": 4 * 2000}, linear
    assert parts == {"made": 2000, "calls": 4 * 2000}, parts
    out_a, out_b = np.array(out_a), np.array(out_b)
    assert not np.array_equal(out_a, out_b)  # two computations, not one
    scale = np.max(np.abs(out_b), axis=0) + 1e-300
    # The forms sum the same terms in another association (RHS_REL above: round-off of
    # ~1e-16 per operation, ~1e-14 of a block's largest derivative); the model is damped,
    # so over 2000 steps the difference does not grow: observed 2.5e-14 of each output's
    # peak. The bound 1e-11 leaves 400x for another machine's BLAS (another association
    # moves the round-off by its own size, not by orders) and still fails for any change of
    # the model (a missing or doubled term moves outputs by >= 1e-6 of their peak).
    assert np.max(np.abs(out_a - out_b) / scale) <= 1e-11


def test_tunable_parameter_reassembles_the_linear_form() -> None:
    data = default_config_data(radiation={"method": "constant"})
    data["ptos"] = [{"name": "float", "dof": "heave", "damping": 1.0e5, "stiffness": 0.0}]
    bodies, cfg = resolve(data, Path.cwd())
    sim = Simulator(bodies, cfg)
    before = sim.linear_form.jacobian.copy()
    sim.set_parameter("pto.float.damping", 3.0e5)
    changed = sim.linear_form.jacobian - before
    fresh = Simulator(bodies, cfg, {"pto.float.damping": 3.0e5}).linear_form.jacobian
    assert np.any(changed != 0.0)
    np.testing.assert_array_equal(sim.linear_form.jacobian, fresh)  # same assembly, same bits


class _Counter:
    """Counts the calls of a bound method it replaces."""

    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


@pytest.mark.slow
def test_convolution_work_and_memory_do_not_grow_over_a_long_run() -> None:
    """5800 steps of the convolution model with a 5 s kernel (100 samples, full after
    100 steps): per 500 steps the same number of force evaluations and grid sums, the
    same history buffer, and no memory retained by the run."""
    bodies, cfg = default_config(wave={"type": "irregular", "height": 2.0, "period": 8.0,
                                       "n_components": 20, "seed": 5})
    cfg["radiation"]["irf_duration"] = 5.0
    sim = Simulator(bodies, cfg, {"radiation.method": "convolution",
                                  "max_internal_step": 0.05})
    conv = sim.part("radiation").model
    buf = conv.history._buf
    shape = buf.shape
    forces = conv.force = _Counter(conv.force)
    sums = conv._grid_sums = _Counter(conv._grid_sums)
    stages = conv._stage_terms = _Counter(conv._stage_terms)
    u = np.zeros(sim.u.size)
    state = {"k": 0}

    def run(steps: int) -> None:
        for _ in range(steps):
            u[2] = 1.0e4 * np.sin(0.05 * state["k"])
            sim.set_input_vector(u)
            sim.step(state["k"] * 0.05, 0.05)
            sim.output_vector()
            state["k"] += 1

    run(300)
    versions, calls, grid, stage = [], [], [], []
    for _ in range(2):
        v0, c0, g0, s0 = conv.history.version, forces.calls, sums.calls, stages.calls
        run(500)
        versions.append(conv.history.version - v0)
        calls.append(forces.calls - c0)
        grid.append(sums.calls - g0)
        stage.append(stages.calls - s0)
    # One history sample per 0.05 s step; RK4: 4 stages + 1 output evaluation per step;
    # the history part of the integral at the 3 distinct stage offsets (0, h/2, h) once
    # per history sample, its kernel products once per sample.
    assert versions == [500, 500]
    assert calls == [2500, 2500]
    assert stage == [1500, 1500]
    assert grid == [500, 500]
    tracemalloc.start()
    try:
        run(500)
        after_500 = tracemalloc.get_traced_memory()[0]
        run(4000)
        after_4500 = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # A leak of one 12-float array per step (the smallest state vector, ~200 B with its
    # header) would retain 4000 x 200 B = 800 kB over the last 4000 steps; the run's own
    # allocations are freed at every step, so what remains is the allocator's and the
    # caches' bounded noise (kernel and stage caches are capped at 65 entries of <= 6x6
    # floats, 20 kB): 64 kB bounds it with a margin and catches any per-step retention.
    assert after_4500 - after_500 <= 64 * 1024
    assert conv.history._buf is buf and buf.shape == shape
    assert len(conv._kernel_cache) <= 65 and len(conv._stage) <= 65


@pytest.mark.slow
@pytest.mark.parametrize("fused", [False, True], ids=["stagewise", "fused map"])
def test_linear_form_evaluations_per_step_are_constant(fused: bool) -> None:
    """The state-space model with RK4, in each of five blocks of 400 steps: stagewise, the
    same number of evaluations of the forcing per communication step (3 distinct stage
    times per internal step); through the scheme's linear map (schemes/linear_rk.py), none
    at all, and one cached discretisation for the one step length. The state vector keeps
    its size."""
    sim = _sim("state_space", **{"max_internal_step": 0.05})
    exc = sim.part("wave_excitation")
    counter = _Counter(exc.force)
    exc.force = counter
    sim.reassemble()  # the linear form holds the bound methods: take the counter
    fused_map = sim.interval_stepper
    if not fused:
        sim.interval_stepper = None  # the simulator's stagewise internal steps
    size = sim.y.size
    counts = []
    k = 0
    for _ in range(5):
        c0 = counter.calls
        for _ in range(400):
            sim.step(k * 0.1, 0.1)  # the communication points as a master computes them
            k += 1
        counts.append(counter.calls - c0)
    # 2 internal steps per 0.1 s, 3 distinct stage times each (t, t + h/2, t + h)
    assert counts == ([0] * 5 if fused else [400 * 2 * 3] * 5)
    assert sim.y.size == size
    if fused:
        assert fused_map.stepper.cached_steps == 1


def test_a_large_jacobian_is_applied_from_its_nonzeros() -> None:
    """Above DENSE_LIMIT entries J y is summed from the nonzeros: the same as the dense
    product to round-off (sums of <= 40 products, 1e-16 each: 1e-13 of the largest)."""
    from hydrofmu.runtime.simulator.rhs import DENSE_LIMIT, LinearForm

    rng = np.random.default_rng(2)
    ny = 120
    assert ny * ny > DENSE_LIMIT
    jac = rng.normal(size=(ny, ny)) * (rng.random((ny, ny)) < 0.3)
    form = LinearForm(jacobian=jac, acc_map=np.eye(3, 6), f0=np.zeros(6), forcing=(), nr=3)
    y = rng.normal(size=ny)
    ref = jac @ y
    np.testing.assert_allclose(form.apply(y), ref, rtol=0, atol=1e-13 * np.max(np.abs(ref)))
    small = LinearForm(jacobian=jac[:60, :60], acc_map=np.eye(3, 6), f0=np.zeros(6),
                       forcing=(), nr=3)
    np.testing.assert_array_equal(small.apply(y[:60]), jac[:60, :60] @ y[:60])
