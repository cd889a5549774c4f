"""Value references and variables of the FMI face (a mixin of the slave).

This module is run time (bundled in the FMU): standard library and pythonfmu only.

The Real variables come first (parameters, inputs, outputs, in the order of
:func:`~hydrofmu.runtime.simulator.layout.parameter_table`, ``Simulator.input_names`` and
``Simulator.output_names``), then the Integer parameters, then the String parameters.
Their values live in flat Python lists indexed by value reference rather than one
attribute per scalar (:mod:`hydrofmu.runtime.fmi.access` reads and writes them).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from pythonfmu import Fmi2Causality, Fmi2Initial, Fmi2Variability, Integer, Real, String

from ..errors import HydroFMUError
from .names import describe, with_choices

#: Unit written for dimensionless Real variables.
DIMENSIONLESS = "1"

# Kinds of Real variables.
PARAMETER, INPUT, OUTPUT = 0, 1, 2


class FmiVariables:
    """Registration of the variables and the model-description metadata of
    :class:`~hydrofmu.runtime.fmi.slave.HydroSlave` (uses the slave's ``_parameters``,
    ``_input_names``, ``_output_names``, units and dependencies set by its constructor)."""

    _parameters: list[Any]
    _input_names: list[str]
    _output_names: list[str]
    _input_units: list[str]
    _output_units: list[str]
    _dependencies: dict[str, Any]

    def _check_interface(self) -> None:
        names = [p.name for p in self._parameters] + self._input_names + self._output_names
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise HydroFMUError(f"duplicated FMU variable names: {duplicated}", value=duplicated)
        if len(self._input_units) != len(self._input_names):
            raise HydroFMUError("Simulator.input_units and input_names differ in length")
        if len(self._output_units) != len(self._output_names):
            raise HydroFMUError("Simulator.output_units and output_names differ in length")
        for p in self._parameters:
            if p.kind not in ("Real", "Integer", "String"):
                raise HydroFMUError(
                    f"parameter '{p.name}' has kind {p.kind!r}; expected Real, Integer or String",
                    value=p.kind,
                )
        unknown = {
            out: [i for i in ins if i not in self._input_names]
            for out, ins in self._dependencies.items()
        }
        unknown = {k: v for k, v in unknown.items() if v or k not in self._output_names}
        if unknown:
            raise HydroFMUError(
                f"Simulator.output_dependencies names unknown variables: {unknown}",
                value=unknown,
            )

    def _register_all(self) -> None:
        # Getters (_add_fixed, _add_real) hold the instance weakly: a strong reference would
        # be a cycle that only the cyclic garbage collector frees, so each freed instance's
        # arrays would stay in memory until a full collection (+0.4 MB per instantiate/free
        # cycle).
        real_params = [p for p in self._parameters if p.kind == "Real"]
        int_params = [p for p in self._parameters if p.kind == "Integer"]
        str_params = [p for p in self._parameters if p.kind == "String"]

        self._reals: list[float] = []
        self._real_kind: list[int] = []
        self._real_names: list[str] = []
        self._tunable = {p.name for p in real_params if p.tunable}
        for p in real_params:
            self._add_real(p.name, float(p.start), PARAMETER, p.description)
        self._in_lo = len(self._reals)
        for name in self._input_names:
            self._add_real(name, 0.0, INPUT, describe(name))
        self._in_hi = self._out_lo = len(self._reals)
        for name in self._output_names:
            self._add_real(name, 0.0, OUTPUT, describe(name))
        self._out_hi = self._n_real = len(self._reals)

        self._ints: list[int] = []
        self._int_names: list[str] = []
        for p in int_params:
            self._add_fixed(Integer, p.name, "_ints", int(p.start), self._int_names,
                            p.description)
        self._int_lo = self._n_real
        self._str_lo = len(self.vars)
        self._strs: list[str] = []
        self._str_names: list[str] = []
        for p in str_params:
            self._add_fixed(String, p.name, "_strs", str(p.start), self._str_names,
                            with_choices(p.description, p.choices))
        self._units = {p.name: (p.unit or DIMENSIONLESS) for p in real_params}
        self._units.update(zip(self._input_names, self._input_units, strict=True))
        self._units.update(zip(self._output_names, self._output_units, strict=True))

    def _add_fixed(self, cls: type, name: str, store: str, start: Any, names: list[str],
                   description: str) -> None:
        """Register a fixed parameter of type ``cls`` (``Integer``, ``String``) whose value
        is the next entry of the list ``self.<store>`` (read by name: a restored state
        replaces the list)."""
        values = getattr(self, store)
        k = len(values)
        values.append(start)
        names.append(name)
        me = weakref.ref(self)
        self.register_variable(
            cls(
                name,
                causality=Fmi2Causality.parameter,
                variability=Fmi2Variability.fixed,
                initial=Fmi2Initial.exact,
                description=description,
                getter=lambda: getattr(me(), store)[k],
            ),
            nested=False,
        )

    def _add_real(self, name: str, start: float, kind: int, description: str) -> None:
        vr = len(self._reals)
        assert vr == len(self.vars), "Real variables must be registered first"
        self._reals.append(start)
        self._real_kind.append(kind)
        self._real_names.append(name)
        if kind == PARAMETER:
            tunable = name in self._tunable
            extra = dict(
                causality=Fmi2Causality.parameter,
                variability=Fmi2Variability.tunable if tunable else Fmi2Variability.fixed,
                initial=Fmi2Initial.exact,
            )
        elif kind == INPUT:
            extra = dict(causality=Fmi2Causality.input, variability=Fmi2Variability.continuous)
        else:
            extra = dict(causality=Fmi2Causality.output, variability=Fmi2Variability.continuous)
        me = weakref.ref(self)
        self.register_variable(
            Real(name, description=description, getter=lambda: me()._reals[vr], **extra),
            nested=False,
        )

    def interface_metadata(self) -> dict[str, Any]:
        """What the model description needs beyond pythonfmu's output.

        Returns
        -------
        dict
            ``"units"``: Real variable name -> unit (``"1"`` when dimensionless);
            ``"dependencies"``: output name -> input names it depends on directly;
            ``"inputs"``, ``"outputs"``, ``"parameters"``: the names, in order.
        """
        return {
            "units": dict(self._units),
            "dependencies": {k: list(v) for k, v in self._dependencies.items()},
            "inputs": list(self._input_names),
            "outputs": list(self._output_names),
            "parameters": [p.name for p in self._parameters],
            "ranges": {p.name: (p.min, p.max) for p in self._parameters
                       if p.min is not None or p.max is not None},
        }

    def parameter_values(self) -> dict[str, Any]:
        """Current parameter values by name (Real as float, Integer as int, String as str)."""
        return self._parameters_from(self._reals, self._ints, self._strs)

    def _parameters_from(
        self, reals: Sequence[float], ints: Sequence[int], strs: Sequence[str]
    ) -> dict[str, Any]:
        values: dict[str, Any] = dict(zip(self._real_names[: self._in_lo], reals, strict=False))
        values.update(zip(self._int_names, ints, strict=True))
        values.update(zip(self._str_names, strs, strict=True))
        return values
