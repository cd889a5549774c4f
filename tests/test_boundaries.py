"""The simulator's boundaries: an immutable assembly handed out, one scheme protocol
(``advance``, a typed right-hand side), the interval maps a scheme binds and returning the
state the simulator commits."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config_data, resolve
from hydrofmu.runtime.schemes.base import Interval, TimeScheme
from hydrofmu.runtime.schemes.exact import Exact, ExactInterval
from hydrofmu.runtime.schemes.linear_rk import LinearRungeKutta
from hydrofmu.runtime.schemes.registry import make_scheme, scheme_names
from hydrofmu.runtime.schemes.right_hand_side import RightHandSide
from hydrofmu.runtime.schemes.stagewise import StagewiseScheme
from hydrofmu.runtime.simulator.simulator import Simulator


@pytest.fixture(scope="module")
def sphere() -> tuple[list, dict]:
    """The default sphere with state-space radiation: a linear model."""
    return resolve(default_config_data(radiation={"method": "state_space"}), Path.cwd(),
                   where="boundaries")


def test_the_assembly_is_read_only(sphere: tuple[list, dict]) -> None:
    sim = Simulator(*sphere)
    asm = sim.assembly
    with pytest.raises(dataclasses.FrozenInstanceError):
        asm.lhs = np.zeros_like(asm.lhs)  # type: ignore[misc]
    for name in ("lhs", "acc_map", "added", "added_left", "added_lagged"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(asm, name)[0, 0] = 1.0
    with pytest.raises(TypeError):
        asm.channel_rows["F_new"] = 9  # type: ignore[index]
    assert asm.n_states == sim.y.size and asm.n_inputs == sim.u.size
    assert asm.n_outputs == sim.output_vector().size


def test_every_scheme_implements_the_one_protocol() -> None:
    """Every scheme has its own ``advance`` (the one protocol): the stagewise ones through
    the base class that loops their ``_step_impl``, ``exact`` by its map; no scheme keeps
    a second way in (``exact`` has no ``step``)."""
    for name in scheme_names():
        scheme = make_scheme(name.replace("N", "2") if name.endswith("N") else name)
        assert isinstance(scheme, TimeScheme)
        assert type(scheme).advance is not TimeScheme.advance, name
        assert isinstance(scheme, StagewiseScheme) or (
            isinstance(scheme, Exact) and not hasattr(scheme, "step")), name


def test_the_simulator_hands_the_schemes_a_typed_right_hand_side(
        sphere: tuple[list, dict]) -> None:
    """The linear form, the part sum and the local steps' partition are all
    :class:`RightHandSide` objects, with the members a scheme reads declared."""
    for params in ({}, {"time_scheme": "etdrk4"}):
        sim = Simulator(*sphere, params)
        rhs = sim.right_hand_side(sim.time, sim.y)
        assert isinstance(rhs, RightHandSide) and rhs.partition is None
        assert (rhs.linear_part is not None) == (params != {})
        assert isinstance(sim.part_sum(sim.time, sim.y), RightHandSide)


@pytest.mark.parametrize(("parameters", "kind"), [
    ({"time_scheme": "rk4"}, LinearRungeKutta),
    ({"time_scheme": "exact"}, ExactInterval),
    ({"time_scheme": "midpoint5"}, type(None)),  # not an explicit Runge-Kutta scheme
    ({"time_scheme": "rk4", "added_mass.method": "split"}, type(None)),  # lagged mass
])
def test_the_simulator_chooses_the_interval_stepper(sphere: tuple[list, dict],
                                                    parameters: dict, kind: type) -> None:
    sim = Simulator(*sphere, parameters)
    assert type(sim.interval_stepper) is kind


def test_an_interval_stepper_returns_the_state_for_the_simulator_to_commit(
        sphere: tuple[list, dict]) -> None:
    sim = Simulator(*sphere, {"time_scheme": "exact", "body.initial_pose[3]": 0.3})
    y, time, index = sim.y.copy(), sim.time, sim.grid_index
    done = sim.interval_stepper.advance(sim.y, sim.u, t0=sim.t0, time=sim.time,
                                        grid_index=sim.grid_index, t_end=0.25, eps=1e-12)
    assert isinstance(done, Interval)
    # Nothing changed until the simulator commits.
    assert np.array_equal(sim.y, y) and sim.time == time and sim.grid_index == index
    sim.step(sim.time, 0.25)
    assert np.array_equal(sim.y, done.y) and sim.time == done.time == 0.25
    assert sim.grid_index == done.grid_index == 25  # max_internal_step 0.01 s


def test_off_the_grid_the_runge_kutta_map_declines(sphere: tuple[list, dict]) -> None:
    """An interval that is not a whole number of internal steps: ``None``, the simulator
    steps it stagewise."""
    sim = Simulator(*sphere, {"time_scheme": "rk4"})
    assert sim.interval_stepper.advance(sim.y, sim.u, t0=sim.t0, time=sim.time,
                                        grid_index=sim.grid_index, t_end=0.015,
                                        eps=1e-12) is None
    sim.step(sim.time, 0.015)
    assert sim.time == 0.015 and sim.grid_index == 1


def test_the_simulator_owns_its_collaborators(sphere: tuple[list, dict]) -> None:
    """No mixins: the output cache, the tuner and the right-hand side builder are typed
    fields of the simulator, each reading only what it is given."""
    from hydrofmu.runtime.simulator.layout import ModelInterface
    from hydrofmu.runtime.simulator.output_cache import OutputCache
    from hydrofmu.runtime.simulator.step_rhs import RhsBuilder
    from hydrofmu.runtime.simulator.tunable import ParameterTuner

    assert Simulator.__mro__ == (Simulator, ModelInterface, object)
    assert not vars(ModelInterface).get("__init__")  # static methods only, no state
    sim = Simulator(*sphere, {"time_scheme": "rk4"})
    assert isinstance(sim.output_cache, OutputCache)
    assert isinstance(sim.tuner, ParameterTuner)
    assert isinstance(sim.rhs_builder, RhsBuilder)
    assert sim.output_map is sim.output_cache.output_map is not None
    out = sim.output_vector()
    assert out is sim.output_cache.values and not sim.output_cache.stale
    sim.set_input_vector(sim.u)
    assert sim.output_cache.stale
