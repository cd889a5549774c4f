"""The linear output map (``outputs.py``): on every linear model it gives the outputs of the
part-by-part assembly to round-off along a real run; a part whose declaration is wrong is
caught when the map is built; a nonlinear model keeps the part-by-part assembly."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config_data, resolve
from hydrofmu.runtime.parts.part import LinearOutputs, LinearSystem, Part, Port
from hydrofmu.runtime.simulator.outputs import MAP_TOLERANCE
from hydrofmu.runtime.simulator.simulator import Simulator
from test_exact_scheme import SIX_DOF, heave_pto_force, rm3_constant
from test_step_cost import _drag_sim, _moored_sim, _sim


def _compare_along_a_run(sim: Simulator, steps: int = 300, dt: float = 0.1) -> float:
    """Largest difference between the map and the part-by-part assembly along a run (every
    step, with a changing PTO input), relative to each output's peak."""
    assert sim.output_map is not None, sim.warnings
    got, ref = [], []
    for k in range(steps):
        heave_pto_force(k * dt, sim)
        sim.step(sim.time, dt)
        got.append(sim.output_vector().copy())
        ref.append(sim.part_outputs())
    got_a, ref_a = np.array(got), np.array(ref)
    peak = np.max(np.abs(ref_a), axis=0)
    scale = np.maximum(peak, 1e-8 * peak.max())
    return float(np.max(np.max(np.abs(got_a - ref_a), axis=0) / scale))


def _rm3_sim() -> Simulator:
    return Simulator(*rm3_constant(),
                     {"float.initial_pose[3]": 0.2, "spar.initial_pose[3]": 0.2})


MODELS = {
    "state space, 6 DOFs, irregular": lambda: _sim("state_space"),
    "constant coefficients": lambda: _sim("constant"),
    "linear mooring and pretension": _moored_sim,
    "RM3: joints (reactions from the map's constraint force)": _rm3_sim,
}


@pytest.mark.parametrize("name", MODELS)
def test_map_equals_the_part_by_part_outputs(name: str) -> None:
    """30 s (through the 20 s ramp): every output within 1e-9 of its peak. Both sum the
    same terms in other orders (a few ulps of the largest term: the hydrostatic and
    radiation forces ~1e6 N against accelerations ~1 m/s^2 after the division by the
    mass); 1e-9 is the map's own check bound, far below any missing or doubled term."""
    diff = _compare_along_a_run(MODELS[name]())
    print(f"{name}: map vs part-by-part {diff:.3g} of the peak")
    assert diff < 1e-9


class _Probe(Part):
    """An extra part reporting the heave displacement; ``wrong`` declares surge instead."""

    kind = "probe"
    active = False
    wrong = False

    @classmethod
    def output_ports(cls, bodies: list[Any], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        return [Port("probe.heave", "m")]

    def force(self, ctx: Any) -> None:
        return None

    def outputs(self, ctx: Any) -> np.ndarray:
        return np.array([ctx.q[2]])

    def linear_system(self) -> LinearSystem:
        return LinearSystem()

    def linear_outputs(self) -> LinearOutputs:
        row = np.zeros((1, self.n))
        row[0, 0 if self.wrong else 2] = 1.0
        return LinearOutputs(out_q=row)


class _WrongProbe(_Probe):
    wrong = True


def _probe_sim(cls: type[Part]) -> Simulator:
    data = default_config_data(radiation={"method": "constant"})
    bodies, cfg = resolve(data, Path.cwd())
    return Simulator(bodies, cfg, {**SIX_DOF}, parts=[cls])


def test_a_declared_extra_output_is_in_the_map() -> None:
    sim = _probe_sim(_Probe)
    assert _compare_along_a_run(sim, steps=50) < 1e-9
    assert sim.output_vector()[-1] == pytest.approx(sim.y[2], rel=1e-12)


def test_a_wrong_declaration_is_caught_when_the_map_is_built() -> None:
    """The probe declares surge but reports heave: the check at build (random state, two
    times) sees it, warns naming the map and keeps the part-by-part assembly, whose output
    is the part's own."""
    sim = _probe_sim(_WrongProbe)
    assert sim.output_map is None
    assert any("linear output map disagrees" in w and "output 61" in w for w in sim.warnings)
    for _ in range(20):
        sim.step(sim.time, 0.1)
    assert sim.output_vector()[-1] == sim.y[2]
    # The check saw the wrong term by far, not by a hair: the error it reports (the wrong
    # coefficient's contribution at its seeded random state, relative to the terms) is
    # O(1) -- observed 0.69 -- and the bound sits at MAP_TOLERANCE = 1e-9, above the
    # round-off of a right declaration (test_a_declared_extra_output_is_in_the_map).
    warning = next(w for w in sim.warnings if "linear output map disagrees" in w)
    reported = float(re.search(r", ([0-9.e+-]+) of the terms\)", warning).group(1))
    assert reported > 1e6 * MAP_TOLERANCE, warning


@pytest.mark.parametrize("method", ["constant", "convolution"])
def test_a_nonlinear_model_keeps_the_part_by_part_outputs(method: str) -> None:
    """Quadratic drag (and the convolution's history) make the model nonlinear: no map."""
    sim = _drag_sim(method)
    assert sim.output_map is None
    assert not any("linear output map" in w for w in sim.warnings)
