"""Where an FMU instance stands: its state-machine phase, times and simulator (run time).

This module is run time (bundled in the FMU): standard library only (the simulator is
only a type here).

:class:`RunState` is one mutable record shared by the collaborators of the slave: the
life cycle (:mod:`~hydrofmu.runtime.fmi.lifecycle`) advances it, the getters and setters
(:mod:`~hydrofmu.runtime.fmi.access`) check it, the state codec
(:mod:`~hydrofmu.runtime.fmi.state_blob`) saves and restores it. Beside the variable
values (:class:`~hydrofmu.runtime.fmi.variables.VariableTable`) it is everything an FMU
state holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import state_machine as fsm

if TYPE_CHECKING:
    from ..simulator.simulator import Simulator

__all__ = ["RunState"]


@dataclass(slots=True)
class RunState:
    """The life-cycle state of one instance.

    Attributes
    ----------
    phase
        State of the FMI state machine (one of
        :data:`~hydrofmu.runtime.fmi.state_machine.STATES`).
    start_time, time
        Start time of the experiment and the instance's current time (s).
    failure
        Why initialization failed, "" when it did not: every step is then refused.
    inputs_dirty
        An input or a tunable parameter changed since the outputs were computed: the next
        getter refreshes them (direct feedthrough).
    sim
        The simulator, built by ``fmi2ExitInitializationMode`` (None before, or after
        restoring a state saved before initialization ended).
    sim_parameters
        The parameter values ``sim`` was built with (tunable changes included).
    step_limit
        Work limit of one ``fmi2DoStep``: internal steps per call
        (``max_internal_steps_per_call``; 0 before a simulator exists).
    max_ok_step
        Longest communication step (s) already found within the work limit (0: none yet);
        a step no longer than it, from the instance's own time, is not checked again.
    """

    phase: str = fsm.INSTANTIATED
    start_time: float = 0.0
    time: float = 0.0
    failure: str = ""
    inputs_dirty: bool = False
    sim: Simulator | None = None
    sim_parameters: dict[str, Any] | None = None
    step_limit: int = 0
    max_ok_step: float = 0.0

    def attach(self, sim: Simulator | None, parameters: dict[str, Any] | None) -> None:
        """Use ``sim`` (built with ``parameters``) from now on, and read the per-run
        constants of ``fmi2DoStep`` again (the work limit; no step length known yet)."""
        self.sim = sim
        self.sim_parameters = parameters
        values = parameters or {}
        self.step_limit = int(values.get("max_internal_steps_per_call", 0))
        self.max_ok_step = 0.0
