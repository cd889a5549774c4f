"""The load FMU's part states with state-space radiation (issue 29, "the load FMU returns
the motion FMU's forces to 1e-12").

The motion FMU integrates the radiation states inside its own scheme's stages; the load FMU
sees the motion only at the communication points (pose, velocity, acceleration at both
ends: the quintic Hermite motion between them).

* ``time_scheme = "exact"``: both integrate exactly, the motion FMU the whole linear model,
  the load FMU its states along the Hermite motion (``runtime/loads/exact.py``, the same
  formula in ``csrc/hfn_load.c``): the forces agree to rounding, 1e-12 of each peak, in the
  Python and the native load FMU.
* ``rk4``: the motion FMU's stage velocities (its second and third stage's accelerations
  one by one, which need the body's mass) are not in the communication-point data, so the
  load FMU integrates by RK4 along the Hermite motion: the two fourth-order rules differ by
  their truncation, which falls 16x per halving of the step (checked here, with the
  figures in docs/guide/load-fmu.md).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config
from hydrofmu.cosim.fmu_unit import FmuUnit
from hydrofmu.export.fmu import build_fmu
from hydrofmu.export.native import build_native_fmu
from hydrofmu.runtime.loads.exact import ExactStates
from test_directional_derivative import _check_against_difference, _provides

DOF = range(1, 7)
KIN = [f"body.{q}[{i}]" for q in ("pose", "velocity", "acceleration") for i in DOF]
FORCES = [f"body.{c}[{i}]" for c in ("F_radiation", "F_excitation", "F_hydrostatic",
                                      "F_added_mass", "F_viscous") for i in DOF]
#: Of each force's peak, the issue's bound; observed 3.5e-13 (Python) and 3.2e-13 (native)
#: at 0.01 s: rounding of two different matrix exponentials carried over 600 steps (it
#: grows as the step shrinks: 2.1e-13 at 0.02 s, 5.1e-13 at 0.005 s, so no truncation).
SAME = 1e-12
#: A force zero by symmetry (sway, roll, yaw of the sphere in a head sea) reads rounding:
#: measured against this share of the largest force of its kind.
FLOOR = 1e-9


def test_exact_step_equals_the_closed_form() -> None:
    """x' = -lam x + gq q + gv v + c along a quintic q(tau) (which the Hermite motion through
    its ends reproduces), against the closed form int_0^h e^{-lam (h - tau)} tau^k dtau =
    I_k, I_0 = (1 - e^{-lam h}) / lam, I_k = (h^k - k I_{k-1}) / lam."""
    lam, gq, gv, c, h = 3.7, 0.8, -2.3, 0.45, 0.3
    rng = np.random.default_rng(5)
    coef = rng.standard_normal(6)  # q(tau) = sum coef_k tau^k

    def q(tau: float, d: int = 0) -> float:
        return sum(coef[k] * math.perm(k, d) * tau ** (k - d) for k in range(d, 6))

    def rate(t: float, qq: np.ndarray, vv: np.ndarray, x: np.ndarray, u: np.ndarray
             ) -> np.ndarray:
        return -lam * x + gq * qq[:1] + gv * vv[:1] + c

    ends = [np.array([[q(t, d)] + [0.0] * 5 for d in range(3)]) for t in (0.0, h)]
    step = ExactStates(rate, 1, 6, 0.0, np.zeros(0))
    x0 = 0.7
    got = step.step(0.0, h, ends[0], ends[1], np.zeros(0), np.array([x0]))[0]
    integral = [(1.0 - math.exp(-lam * h)) / lam]
    for k in range(1, 6):
        integral.append((h ** k - k * integral[-1]) / lam)
    forcing = [gq * coef[k] + (gv * (k + 1) * coef[k + 1] if k < 5 else 0.0) for k in range(6)]
    want = math.exp(-lam * h) * x0 + c * integral[0] + sum(
        f * i for f, i in zip(forcing, integral, strict=True))
    # a few roundings of terms of size 1 (the recursion loses no more at lam h ~ 1)
    assert abs(got - want) <= 1e-14 * (1.0 + abs(want))


def _config(scheme: str, dt: float) -> tuple[list, dict]:
    bodies, config = default_config(radiation={"method": "state_space"})
    config["wave"]["ramp_time"] = 1.0
    config["simulation"]["time_scheme"] = scheme
    config["simulation"]["max_internal_step"] = dt
    config["bodies"][0]["linear_damping"] = np.diag([1e3, 1e3, 2e3, 1e4, 1e4, 1e3]).tolist()
    return bodies, config


def _drive(motion: Path, loads: list[Path], h: float, seconds: float
           ) -> tuple[np.ndarray, list[np.ndarray]]:
    """The motion FMU's forces and each load FMU's, driven with its motion."""
    units = [FmuUnit(motion, f"m{h}"), *(FmuUnit(p, f"l{k}{h}") for k, p in enumerate(loads))]
    rows: list[list] = [[] for _ in units]
    try:
        for _ in range(round(seconds / h)):
            kin = units[0].get(KIN)
            for k, unit in enumerate(units):
                if k:
                    unit.set(KIN, kin)
                rows[k].append(unit.get(FORCES))
            for unit in units:
                unit.do_step(h)
    finally:
        for unit in units:
            unit.close()
    return np.array(rows[0]), [np.array(r) for r in rows[1:]]


def _relative(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Each force's largest difference over its peak (at least FLOOR of its kind's)."""
    peak = np.max(np.abs(ref), axis=0).reshape(-1, 2, 3)  # channel, force / moment, xyz
    scale = np.maximum(peak, FLOOR * peak.max(axis=2, keepdims=True)).reshape(-1)
    return np.max(np.abs(got - ref), axis=0) / scale


