"""Getters and setters of the FMI face, tunable parameters included (a mixin of the slave).

This module is run time (bundled in the FMU): standard library, numpy and pythonfmu only.

Per call, the common case (every reference valid, the call allowed in the current state)
costs one state check and one list comprehension or loop over the references; anything
else falls back to a slow path that refuses each bad reference (:meth:`FmiLog._refuse`,
fmi2Error through the shim) and answers NaN, 0 or "" for it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import HydroFMUError
from . import state_machine as fsm
from .variables import PARAMETER

_GET = fsm.ALLOWED["get"]
_SET_INPUT = fsm.ALLOWED["set_input"]


class FmiAccess:
    """``get_*`` / ``set_*`` of :class:`~hydrofmu.runtime.fmi.slave.HydroSlave`."""

    _reals: list[float]
    _ints: list[int]
    _strs: list[str]
    _phase: str

    def _set_tunable(self, vr: int, name: str, value: float) -> None:
        """Set the tunable Real parameter ``name``: stored before initialization ends;
        while stepping validated by the parameter table and handed to the simulator, which
        uses it from the next step on (a refused value is refused and the old one kept)."""
        if self._refused("set_tunable", "Real"):
            return
        if self._phase != fsm.STEP_COMPLETE or self._sim is None:
            self._reals[vr] = float(value)
            return
        try:
            v = self._sim.set_parameter(name, float(value))
        except (HydroFMUError, TypeError, ValueError) as exc:
            self._refuse(f"{name} = {value!r} refused, it keeps its value "
                         f"{self._reals[vr]!r}: {exc}")
            return
        self._reals[vr] = float(v)
        self._sim_parameters = {**self._sim_parameters, name: float(v)}
        self._inputs_dirty = True  # outputs such as a PTO's force change at once

    def _refresh_outputs(self) -> None:
        """Outputs after inputs changed without a step (direct feedthrough)."""
        self._inputs_dirty = False
        u = self._reals[self._in_lo : self._in_hi]
        if not all(map(math.isfinite, u)):
            return  # the next do_step reports it; keep the last good outputs
        try:
            self._sim.set_input_vector(np.array(u))
            y = self._sim.output_vector()
        except HydroFMUError as exc:
            self._refuse(f"outputs not updated after the input change: {exc}")
            return
        except Exception as exc:
            self._internal("get_real", exc)
            return
        self._reals[self._out_lo : self._out_hi] = y.tolist()

    # ------------------------------------------------------------------ Real
    def get_real(self, vrs: list[int]) -> list[float]:
        """Values of Real variables; unknown references give NaN and a refusal."""
        if self._phase not in _GET:
            self._refused("get", "Real")
        if self._inputs_dirty and self._sim is not None:
            self._refresh_outputs()
        reals = self._reals
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
                    self._refuse(f"no Real variable has value reference {vr}")
                    out.append(math.nan)
            return out

    def set_real(self, vrs: list[int], values: list[float]) -> None:
        """Set inputs, and Real parameters before initialization ends."""
        reals = self._reals
        lo, hi = self._in_lo, self._in_hi
        try:
            if self._phase in _SET_INPUT and vrs and lo <= min(vrs) and max(vrs) < hi:
                for vr, value in zip(vrs, values, strict=True):  # inputs only: the step's case
                    reals[vr] = value
                self._inputs_dirty = True
                return
            self._set_real_slow(vrs, values)
        except Exception as exc:  # never let an exception reach the wrapper (fmi2Fatal)
            self._internal("set_real", exc)

    def _set_real_slow(self, vrs: list[int], values: list[float]) -> None:
        reals, kinds = self._reals, self._real_kind
        lo, hi = self._in_lo, self._in_hi
        inputs_refused = fsm.refusal("set_input", self._phase)
        for vr, value in zip(vrs, values, strict=True):
            if lo <= vr < hi:
                if inputs_refused:
                    self._refuse(inputs_refused)
                    continue
                reals[vr] = value
                self._inputs_dirty = True
            elif 0 <= vr < self._n_real and kinds[vr] == PARAMETER:
                name = self._real_names[vr]
                if name in self._tunable:
                    self._set_tunable(vr, name, value)
                elif self._refused_fixed(name, "Real"):
                    continue
                else:
                    reals[vr] = float(value)
            elif 0 <= vr < self._n_real:
                self._refuse(f"'{self._real_names[vr]}' is an output and cannot be set")
            else:
                self._refuse(f"no Real variable has value reference {vr}")

    # ------------------------------------------------------------------ Integer, String
    def get_integer(self, vrs: list[int]) -> list[int]:
        """Values of Integer parameters; unknown references give 0 and a refusal."""
        return self._get_list(vrs, self._ints, self._int_lo, "Integer", 0)

    def set_integer(self, vrs: list[int], values: list[int]) -> None:
        """Set Integer parameters before initialization ends."""
        self._set_list(vrs, values, self._ints, self._int_lo, self._int_names, "Integer", int)

    def get_string(self, vrs: list[int]) -> list[str]:
        """Values of String parameters; unknown references give "" and a refusal."""
        return self._get_list(vrs, self._strs, self._str_lo, "String", "")

    def set_string(self, vrs: list[int], values: list[str]) -> None:
        """Set String parameters before initialization ends."""
        self._set_list(vrs, values, self._strs, self._str_lo, self._str_names, "String", str)

    def _get_list(self, vrs: list[int], values: list[Any], base: int, type_name: str,
                  missing: Any) -> list[Any]:
        self._refused("get", type_name)
        out = []
        for vr in vrs:
            k = vr - base
            if 0 <= k < len(values):
                out.append(values[k])
            else:
                self._refuse(f"no {type_name} variable has value reference {vr}")
                out.append(missing)
        return out

    def _set_list(self, vrs: list[int], values: list[Any], store: list[Any], base: int,
                  names: list[str], type_name: str, convert: Any) -> None:
        try:
            for vr, value in zip(vrs, values, strict=False):
                k = vr - base
                if not 0 <= k < len(store):
                    self._refuse(f"no {type_name} variable has value reference {vr}")
                elif self._refused_fixed(names[k], type_name):
                    continue
                else:
                    store[k] = convert(value)
        except Exception as exc:  # never let an exception reach the wrapper (fmi2Fatal)
            self._internal(f"set_{type_name.lower()}", exc)

    # ------------------------------------------------------------------ Boolean
    def get_boolean(self, vrs: list[int]) -> list[bool]:
        """There are no Boolean variables: every reference is refused."""
        for vr in vrs:
            self._refuse(f"no Boolean variable has value reference {vr}")
        return [False for _ in vrs]

    def set_boolean(self, vrs: list[int], values: list[bool]) -> None:
        """There are no Boolean variables: every reference is refused."""
        for vr in vrs:
            self._refuse(f"no Boolean variable has value reference {vr}")
