"""The life cycle of an FMU instance: set-up, initialization, steps, termination (run time).

This module is run time (bundled in the FMU): it imports the rest of the project only with
relative imports.

Every call first checks itself against the FMI 2.0 state machine of
:mod:`hydrofmu.runtime.fmi.state_machine` (one table); a ``do_step`` checks its time
arguments and its work against :mod:`hydrofmu.runtime.parameters.work_limits`;
``exit_initialization_mode`` checks the parameter values through the simulator's
constructor (:mod:`hydrofmu.runtime.parameters.checks`). Statuses: a call out of the state
machine, a bad time argument or a parameter out of range is refused (``fmi2Error`` through
the shim); a step above the work limit, with a non-finite input or whose integration
failed is discarded (``fmi2Discard``), the instance kept at the start of the step.
"""

from __future__ import annotations

import math

import numpy as np
from pythonfmu.enums import Fmi2Status

from ..errors import HydroFMUError
from ..parameters.work_limits import internal_steps, step_refusal
from . import state_machine as fsm
from .log import FmiLog
from .model import FmuModel
from .run_state import RunState
from .variables import VariableTable

__all__ = ["FmiLifecycle"]

_DO_STEP = fsm.ALLOWED["do_step"]


class FmiLifecycle:
    """``fmi2SetupExperiment`` ... ``fmi2Terminate`` of one instance.

    Parameters
    ----------
    model
        The instance's model: builds the simulator at the end of initialization.
    variables
        The variable table: the parameter values and inputs read, the outputs written.
    run
        The life-cycle state advanced by every call.
    log
        Where messages and refusals are logged.

    Attributes
    ----------
    model, variables, run, log
        As given.
    """

    def __init__(self, *, model: FmuModel, variables: VariableTable, run: RunState,
                 log: FmiLog) -> None:
        self.model = model
        self.variables = variables
        self.run = run
        self.log = log
        # The input vector handed to the simulator at every step (reused).
        self._u = np.zeros(variables.input_hi - variables.input_lo)

    def setup_experiment(self, start_time: float) -> None:
        """Remember the start time (s)."""
        run = self.run
        if self.log.refused("setup_experiment", run.phase):
            return
        run.start_time = float(start_time)
        run.time = float(start_time)

    def enter_initialization_mode(self) -> None:
        """Enter initialization mode: parameters may still be set."""
        if self.log.refused("enter_initialization_mode", self.run.phase):
            return
        self.run.phase = fsm.INITIALIZATION_MODE

    def exit_initialization_mode(self) -> None:
        """Build and initialize the simulator from the parameter values.

        A failure is refused (fmi2Error through the shim); the instance then refuses every
        step with the same message.
        """
        run, table, log = self.run, self.variables, self.log
        if log.refused("exit_initialization_mode", run.phase):
            return
        run.phase = fsm.ERROR  # until the simulator is built
        try:
            parameters = table.parameter_values()
            # Checked by the simulator's constructor before it allocates anything
            # (parameters/checks.py: the one check).
            sim = self.model.simulator(parameters)
            sim.initialize(run.start_time)
            u = table.reals[table.input_lo : table.input_hi]
            bad = [n for n, v in zip(table.input_names, u, strict=True) if not math.isfinite(v)]
            if bad:
                log.error(
                    f"non-finite start value of input(s) {bad}: zero is used until they are set",
                    Fmi2Status.warning,
                )
                u = [v if math.isfinite(v) else 0.0 for v in u]
            sim.set_input_vector(np.array(u))
            y = sim.output_vector()
        except HydroFMUError as exc:
            run.failure = f"initialization failed: {exc}"
            log.refuse(run.failure)
            return
        except Exception as exc:
            run.failure = log.internal("exit_initialization_mode", exc)
            return
        table.adopt_choices()  # a choice set by its enumeration twin shows in both
        table.reals[table.input_lo : table.input_hi] = u  # the zeros the steps then read
        run.attach(sim, table.parameter_values())
        run.phase = fsm.STEP_COMPLETE
        for line in sim.report:  # model choices and their measured truncation errors
            log.error(line, Fmi2Status.ok)
        for line in sim.warnings:
            log.error(line, Fmi2Status.warning)
        run.time = run.start_time
        table.reals[table.output_lo : table.output_hi] = np.asarray(y, dtype=float).tolist()
        run.inputs_dirty = False

    def step_arguments_refused(self, current_time: float, step_size: float) -> bool:
        """Check the time arguments (refused: fmi2Error) and the work limit (fmi2Discard).

        The common case, the FMU's own time and a step no longer than one that passed,
        costs two comparisons.
        """
        run = self.run
        if current_time == run.time and 0.0 < step_size <= run.max_ok_step:
            return False
        # A scheme that advances the whole interval at once (exact) takes one step of any
        # length: the work limit counts that one step.
        dt = step_size if run.sim.scheme.one_step else run.sim.dt
        refusal = step_refusal(current_time, step_size, fmu_time=run.time,
                               max_internal_step=dt, limit=math.inf)
        if refusal:
            self.log.refuse(refusal)
            return True
        if internal_steps(step_size, dt) > run.step_limit:
            message = step_refusal(current_time, step_size, fmu_time=run.time,
                                   max_internal_step=dt, limit=run.step_limit)
            self.log.error(message or "fmi2DoStep refused: work limit", Fmi2Status.discard)
            return True
        if current_time == run.time:
            run.max_ok_step = max(run.max_ok_step, step_size)
        return False

    def do_step(self, current_time: float, step_size: float) -> bool:
        """Advance from ``current_time`` by ``step_size`` (s); False gives fmi2Discard (and
        fmi2Error through the shim when the call is refused)."""
        run, log = self.run, self.log
        if run.failure:
            log.refuse(f"cannot step: {run.failure}")
            return False
        sim = run.sim
        if run.phase not in _DO_STEP or sim is None:
            if not log.refused("do_step", run.phase):
                log.refuse("fmi2DoStep refused: the instance has no simulator (it was "
                           "restored from a state saved before initialization ended)")
            return False
        if self.step_arguments_refused(current_time, step_size):
            return False
        table = self.variables
        reals = table.reals
        values = reals[table.input_lo : table.input_hi]
        total = sum(values)  # finite inputs give 0.0 below; NaN or inf (or overflow) do not
        if total - total != 0.0 and not all(map(math.isfinite, values)):
            bad = {n: v for n, v in zip(table.input_names, values, strict=True)
                   if not math.isfinite(v)}
            log.error(
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
            log.error(
                f"step from t = {current_time!r} s by {step_size!r} s failed: {exc}; the "
                "state stays at the start of the step",
                Fmi2Status.discard,
            )
            return False
        except Exception as exc:
            run.failure = log.internal("do_step", exc)
            return False
        reals[table.output_lo : table.output_hi] = y.tolist()
        run.inputs_dirty = False
        run.time = current_time + step_size
        return True

    def terminate(self) -> None:
        """Nothing to release: the simulator holds only arrays."""
        if not self.log.refused("terminate", self.run.phase):
            self.run.phase = fsm.TERMINATED
