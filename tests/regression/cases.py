"""The recorded cases: the three example configurations and the default body under several
parameter sets, every output channel over a few seconds.

``python tests/regression/record.py`` rewrites ``recorded.npz`` (only when the model's
behaviour is meant to change; say so in the commit).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hydrofmu.config.configuration import default_config_data, load_config, resolve
from hydrofmu.runtime.simulator.simulator import Simulator

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLES = ROOT / "examples"
RECORD = HERE / "recorded.npz"

#: Seconds simulated per case and communication step (s).
STOP = 12.0
COMM = 0.1


def _pto(t: float) -> NDArray[np.float64]:
    """A PTO force on surge, heave and pitch (N, N m) that varies in time."""
    f = np.zeros(6)
    f[0] = 2.0e4 * math.sin(0.7 * t)
    f[2] = -5.0e4 * math.sin(1.1 * t + 0.3)
    f[4] = 1.0e5 * math.cos(0.5 * t)
    return f


def _elevation(t: float) -> float:
    """An elevation input (m): two components, as a wave probe would see."""
    return 0.8 * math.sin(2 * math.pi * t / 8.0) + 0.3 * math.sin(2 * math.pi * t / 5.3 + 1.0)


def _default(**sections: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    data = default_config_data(**sections)
    data["bodies"] = [{"name": "body", "hydro": "builtin:sphere",
                       "dofs": ["surge", "heave", "pitch"]}]
    return resolve(data, ROOT)


#: name -> (builder of (bodies, config), FMU parameters, input function or None)
CASES: dict[str, tuple[Callable[[], tuple[list[Any], dict[str, Any]]], dict[str, Any],
                       Callable[[float], NDArray[np.float64]] | None]] = {}


def _example(name: str) -> Callable[[], tuple[list[Any], dict[str, Any]]]:
    return lambda: load_config(EXAMPLES / name)


for _toml in ("cylinder_capytaine_decay.toml", "default_sphere_regular.toml",
              "sphere_bemio_regular.toml"):
    CASES[f"example:{_toml}"] = (_example(_toml), {}, None)


def _with_pto(extra: float | None = None) -> Callable[[float], NDArray[np.float64]]:
    def u(t: float) -> NDArray[np.float64]:
        eta = 0.0 if extra is None else _elevation(t)
        return np.concatenate([_pto(t), [eta]])
    return u


CASES["default:regular,implicit,convolution,pto"] = (
    _default, {"body.initial_pose[3]": 0.2}, _with_pto())
CASES["default:irregular,implicit,convolution"] = (
    _default, {"wave.type": "irregular", "wave.height": 3.0, "wave.period": 9.0,
               "wave.seed": 7, "wave.ramp_time": 5.0}, None)
CASES["default:input,implicit,convolution,pto"] = (
    _default, {"wave.type": "input", "excitation.preview_time": 6.0, "wave.ramp_time": 2.0},
    _with_pto(1.0))
CASES["default:regular,split,convolution"] = (
    _default, {"added_mass.method": "split", "max_internal_step": 0.005,
               "body.initial_velocity[3]": 0.1}, _with_pto())
CASES["default:regular,lagged,convolution"] = (
    _default, {"added_mass.method": "lagged", "max_internal_step": 0.002}, None)
# Recorded with the classical two-stage Heun, which the scheme family now calls "rk2heun"
# ("heun" is MoorDyn's one-evaluation Heun since the time-scheme issue).
CASES["default:regular,implicit,constant,heun"] = (
    _default, {"radiation.method": "constant", "time_scheme": "rk2heun", "wave.period": 6.0,
               "body.initial_pose[5]": 0.05}, _with_pto())
CASES["default:none,implicit,convolution,offgrid"] = (
    _default, {"wave.type": "none", "max_internal_step": 0.03, "body.initial_pose[3]": 0.5},
    _with_pto())


def run_case(name: str) -> NDArray[np.float64]:
    """Outputs of one case, shape (n_steps + 1, n_outputs), at every communication point."""
    build, params, inputs = CASES[name]
    bodies, cfg = build()
    sim = Simulator(bodies, cfg, params)
    n = round(STOP / COMM)
    out = np.empty((n + 1, sim.output_vector().size))
    if inputs is not None:
        sim.set_input_vector(inputs(0.0))
    out[0] = sim.output_vector()
    for i in range(n):
        t = i * COMM
        sim.step(t, COMM)
        if inputs is not None:
            sim.set_input_vector(inputs(t + COMM))
        out[i + 1] = sim.output_vector()
    return out


def output_names(name: str) -> list[str]:
    """Output channel names of a case."""
    bodies, cfg = CASES[name][0]()
    return Simulator.output_names(bodies, cfg)
