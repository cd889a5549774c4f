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
"""

from __future__ import annotations

import atexit
import ctypes
import io
import math
import sys
import traceback
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pythonfmu import Fmi2Causality, Fmi2Initial, Fmi2Slave, Fmi2Variability, Integer, Real, String
from pythonfmu.enums import Fmi2Status

from .errors import HydroFMUError
from .hydrodata.store import load_model
from .loader import started_by_binary
from .parameters import parameter_table
from .system import Simulator

#: Name of the payload file inside the FMU's ``resources`` folder.
MODEL_FILE = "model.npz"

#: Unit written for dimensionless Real variables.
DIMENSIONLESS = "1"

_DOF_TEXT = ("surge", "sway", "heave", "roll", "pitch", "yaw")

#: Plain-language text of the quantities the simulator exposes, for the descriptions.
_QUANTITY_TEXT = {
    "F_pto": "power-take-off force on the body reference point, inertial frame",
    "pose": "position and orientation of the body reference point, inertial frame",
    "velocity": "velocity of the body reference point, inertial frame",
    "acceleration": "acceleration of the body reference point, inertial frame",
    "F_added_mass": "added-mass force (-A_inf times the acceleration)",
    "F_radiation": "radiation (memory) force",
    "F_excitation": "wave excitation force",
    "F_hydrostatic": "hydrostatic restoring force",
    "F_mooring": "mooring force",
    "F_viscous": "viscous drag force",
    "F_constraint": "constraint force",
    "elevation_input": "wave elevation input (preview_time ahead), at the reference point",
    "elevation": "wave elevation in use at the reference point",
}

# Life-cycle phases of an instance.
_INSTANTIATED, _INITIALIZING, _STEPPING = 0, 1, 2

# Kinds of Real variables.
_PARAMETER, _INPUT, _OUTPUT = 0, 1, 2

# Key prefixes of the flattened FMU state (see HydroSlave._get_fmu_state).
_FMU_KEY = "fmu."
_SIM_KEY = "sim."
_STATE_FORMAT = 1


_EXIT_GUARDED: set[str] = set()


def guard_interpreter_exit(resources: str | Path, model_identifier: str) -> bool:
    """Work around a crash at the exit of a Python host in pythonfmu 0.7.0's binary.

    The binary keeps its interpreter guard in a static ``std::shared_ptr`` and also resets
    it from an ``__attribute__((destructor))`` function. The library is never unloaded
    (it has STB_GNU_UNIQUE symbols), so at process exit the static destructor runs first
    and the destructor function then assigns to the destroyed pointer: a double free that
    aborts the host intermittently ("corrupted double-linked list") after a successful
    run. Resetting the guard early, from a Python ``atexit`` handler through the exported
    ``finalizePythonInterpreter``, leaves an empty pointer behind that both later calls
    handle without harm.

    Only done on Linux and in a Python host: when the FMU's binary started the interpreter
    itself (a C/C++ host), ``atexit`` handlers run inside that very reset.

    Parameters
    ----------
    resources
        The FMU's unpacked ``resources`` folder.
    model_identifier
        Name of the FMU's binary, ``binaries/linux64/<model_identifier>.so``.

    Returns
    -------
    bool
        True if the handler is registered (now or before) for this binary.
    """
    if sys.platform != "linux" or started_by_binary():
        return False  # a C/C++ host: loader.guard_c_host_exit does it there
    library = Path(resources).parent / "binaries" / "linux64" / f"{model_identifier}.so"
    key = str(library)
    if key in _EXIT_GUARDED:
        return True
    if not library.is_file():
        return False
    try:
        # The host has loaded this file: dlopen returns the same library.
        finalize = ctypes.CDLL(key).finalizePythonInterpreter
    except (OSError, AttributeError):
        return False
    finalize.argtypes = []
    finalize.restype = None
    atexit.register(finalize)
    _EXIT_GUARDED.add(key)
    return True


def describe(name: str) -> str:
    """A one-line description of a structured variable name such as ``body.pose[3]``.

    Parameters
    ----------
    name
        ``<owner>.<quantity>`` or ``<owner>.<quantity>[i]``, i = 1..6 for the DOFs.
    """
    owner, _, rest = name.partition(".")
    quantity, _, index = rest.partition("[")
    text = _QUANTITY_TEXT.get(quantity, quantity.replace("_", " "))
    if index:
        i = int(index.rstrip("]"))
        if 1 <= i <= len(_DOF_TEXT):
            text = f"{text}, {_DOF_TEXT[i - 1]}"
        else:
            text = f"{text}, component {i}"
    if owner != "wave":
        text = f"{text} ('{owner}')"
    return text


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
        self._phase = _INSTANTIATED
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
                    description=_with_choices(p.description, p.choices),
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
            extra = dict(
                causality=Fmi2Causality.parameter,
                variability=Fmi2Variability.fixed,
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

    # ------------------------------------------------------------------ getters / setters
    def get_real(self, vrs: list[int]) -> list[float]:
        """Values of Real variables; unknown references give NaN and a logged error."""
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
        try:
            for vr, value in zip(vrs, values, strict=True):
                if lo <= vr < hi:
                    reals[vr] = value
                    self._inputs_dirty = True
                elif 0 <= vr < self._n_real and kinds[vr] == _PARAMETER:
                    if self._phase == _STEPPING:
                        self._error(
                            f"parameter '{self._real_names[vr]}' is fixed: it cannot be "
                            "changed after initialization; the value is ignored"
                        )
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
            elif self._phase == _STEPPING:
                self._error(
                    f"parameter '{self._int_names[k]}' is fixed: it cannot be changed "
                    "after initialization; the value is ignored"
                )
            else:
                self._ints[k] = int(value)

    def get_string(self, vrs: list[int]) -> list[str]:
        """Values of String parameters; unknown references give "" and a logged error."""
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
            elif self._phase == _STEPPING:
                self._error(
                    f"parameter '{self._str_names[k]}' is fixed: it cannot be changed "
                    "after initialization; the value is ignored"
                )
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
        self._start_time = float(start_time)
        self._time = float(start_time)

    def enter_initialization_mode(self) -> None:
        """Enter initialization mode: parameters may still be set."""
        self._phase = _INITIALIZING

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
        self._phase = _STEPPING
        try:
            parameters = self.parameter_values()
            sim = Simulator.from_payload(self._bodies, self._config, parameters)
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
        if sim is None or self._phase != _STEPPING:
            self._error("do_step called before initialization ended")
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

    # ------------------------------------------------------------------ FMU state
    def _get_fmu_state(self) -> dict[str, np.ndarray]:
        """Copy of everything that determines the continuation, as named arrays."""
        try:
            state = {
                "fmu.format": np.array(_STATE_FORMAT),
                "fmu.reals": np.array(self._reals, dtype=np.float64),
                "fmu.ints": np.array(self._ints, dtype=np.int64),
                "fmu.strs": np.array(self._strs, dtype=np.str_),
                "fmu.time": np.array(self._time, dtype=np.float64),
                "fmu.start_time": np.array(self._start_time, dtype=np.float64),
                "fmu.phase": np.array(self._phase),
                "fmu.failure": np.array(self._failure, dtype=np.str_),
                "fmu.dirty": np.array(self._inputs_dirty),
                "fmu.has_sim": np.array(self._sim is not None),
            }
            if self._sim is not None:
                for key, value in self._sim.get_state().items():
                    arr = np.array(value, copy=True)
                    if arr.dtype.hasobject:
                        raise HydroFMUError(
                            f"simulator state entry '{key}' is not a numeric array",
                            value=key,
                        )
                    state[_SIM_KEY + key] = arr
            return state
        except Exception as exc:
            message = f"the FMU state could not be saved: {exc}"
            self._error(message)
            return {"fmu.format": np.array(_STATE_FORMAT), "fmu.invalid": np.array(message)}

    def _set_fmu_state(self, state: Mapping[str, np.ndarray]) -> None:
        """Restore a state from :meth:`_get_fmu_state` (possibly via bytes)."""
        try:
            if "fmu.invalid" in state:
                self._error(f"cannot restore an invalid FMU state: {state['fmu.invalid']}")
                return
            if int(state["fmu.format"]) != _STATE_FORMAT:
                self._error(f"unknown FMU state format {int(state['fmu.format'])}")
                return
            reals = state["fmu.reals"].tolist()
            ints = [int(v) for v in state["fmu.ints"]]
            strs = [str(v) for v in state["fmu.strs"]]
            if (len(reals), len(ints), len(strs)) != (
                len(self._reals),
                len(self._ints),
                len(self._strs),
            ):
                self._error("the FMU state belongs to a different model; it is ignored")
                return
            sim = None
            parameters = None
            if bool(state["fmu.has_sim"]):
                parameters = self._parameters_from(reals, ints, strs)
                sim = self._sim
                if sim is None or parameters != self._sim_parameters:
                    sim = Simulator.from_payload(self._bodies, self._config, parameters)
                n = len(_SIM_KEY)
                sim.set_state(
                    {
                        k[n:]: np.array(v, copy=True)
                        for k, v in state.items()
                        if k.startswith(_SIM_KEY)
                    }
                )
        except HydroFMUError as exc:
            self._error(f"the FMU state could not be restored: {exc}")
            return
        except Exception as exc:
            self._internal("_set_fmu_state", exc)
            return
        self._reals, self._ints, self._strs = reals, ints, strs
        self._sim, self._sim_parameters = sim, parameters
        self._time = float(state["fmu.time"])
        self._start_time = float(state["fmu.start_time"])
        self._phase = int(state["fmu.phase"])
        self._failure = str(state["fmu.failure"])
        self._inputs_dirty = bool(state["fmu.dirty"])

    @staticmethod
    def _fmu_state_to_bytes(state: Mapping[str, np.ndarray]) -> bytes:
        """Serialize a state as an uncompressed ``.npz`` (no pickle)."""
        buffer = io.BytesIO()
        np.savez(buffer, allow_pickle=False, **state)
        return buffer.getvalue()

    @staticmethod
    def _fmu_state_from_bytes(data: bytes) -> dict[str, np.ndarray]:
        """Inverse of :meth:`_fmu_state_to_bytes`; bad bytes give an invalid state."""
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                return {key: npz[key] for key in npz.files}
        except Exception as exc:
            return {
                "fmu.format": np.array(_STATE_FORMAT),
                "fmu.invalid": np.array(f"the serialized FMU state cannot be read: {exc}"),
            }


def _with_choices(description: str, choices: Sequence[str] | None) -> str:
    if not choices:
        return description
    return f"{description} (one of: {', '.join(choices)})"
