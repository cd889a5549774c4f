"""The checks of a set of parameter values: types, ranges, choices and cross-conditions.

One definition answers both ``fmi2ExitInitializationMode`` (inside the FMU) and
``hydrofmu build`` (the configuration's defaults): :func:`parameter_problems` lists every
problem, :func:`check_parameters` raises them as one :class:`~hydrofmu.errors.ConfigError`.
Nothing here allocates more than the values themselves: a value such as
``wave.n_components = 1e9`` is refused from an estimate, before any array exists.

This module is run time (bundled in the FMU): standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import ConfigError
from .work_limits import MEMORY_LIMIT, memory_estimate

#: Internal steps per wave period below which a wave cannot be represented (Nyquist).
MIN_STEPS_PER_PERIOD = 2


def _range_problem(spec: Any, value: Any) -> str | None:
    name = spec.name
    if spec.kind == "String":
        if spec.choices and str(value).strip().lower() not in spec.choices:
            return f"{name} = {value!r} is not one of: {', '.join(spec.choices)}"
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{name} = {value!r} is not a number"
    if spec.kind == "Integer" and float(value) != int(value):
        return f"{name} = {value!r} is not an integer"
    if not math.isfinite(float(value)):
        return f"{name} = {value!r} must be finite"
    lo, hi = spec.min, spec.max
    if lo is not None and value < lo:
        return f"{name} = {value!r} is below its minimum {lo!r}"
    if hi is not None and value > hi:
        return f"{name} = {value!r} is above its maximum {hi!r}"
    return None


def parameter_problems(
    table: Sequence[Any], values: Mapping[str, Any], *, n_bodies: int
) -> list[str]:
    """Every problem of ``values`` against ``table``, as one-line messages.

    Parameters
    ----------
    table
        The :class:`~hydrofmu.parameters.ParameterSpec` list of the model.
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
    wave_type = str(values.get("wave.type", "none")).strip().lower()
    dt = float(values["max_internal_step"])
    if wave_type in ("regular", "irregular"):
        period = float(values["wave.period"])
        if period < MIN_STEPS_PER_PERIOD * dt:
            problems.append(
                f"wave.period = {period!r} s is shorter than {MIN_STEPS_PER_PERIOD} internal "
                f"steps (max_internal_step = {dt!r} s): the wave cannot be resolved; lower "
                "max_internal_step or raise the period"
            )
    if wave_type == "irregular":
        n = int(values["wave.n_components"])
        need = memory_estimate(n, 6 * n_bodies)
        if need > MEMORY_LIMIT:
            problems.append(
                f"wave.n_components = {n} needs about {need / 1024**3:.3g} GiB of wave tables "
                f"(limit {MEMORY_LIMIT / 1024**3:.3g} GiB); a few hundred components "
                "resolve a spectrum"
            )
    return problems


def check_parameters(
    table: Sequence[Any], values: Mapping[str, Any], *, n_bodies: int
) -> None:
    """Raise :class:`ConfigError` listing every problem found by :func:`parameter_problems`."""
    problems = parameter_problems(table, values, n_bodies=n_bodies)
    if problems:
        raise ConfigError("; ".join(problems), value=problems)
