"""The one check of a set of parameter values: sizes, types, ranges, choices, cross-conditions.

:func:`check_parameters` is the check every caller uses (the simulator's constructor, so
``fmi2ExitInitializationMode`` inside the FMU and :func:`~hydrofmu.config.configuration.resolve`;
:func:`~hydrofmu.export.fmu.build_fmu` on the configuration's defaults before it builds; a
tunable change): first the values that size the simulator's arrays, from estimates only,
so that a value such as ``wave.n_components = 1e9`` is refused before any array exists;
then each entry's own check and the cross-conditions
(:func:`~hydrofmu.runtime.parameters.table.validate_parameters`). :func:`parameter_problems` lists
the
problems of a set of values without raising.

Run-time module (bundled in the FMU): numpy and the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from .table import ParameterSpec, config_value, merged_values, validate_parameters
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
    config: dict[str, Any] | None = None,
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
    config
        The resolved configuration, for the length of the radiation IRF (``[radiation]
        irf_duration``, its default when not given); a length that is not a number > 0
        is left to the radiation part's message.
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
    irf_duration = config_value(config or {}, "radiation", "irf_duration")
    if isinstance(dt, int | float) and math.isfinite(dt) and dt > 0 \
            and isinstance(irf_duration, int | float) and irf_duration > 0:
        samples = float(irf_duration) / float(dt) + 1.0
        need = samples * (n_dof * n_dof + n_dof) * 8.0
        if need > MEMORY_LIMIT:
            problems.append(
                f"max_internal_step = {dt!r} s makes the radiation memory ({samples:.3g} "
                f"samples of {irf_duration:g} s) about {need / 1024**3:.3g} GiB (limit "
                f"{MEMORY_LIMIT / 1024**3:.3g} GiB); raise max_internal_step"
            )
    return problems


def parameter_problems(
    table: Sequence[Any], values: Mapping[str, Any], *, n_bodies: int,
    config: dict[str, Any] | None = None,
) -> list[str]:
    """Every problem of ``values`` against ``table``, as one-line messages (the entries'
    own checks and the sizes; not the cross-conditions).

    Parameters
    ----------
    table
        The :class:`~hydrofmu.runtime.parameters.table.ParameterSpec` list of the model.
    values
        Parameter name -> value (all of the table's names).
    n_bodies
        Number of bodies (6 DOFs each), for the memory estimate.
    config
        As :func:`allocation_problems`.

    Returns
    -------
    list of str
        Empty when the values are usable.
    """
    problems = [p for p in (_range_problem(s, values[s.name]) for s in table) if p]
    if problems:
        return problems  # the cross-conditions need in-range values
    # The cross-conditions between parameters are the table's own
    # (:data:`~hydrofmu.runtime.parameters.table.CROSS_CHECKS`), run by :func:`check_parameters`.
    problems += allocation_problems(table, values, n_bodies=n_bodies, config=config)
    return problems


def check_parameters(
    table: list[ParameterSpec], config: dict[str, Any],
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The validated values of every parameter of ``table``: the one check (module
    docstring). Defaults of ``table``, then ``overrides`` by name.

    Parameters
    ----------
    table
        The model's parameter table (:func:`~hydrofmu.runtime.simulator.layout.parameter_table`).
    config
        The resolved configuration (bodies, the radiation IRF's length, the settings the
        cross-conditions read).
    overrides
        Parameter values by FMU name.

    Returns
    -------
    dict
        Name -> validated value, for every entry of ``table``.

    Raises
    ------
    ConfigError
        An unknown name; values that would size arrays beyond the memory limit (all of
        them, in one message, before anything is allocated); a value its entry refuses;
        a failed cross-condition.
    """
    values = merged_values(table, dict(overrides or {}))
    problems = allocation_problems(table, values, n_bodies=len(config["bodies"]),
                                   config=config)
    if problems:
        raise ConfigError("; ".join(problems), value=problems)
    return validate_parameters(table, config, values)
