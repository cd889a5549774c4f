"""Linear mooring (issue 6, part 3): ``F = f_pre - K q - C v`` on one body.

Validated against closed forms on the default sphere in heave with constant-coefficient
radiation (``A(w)``, ``B(w)`` at one frequency), where the heave equation is exactly
``(m + A) z'' + (B + C) z' + (K_hs + K) z = F``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config_data, resolve
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.simulator.simulator import Simulator
from physics_helpers import column, run

K_MOOR = 2.0e5   # N/m, heave stiffness of the mooring (about 1/4 of the sphere's K_hs)
PERIOD = 5.0     # s, frequency of the constant radiation coefficients


def _mooring(**kw: Any) -> dict[str, Any]:
    k = np.zeros((6, 6))
    k[2, 2] = K_MOOR
    m = {"type": "linear", "body": "body", "stiffness": k.tolist()}
    m.update(kw)
    return m


def _sim(moorings: list[dict[str, Any]], **params: Any) -> Simulator:
    data = default_config_data(wave={"type": "none"}, radiation={"method": "constant"})
    data["bodies"] = [{"name": "body", "hydro": "builtin:sphere", "dofs": ["heave"]}]
    data["moorings"] = moorings
    bodies, cfg = resolve(data, Path.cwd())
    return Simulator(bodies, cfg, {"wave.period": PERIOD, **params})


def _heave_coefficients(sim: Simulator) -> tuple[float, float, float]:
    """(m + A, B, K_hs) in heave, from the model's own matrices."""
    a = sim.added[2, 2]
    b = sim.part("radiation").model.damping[2, 2]
    return sim.mass[2, 2] + a, b, sim.part("hydrostatics").stiffness[2, 2]


def test_static_offset_under_a_constant_pto_force() -> None:
    """Offset F / (K_hs + K_moor) to 1e-6 relative, from rest, critically damped."""
    sim0 = _sim([_mooring()])
    m, b, k_hs = _heave_coefficients(sim0)
    k = k_hs + K_MOOR
    c = 2.0 * math.sqrt(k * m) - b  # mooring damping that makes heave critically damped
    damping = np.zeros((6, 6))
    damping[2, 2] = c
    sim = _sim([_mooring(damping=damping.tolist())])
    force = 1.0e5
    u = np.zeros(sim.u.size)
    u[2] = force
    _, out = run(sim, 40.0, 0.1, inputs=lambda _t: u)
    z = out[:, column(sim, "body.pose[3]")]
    # Critically damped from rest: the error decays as (1 + w t) e^(-w t), w = 1.57 rad/s:
    # 1e-25 of the offset after 40 s, far below the 1e-6 asked.
    assert z[-1] == pytest.approx(force / k, rel=1e-6)
    f_moor = out[-1, column(sim, "body.F_mooring[3]")]
    assert f_moor == pytest.approx(-K_MOOR * force / k, rel=1e-6)


def test_heave_natural_period_with_mooring_stiffness() -> None:
    """Zero-crossing period of a free decay against the damped closed form, 0.5 %."""
    sim = _sim([_mooring()], **{"body.initial_pose[3]": 0.5})
    m, b, k_hs = _heave_coefficients(sim)
    k = k_hs + K_MOOR
    omega_d = math.sqrt(k / m - (b / (2.0 * m)) ** 2)
    expected = 2.0 * math.pi / omega_d
    t, out = run(sim, 30.0, 0.02)
    z = out[:, column(sim, "body.pose[3]")]
    i = np.flatnonzero((z[:-1] > 0.0) & (z[1:] <= 0.0))
    crossings = t[i] + z[i] / (z[i] - z[i + 1]) * (t[i + 1] - t[i])
    measured = float(np.mean(np.diff(crossings)))
    assert len(crossings) >= 3
    # Linear interpolation of crossings sampled at 0.02 s (error ~ 1e-4 of a period) and
    # RK4 at 0.01 s (phase error ~ (w dt)^4) are far inside the 0.5 % asked; without the
    # mooring the period would be sqrt(1 + K_moor / K_hs) ~ 12 % longer.
    assert measured == pytest.approx(expected, rel=0.005)
    unmoored = 2.0 * math.pi / math.sqrt(k_hs / m - (b / (2.0 * m)) ** 2)
    assert abs(measured - unmoored) > 0.05 * unmoored


def test_pretension_is_a_constant_force() -> None:
    """With K = C = 0 the mooring force is the pretension at every instant, and the body
    settles at pretension / K_hs."""
    pre = [0.0, 0.0, -3.0e4, 0.0, 0.0, 0.0]
    sim = _sim([{"type": "linear", "pretension": pre}], **{"body.initial_pose[3]": 0.2})
    _, out = run(sim, 20.0, 0.1)
    f = out[:, column(sim, "body.F_mooring[3]")]
    assert np.all(f == pre[2])
    z = out[:, column(sim, "body.pose[3]")]
    assert np.ptp(z) > 0.1  # the body moves while the force stays constant
    assert f"{pre[2]}" in " ".join(sim.report)


def test_two_moorings_add_up() -> None:
    sim = _sim([_mooring(), _mooring()], **{"body.initial_pose[3]": 0.1})
    f = sim.output_vector()[column(sim, "body.F_mooring[3]")]
    assert f == pytest.approx(-2.0 * K_MOOR * 0.1, rel=1e-14)


@pytest.mark.parametrize(
    ("entry", "match"),
    [
        ({"stiffness": [[1.0] * 6] * 5}, r"stiffness must be a 6x6 matrix"),
        ({"stiffness": (np.eye(6) + np.diag([1.0] * 5, 1)).tolist()},
         r"stiffness must be symmetric: \[1\]\[2\] = 1 but \[2\]\[1\] = 0"),
        ({"damping": np.diag([1.0, 1.0, -5.0, 1.0, 1.0, 1.0]).tolist()},
         r"damping must be positive semi-definite.*smallest eigenvalue is -5"),
        ({"pretension": [1.0, 2.0]}, r"pretension must be 6 finite numbers"),
        ({"body": "buoy"}, r"body 'buoy' is not one of body"),
        ({"stifness": np.eye(6).tolist()}, r"unknown key 'stifness'"),
        ({"type": "catenry"}, r"unknown type 'mooring.catenry'.*available"),
    ],
)
def test_bad_mooring_entries_are_refused_with_a_message(entry: dict[str, Any],
                                                        match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        _sim([{"type": "linear", **entry}])
