"""The variable table of the FMI face: value references, values and metadata (run time).

This module is run time (bundled in the FMU): standard library and pythonfmu only.

The Real variables come first (parameters, inputs, outputs, in the order of
:func:`~hydrofmu.runtime.simulator.layout.parameter_table`, ``Simulator.input_names`` and
``Simulator.output_names``), then the Integer parameters, then the String parameters.
Their values live in flat Python lists indexed by value reference rather than one
attribute per scalar (:mod:`hydrofmu.runtime.fmi.access` reads and writes them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pythonfmu import Fmi2Causality, Fmi2Initial, Fmi2Variability, Integer, Real, String
from pythonfmu.variables import ScalarVariable

from ..errors import HydroFMUError
from ..parameters.choices import TWIN_SUFFIX, resolve_choices
from ..parameters.table import ParameterSpec
from .names import describe, with_choices

__all__ = ["DIMENSIONLESS", "INPUT", "OUTPUT", "PARAMETER", "VariableTable"]

#: Unit written for dimensionless Real variables.
DIMENSIONLESS = "1"

#: Kinds of Real variables (:attr:`VariableTable.real_kind`).
PARAMETER, INPUT, OUTPUT = 0, 1, 2


class VariableTable:
    """Every FMI variable of one instance: its value reference, value and metadata.

    Value references: ``0 .. n_real-1`` the Real variables (parameters, then inputs
    ``input_lo .. input_hi-1``, then outputs ``output_lo .. output_hi-1``); from
    ``int_base`` the Integer parameters; from ``str_base`` the String parameters.

    Parameters
    ----------
    parameters
        The model's parameters (:func:`~hydrofmu.runtime.simulator.layout.parameter_table`).
    input_names, output_names
        Scalar input and output names, in value-reference order.
    input_units, output_units
        Their SI units (one per name).
    dependencies
        Output name -> the input names it depends on directly.

    Attributes
    ----------
    reals, ints, strs
        The current values, indexed by ``vr``, ``vr - int_base`` and ``vr - str_base``.
        A restored FMU state replaces the lists (:meth:`restore_values`).
    real_kind
        :data:`PARAMETER`, :data:`INPUT` or :data:`OUTPUT` per Real value reference.
    real_names, int_names, str_names
        Variable names, in the order of the value lists.
    tunable
        Names of the tunable Real parameters (settable between steps).
    input_lo, input_hi, output_lo, output_hi
        Bounds of the inputs and outputs among the Real value references.
    n_real, int_base, str_base
        Number of Real variables; first Integer and first String value reference.
    units
        Real variable name -> unit (:data:`DIMENSIONLESS` when none).

    Raises
    ------
    HydroFMUError
        When two variables share a name, a unit list's length differs from its names',
        a parameter has another kind than Real, Integer or String, or the dependencies
        name unknown variables.
    """

    def __init__(self, *, parameters: Sequence[ParameterSpec], input_names: Sequence[str],
                 output_names: Sequence[str], input_units: Sequence[str],
                 output_units: Sequence[str], dependencies: dict[str, Any]) -> None:
        self.parameters = list(parameters)
        self.input_names = list(input_names)
        self.output_names = list(output_names)
        self.dependencies = dict(dependencies)
        _check_interface(self.parameters, self.input_names, self.output_names,
                         list(input_units), list(output_units), self.dependencies)
        real_params = [p for p in self.parameters if p.kind == "Real"]
        int_params = [p for p in self.parameters if p.kind == "Integer"]
        str_params = [p for p in self.parameters if p.kind == "String"]

        self.tunable: set[str] = {p.name for p in real_params if p.tunable}
        self.real_names: list[str] = [p.name for p in real_params]
        self.reals: list[float] = [float(p.start) for p in real_params]
        self.input_lo = len(self.reals)
        self.real_names += self.input_names
        self.input_hi = self.output_lo = len(self.real_names)
        self.real_names += self.output_names
        self.output_hi = self.n_real = len(self.real_names)
        self.reals += [0.0] * (self.n_real - self.input_lo)
        self.real_kind: list[int] = [PARAMETER] * self.input_lo
        self.real_kind += [INPUT] * (self.input_hi - self.input_lo)
        self.real_kind += [OUTPUT] * (self.output_hi - self.output_lo)

        self.int_base = self.n_real
        self.ints: list[int] = [int(p.start) for p in int_params]
        self.int_names: list[str] = [p.name for p in int_params]
        self.str_base = self.int_base + len(self.ints)
        self.strs: list[str] = [str(p.start) for p in str_params]
        self.str_names: list[str] = [p.name for p in str_params]

        self.units: dict[str, str] = {p.name: (p.unit or DIMENSIONLESS) for p in real_params}
        self.units.update(zip(self.input_names, input_units, strict=True))
        self.units.update(zip(self.output_names, output_units, strict=True))
        self._descriptions = (
            [p.description for p in real_params]
            + [describe(n) for n in (*self.input_names, *self.output_names)]
            + [p.description for p in int_params]
            + [with_choices(p.description, p.choices) for p in str_params]
        )

    def register(self, register_variable: Callable[..., None]) -> None:
        """Declare every variable to pythonfmu, in value-reference order.

        Parameters
        ----------
        register_variable
            The slave's ``Fmi2Slave.register_variable`` (called with ``nested=False``);
            no variable may have been registered before.

        The getters read this table's lists (not the slave): the pythonfmu variables hold
        no reference back to the slave, so a freed instance is freed at once rather than
        at the next cyclic garbage collection.
        """
        for vr, name in enumerate(self.real_names):
            kind = self.real_kind[vr]
            if kind == PARAMETER:
                extra = dict(
                    causality=Fmi2Causality.parameter,
                    variability=(Fmi2Variability.tunable if name in self.tunable
                                 else Fmi2Variability.fixed),
                    initial=Fmi2Initial.exact,
                )
            elif kind == INPUT:
                extra = dict(causality=Fmi2Causality.input,
                             variability=Fmi2Variability.continuous)
            else:
                extra = dict(causality=Fmi2Causality.output,
                             variability=Fmi2Variability.continuous)
            self._declare(register_variable, vr, Real(
                name, description=self._descriptions[vr],
                getter=lambda vr=vr: self.reals[vr], **extra))
        for k, name in enumerate(self.int_names):
            vr = self.int_base + k
            self._declare(register_variable, vr, Integer(
                name, description=self._descriptions[vr],
                getter=lambda k=k: self.ints[k], **_FIXED))
        for k, name in enumerate(self.str_names):
            vr = self.str_base + k
            self._declare(register_variable, vr, String(
                name, description=self._descriptions[vr],
                getter=lambda k=k: self.strs[k], **_FIXED))

    @staticmethod
    def _declare(register_variable: Callable[..., None], vr: int,
                 variable: ScalarVariable) -> None:
        register_variable(variable, nested=False)
        if variable.value_reference != vr:
            raise HydroFMUError(
                f"variable '{variable.name}' got value reference {variable.value_reference}, "
                f"expected {vr}: the table's variables must be registered first, in order",
                value=variable.value_reference,
            )

    def adopt_choices(self) -> None:
        """Show the choices the model runs with (after the parameters were accepted): each
        String choice parameter and its enumeration twin take the values
        :func:`~hydrofmu.runtime.parameters.choices.resolve_choices` gives them (a twin
        set away from its start value sets the String)."""
        values = self.parameter_values()
        resolve_choices(self.parameters, values)
        for i, name in enumerate(self.str_names):
            twin = f"{name}{TWIN_SUFFIX}"
            if twin in self.int_names and isinstance(values.get(name), str):
                self.strs[i] = values[name]
                self.ints[self.int_names.index(twin)] = int(values[twin])

    def restore_values(self, reals: list[float], ints: list[int], strs: list[str]) -> None:
        """Replace the value lists (a restored FMU state; lengths already checked)."""
        self.reals, self.ints, self.strs = reals, ints, strs

    def interface_metadata(self) -> dict[str, Any]:
        """What the model description needs beyond pythonfmu's output.

        Returns
        -------
        dict
            ``"units"``: Real variable name -> unit (``"1"`` when dimensionless);
            ``"dependencies"``: output name -> input names it depends on directly (or
            a mapping input name -> ``dependenciesKind``);
            ``"inputs"``, ``"outputs"``, ``"parameters"``: the names, in order;
            ``"ranges"``: parameter name -> (min, max) where either is given;
            ``"enumerations"``: Integer parameter name -> its items (the choice
            parameters' enumeration twins, :mod:`hydrofmu.runtime.parameters.choices`).
        """
        return {
            "units": dict(self.units),
            "dependencies": {k: dict(v) if isinstance(v, dict) else list(v)
                             for k, v in self.dependencies.items()},
            "inputs": list(self.input_names),
            "outputs": list(self.output_names),
            "parameters": [p.name for p in self.parameters],
            "ranges": {p.name: (p.min, p.max) for p in self.parameters
                       if p.min is not None or p.max is not None},
            "enumerations": {p.name: list(p.choices) for p in self.parameters
                             if p.kind == "Integer" and p.choices},
        }

    def parameter_values(self) -> dict[str, Any]:
        """Current parameter values by name (Real as float, Integer as int, String as str)."""
        return self.parameters_from(self.reals, self.ints, self.strs)

    def parameters_from(
        self, reals: Sequence[float], ints: Sequence[int], strs: Sequence[str]
    ) -> dict[str, Any]:
        """Parameter values by name from value lists laid out as :attr:`reals`,
        :attr:`ints` and :attr:`strs` (a saved FMU state's)."""
        values: dict[str, Any] = dict(zip(self.real_names[: self.input_lo], reals,
                                          strict=False))
        values.update(zip(self.int_names, ints, strict=True))
        values.update(zip(self.str_names, strs, strict=True))
        return values


#: FMI attributes of the Integer and String parameters.
_FIXED = dict(causality=Fmi2Causality.parameter, variability=Fmi2Variability.fixed,
              initial=Fmi2Initial.exact)


def _check_interface(parameters: list[ParameterSpec], input_names: list[str],
                     output_names: list[str], input_units: list[str],
                     output_units: list[str], dependencies: dict[str, Any]) -> None:
    """Raise :class:`HydroFMUError` when the simulator's interface is inconsistent."""
    names = [p.name for p in parameters] + input_names + output_names
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise HydroFMUError(f"duplicated FMU variable names: {duplicated}", value=duplicated)
    if len(input_units) != len(input_names):
        raise HydroFMUError("Simulator.input_units and input_names differ in length")
    if len(output_units) != len(output_names):
        raise HydroFMUError("Simulator.output_units and output_names differ in length")
    for p in parameters:
        if p.kind not in ("Real", "Integer", "String"):
            raise HydroFMUError(
                f"parameter '{p.name}' has kind {p.kind!r}; expected Real, Integer or String",
                value=p.kind,
            )
    unknown = {
        out: [i for i in ins if i not in input_names]
        for out, ins in dependencies.items()
    }
    unknown = {k: v for k, v in unknown.items() if v or k not in output_names}
    if unknown:
        raise HydroFMUError(
            f"Simulator.output_dependencies names unknown variables: {unknown}",
            value=unknown,
        )
