"""The ``[simulation]`` times that ``run`` and ``build`` use, checked before any work.

``hydrofmu check``, ``build`` and ``run`` (and
:func:`hydrofmu.config.configuration.load_config`) refuse a stop time that is not after the
start time, an output interval that is not positive or longer than the run, and an output
interval that needs more internal steps per call than ``max_internal_steps_per_call``
allows; each message names the TOML key (or the command-line option that set the value)
and says what to change. Build time only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..runtime.errors import ConfigError
from ..runtime.parameters.work_limits import internal_steps

#: The keys checked here, in the order of the messages.
TIME_KEYS = ("start_time", "stop_time", "output_interval")


def _label(key: str, names: Mapping[str, str]) -> str:
    return names.get(key, f"[simulation] {key}")


def simulation_problems(sim: Mapping[str, Any],
                        names: Mapping[str, str] | None = None) -> list[str]:
    """What is wrong with the ``[simulation]`` times, one sentence each (empty: nothing).

    Parameters
    ----------
    sim
        The merged ``[simulation]`` table: ``start_time``, ``stop_time``,
        ``output_interval`` (s), ``max_internal_step`` (s),
        ``max_internal_steps_per_call``.
    names
        How to name a key whose value came from elsewhere, e.g.
        ``{"stop_time": "--stop-time"}``; default ``[simulation] <key>``.
    """
    names = names or {}
    values = {key: float(sim[key]) for key in TIME_KEYS}
    bad = [key for key, v in values.items() if not math.isfinite(v)]
    if bad:
        return [f"{_label(k, names)} = {values[k]!r} must be a finite number of s" for k in bad]
    start, stop, h = values["start_time"], values["stop_time"], values["output_interval"]
    problems = []
    if stop <= start:
        problems.append(
            f"{_label('stop_time', names)} = {stop!r} s must be later than "
            f"{_label('start_time', names)} = {start!r} s (the run would simulate nothing)")
    if h <= 0.0:
        problems.append(
            f"{_label('output_interval', names)} = {h!r} s must be > 0 (it is the "
            "communication step of the FMU, e.g. 0.1)")
    elif stop > start and h > stop - start:
        problems.append(
            f"{_label('output_interval', names)} = {h!r} s is longer than the run "
            f"({_label('stop_time', names)} - start_time = {stop - start!r} s): there would "
            "be no output point after the start; choose a smaller output_interval")
    dt, limit = sim.get("max_internal_step"), sim.get("max_internal_steps_per_call")
    if h > 0.0 and isinstance(dt, int | float) and dt > 0 and isinstance(limit, int):
        n = internal_steps(h, float(dt))
        if n > limit:
            problems.append(
                f"{_label('output_interval', names)} = {h!r} s needs {n:.0f} internal steps "
                f"of max_internal_step = {dt!r} s per communication step, more than "
                f"[simulation] max_internal_steps_per_call = {limit}; choose a smaller "
                "output_interval or raise the limit")
    return problems


def check_simulation(sim: Mapping[str, Any], names: Mapping[str, str] | None = None) -> None:
    """Raise :class:`ConfigError` with every problem of :func:`simulation_problems`."""
    problems = simulation_problems(sim, names)
    if problems:
        raise ConfigError("; ".join(problems), value={k: sim[k] for k in TIME_KEYS})
