"""The FMI face of hydrofmu: a pythonfmu ``Fmi2Slave`` over :class:`system.Simulator`.

This module is run time: it is copied into every FMU as part of the bundled package
``_hydrofmu_<hash>`` (see :mod:`hydrofmu.export`), so it imports the rest of the project
only with relative imports. It holds no physics: it maps FMI value references to the
simulator's input and output vectors, turns every failure into a logged message and an
FMI status, and saves and restores the complete state.

What pythonfmu 0.7.0's C wrapper does with the Python side, and what this class does about
it:

- A Python exception in any callback becomes ``fmi2Fatal``; the wrapper then releases its
  Python objects and releases them again when the instance is freed. So no callback here
  lets an exception out, except the constructor: an instance that cannot load its model
  makes ``fmi2Instantiate`` return NULL with the exception text as the logged message,
  which is what FMI expects.
- ``do_step`` returning False gives ``fmi2Discard``; that is the only non-OK status that
  Python can produce. ``enter/exit_initialization_mode`` and the setters always return
  ``fmi2OK`` unless they raise. A failed initialization (bad parameter) is therefore logged
  with status ``fmi2Error`` when it happens, and every later ``do_step`` returns
  ``fmi2Discard`` with the same message.
- Messages queued with :meth:`Fmi2Slave.log` reach the importer's logger after the call
  returns, and only if the importer turned logging on (``loggingOn`` or
  ``fmi2SetDebugLogging``).
- ``_fmu_state_to_bytes`` / ``_fmu_state_from_bytes`` are called on the class, not the
  instance, and the size query serializes the state a second time.

The workarounds for pythonfmu's binary live in ``fmi_workarounds.py``, the state arrays
and their serialization in ``fmi_state.py``, the variable descriptions in
``fmi_names.py``.

Every callback first checks itself against the FMI 2.0 state machine of
:mod:`hydrofmu.fmi_states` (one table); a ``do_step`` checks its time arguments and its
work against :mod:`hydrofmu.work_limits`; ``exit_initialization_mode`` checks the parameter
values with :mod:`hydrofmu.parameter_checks`; ``_set_fmu_state`` checks the blob against
:mod:`hydrofmu.state_schema` before replacing anything. A refusal is a logged message
(status error) and, for ``do_step``, ``fmi2Discard``.
"""

from __future__ import annotations

import math
import traceback
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pythonfmu import Fmi2Causality, Fmi2Initial, Fmi2Slave, Fmi2Variability, Integer, Real, String
from pythonfmu.enums import Fmi2Status

from . import fmi_states as fsm
from .errors import HydroFMUError
from .fmi_names import describe, with_choices
from .fmi_state import (
    STATE_FORMAT,
    invalid_state,
    simulator_arrays,
    simulator_state,
    state_from_bytes,
    state_to_bytes,
)
from .fmi_workarounds import guard_interpreter_exit
from .hydrodata.store import load_model
from .parameter_checks import check_allocations, check_parameters
from .parameters import parameter_table
from .state_schema import model_identity, sim_problem, state_problem
from .system import Simulator
from .work_limits import step_refusal

#: Name of the payload file inside the FMU's ``resources`` folder.
MODEL_FILE = "model.npz"

#: Unit written for dimensionless Real variables.
DIMENSIONLESS = "1"

# Life-cycle phases of an instance.
_INSTANTIATED, _INITIALIZING, _STEPPING = 0, 1, 2

# Kinds of Real variables.
_PARAMETER, _INPUT, _OUTPUT = 0, 1, 2

def _finite_mask(values: Sequence[float]) -> list[bool]:
    return [math.isfinite(v) for v in values]


