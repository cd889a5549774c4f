"""The Python FMU's ``fmi2GetDirectionalDerivative`` (run time).

pythonfmu 0.7's binary answers ``fmi2GetDirectionalDerivative`` itself with an error and
never calls Python. hydrofmu's shim in front of it (``export/uri_shim.c``) asks the slave
instead, through two calls the binary does forward:

1. ``fmi2SetReal`` of the seeds on the inputs' value references with :data:`FLAG` set,
   the list closed by :data:`MARK` (value 0.0): :meth:`DirectionalDerivative.set_seeds`;
2. ``fmi2GetReal`` of the outputs' value references with :data:`FLAG` set, closed by
   :data:`MARK`: :meth:`DirectionalDerivative.values` returns their derivatives (and 0.0
   for the mark).

No model has a value reference with :data:`FLAG` set (the shim refuses a host's); a
refusal is logged with the refused category, so the shim returns ``fmi2Error``.

States (FMI 2.0, section 4.2.4): the call is answered in initialization mode, step
complete, terminated and error (after a failed step: the Python FMU's refused steps leave
it in step complete), as by the native FMU. In initialization mode the simulator does not
exist yet (it is built at ``fmi2ExitInitializationMode``): the derivative is that of a
simulator built from the parameters set so far, at the start time and the current inputs,
the one ``fmi2ExitInitializationMode`` would build (kept until a parameter changes); its
parameters refused give ``fmi2Error`` with the reason. After a failed initialization there is
no simulator: refused, naming the failure.

The derivative: at a fixed state (memory) the outputs are affine in the inputs, except the
products of two outputs (a linear PTO's power), which are quadratic. For such a map the
central difference along the seed, ``(y(u + s du) - y(u - s du)) / (2 s)``, IS the
directional derivative, whatever ``s``: no truncation, only the rounding of the outputs
(``eps |y| / (s |du|)``, made small by ``s |du| = max(1, |u|)``). A model whose outputs are
not such a map in the inputs is refused by name (:func:`derivative_refusal`): a load model
with parts not linear in the motion, any model with user parts.

This module is run time (bundled in the FMU): numpy and the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import HydroFMUError
from ..loads.interface import LOAD_KIND
from ..loads.interface import derivative_refusal as load_derivative_refusal
from ..simulator.layout import PartSpec
from . import state_machine as fsm
from .log import FmiLog
from .run_state import RunState
from .variables import VariableTable

__all__ = ["FLAG", "MARK", "DirectionalDerivative", "derivative_refusal", "is_request"]

#: Set on a value reference the shim passes for the derivative (no model has it set).
FLAG = 0x80000000
#: Closes the shim's lists of flagged value references.
MARK = 0xFFFFFFFF


def derivative_refusal(config: dict[str, Any], parts: Sequence[PartSpec] = ()) -> str:
    """Why the FMU of ``config`` (with the user ``parts``) does not provide its directional
    derivative ("" when it does)."""
    if (config.get("export") or {}).get("kind") == LOAD_KIND:
        return load_derivative_refusal(config, parts)
    if parts or config.get("user_parts"):
        return ("the model has user parts, whose outputs' dependence on the inputs is not "
                "known; the derivative is not provided (difference the outputs)")
    return ""


#: pythonfmu hands value references to Python as C ints: the flagged ones arrive negative.
U32 = 0xFFFFFFFF


def is_request(vrs: Sequence[int]) -> bool:
    """Whether ``vrs`` (of a get or set of Reals) is the shim's derivative call."""
    return bool(vrs) and isinstance(vrs[-1], int) and vrs[-1] & U32 == MARK


