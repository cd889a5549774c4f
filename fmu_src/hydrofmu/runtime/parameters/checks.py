"""The checks of a set of parameter values: types, ranges, choices and cross-conditions.

One definition answers both ``fmi2ExitInitializationMode`` (inside the FMU) and
``hydrofmu build`` (the configuration's defaults): :func:`parameter_problems` lists every
problem, :func:`check_parameters` raises them as one :class:`~hydrofmu.runtime.errors.ConfigError`.
Nothing here allocates more than the values themselves: a value such as
``wave.n_components = 1e9`` is refused from an estimate, before any array exists.

This module is run time (bundled in the FMU): standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from .work_limits import MEMORY_LIMIT, memory_estimate


def _range_problem(spec: Any, value: Any) -> str | None:
    """The entry's own validation (:meth:`ParameterSpec.validate`: type, check, bounds), as
    a message; strings (choices) are checked where the simulator is built."""
    if spec.kind == "String":
        return None
    try:
        spec.validate(value)
    except ConfigError as exc:
        return str(exc)
    return None


def allocation_problems(
    table: Sequence[Any], values: Mapping[str, Any], *, n_bodies: int,
    irf_duration: float = 30.0,
) -> list[str]:
    """Problems of the values that size the simulator's arrays, from estimates only.

    Checked BEFORE the simulator is built (nothing allocated): the upper bound of
    ``wave.n_components`` and the memory of the wave tables, and the memory of the
    radiation kernel and history (``irf_duration / max_internal_step`` samples of n x n).
    Values the simulator refuses anyway (negative, zero, non-finite) are left to its own
    messages.

    Parameters
    ----------
    table, values, n_bodies
        As :func:`parameter_problems`.
    irf_duration
        Length of the radiation IRF, s (``[radiation] irf_duration``).
    """
    specs = {s.name: s for s in table}
    problems = []
    n_dof = 6 * n_bodies
    wave_type = str(values.get("wave.type", "none")).strip().lower()
    n = values.get("wave.n_components")
    if wave_type == "irregular" and isinstance(n, int | float) and not isinstance(n, bool):
        hi = specs["wave.n_components"].max
        if hi is not None and n > hi:
            problems.append(f"wave.n_components = {n!r} is above its maximum {hi!r}")
        else:
            need = memory_estimate(int(n), n_dof)
            if need > MEMORY_LIMIT:
                problems.append(
                    f"wave.n_components = {n} needs about {need / 1024**3:.3g} GiB of wave "
                    f"tables (limit {MEMORY_LIMIT / 1024**3:.3g} GiB); a few hundred "
                    "components resolve a spectrum"
                )
    dt = values.get("max_internal_step")
    if isinstance(dt, int | float) and math.isfinite(dt) and dt > 0:
        samples = float(irf_duration) / float(dt) + 1.0
        need = samples * (n_dof * n_dof + n_dof) * 8.0
        if need > MEMORY_LIMIT:
            problems.append(
                f"max_internal_step = {dt!r} s makes the radiation memory ({samples:.3g} "
                f"samples of {irf_duration:g} s) about {need / 1024**3:.3g} GiB (limit "
                f"{MEMORY_LIMIT / 1024**3:.3g} GiB); raise max_internal_step"
            )
    return problems


def check_allocations(
    table: Sequence[Any], values: Mapping[str, Any], *, n_bodies: int,
    irf_duration: float = 30.0,
) -> None:
    """Raise :class:`ConfigError` listing the problems of :func:`allocation_problems`."""
    problems = allocation_problems(table, values, n_bodies=n_bodies, irf_duration=irf_duration)
    if problems:
        raise ConfigError("; ".join(problems), value=problems)


def parameter_problems(
    table: Sequence[Any], values: Mapping[str, Any], *, n_bodies: int
) -> list[str]:
    """Every problem of ``values`` against ``table``, as one-line messages.

    Parameters
    ----------
    table
        The :class:`~hydrofmu.runtime.parameters.table.ParameterSpec` list of the model.
    values
        Parameter name -> value (all of the table's names).
    n_bodies
        Number of bodies (6 DOFs each), for the memory estimate.

    Returns
    -------
    list of str
        Empty when the values are usable.
    """
    problems = [p for p in (_range_problem(s, values[s.name]) for s in table) if p]
    if problems:
        return problems  # the cross-conditions need in-range values
    # The cross-conditions between parameters are the table's own
    # (:data:`~hydrofmu.runtime.parameters.table.CROSS_CHECKS`), run where the simulator is built.
    problems += allocation_problems(table, values, n_bodies=n_bodies)
    return problems


def check_parameters(
    table: Sequence[Any], values: Mapping[str, Any], *, n_bodies: int
) -> None:
    """Raise :class:`ConfigError` listing every problem found by :func:`parameter_problems`."""
    problems = parameter_problems(table, values, n_bodies=n_bodies)
    if problems:
        raise ConfigError("; ".join(problems), value=problems)
