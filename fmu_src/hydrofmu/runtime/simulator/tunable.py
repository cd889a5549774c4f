"""Tunable parameters: a change between steps, validated by the parameter table and taken
by the parts that use it (:meth:`hydrofmu.runtime.parts.part.Part.set_parameter`).

A parameter is tunable when its :class:`~hydrofmu.runtime.parameters.table.ParameterSpec` says
``tunable=True`` (the FMU declares it ``variability="tunable"``); every other one is
``fixed`` and refused after initialization.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError, did_you_mean
from ..parameters.checks import check_parameters
from ..parameters.table import ParameterSpec
from .layout import parameter_table


class Tunable:
    """Mixin of :class:`~hydrofmu.runtime.simulator.simulator.Simulator`: :meth:`set_parameter`.

    Uses the simulator's ``bodies``, ``config``, ``extra_parts``, ``parameters`` (the
    validated values, updated here) and ``parts``.
    """

    bodies: list[Any]
    config: dict[str, Any]
    extra_parts: list[Any]
    parameters: dict[str, Any]
    parts: list[Any]
    scheme: Any
    _dirty: bool

    def parameter_specs(self) -> dict[str, ParameterSpec]:
        """The model's parameter table by name (built once)."""
        cache = getattr(self, "_parameter_specs", None)
        if cache is None:
            table = parameter_table(self.bodies, self.config, self.extra_parts)
            cache = self._parameter_specs = {p.name: p for p in table}
        return cache

    def set_parameter(self, name: str, value: Any) -> Any:
        """Change a ``tunable`` parameter between steps; it acts from the next step on.

        The value goes through the parameter table (its entry's check and bounds, then the
        cross-conditions with every other current value); the parts that use it take it.
        States, memories and time are kept.

        Parameters
        ----------
        name
            FMU parameter name, e.g. ``"pto.float.damping"``.
        value
            New value, in the parameter's unit.

        Returns
        -------
        The validated value.

        Raises
        ------
        ConfigError
            An unknown or ``fixed`` parameter, or a value the table refuses; nothing is
            changed.
        """
        specs = self.parameter_specs()
        spec = specs.get(name)
        if spec is None:
            hint = did_you_mean(name, list(specs))
            raise ConfigError(f"unknown parameter {name!r}{hint}", value=name)
        if not spec.tunable:
            tunable = ", ".join(n for n, p in specs.items() if p.tunable)
            raise ConfigError(f"parameter {name!r} is fixed: it cannot be changed after "
                              f"initialization (tunable: {tunable})", value=name)
        values = check_parameters(list(specs.values()), self.config,
                                  {**self.parameters, name: value})
        v = values[name]
        taken = [part.set_parameter(name, v) for part in self.parts]
        if not any(taken):  # pragma: no cover - a table entry without its part is a bug
            raise ConfigError(f"no part of the model takes the tunable parameter {name!r}",
                              value=name)
        self.parameters = values
        self._retuned()  # the linear model, its output map, the scheme's binding
        return v

    def _retuned(self) -> None:
        """Assemble again what depends on the parameters (the simulator's job)."""
        raise NotImplementedError
