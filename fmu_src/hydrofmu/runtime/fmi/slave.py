"""The FMI face of hydrofmu: a pythonfmu ``Fmi2Slave`` over :class:`.simulator.Simulator`.

This module is run time: it is copied into every FMU as part of the bundled package
``_hydrofmu_<hash>`` (see :mod:`hydrofmu.export`), so it imports the rest of the project
only with relative imports. It holds no physics: it maps FMI value references to the
simulator's input and output vectors, turns every failure into a logged message and an
FMI status, and saves and restores the complete state.

The class is assembled from one mixin per job: :class:`~hydrofmu.runtime.fmi.log.FmiLog` (messages
and the mark of a refused call), :class:`~hydrofmu.runtime.fmi.variables.FmiVariables` (value
references, variables, model-description metadata), :class:`~hydrofmu.runtime.fmi.access.FmiAccess`
(getters, setters, tunable parameters), :class:`~hydrofmu.runtime.fmi.state_blob.FmiStateHooks` (the
FMU state); this module keeps the constructor and the life cycle (set-up, initialization,
``do_step``, termination).

What pythonfmu 0.7.0's C wrapper does with the Python side, and what this class does about
it:

- A Python exception in any callback becomes ``fmi2Fatal``; the wrapper then releases its
  Python objects and releases them again when the instance is freed. So no callback here
  lets an exception out, except the constructor: an instance that cannot load its model
  makes ``fmi2Instantiate`` return NULL with the exception text as the logged message,
  which is what FMI expects.
- ``do_step`` returning False gives ``fmi2Discard``; every other callback returns ``fmi2OK``.
  A refused call is therefore marked by its log message (:data:`.log.REFUSED`), which
  hydrofmu's shim in front of the Linux binary turns into ``fmi2Error`` (see
  :mod:`hydrofmu.runtime.fmi.log`); without the shim the call returns ``fmi2OK`` (``fmi2Discard``
  from ``do_step``) with the logged error.
- Messages queued with :meth:`Fmi2Slave.log` reach the logger at the end of the call.
- ``_fmu_state_to_bytes`` / ``_fmu_state_from_bytes`` are called on the class, not the
  instance, and the size query serializes the state a second time.

Every callback first checks itself against the FMI 2.0 state machine of
:mod:`hydrofmu.runtime.fmi.state_machine` (one table); a ``do_step`` checks its time
arguments and its work against :mod:`hydrofmu.runtime.parameters.work_limits`;
``exit_initialization_mode`` checks the parameter values with
:mod:`hydrofmu.runtime.parameters.checks`; ``_set_fmu_state`` checks the blob against
:mod:`hydrofmu.runtime.fmi.state_schema` before replacing anything. Statuses: a call out of the
state machine, a bad time argument, a parameter out of range or a bad state blob is refused
(``fmi2Error``); a step above the work limit, with a non-finite input or whose integration
failed is discarded (``fmi2Discard``), the instance kept at the start of the step.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from pythonfmu import Fmi2Slave
from pythonfmu.enums import Fmi2Status

from ..errors import HydroFMUError
from ..hydrodata.store import load_model
from ..parameters.work_limits import internal_steps, step_refusal
from ..parts.user import user_part_specs
from ..simulator.layout import parameter_table
from ..simulator.simulator import Simulator
from . import state_machine as fsm
from .access import FmiAccess
from .log import FmiLog
from .state_blob import FmiStateHooks
from .state_schema import model_identity
from .variables import DIMENSIONLESS, FmiVariables
from .workarounds import guard_interpreter_exit

#: The run-time package this module belongs to (``_hydrofmu_<hash>`` inside an FMU).
RUNTIME_PACKAGE = __package__.rpartition(".")[0]

__all__ = ["DIMENSIONLESS", "MODEL_FILE", "HydroSlave", "guard_interpreter_exit"]

#: Name of the payload file inside the FMU's ``resources`` folder.
MODEL_FILE = "model.npz"

_DO_STEP = fsm.ALLOWED["do_step"]


class HydroSlave(FmiLog, FmiVariables, FmiAccess, FmiStateHooks, Fmi2Slave):
    """pythonfmu slave running a :class:`~hydrofmu.runtime.simulator.simulator.Simulator`.

    The export generates a one-line subclass named after the model; the FMU's
    ``resources`` folder holds the payload :data:`MODEL_FILE` written by
    :func:`hydrofmu.runtime.hydrodata.store.save_model`. Value references: see
    :mod:`hydrofmu.runtime.fmi.variables`.

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

        # The user parts the FMU was exported with, from the bundled package itself.
        self._parts = user_part_specs(self._config, RUNTIME_PACKAGE)
        model = (self._bodies, self._config, self._parts)
        self._parameters = list(parameter_table(*model))
        self._input_names = list(Simulator.input_names(*model))
        self._output_names = list(Simulator.output_names(*model))
        self._input_units = list(Simulator.input_units(*model))
        self._output_units = list(Simulator.output_units(*model))
        self._dependencies = dict(Simulator.output_dependencies(*model))
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
        self._u = np.zeros(self._in_hi - self._in_lo)  # the input vector handed to the sim
        self._cache_step_limits()

    @property
    def initialization_error(self) -> str:
        """Why initialization failed ("" when it did not): every step is then refused."""
        return self._failure

    def _cache_step_limits(self) -> None:
        """Per-run constants of ``do_step``, read once: the work limit (internal steps per
        call) and the largest step already found within it (0: none yet)."""
        values = self._sim_parameters or {}
        self._step_limit = int(values.get("max_internal_steps_per_call", 0))
        self._max_ok_step = 0.0

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

    def exit_initialization_mode(self) -> None:
        """Build and initialize the simulator from the parameter values.

        A failure is refused (fmi2Error through the shim); the instance then refuses every
        step with the same message.
        """
        if self._refused("exit_initialization_mode"):
            return
        self._phase = fsm.ERROR  # until the simulator is built
        try:
            parameters = self.parameter_values()
            # Checked by the simulator's constructor before it allocates anything
            # (parameters/checks.py: the one check).
            sim = Simulator.from_payload(self._bodies, self._config, parameters,
                                         parts=self._parts)
            sim.initialize(self._start_time)
            u = self._reals[self._in_lo : self._in_hi]
            bad = [n for n, v in zip(self._input_names, u, strict=True) if not math.isfinite(v)]
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
            self._refuse(self._failure)
            return
        except Exception as exc:
            self._failure = self._internal("exit_initialization_mode", exc)
            return
        self._sim = sim
        self._sim_parameters = parameters
        self._cache_step_limits()
        self._phase = fsm.STEP_COMPLETE
        for line in sim.report:  # model choices and their measured truncation errors
            self._error(line, Fmi2Status.ok)
        for line in sim.warnings:
            self._error(line, Fmi2Status.warning)
        self._time = self._start_time
        self._reals[self._out_lo : self._out_hi] = np.asarray(y, dtype=float).tolist()
        self._inputs_dirty = False

    def _step_arguments_refused(self, current_time: float, step_size: float) -> bool:
        """Check the time arguments (refused: fmi2Error) and the work limit (fmi2Discard).

        The common case, the FMU's own time and a step no longer than one that passed,
        costs two comparisons.
        """
        if current_time == self._time and 0.0 < step_size <= self._max_ok_step:
            return False
        # A scheme that advances the whole interval at once (exact) takes one step of any
        # length: the work limit counts that one step.
        dt = step_size if self._sim.scheme.one_step else self._sim.dt
        refusal = step_refusal(current_time, step_size, fmu_time=self._time,
                               max_internal_step=dt, limit=math.inf)
        if refusal:
            self._refuse(refusal)
            return True
        if internal_steps(step_size, dt) > self._step_limit:
            message = step_refusal(current_time, step_size, fmu_time=self._time,
                                   max_internal_step=dt, limit=self._step_limit)
            self._error(message or "fmi2DoStep refused: work limit", Fmi2Status.discard)
            return True
        if current_time == self._time:
            self._max_ok_step = max(self._max_ok_step, step_size)
        return False

    def do_step(self, current_time: float, step_size: float) -> bool:
        """Advance from ``current_time`` by ``step_size``; False gives fmi2Discard (and
        fmi2Error through the shim when the call is refused)."""
        if self._failure:
            self._refuse(f"cannot step: {self._failure}")
            return False
        sim = self._sim
        if self._phase not in _DO_STEP or sim is None:
            if not self._refused("do_step"):
                self._refuse("fmi2DoStep refused: the instance has no simulator (it was "
                             "restored from a state saved before initialization ended)")
            return False
        if self._step_arguments_refused(current_time, step_size):
            return False
        reals = self._reals
        values = reals[self._in_lo : self._in_hi]
        total = sum(values)  # finite inputs give 0.0 below; NaN or inf (or overflow) do not
        if total - total != 0.0 and not all(map(math.isfinite, values)):
            bad = {n: v for n, v in zip(self._input_names, values, strict=True)
                   if not math.isfinite(v)}
            self._error(
                f"step at t = {current_time!r} s refused: non-finite input {bad}; the state "
                "and the outputs stay at their last good values",
                Fmi2Status.discard,
            )
            return False
        try:
            u = self._u
            u[:] = values
            sim.set_input_vector(u)
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
        reals[self._out_lo : self._out_hi] = y.tolist()
        self._inputs_dirty = False
        self._time = current_time + step_size
        return True

    def terminate(self) -> None:
        """Nothing to release: the simulator holds only arrays."""
        if not self._refused("terminate"):
            self._phase = fsm.TERMINATED
