"""The FMU state: named numpy arrays, their serialization (no pickle) and the slave's
state hooks (:class:`FmiStateHooks`, a mixin of :class:`~hydrofmu.runtime.fmi.slave.HydroSlave`).

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
from ..simulator.simulator import Simulator
from . import state_machine as fsm
from .state_schema import SIM_PREFIX, STATE_FORMAT, sim_problem, state_problem


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


class FmiStateHooks:
    """``fmi2GetFMUstate`` / ``fmi2SetFMUstate`` and the serialization of
    :class:`~hydrofmu.runtime.fmi.slave.HydroSlave` (pythonfmu calls these hooks)."""

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
            self._refuse(message)
            return invalid_state(message)

    def _set_fmu_state(self, state: Mapping[str, np.ndarray]) -> None:
        """Restore a state from :meth:`_get_fmu_state` (possibly via bytes).

        The whole blob is checked against :mod:`hydrofmu.runtime.fmi.state_schema` first; a refused
        blob is refused (fmi2Error through the shim) and leaves the instance exactly as it
        was.
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
                self._refuse(f"fmi2SetFMUstate refused, the instance is unchanged: {problem}")
                return
            reals = state["fmu.reals"].tolist()
            ints = [int(v) for v in state["fmu.ints"]]
            strs = [str(v) for v in state["fmu.strs"]]
            parameters = None
            if bool(state["fmu.has_sim"]):
                parameters = self._parameters_from(reals, ints, strs)
                if sim is None or parameters != self._sim_parameters:
                    sim = Simulator.from_payload(self._bodies, self._config, parameters,
                                                 parts=self._parts)
                    saved = None
                problem = sim_problem(state, sim.get_state())
                if problem:
                    self._refuse(f"fmi2SetFMUstate refused, the instance is unchanged: {problem}")
                    self._restore_sim(saved)
                    return
                sim.set_state(simulator_state(state))
            else:
                sim = None
        except HydroFMUError as exc:
            self._restore_sim(saved)
            self._refuse(f"the FMU state could not be restored, the instance is unchanged: {exc}")
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
        self._cache_step_limits()

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