@pytest.mark.fmu
def test_exact_load_fmus_return_the_exact_motion_fmus_forces(tmp_path: Path) -> None:
    """time_scheme = "exact", 0.01 s, 6 s: the Python and the native load FMU return every
    force of the motion FMU to 1e-12 of its peak; the native one's derivative (through the
    exact step) equals its central difference."""
    bodies, config = _config("exact", 0.01)
    config["export"]["runtime"] = "python"
    motion = build_fmu(bodies, config, tmp_path / "M.fmu", model_name="M")
    loads = copy.deepcopy(config)
    loads["export"]["kind"] = "loads"
    python = build_fmu(bodies, loads, tmp_path / "LP.fmu", model_name="LP")
    loads["export"]["runtime"] = "native"
    native = build_native_fmu(bodies, loads, tmp_path / "LN.fmu", model_name="LN",
                              platforms=("linux64",))
    ref, (py, nat) = _drive(motion, [python, native], 0.01, 6.0)
    assert np.max(np.abs(ref[:, 2])) > 0.0  # F_radiation[3] is there
    for name, got in (("python", py), ("native", nat)):
        err = _relative(got, ref)
        assert np.all(err <= SAME), (name, FORCES[int(np.argmax(err))], err.max())
    # five internal steps a communication step: the motion inside the step is the Hermite
    # motion's, not the motion FMU's (4e-11 of F_radiation's peak, see the guide), but the
    # two load FMUs still agree to rounding
    _, (py, nat) = _drive(motion, [python, native], 0.05, 3.0)
    assert np.all(_relative(nat, py) <= SAME)
    assert _provides(native) == "true"
    _check_against_difference(native, "exact_native")


@pytest.mark.fmu
def test_rk4_load_fmu_against_the_rk4_motion_fmu_is_fourth_order(tmp_path: Path) -> None:
    """rk4 (the default): the native load FMU against the native motion FMU, the step (and
    the internal step) halved twice from 0.02 s: F_radiation's difference falls by the
    fourth order's 16x (observed 9.1e-9, 5.6e-10, 3.5e-11 of its largest peak: 16.1x,
    16.0x; between 12x and 20x accepted, a third order would give 8x, a fifth 32x); every
    other force to rounding."""
    errors = []
    for h in (0.02, 0.01, 0.005):
        bodies, config = _config("rk4", h)
        config["export"]["runtime"] = "native"
        motion = build_native_fmu(bodies, config, tmp_path / f"M{h}.fmu", model_name="M",
                                  platforms=("linux64",))
        config["export"]["kind"] = "loads"
        load = build_native_fmu(bodies, config, tmp_path / f"L{h}.fmu", model_name="L",
                                platforms=("linux64",))
        ref, (got,) = _drive(motion, [load], h, 6.0)
        rad = slice(0, 6)
        errors.append(np.max(np.abs(got[:, rad] - ref[:, rad])) / np.max(np.abs(ref[:, rad])))
        assert np.all(_relative(got, ref)[6:] <= SAME)
    ratios = [errors[0] / errors[1], errors[1] / errors[2]]
    assert all(12.0 <= r <= 20.0 for r in ratios), (errors, ratios)
    assert errors[1] < 1e-8  # the figure the guide gives at the default 0.01 s
