"""The FMI face of hydrofmu: a pythonfmu ``Fmi2Slave`` over :class:`.simulator.Simulator`.

This module is run time: it is copied into every FMU as part of the bundled package
``_hydrofmu_<hash>`` (see :mod:`hydrofmu.export`), so it imports the rest of the project
only with relative imports. It holds no physics: it maps FMI value references to the
simulator's input and output vectors, turns every failure into a logged message and an
FMI status, and saves and restores the complete state.

The slave is a thin adapter: it owns one collaborator per job, each a class in its own
module, and every pythonfmu callback delegates to one of them:

- :attr:`HydroSlave.model` (:class:`~hydrofmu.runtime.fmi.model.FmuModel`): the payload,
  the user parts, the model's identity; builds the simulator;
- :attr:`HydroSlave.variables` (:class:`~hydrofmu.runtime.fmi.variables.VariableTable`):
  value references -> flat value lists, model-description metadata;
- :attr:`HydroSlave.run` (:class:`~hydrofmu.runtime.fmi.run_state.RunState`): the
  state-machine phase, the times, the simulator;
- :attr:`HydroSlave.messages` (:class:`~hydrofmu.runtime.fmi.log.FmiLog`): messages and
  the mark of a refused call;
- :attr:`HydroSlave.access` (:class:`~hydrofmu.runtime.fmi.access.FmiAccess`): getters,
  setters, tunable parameters;
- :attr:`HydroSlave.lifecycle` (:class:`~hydrofmu.runtime.fmi.lifecycle.FmiLifecycle`):
  set-up, initialization, ``do_step``, termination;
- :attr:`HydroSlave.states` (:class:`~hydrofmu.runtime.fmi.state_blob.StateCodec`): the
  FMU state as named arrays and bytes.

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
- Messages queued in ``Fmi2Slave.log_queue`` (by :class:`~hydrofmu.runtime.fmi.log.FmiLog`)
  reach the logger at the end of the call.
- ``_fmu_state_to_bytes`` / ``_fmu_state_from_bytes`` are called on the class, not the
  instance, and the size query serializes the state a second time.

Every callback first checks itself against the FMI 2.0 state machine of
:mod:`hydrofmu.runtime.fmi.state_machine` (one table); a ``do_step`` checks its time
arguments and its work against :mod:`hydrofmu.runtime.parameters.work_limits`
(:mod:`~hydrofmu.runtime.fmi.lifecycle`); ``exit_initialization_mode`` checks the
parameter values with :mod:`hydrofmu.runtime.parameters.checks`; ``_set_fmu_state`` checks
the blob against :mod:`hydrofmu.runtime.fmi.state_schema` before replacing anything.
Statuses: a call out of the state machine, a bad time argument, a parameter out of range or
a bad state blob is refused (``fmi2Error``); a step above the work limit, with a non-finite
input or whose integration failed is discarded (``fmi2Discard``), the instance kept at the
start of the step.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pythonfmu import Fmi2Slave

from ..errors import HydroFMUError
from .access import FmiAccess
from .derivative import DirectionalDerivative, derivative_refusal, is_request
from .lifecycle import FmiLifecycle
from .log import FmiLog
from .model import MODEL_FILE, FmuModel
from .run_state import RunState
from .state_blob import StateCodec, state_from_bytes, state_to_bytes
from .variables import DIMENSIONLESS
from .workarounds import guard_interpreter_exit

#: The run-time package this module belongs to (``_hydrofmu_<hash>`` inside an FMU).
RUNTIME_PACKAGE = __package__.rpartition(".")[0]

__all__ = ["DIMENSIONLESS", "MODEL_FILE", "HydroSlave", "guard_interpreter_exit"]


class HydroSlave(Fmi2Slave):
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

    Attributes
    ----------
    model : FmuModel
        The payload, user parts and identity of the model.
    variables : VariableTable
        Value references, values and metadata of every variable.
    run : RunState
        The state-machine phase, the times and the simulator.
    messages : FmiLog
        The log (messages queued for pythonfmu, refusals).
    access : FmiAccess
        Getters and setters.
    lifecycle : FmiLifecycle
        Set-up, initialization, steps, termination.
    states : StateCodec
        The FMU state (get, set).

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
        # None of the collaborators refers back to the slave: a freed instance is freed
        # at once, not at the next cyclic garbage collection.
        self.model = FmuModel.load(self.resources, RUNTIME_PACKAGE)
        self.variables = self.model.variable_table()
        self.variables.register(self.register_variable)
        self.run = RunState()
        self.messages = FmiLog(self.log_queue, self.log_categories)
        parts = dict(variables=self.variables, run=self.run, log=self.messages)
        self.access = FmiAccess(**parts)
        self.lifecycle = FmiLifecycle(model=self.model, **parts)
        self.states = StateCodec(model=self.model, **parts)
        # fmi2GetDirectionalDerivative through the shim (derivative.py)
        self.derivative = DirectionalDerivative(
            **parts, refusal=derivative_refusal(self.model.config, self.model.parts),
            build=self.model.simulator)

    @property
    def initialization_error(self) -> str:
        """Why initialization failed ("" when it did not): every step is then refused."""
        return self.run.failure

    def interface_metadata(self) -> dict[str, Any]:
        """What the model description needs beyond pythonfmu's output
        (:meth:`.VariableTable.interface_metadata`)."""
        return self.variables.interface_metadata()

    def parameter_values(self) -> dict[str, Any]:
        """Current parameter values by name (:meth:`.VariableTable.parameter_values`)."""
        return self.variables.parameter_values()

    # ------------------------------------------------------------------ life cycle
    def setup_experiment(
        self, start_time: float, stop_time: float | None, tolerance: float | None
    ) -> None:
        """Remember the start time."""
        self.lifecycle.setup_experiment(start_time)

    def enter_initialization_mode(self) -> None:
        """Enter initialization mode: parameters may still be set."""
        self.lifecycle.enter_initialization_mode()

    def exit_initialization_mode(self) -> None:
        """Build and initialize the simulator from the parameter values."""
        self.lifecycle.exit_initialization_mode()

    def do_step(self, current_time: float, step_size: float) -> bool:
        """Advance from ``current_time`` by ``step_size``; False gives fmi2Discard (and
        fmi2Error through the shim when the call is refused)."""
        return self.lifecycle.do_step(current_time, step_size)

    def terminate(self) -> None:
        """Nothing to release: the simulator holds only arrays."""
        self.lifecycle.terminate()

    # ------------------------------------------------------------------ getters, setters
    def get_real(self, vrs: list[int]) -> list[float]:
        """Values of Real variables; unknown references give NaN and a refusal."""
        if is_request(vrs):  # the shim's fmi2GetDirectionalDerivative
            return self.derivative.values(vrs)
        return self.access.get_real(vrs)

    def set_real(self, vrs: list[int], values: list[float]) -> None:
        """Set inputs, tunable parameters, and Real parameters before initialization ends."""
        if is_request(vrs):  # the shim's fmi2GetDirectionalDerivative
            self.derivative.set_seeds(vrs, values)
            return
        self.access.set_real(vrs, values)

    def get_integer(self, vrs: list[int]) -> list[int]:
        """Values of Integer parameters; unknown references give 0 and a refusal."""
        return self.access.get_integer(vrs)

    def set_integer(self, vrs: list[int], values: list[int]) -> None:
        """Set Integer parameters before initialization ends."""
        self.access.set_integer(vrs, values)

    def get_string(self, vrs: list[int]) -> list[str]:
        """Values of String parameters; unknown references give "" and a refusal."""
        return self.access.get_string(vrs)

    def set_string(self, vrs: list[int], values: list[str]) -> None:
        """Set String parameters before initialization ends."""
        self.access.set_string(vrs, values)

    def get_boolean(self, vrs: list[int]) -> list[bool]:
        """There are no Boolean variables: every reference is refused."""
        return self.access.get_boolean(vrs)

    def set_boolean(self, vrs: list[int], values: list[bool]) -> None:
        """There are no Boolean variables: every reference is refused."""
        self.access.set_boolean(vrs, values)

    # ------------------------------------------------------------------ FMU state
    def _get_fmu_state(self) -> dict[str, np.ndarray]:
        """Copy of everything that determines the continuation (:meth:`.StateCodec.save`)."""
        return self.states.save()

    def _set_fmu_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore a state from :meth:`_get_fmu_state` (:meth:`.StateCodec.restore`)."""
        self.states.restore(state)

    @staticmethod
    def _fmu_state_to_bytes(state: dict[str, np.ndarray]) -> bytes:
        """Serialize a state (:func:`.state_blob.state_to_bytes`; pythonfmu calls it on
        the class)."""
        return state_to_bytes(state)

    @staticmethod
    def _fmu_state_from_bytes(data: bytes) -> dict[str, np.ndarray]:
        """Inverse of :meth:`_fmu_state_to_bytes`; bad bytes give an invalid state."""
        return state_from_bytes(data)
