"""Tunable parameters: a change between steps, validated by the parameter table and taken
by the parts that use it (:meth:`hydrofmu.runtime.parts.part.Part.set_parameter`):
:class:`ParameterTuner`, owned by the simulator.

A parameter is tunable when its :class:`~hydrofmu.runtime.parameters.table.ParameterSpec` says
``tunable=True`` (the FMU declares it ``variability="tunable"``); every other one is
``fixed`` and refused after initialization.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError, did_you_mean
from ..parameters.checks import check_parameters
from ..parameters.table import ParameterSpec
from ..parts.part import Part


class ParameterTuner:
    """Checks a new value of a tunable parameter and hands it to the parts.

    Parameters
    ----------
    table
        The model's parameter table (:func:`~.layout.parameter_table`).
    config
        The resolved configuration (the cross-conditions read it).
    parts
        The model's built parts.

    Attributes
    ----------
    specs
        The parameter table by name.
    config, parts
        As given.
    """

    def __init__(self, table: Sequence[ParameterSpec], config: dict[str, Any],
                 parts: Sequence[Part]) -> None:
        self.specs: dict[str, ParameterSpec] = {p.name: p for p in table}
        self.config = config
        self.parts = list(parts)

    def tune(self, name: str, value: Any, current: dict[str, Any]
             ) -> tuple[Any, dict[str, Any]]:
        """Check ``value`` for the tunable parameter ``name`` against the table (its entry's
        check and bounds, then the cross-conditions with the ``current`` values) and hand it
        to the parts that use it.

        Parameters
        ----------
        name
            FMU parameter name, e.g. ``"pto.float.damping"``.
        value
            New value, in the parameter's unit.
        current
            Every parameter's current validated value, by name (not changed).

        Returns
        -------
        value, values
            The validated value, and every parameter's value with it.

        Raises
        ------
        ConfigError
            An unknown or ``fixed`` parameter, or a value the table refuses; nothing is
            changed.
        """
        specs = self.specs
        spec = specs.get(name)
        if spec is None:
            hint = did_you_mean(name, list(specs))
            raise ConfigError(f"unknown parameter {name!r}{hint}", value=name)
        if not spec.tunable:
            tunable = ", ".join(n for n, p in specs.items() if p.tunable)
            raise ConfigError(f"parameter {name!r} is fixed: it cannot be changed after "
                              f"initialization (tunable: {tunable})", value=name)
        values = check_parameters(list(specs.values()), self.config, {**current, name: value})
        v = values[name]
        taken = [part.set_parameter(name, v) for part in self.parts]
        if not any(taken):  # pragma: no cover - a table entry without its part is a bug
            raise ConfigError(f"no part of the model takes the tunable parameter {name!r}",
                              value=name)
        return v, values