class HydroSlave(Fmi2Slave):
    """pythonfmu slave running a :class:`~hydrofmu.system.Simulator`.

    The export generates a one-line subclass named after the model; the FMU's
    ``resources`` folder holds the payload :data:`MODEL_FILE` written by
    :func:`hydrofmu.hydrodata.store.save_model`.

    Value references: the Real variables come first (parameters, inputs, outputs, in the
    order of :func:`~hydrofmu.parameters.parameter_table`, ``Simulator.input_names`` and
    ``Simulator.output_names``), then the Integer parameters, then the String parameters.
    Their values live in flat Python lists indexed by value reference rather than one
    attribute per scalar: a get or set costs one list comprehension.

    Parameters
    ----------
    **kwargs
        Passed by pythonfmu's wrapper: ``instance_name``, ``resources`` (the unpacked
        ``resources`` folder, a plain path), ``visible``, ``logger``.

    Raises
    ------
    HydroFMUError
        When the payload cannot be loaded or describes an impossible model. The wrapper
        turns it into a failed ``fmi2Instantiate`` (NULL) whose logged message is the
        error text.
    """

    author = "hydrofmu"
    description = "Floating bodies in waves (hydrofmu)"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if "logger" in kwargs and self.resources is not None:  # made by pythonfmu's binary
            guard_interpreter_exit(self.resources, self.modelName)
        if self.resources is None:
            raise HydroFMUError("the FMU was instantiated without a resources folder")
        model_path = Path(self.resources) / MODEL_FILE
        if not model_path.is_file():
            raise HydroFMUError(
                f"the FMU's model file '{model_path}' is missing: the FMU is incomplete; "
                "rebuild it with hydrofmu",
                value=str(model_path),
            )
        payload = load_model(model_path)
        self._bodies = list(payload["bodies"])
        self._config = dict(payload["config"])

        self._parameters = list(parameter_table(self._bodies, self._config))
        self._input_names = list(Simulator.input_names(self._bodies, self._config))
        self._output_names = list(Simulator.output_names(self._bodies, self._config))
        self._input_units = list(Simulator.input_units(self._bodies, self._config))
        self._output_units = list(Simulator.output_units(self._bodies, self._config))
        self._dependencies = dict(Simulator.output_dependencies(self._bodies, self._config))
        self._check_interface()

        self._sim: Simulator | None = None
        self._sim_parameters: dict[str, Any] | None = None
        self._phase = fsm.INSTANTIATED  # state of the FMI state machine (fmi_states)
        self._model_id = model_identity(self.resources, model_path)
        self._start_time = 0.0
        self._time = 0.0
        self._failure = ""  # non-empty once initialization failed: every step refuses
        self._inputs_dirty = False
        self._register_all()

    # ------------------------------------------------------------------ interface
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
        # Getters hold the instance weakly: a strong reference would be a cycle that only
        # the cyclic garbage collector frees, so each freed instance's arrays would stay
        # in memory until a full collection (+0.4 MB per instantiate/free cycle).
        me = weakref.ref(self)
        real_params = [p for p in self._parameters if p.kind == "Real"]
        int_params = [p for p in self._parameters if p.kind == "Integer"]
        str_params = [p for p in self._parameters if p.kind == "String"]

        self._reals: list[float] = []
        self._real_kind: list[int] = []
        self._real_names: list[str] = []
        self._tunable = {p.name for p in real_params if p.tunable}
        for p in real_params:
            self._add_real(p.name, float(p.start), _PARAMETER, p.description)
        self._in_lo = len(self._reals)
        for name in self._input_names:
            self._add_real(name, 0.0, _INPUT, describe(name))
        self._in_hi = self._out_lo = len(self._reals)
        for name in self._output_names:
            self._add_real(name, 0.0, _OUTPUT, describe(name))
        self._out_hi = self._n_real = len(self._reals)

        self._ints: list[int] = []
        self._int_names: list[str] = []
        for p in int_params:
            vr = len(self.vars)
            self._ints.append(int(p.start))
            self._int_names.append(p.name)
            self.register_variable(
                Integer(
                    p.name,
                    causality=Fmi2Causality.parameter,
                    variability=Fmi2Variability.fixed,
                    initial=Fmi2Initial.exact,
                    description=p.description,
                    getter=lambda k=vr - self._n_real, me=me: me()._ints[k],
                ),
                nested=False,
            )
        self._int_lo = self._n_real
        self._str_lo = len(self.vars)
        self._strs: list[str] = []
        self._str_names: list[str] = []
        for p in str_params:
            k = len(self._strs)
            self._strs.append(str(p.start))
            self._str_names.append(p.name)
            self.register_variable(
                String(
                    p.name,
                    causality=Fmi2Causality.parameter,
                    variability=Fmi2Variability.fixed,
                    initial=Fmi2Initial.exact,
                    description=with_choices(p.description, p.choices),
                    getter=lambda k=k, me=me: me()._strs[k],
                ),
                nested=False,
            )
        self._units = {p.name: (p.unit or DIMENSIONLESS) for p in real_params}
        self._units.update(zip(self._input_names, self._input_units, strict=True))
        self._units.update(zip(self._output_names, self._output_units, strict=True))

    def _add_real(self, name: str, start: float, kind: int, description: str) -> None:
        vr = len(self._reals)
        assert vr == len(self.vars), "Real variables must be registered first"
        self._reals.append(start)
        self._real_kind.append(kind)
        self._real_names.append(name)
        if kind == _PARAMETER:
            tunable = name in self._tunable
            extra = dict(
                causality=Fmi2Causality.parameter,
                variability=Fmi2Variability.tunable if tunable else Fmi2Variability.fixed,
                initial=Fmi2Initial.exact,
            )
        elif kind == _INPUT:
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

    @property
    def initialization_error(self) -> str:
        """Why initialization failed ("" when it did not): every step is then refused."""
        return self._failure

    # ------------------------------------------------------------------ logging helpers
    def _error(self, message: str, status: Fmi2Status = Fmi2Status.error) -> None:
        # The wrapper hands the text to the FMI logger as its printf-style format string,
        # where '%' and '#' (variable references, FMI 2.0 2.1.5) are special.
        self.log(message.replace("%", "%%").replace("#", "##"), status)

    def _internal(self, where: str, exc: BaseException) -> str:
        text = "".join(traceback.format_exception(exc)).rstrip()
        message = (
            f"internal error in {where} (a bug in hydrofmu; please report it with this "
            f"message): {text}"
        )
        self._error(message)
        return message

    def _refused(self, call: str, type_name: str = "Real") -> bool:
        """Check ``call`` against the state machine; log and return True if not allowed."""
        message = fsm.refusal(call, self._phase, type_name=type_name)
        if message is not None:
            self._error(message)
        return message is not None

    def _refused_fixed(self, name: str, type_name: str) -> bool:
        """A set of the fixed parameter ``name``: refused (logged) after initialization."""
        message = fsm.refusal("set_parameter", self._phase, type_name=type_name)
        if message is not None:
            self._error(
                f"parameter '{name}' is fixed: it cannot be changed after initialization; "
                f"the value is ignored ({message})"
            )
        return message is not None

    def _set_tunable(self, vr: int, name: str, value: float) -> None:
        """Set the tunable Real parameter ``name``: stored before initialization ends;
        while stepping validated by the parameter table and handed to the simulator, which
        uses it from the next step on (a refused value is logged and the old one kept)."""
        if self._refused("set_tunable", "Real"):
            return
        if self._phase != fsm.STEP_COMPLETE or self._sim is None:
            self._reals[vr] = float(value)
            return
        try:
            v = self._sim.set_parameter(name, float(value))
        except (HydroFMUError, TypeError, ValueError) as exc:
            self._error(f"{name} = {value!r} refused, it keeps its value "
                        f"{self._reals[vr]!r}: {exc}")
            return
        self._reals[vr] = float(v)
        self._sim_parameters = {**self._sim_parameters, name: float(v)}
        self._inputs_dirty = True  # outputs such as a PTO's force change at once

    # ------------------------------------------------------------------ getters / setters
    def get_real(self, vrs: list[int]) -> list[float]:
        """Values of Real variables; unknown references give NaN and a logged error."""
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
                    self._error(f"no Real variable has value reference {vr}")
                    out.append(math.nan)
            return out

    def set_real(self, vrs: list[int], values: list[float]) -> None:
        """Set inputs, and Real parameters before initialization ends."""
        reals, kinds = self._reals, self._real_kind
        lo, hi = self._in_lo, self._in_hi
        inputs_refused = fsm.refusal("set_input", self._phase)
        try:
            for vr, value in zip(vrs, values, strict=True):
                if lo <= vr < hi:
                    if inputs_refused:
                        self._error(inputs_refused)
                        continue
                    reals[vr] = value
                    self._inputs_dirty = True
                elif 0 <= vr < self._n_real and kinds[vr] == _PARAMETER:
                    name = self._real_names[vr]
                    if name in self._tunable:
                        self._set_tunable(vr, name, value)
                    elif self._refused_fixed(name, "Real"):
                        continue
                    else:
                        reals[vr] = float(value)
                elif 0 <= vr < self._n_real:
                    self._error(f"'{self._real_names[vr]}' is an output and cannot be set")
                else:
                    self._error(f"no Real variable has value reference {vr}")
        except Exception as exc:  # never let an exception reach the wrapper (fmi2Fatal)
            self._internal("set_real", exc)

    def get_integer(self, vrs: list[int]) -> list[int]:
        """Values of Integer parameters; unknown references give 0 and a logged error."""
        self._refused("get", "Integer")
        ints, base = self._ints, self._int_lo
        out = []
        for vr in vrs:
            k = vr - base
            if 0 <= k < len(ints):
                out.append(ints[k])
            else:
                self._error(f"no Integer variable has value reference {vr}")
                out.append(0)
        return out

    def set_integer(self, vrs: list[int], values: list[int]) -> None:
        """Set Integer parameters before initialization ends."""
        for vr, value in zip(vrs, values, strict=False):
            k = vr - self._int_lo
            if not 0 <= k < len(self._ints):
                self._error(f"no Integer variable has value reference {vr}")
            elif self._refused_fixed(self._int_names[k], "Integer"):
                continue
            else:
                self._ints[k] = int(value)

    def get_string(self, vrs: list[int]) -> list[str]:
        """Values of String parameters; unknown references give "" and a logged error."""
        self._refused("get", "String")
        strs, base = self._strs, self._str_lo
        out = []
        for vr in vrs:
            k = vr - base
            if 0 <= k < len(strs):
                out.append(strs[k])
            else:
                self._error(f"no String variable has value reference {vr}")
                out.append("")
        return out

    def set_string(self, vrs: list[int], values: list[str]) -> None:
        """Set String parameters before initialization ends."""
        for vr, value in zip(vrs, values, strict=False):
            k = vr - self._str_lo
            if not 0 <= k < len(self._strs):
                self._error(f"no String variable has value reference {vr}")
            elif self._refused_fixed(self._str_names[k], "String"):
                continue
            else:
                self._strs[k] = str(value)

    def get_boolean(self, vrs: list[int]) -> list[bool]:
        """There are no Boolean variables: every reference is an error."""
        for vr in vrs:
            self._error(f"no Boolean variable has value reference {vr}")
        return [False for _ in vrs]

    def set_boolean(self, vrs: list[int], values: list[bool]) -> None:
        """There are no Boolean variables: every reference is an error."""
        for vr in vrs:
            self._error(f"no Boolean variable has value reference {vr}")

    # ------------------------------------------------------------------ life cycle
    def setup_experiment(
        self, start_time: float, stop_time: float | None, tolerance: float | None
    ) -> None:
        """Remember the start time."""
        if self._refused("setup_experiment"):
            return
        self._start_time = float(start_time)
        self._time = float(start_time)

    def enter_initialization_mode(self) -> None:
        """Enter initialization mode: parameters may still be set."""
        if self._refused("enter_initialization_mode"):
            return
        self._phase = fsm.INITIALIZATION_MODE

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

    def exit_initialization_mode(self) -> None:
        """Build and initialize the simulator from the parameter values.

        A failure is logged with status ``fmi2Error``; the instance then refuses every step
        (``fmi2Discard``) with the same message.
        """
        if self._refused("exit_initialization_mode"):
            return
        self._phase = fsm.ERROR  # until the simulator is built
        try:
            parameters = self.parameter_values()
            irf = self._config.get("radiation", {}).get("irf_duration") or 30.0
            check_allocations(self._parameters, parameters, n_bodies=len(self._bodies),
                              irf_duration=irf)  # before anything is allocated
            sim = Simulator.from_payload(self._bodies, self._config, parameters)
            check_parameters(self._parameters, parameters, n_bodies=len(self._bodies))
            sim.initialize(self._start_time)
            u = self._reals[self._in_lo : self._in_hi]
            bad = [n for n, ok in zip(self._input_names, _finite_mask(u), strict=True) if not ok]
            if bad:
                self._error(
                    f"non-finite start value of input(s) {bad}: zero is used until they are set",
                    Fmi2Status.warning,
                )
                u = [v if math.isfinite(v) else 0.0 for v in u]
            sim.set_input_vector(np.array(u))
            y = sim.output_vector()
        except HydroFMUError as exc:
            self._failure = f"initialization failed: {exc}"
            self._error(self._failure)
            return
        except Exception as exc:
            self._failure = self._internal("exit_initialization_mode", exc)
            return
        self._sim = sim
        self._sim_parameters = parameters
        self._phase = fsm.STEP_COMPLETE
        for line in sim.report:  # model choices and their measured truncation errors
            self._error(line, Fmi2Status.ok)
        for line in sim.warnings:
            self._error(line, Fmi2Status.warning)
        self._time = self._start_time
        self._reals[self._out_lo : self._out_hi] = np.asarray(y, dtype=float).tolist()
        self._inputs_dirty = False

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
            self._error(f"outputs not updated after the input change: {exc}")
            return
        except Exception as exc:
            self._internal("get_real", exc)
            return
        self._reals[self._out_lo : self._out_hi] = y.tolist()

    def do_step(self, current_time: float, step_size: float) -> bool:
        """Advance from ``current_time`` by ``step_size``; False gives fmi2Discard."""
        if self._failure:
            self._error(f"cannot step: {self._failure}")
            return False
        sim = self._sim
        if self._refused("do_step") or sim is None:
            return False
        refusal = step_refusal(
            current_time, step_size, fmu_time=self._time, max_internal_step=sim.dt,
            limit=int(self._sim_parameters["max_internal_steps_per_call"]),
        )
        if refusal:
            self._error(refusal, Fmi2Status.discard)
            return False
        u = self._reals[self._in_lo : self._in_hi]
        if not all(map(math.isfinite, u)):
            bad = {n: v for n, v in zip(self._input_names, u, strict=True) if not math.isfinite(v)}
            self._error(
                f"step at t = {current_time!r} s refused: non-finite input {bad}; the state "
                "and the outputs stay at their last good values",
                Fmi2Status.discard,
            )
            return False
        try:
            sim.set_input_vector(np.array(u))
            sim.step(current_time, step_size)
            y = sim.output_vector()
        except HydroFMUError as exc:
            self._error(
                f"step from t = {current_time!r} s by {step_size!r} s failed: {exc}; the "
                "state stays at the start of the step",
                Fmi2Status.discard,
            )
            return False
        except Exception as exc:
            self._failure = self._internal("do_step", exc)
            return False
        self._reals[self._out_lo : self._out_hi] = y.tolist()
        self._inputs_dirty = False
        self._time = current_time + step_size
        return True

    def terminate(self) -> None:
        """Nothing to release: the simulator holds only arrays."""
        if not self._refused("terminate"):
            self._phase = fsm.TERMINATED

    # ------------------------------------------------------------------ FMU state
    def _get_fmu_state(self) -> dict[str, np.ndarray]:
        """Copy of everything that determines the continuation, as named arrays."""
        try:
            state = {
                "fmu.format": np.array(STATE_FORMAT),
                "fmu.model": np.array(self._model_id, dtype=np.str_),
                "fmu.reals": np.array(self._reals, dtype=np.float64),
                "fmu.ints": np.array(self._ints, dtype=np.int64),
                "fmu.strs": np.array(self._strs, dtype=np.str_),
                "fmu.time": np.array(self._time, dtype=np.float64),
                "fmu.start_time": np.array(self._start_time, dtype=np.float64),
                "fmu.phase": np.array(self._phase, dtype=np.str_),
                "fmu.failure": np.array(self._failure, dtype=np.str_),
                "fmu.dirty": np.array(self._inputs_dirty),
                "fmu.has_sim": np.array(self._sim is not None),
            }
            if self._sim is not None:
                state.update(simulator_arrays(self._sim.get_state()))
            return state
        except Exception as exc:
            message = f"the FMU state could not be saved: {exc}"
            self._error(message)
            return invalid_state(message)

    def _set_fmu_state(self, state: Mapping[str, np.ndarray]) -> None:
        """Restore a state from :meth:`_get_fmu_state` (possibly via bytes).

        The whole blob is checked against :mod:`hydrofmu.state_schema` first; a refused
        blob is logged (status error) and leaves the instance exactly as it was.
        """
        if self._refused("set_fmu_state"):
            return
        sim = self._sim
        saved = sim.get_state() if sim is not None else None
        try:
            inputs = np.zeros(len(self._reals), dtype=bool)
            inputs[self._in_lo : self._in_hi] = True
            problem = state_problem(
                state, model=self._model_id, n_reals=len(self._reals), n_ints=len(self._ints),
                n_strs=len(self._strs), finite_reals=~inputs, states=fsm.STATES,
            )
            if problem:
                self._error(f"fmi2SetFMUstate refused, the instance is unchanged: {problem}")
                return
            reals = state["fmu.reals"].tolist()
            ints = [int(v) for v in state["fmu.ints"]]
            strs = [str(v) for v in state["fmu.strs"]]
            parameters = None
            if bool(state["fmu.has_sim"]):
                parameters = self._parameters_from(reals, ints, strs)
                if sim is None or parameters != self._sim_parameters:
                    sim = Simulator.from_payload(self._bodies, self._config, parameters)
                    saved = None
                problem = sim_problem(state, sim.get_state())
                if problem:
                    self._error(f"fmi2SetFMUstate refused, the instance is unchanged: {problem}")
                    self._restore_sim(saved)
                    return
                sim.set_state(simulator_state(state))
            else:
                sim = None
        except HydroFMUError as exc:
            self._restore_sim(saved)
            self._error(f"the FMU state could not be restored, the instance is unchanged: {exc}")
            return
        except Exception as exc:
            self._restore_sim(saved)
            self._internal("_set_fmu_state", exc)
            return
        self._reals, self._ints, self._strs = reals, ints, strs
        self._sim, self._sim_parameters = sim, parameters
        self._time = float(state["fmu.time"])
        self._start_time = float(state["fmu.start_time"])
        self._phase = str(state["fmu.phase"])
        self._failure = str(state["fmu.failure"])
        self._inputs_dirty = bool(state["fmu.dirty"])

    def _restore_sim(self, saved: dict[str, np.ndarray] | None) -> None:
        """Put the current simulator back to ``saved`` (its state before a refused set)."""
        if saved is not None and self._sim is not None:
            self._sim.set_state(saved)

    @staticmethod
    def _fmu_state_to_bytes(state: Mapping[str, np.ndarray]) -> bytes:
        """Serialize a state (see :func:`fmi_state.state_to_bytes`)."""
        return state_to_bytes(state)

    @staticmethod
    def _fmu_state_from_bytes(data: bytes) -> dict[str, np.ndarray]:
        """Inverse of :meth:`_fmu_state_to_bytes`; bad bytes give an invalid state."""
        return state_from_bytes(data)