class DirectionalDerivative:
    """The slave's collaborator that answers the shim's derivative calls.

    Parameters
    ----------
    variables, run, log
        The slave's variable table, run state and log.
    refusal
        Why the model does not provide the derivative ("" when it does):
        :func:`derivative_refusal`.

    Attributes
    ----------
    seeds
        The inputs' seeds of the pending call (index among the inputs -> seed), or None.
    """

    def __init__(self, *, variables: VariableTable, run: RunState, log: FmiLog,
                 refusal: str, build: Callable[[dict[str, Any]], Any] | None = None) -> None:
        self.variables = variables
        self.run = run
        self.log = log
        self.refusal = refusal
        self.build = build
        self.seeds: dict[int, float] | None = None
        self.said = False  # the pending call's refusal is logged already
        # initialization mode: (parameters, the simulator built from them)
        self.probe: tuple[dict[str, Any], Any] | None = None

    def _unflagged(self, vrs: Sequence[int], lo: int, hi: int, what: str) -> list[int] | None:
        out = []
        for vr in vrs:
            vr = vr & U32 if isinstance(vr, int) else -1
            plain = vr & ~FLAG if vr & FLAG else -1
            if not lo <= plain < hi:
                self.log.refuse(f"fmi2GetDirectionalDerivative: value reference "
                                f"{plain if plain >= 0 else vr} is not an {what}")
                return None
            out.append(plain)
        return out

    def _refused(self) -> bool:
        if self.refusal:
            self.log.refuse(f"fmi2GetDirectionalDerivative: {self.refusal}")
            return True
        if self.log.refused("get", self.run.phase):
            return True
        if self.run.sim is None and (self.run.phase != fsm.INITIALIZATION_MODE
                                     or self.build is None):
            why = self.run.failure or "the model is built at fmi2ExitInitializationMode"
            self.log.refuse(f"fmi2GetDirectionalDerivative: no model to differentiate ({why})")
            return True
        return False

    def _simulator(self) -> Any:
        """The simulator to differentiate: the instance's, or in initialization mode one
        built from the parameters set so far at the start time (None and a refusal when
        they are refused)."""
        if self.run.sim is not None:
            self.probe = None
            return self.run.sim
        parameters = self.variables.parameter_values()
        if self.probe is None or self.probe[0] != parameters:
            self.probe = None
            sim = self.build(parameters)
            sim.initialize(self.run.start_time)
            self.probe = (parameters, sim)
        return self.probe[1]

    def set_seeds(self, vrs: Sequence[int], values: Sequence[float]) -> None:
        """The shim's first call: the seeds of the flagged inputs ``vrs[:-1]``."""
        self.seeds, self.said = None, True
        if self._refused():
            return
        table = self.variables
        refs = self._unflagged(vrs[:-1], table.input_lo, table.input_hi, "input")
        if refs is None:
            return
        seeds: dict[int, float] = {}
        for vr, value in zip(refs, values, strict=False):
            if not math.isfinite(value):
                self.log.refuse(f"fmi2GetDirectionalDerivative: the seed of input {vr} is "
                                f"{value!r}; seeds must be finite")
                return
            seeds[vr - table.input_lo] = seeds.get(vr - table.input_lo, 0.0) + float(value)
        self.seeds, self.said = seeds, False

    def values(self, vrs: Sequence[int]) -> list[float]:
        """The shim's second call: the derivatives of the flagged outputs ``vrs[:-1]`` along
        the pending seeds (NaN and a refusal when there are none or the call is refused),
        then 0.0 for the mark."""
        seeds, self.seeds = self.seeds, None
        n = len(vrs) - 1
        failed = [math.nan] * n + [0.0]
        if seeds is None:  # set_seeds refused it (said there), or no seeds were set
            if not self.said:
                self.log.refuse(f"no Real variable has value reference {MARK} (no "
                                "directional derivative is pending)")
            self.said = False
            return failed
        table = self.variables
        refs = self._unflagged(vrs[:-1], table.output_lo, table.output_hi, "output")
        if refs is None:
            return failed
        u = np.array(table.reals[table.input_lo : table.input_hi], dtype=float)
        if not np.all(np.isfinite(u)):
            self.log.refuse("fmi2GetDirectionalDerivative: an input is not finite; the "
                            "derivative is taken at finite inputs")
            return failed
        du = np.zeros_like(u)
        for k, s in seeds.items():
            du[k] += s
        size = float(np.max(np.abs(du), initial=0.0))
        if size == 0.0:
            return [0.0] * (n + 1)
        step = max(1.0, float(np.max(np.abs(u), initial=0.0))) / size
        try:
            sim = self._simulator()
        except HydroFMUError as exc:
            self.log.refuse(f"fmi2GetDirectionalDerivative: the model cannot be built from "
                            f"the parameters set: {exc}")
            return failed
        except Exception as exc:  # never let an exception reach the wrapper (fmi2Fatal)
            self.log.internal("fmi2GetDirectionalDerivative", exc)
            return failed
        try:
            sim.set_input_vector(u + step * du)
            plus = sim.output_vector()
            sim.set_input_vector(u - step * du)
            minus = sim.output_vector()
        except HydroFMUError as exc:
            self.log.refuse(f"fmi2GetDirectionalDerivative: {exc}")
            return failed
        except Exception as exc:  # never let an exception reach the wrapper (fmi2Fatal)
            self.log.internal("fmi2GetDirectionalDerivative", exc)
            return failed
        finally:
            sim.set_input_vector(u)
        d = (plus - minus) / (2.0 * step)
        return [float(d[vr - table.output_lo]) for vr in refs] + [0.0]
