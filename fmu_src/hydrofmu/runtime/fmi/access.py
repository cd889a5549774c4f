"""Getters and setters of the FMI face, tunable parameters included (run time).

This module is run time (bundled in the FMU): standard library, numpy and pythonfmu only.

Per call, the common case (every reference valid, the call allowed in the current state)
costs one state check and one list comprehension or loop over the references; anything
else falls back to a slow path that refuses each bad reference (:meth:`.FmiLog.refuse`,
fmi2Error through the shim) and answers NaN, 0 or "" for it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import HydroFMUError
from . import state_machine as fsm
from .log import FmiLog
from .run_state import RunState
from .variables import PARAMETER, VariableTable

__all__ = ["FmiAccess"]

_GET = fsm.ALLOWED["get"]
_SET_INPUT = fsm.ALLOWED["set_input"]


class FmiAccess:
    """``fmi2Get*`` / ``fmi2Set*`` of one instance.

    Parameters
    ----------
    variables
        The instance's variable table: the values read and written.
    run
        The instance's life-cycle state: the phase checked, the simulator that computes
        the outputs after an input changed and takes the tunable parameters.
    log
        Where refusals are logged.

    Attributes
    ----------
    variables, run, log
        As given.
    """

    def __init__(self, *, variables: VariableTable, run: RunState, log: FmiLog) -> None:
        self.variables = variables
        self.run = run
        self.log = log

    # ------------------------------------------------------------------ Real
    def get_real(self, vrs: list[int]) -> list[float]:
        """Values of Real variables; unknown references give NaN and a refusal."""
        run = self.run
        if run.phase not in _GET:
            self.log.refused("get", run.phase, "Real")
        if run.inputs_dirty and run.sim is not None:
            self.refresh_outputs()
        reals = self.variables.reals
        try:
            if vrs and min(vrs) < 0:
                raise IndexError
            return [reals[vr] for vr in vrs]
        except (IndexError, TypeError):
            out = []
            for vr in vrs:
                if isinstance(vr, int) and 0 <= vr < len(reals):
                    out.append(reals[vr])
                else:
                    self.log.refuse(f"no Real variable has value reference {vr}")
                    out.append(math.nan)
            return out

    def set_real(self, vrs: list[int], values: list[float]) -> None:
        """Set inputs, and Real parameters before initialization ends."""
        table = self.variables
        lo, hi = table.input_lo, table.input_hi
        try:
            if self.run.phase in _SET_INPUT and vrs and lo <= min(vrs) and max(vrs) < hi:
                reals = table.reals
                for vr, value in zip(vrs, values, strict=True):  # inputs only: the step's case
                    reals[vr] = value
                self.run.inputs_dirty = True
                return
            self._set_real_slow(vrs, values)
        except Exception as exc:  # never let an exception reach the wrapper (fmi2Fatal)
            self.log.internal("set_real", exc)

    def _set_real_slow(self, vrs: list[int], values: list[float]) -> None:
        table, run = self.variables, self.run
        reals, kinds = table.reals, table.real_kind
        lo, hi = table.input_lo, table.input_hi
        inputs_refused = fsm.refusal("set_input", run.phase)
        for vr, value in zip(vrs, values, strict=True):
            if lo <= vr < hi:
                if inputs_refused:
                    self.log.refuse(inputs_refused)
                    continue
                reals[vr] = value
                run.inputs_dirty = True
            elif 0 <= vr < table.n_real and kinds[vr] == PARAMETER:
                name = table.real_names[vr]
                if name in table.tunable:
                    self.set_tunable(vr, name, value)
                elif self.log.refused_fixed(name, "Real", run.phase):
                    continue
                else:
                    reals[vr] = float(value)
            elif 0 <= vr < table.n_real:
                self.log.refuse(f"'{table.real_names[vr]}' is an output and cannot be set")
            else:
                self.log.refuse(f"no Real variable has value reference {vr}")

    def set_tunable(self, vr: int, name: str, value: float) -> None:
        """Set the tunable Real parameter ``name`` (value reference ``vr``).

        Stored before initialization ends; while stepping validated by the parameter
        table and handed to the simulator, which uses it from the next step on (a refused
        value is refused and the old one kept).
        """
        run, reals = self.run, self.variables.reals
        if self.log.refused("set_tunable", run.phase, "Real"):
            return
        if run.phase != fsm.STEP_COMPLETE or run.sim is None:
            reals[vr] = float(value)
            return
        try:
            v = run.sim.set_parameter(name, float(value))
        except (HydroFMUError, TypeError, ValueError) as exc:
            self.log.refuse(f"{name} = {value!r} refused, it keeps its value "
                            f"{reals[vr]!r}: {exc}")
            return
        reals[vr] = float(v)
        run.sim_parameters = {**run.sim_parameters, name: float(v)}
        run.inputs_dirty = True  # outputs such as a PTO's force change at once

    def refresh_outputs(self) -> None:
        """Outputs after inputs changed without a step (direct feedthrough)."""
        table, run = self.variables, self.run
        run.inputs_dirty = False
        u = table.reals[table.input_lo : table.input_hi]
        if not all(map(math.isfinite, u)):
            return  # the next do_step reports it; keep the last good outputs
        try:
            run.sim.set_input_vector(np.array(u))
            y = run.sim.output_vector()
        except HydroFMUError as exc:
            self.log.refuse(f"outputs not updated after the input change: {exc}")
            return
        except Exception as exc:
            self.log.internal("get_real", exc)
            return
        table.reals[table.output_lo : table.output_hi] = y.tolist()

    # ------------------------------------------------------------------ Integer, String
    def get_integer(self, vrs: list[int]) -> list[int]:
        """Values of Integer parameters; unknown references give 0 and a refusal."""
        table = self.variables
        return self._get_list(vrs, table.ints, table.int_base, "Integer", 0)

    def set_integer(self, vrs: list[int], values: list[int]) -> None:
        """Set Integer parameters before initialization ends."""
        table = self.variables
        self._set_list(vrs, values, table.ints, table.int_base, table.int_names, "Integer",
                       int)

    def get_string(self, vrs: list[int]) -> list[str]:
        """Values of String parameters; unknown references give "" and a refusal."""
        table = self.variables
        return self._get_list(vrs, table.strs, table.str_base, "String", "")

    def set_string(self, vrs: list[int], values: list[str]) -> None:
        """Set String parameters before initialization ends."""
        table = self.variables
        self._set_list(vrs, values, table.strs, table.str_base, table.str_names, "String",
                       str)

    def _get_list(self, vrs: list[int], values: list[Any], base: int, type_name: str,
                  missing: Any) -> list[Any]:
        self.log.refused("get", self.run.phase, type_name)
        out = []
        for vr in vrs:
            k = vr - base
            if 0 <= k < len(values):
                out.append(values[k])
            else:
                self.log.refuse(f"no {type_name} variable has value reference {vr}")
                out.append(missing)
        return out

    def _set_list(self, vrs: list[int], values: list[Any], store: list[Any], base: int,
                  names: list[str], type_name: str, convert: Callable[[Any], Any]) -> None:
        try:
            for vr, value in zip(vrs, values, strict=False):
                k = vr - base
                if not 0 <= k < len(store):
                    self.log.refuse(f"no {type_name} variable has value reference {vr}")
                elif self.log.refused_fixed(names[k], type_name, self.run.phase):
                    continue
                else:
                    store[k] = convert(value)
        except Exception as exc:  # never let an exception reach the wrapper (fmi2Fatal)
            self.log.internal(f"set_{type_name.lower()}", exc)

    # ------------------------------------------------------------------ Boolean
    def get_boolean(self, vrs: list[int]) -> list[bool]:
        """There are no Boolean variables: every reference is refused."""
        for vr in vrs:
            self.log.refuse(f"no Boolean variable has value reference {vr}")
        return [False for _ in vrs]

    def set_boolean(self, vrs: list[int], values: list[bool]) -> None:
        """There are no Boolean variables: every reference is refused."""
        for vr in vrs:
            self.log.refuse(f"no Boolean variable has value reference {vr}")
