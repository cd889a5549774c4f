"""The stability map of the added-mass coupling (build side): for each coupling method of
:mod:`hydrofmu.cosim.coupling`, whether a body of mass ratio ``m / A_inf`` coupled to the
load FMU with a communication step ``h`` stays bounded, and at what cost (load-FMU
evaluations per step).

A decay test in one DOF: the rigid-body FMU free in that DOF only, released from an initial
offset; the load FMU's ``max_internal_step`` set to ``h`` (its history grid). A run
diverges when it exceeds the master's limit, or when its largest acceleration over the
last quarter of the steps exceeds ``growth`` (1) times the largest over the first quarter:
a free decay of a passive system never grows, an unstable scheme's mode does.
``build_scripts/added_mass_map.py`` writes the docs' map with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import IntegrationError
from .coupling import CouplingResult, added_mass_block, run_coupled
from .fmu_unit import FmuUnit

__all__ = ["MapPoint", "direct_gains", "diverged", "map_point", "nyquist_gain"]


@dataclass(frozen=True)
class MapPoint:
    """One point of the map.

    Attributes
    ----------
    method, ratio, step
        The coupling method, ``m / A_inf`` (the DOF's diagonal entry) and ``h`` (s).
    stable
        The run stayed bounded.
    iterations
        Mean load-FMU evaluations per communication step.
    """

    method: str
    ratio: float
    step: float
    stable: bool
    iterations: float


def diverged(result: CouplingResult, growth: float = 1.0) -> bool:
    """The run of ``result`` diverged (see the module docstring)."""
    if result.diverged:
        return True
    a = np.abs(result.acceleration)
    q = max(1, len(a) // 4)
    early, late = float(np.max(a[:q])), float(np.max(a[-q:]))
    return not np.isfinite(late) or late > growth * max(early, 1e-300)


def direct_gains(load_fmu: str | Path, *, dof: int = 3, name: str = "body",
                 parameters: dict[str, float] | None = None) -> tuple[float, float]:
    """``(A, c)`` of the load FMU in one DOF at its start: the added mass ``A_inf[dof,dof]``
    (kg) and the direct velocity gain ``c = -d F_total / d v`` (N s/m, by a central
    difference, exact to round-off for a force affine in the velocity)."""
    load = FmuUnit(load_fmu, "gains", parameters=parameters)
    try:
        a = float(added_mass_block(load, name)[dof - 1, dof - 1])
        v = f"{name}.velocity[{dof}]"
        f = [f"{name}.F_total[{dof}]"]
        dv = 1.0e-3
        load.set([v], [dv])
        up = load.get(f)[0]
        load.set([v], [-dv])
        down = load.get(f)[0]
        return a, -(up - down) / (2.0 * dv)
    finally:
        load.close()


def nyquist_gain(load_fmu: str | Path, step: float, *, dof: int = 3, name: str = "body",
                 memory: float = 40.0, parameters: dict[str, float] | None = None) -> float:
    """``c_N = -F_total / v`` (N s/m) of the load FMU driven by the alternating velocity
    ``v_n = (-1)^n`` in ``dof`` (pose and acceleration zero) at the communication step
    ``step`` (s), after ``memory`` s (longer than its radiation memory): its velocity gain
    at the Nyquist frequency ``pi / h``, the flip mode of the explicit coupling."""
    params = {"max_internal_step": step, **(parameters or {})}
    load = FmuUnit(load_fmu, "nyquist", parameters=params)
    try:
        v = [f"{name}.velocity[{dof}]"]
        f = [f"{name}.F_total[{dof}]"]
        sign = 1.0
        for _ in range(round(memory / step)):
            load.set(v, [sign])
            load.do_step(step)
            sign = -sign
        load.set(v, [sign])
        return -float(load.get(f)[0]) / sign
    finally:
        load.close()


def map_point(body_fmu: str | Path, load_fmu: str | Path, *, method: str, ratio: float,
              step: float, n_steps: int = 200, dof: int = 3, offset: float = 0.5,
              name: str = "body", load_parameters: dict[str, float] | None = None,
              added_mass: float | None = None, **options: Any) -> MapPoint:
    """Run the decay test of the module docstring at one ``(method, ratio, step)``; the
    body's mass ``ratio * A_inf[dof,dof]`` (the rest of its diagonal 1: fixed DOFs), its
    initial offset ``offset`` (m or rad) in ``dof``; ``added_mass`` the load FMU's
    ``A_inf[dof,dof]`` when known (read from the FMU otherwise)."""
    params = {"max_internal_step": step, **(load_parameters or {})}
    a = (direct_gains(load_fmu, dof=dof, name=name, parameters=params)[0]
         if added_mass is None else added_mass)
    mass = np.eye(6)
    mass[dof - 1, dof - 1] = ratio * a
    free: Sequence[int] = [int(i == dof - 1) for i in range(6)]
    try:
        result = run_coupled(body_fmu, load_fmu, mass=mass, method=method, step=step,
                             stop_time=n_steps * step, free=free, name=name,
                             load_parameters=params, body_parameters={
                                 f"initial_pose[{dof}]": offset}, **options)
    except IntegrationError:  # an iteration that does not converge: unstable there
        return MapPoint(method, ratio, step, False, float("nan"))
    return MapPoint(method, ratio, step, not diverged(result),
                    float(np.mean(result.iterations[1:])))
