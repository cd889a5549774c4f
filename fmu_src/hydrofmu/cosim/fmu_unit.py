"""One FMU instance driven by name (build side): the thin face the coupling master needs
over FMPy's ``FMU2Slave`` -- values by name, steps, FMU states, input derivatives and
directional derivatives."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import InputError

__all__ = ["FmuUnit"]


class FmuUnit:
    """An instantiated FMU (FMI 2.0 co-simulation) whose variables are addressed by name.

    Parameters
    ----------
    path
        The ``.fmu`` file.
    instance_name
        Its instance name.
    start_time
        The experiment's start time, s.
    parameters
        Start values set in initialization mode, by name (Real or Integer).

    Attributes
    ----------
    refs, types
        Variable name -> value reference, and -> ``"Real"`` / ``"Integer"`` / ...
    model_description
        FMPy's model description of the FMU.
    time
        The FMU's current time, s.
    """

    def __init__(self, path: str | Path, instance_name: str, *, start_time: float = 0.0,
                 parameters: dict[str, float] | None = None) -> None:
        from fmpy import extract, read_model_description
        from fmpy.fmi2 import FMU2Slave

        self.model_description = md = read_model_description(str(path))
        self.refs = {v.name: v.valueReference for v in md.modelVariables}
        self.types = {v.name: v.type for v in md.modelVariables}
        self._unzipped = extract(str(path))
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=self._unzipped,
                             modelIdentifier=md.coSimulation.modelIdentifier,
                             instanceName=instance_name)
        self.fmu.instantiate()
        try:
            self.fmu.setupExperiment(startTime=start_time)
            self.fmu.enterInitializationMode()
            for name, value in (parameters or {}).items():
                self._check(name)
                if self.types[name] in ("Integer", "Enumeration"):
                    self.fmu.setInteger([self.refs[name]], [int(value)])
                else:
                    self.fmu.setReal([self.refs[name]], [float(value)])
            self.fmu.exitInitializationMode()
        except Exception:
            import shutil

            self.fmu.freeInstance()
            shutil.rmtree(self._unzipped, ignore_errors=True)
            raise
        self.time = float(start_time)

    def _check(self, name: str) -> None:
        if name not in self.refs:
            raise InputError(f"the FMU '{self.model_description.modelName}' has no variable "
                             f"{name!r}", value=name)

    def vrs(self, names: Sequence[str]) -> list[int]:
        """Value references of ``names`` (each checked)."""
        for n in names:
            self._check(n)
        return [self.refs[n] for n in names]

    def get(self, names: Sequence[str]) -> NDArray[np.float64]:
        """Real values of ``names``."""
        return np.array(self.fmu.getReal(self.vrs(names)), dtype=float)

    def set(self, names: Sequence[str], values: Any) -> None:
        """Set the Real variables ``names`` to ``values``."""
        self.fmu.setReal(self.vrs(names), [float(v) for v in np.ravel(values)])

    def set_derivatives(self, names: Sequence[str], order: int, values: Any) -> None:
        """``fmi2SetRealInputDerivatives`` of ``order`` for the inputs ``names``."""
        self.fmu.setRealInputDerivatives(self.vrs(names), [order] * len(names),
                                         [float(v) for v in np.ravel(values)])

    def do_step(self, h: float) -> None:
        """Advance by ``h`` s from :attr:`time`."""
        self.fmu.doStep(currentCommunicationPoint=self.time, communicationStepSize=h)
        self.time += h

    def get_state(self) -> Any:
        """The FMU state (``fmi2GetFMUstate``) with the unit's time."""
        return self.fmu.getFMUstate(), self.time

    def set_state(self, state: Any) -> None:
        """Restore a state of :meth:`get_state` (it stays valid, for another rollback)."""
        self.fmu.setFMUstate(state[0])
        self.time = state[1]

    def free_state(self, state: Any) -> None:
        """Free a state of :meth:`get_state`."""
        self.fmu.freeFMUstate(state[0])

    def jacobian(self, unknowns: Sequence[str], knowns: Sequence[str]) -> NDArray[np.float64]:
        """``d unknowns / d knowns`` by ``fmi2GetDirectionalDerivative``, one column per
        known, shape (len(unknowns), len(knowns))."""
        u, k = self.vrs(unknowns), self.vrs(knowns)
        cols = []
        for j in range(len(k)):
            seed = [0.0] * len(k)
            seed[j] = 1.0
            cols.append(self.fmu.getDirectionalDerivative(u, k, seed))
        return np.array(cols, dtype=float).T

    def close(self) -> None:
        """Terminate and free the instance and its unpacked folder."""
        import shutil

        try:
            self.fmu.terminate()
        finally:
            self.fmu.freeInstance()
            shutil.rmtree(self._unzipped, ignore_errors=True)
