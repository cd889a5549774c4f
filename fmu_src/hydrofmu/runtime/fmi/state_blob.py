"""The FMU state: named numpy arrays, their serialization (no pickle) and the codec
(:class:`StateCodec`) that saves and restores one instance's state.

Keys ``fmu.*`` hold the FMI face's own fields, ``sim.*`` the simulator's
:meth:`~hydrofmu.runtime.simulator.simulator.Simulator.get_state` arrays
(:mod:`hydrofmu.runtime.fmi.state_schema` defines and checks the layout).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import HydroFMUError
from . import state_machine as fsm
from .log import FmiLog
from .model import FmuModel
from .run_state import RunState
from .state_schema import SIM_PREFIX, STATE_FORMAT, sim_problem, state_problem
from .variables import VariableTable

__all__ = ["StateCodec", "invalid_state", "simulator_arrays", "simulator_state",
           "state_from_bytes", "state_to_bytes"]


def simulator_arrays(state: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The simulator's state as ``sim.*`` arrays, copied; a non-numeric entry is refused."""
    out = {}
    for key, value in state.items():
        arr = np.array(value, copy=True)
        if arr.dtype.hasobject:
            raise HydroFMUError(f"simulator state entry '{key}' is not a numeric array",
                                value=key)
        out[SIM_PREFIX + key] = arr
    return out


def simulator_state(state: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Inverse of :func:`simulator_arrays`: the ``sim.*`` entries without the prefix."""
    n = len(SIM_PREFIX)
    return {k[n:]: np.array(v, copy=True) for k, v in state.items() if k.startswith(SIM_PREFIX)}


def invalid_state(message: str) -> dict[str, np.ndarray]:
    """A state that restores nothing and says why."""
    return {"fmu.format": np.array(STATE_FORMAT), "fmu.invalid": np.array(message)}


def state_to_bytes(state: Mapping[str, np.ndarray]) -> bytes:
    """Serialize a state as an uncompressed ``.npz`` (no pickle)."""
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **state)
    return buffer.getvalue()


def state_from_bytes(data: bytes) -> dict[str, np.ndarray]:
    """Inverse of :func:`state_to_bytes`; bad bytes give an invalid state."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return {key: npz[key] for key in npz.files}
    except Exception as exc:
        return invalid_state(f"the serialized FMU state cannot be read: {exc}")


class StateCodec:
    """``fmi2GetFMUstate`` / ``fmi2SetFMUstate`` of one instance: everything that
    determines its continuation, as named arrays (``fmu.*`` and ``sim.*``).

    Parameters
    ----------
    model
        The instance's model: its identity (a state of another model is refused) and the
        simulator to build when a state carries other parameter values.
    variables
        The variable table whose values are saved and restored.
    run
        The life-cycle state saved and restored with them.
    log
        Where refusals are logged.

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

    def save(self) -> dict[str, np.ndarray]:
        """Copy of everything that determines the continuation, as named arrays; an
        invalid state (and a refusal) when it cannot be made."""
        table, run = self.variables, self.run
        try:
            state = {
                "fmu.format": np.array(STATE_FORMAT),
                "fmu.model": np.array(self.model.identity, dtype=np.str_),
                "fmu.reals": np.array(table.reals, dtype=np.float64),
                "fmu.ints": np.array(table.ints, dtype=np.int64),
                "fmu.strs": np.array(table.strs, dtype=np.str_),
                "fmu.time": np.array(run.time, dtype=np.float64),
                "fmu.start_time": np.array(run.start_time, dtype=np.float64),
                "fmu.phase": np.array(run.phase, dtype=np.str_),
                "fmu.failure": np.array(run.failure, dtype=np.str_),
                "fmu.dirty": np.array(run.inputs_dirty),
                "fmu.has_sim": np.array(run.sim is not None),
            }
            if run.sim is not None:
                state.update(simulator_arrays(run.sim.get_state()))
            return state
        except Exception as exc:
            message = f"the FMU state could not be saved: {exc}"
            self.log.refuse(message)
            return invalid_state(message)

    def restore(self, state: Mapping[str, np.ndarray]) -> None:
        """Restore a state from :meth:`save` (possibly via bytes).

        The whole blob is checked against :mod:`hydrofmu.runtime.fmi.state_schema` first; a
        refused blob is refused (fmi2Error through the shim) and leaves the instance
        exactly as it was.
        """
        table, run = self.variables, self.run
        if self.log.refused("set_fmu_state", run.phase):
            return
        sim = run.sim
        saved = sim.get_state() if sim is not None else None
        try:
            inputs = np.zeros(len(table.reals), dtype=bool)
            inputs[table.input_lo : table.input_hi] = True
            settable = np.zeros(len(table.reals), dtype=bool)  # the Real parameters
            settable[: table.input_lo] = True
            problem = state_problem(
                state, model=self.model.identity, n_reals=len(table.reals),
                n_ints=len(table.ints), n_strs=len(table.strs), finite_reals=~inputs,
                states=fsm.STATES, parameters=settable,
            )
            if problem:
                self.log.refuse(f"fmi2SetFMUstate refused, the instance is unchanged: {problem}")
                return
            reals = state["fmu.reals"].tolist()
            ints = [int(v) for v in state["fmu.ints"]]
            strs = [str(v) for v in state["fmu.strs"]]
            parameters = None
            if bool(state["fmu.has_sim"]):
                parameters = table.parameters_from(reals, ints, strs)
                if sim is None or parameters != run.sim_parameters:
                    sim = self.model.simulator(parameters)
                    saved = None
                problem = sim_problem(state, sim.get_state())
                if problem:
                    self.log.refuse(
                        f"fmi2SetFMUstate refused, the instance is unchanged: {problem}")
                    self._restore_sim(saved)
                    return
                sim.set_state(simulator_state(state))
            else:
                sim = None
        except HydroFMUError as exc:
            self._restore_sim(saved)
            self.log.refuse(
                f"the FMU state could not be restored, the instance is unchanged: {exc}")
            return
        except Exception as exc:
            self._restore_sim(saved)
            self.log.internal("_set_fmu_state", exc)
            return
        table.restore_values(reals, ints, strs)
        run.attach(sim, parameters)
        run.time = float(state["fmu.time"])
        run.start_time = float(state["fmu.start_time"])
        run.phase = str(state["fmu.phase"])
        run.failure = str(state["fmu.failure"])
        run.inputs_dirty = bool(state["fmu.dirty"])

    def _restore_sim(self, saved: dict[str, np.ndarray] | None) -> None:
        """Put the current simulator back to ``saved`` (its state before a refused set)."""
        if saved is not None and self.run.sim is not None:
            self.run.sim.set_state(saved)
