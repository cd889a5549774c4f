"""A small fixed-step co-simulation master over fmpy: several FMI 2.0 co-simulation FMUs,
Real connections, Jacobi or Gauss-Seidel coupling.

Build-time tooling (uses fmpy), not bundled in the FMU. It exists to couple the body FMU
to a controller FMU without a third-party master, for examples and tests; for production
co-simulation use libcosim (OSP), an SSP-capable tool or the importer of your choice
(``docs/importers.md``).

Coupling algorithms, chosen by name (:data:`ALGORITHMS`):

- ``jacobi``: every FMU steps from ``t`` to ``t + h`` with the inputs it had at ``t``;
  then all outputs are passed along the connections.
- ``gauss-seidel``: the FMUs step one after the other in ``order``; after each step its
  outputs are passed on at once, so an FMU later in the order steps with inputs from the
  end of the step of the earlier ones.

Before the first step, and after every exchange, outputs with direct feedthrough are
refreshed by passing the connections ``feedthrough_passes`` times (outputs read after
inputs were set; FMI 2.0 allows ``fmi2GetReal`` after ``fmi2SetReal`` at one time).

Example
-------
>>> master = FixedStepMaster(                                    # doctest: +SKIP
...     fmus={"body": "HydroFMU.fmu", "pto": "PTOController.fmu"},
...     connections=[("body.body.velocity[3]", "pto.velocity"),
...                  ("pto.force", "body.body.F_pto[3]")],
...     step_size=0.05, algorithm="gauss-seidel", order=["pto", "body"])
>>> result = master.run(100.0, record=["body.body.pose[3]"])   # doctest: +SKIP
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import ConfigError


class _Instance:
    """One fmpy ``FMU2Slave`` with its value references by variable name."""

    def __init__(self, name: str, path: Path) -> None:
        from fmpy import extract, read_model_description
        from fmpy.fmi2 import FMU2Slave

        self.name = name
        self.md = read_model_description(str(path))
        if self.md.coSimulation is None:
            raise ConfigError(f"FMU '{path}' ({name}) has no co-simulation interface", value=name)
        self.vars = {v.name: v for v in self.md.modelVariables}
        self.unzipdir = extract(str(path))
        self.fmu = FMU2Slave(
            guid=self.md.guid,
            unzipDirectory=self.unzipdir,
            modelIdentifier=self.md.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self.instantiated = False
        self.initialized = False

    def variable(self, name: str, causality: str) -> Any:
        var = self.vars.get(name)
        if var is None:
            close = [n for n in self.vars if name.split("[")[0] in n][:5]
            raise ConfigError(
                f"FMU instance '{self.name}' has no variable '{name}'"
                + (f"; similar: {close}" if close else ""),
                value=name,
            )
        if var.type != "Real":
            raise ConfigError(f"'{self.name}.{name}' is {var.type}; only Real connects", value=name)
        if causality and var.causality != causality:
            raise ConfigError(
                f"'{self.name}.{name}' is {var.causality}; a connection needs an {causality}",
                value=name,
            )
        return var

    def set_start(self, name: str, value: float | int | bool | str) -> None:
        """Set a start value with the setter of the variable's type (in init mode)."""
        var = self.vars.get(name)
        if var is None:
            raise ConfigError(f"FMU instance '{self.name}' has no variable '{name}'", value=name)
        vr = [var.valueReference]
        if var.type == "Real":
            self.fmu.setReal(vr, [float(value)])
        elif var.type in ("Integer", "Enumeration"):
            if isinstance(value, bool) or float(value) != int(value):
                raise ConfigError(
                    f"start value of '{self.name}.{name}' ({var.type}) must be an integer, "
                    f"got {value!r}", value=value)
            self.fmu.setInteger(vr, [int(value)])
        elif var.type == "Boolean":
            if not isinstance(value, bool):
                raise ConfigError(
                    f"start value of '{self.name}.{name}' (Boolean) must be true or false, "
                    f"got {value!r}", value=value)
            self.fmu.setBoolean(vr, [value])
        else:
            self.fmu.setString(vr, [str(value)])

    def close(self) -> None:
        # Only the calls the FMI state machine allows: terminate after initialization,
        # free an instantiated component (a NULL component crashes some wrappers).
        if self.initialized:
            self.fmu.terminate()
        if self.instantiated:
            self.fmu.freeInstance()
        self.instantiated = self.initialized = False
        shutil.rmtree(self.unzipdir, ignore_errors=True)


def _split(ref: str, instances: Mapping[str, _Instance]) -> tuple[str, str]:
    instance, dot, variable = ref.partition(".")
    if not dot or instance not in instances:
        raise ConfigError(
            f"'{ref}' must be '<instance>.<variable>' with an instance among {sorted(instances)}",
            value=ref,
        )
    return instance, variable


class FixedStepMaster:
    """Fixed-step co-simulation of FMI 2.0 co-simulation FMUs through fmpy.

    Parameters
    ----------
    fmus
        Instance name -> path of the ``.fmu``.
    connections
        ``(source, target)`` pairs of ``"<instance>.<variable>"``: a Real output to a Real
        input.
    step_size
        Communication step, s (> 0).
    algorithm
        A key of :data:`ALGORITHMS`: ``"jacobi"`` or ``"gauss-seidel"``.
    order
        Instance names in stepping order (Gauss-Seidel); default: the order of ``fmus``.
    start_values
        Instance name -> {variable name: value}, set in initialization mode with the
        setter of the variable's type (Real, Integer, Boolean, String).
    feedthrough_passes
        How many times the connections are passed at one communication point (2 covers
        a loop through one direct-feedthrough FMU).

    Raises
    ------
    ConfigError
        An unknown algorithm, instance or variable, a connection that is not output ->
        input, a step that is not positive.
    """

    def __init__(
        self,
        *,
        fmus: Mapping[str, str | Path],
        connections: Sequence[tuple[str, str]],
        step_size: float,
        algorithm: str = "jacobi",
        order: Sequence[str] | None = None,
        start_values: Mapping[str, Mapping[str, float | int | bool | str]] | None = None,
        feedthrough_passes: int = 2,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ConfigError(
                f"unknown coupling algorithm {algorithm!r}; choose one of {sorted(ALGORITHMS)}",
                value=algorithm,
            )
        if not (float(step_size) > 0.0 and np.isfinite(step_size)):
            raise ConfigError(f"step_size must be a positive number of seconds, got {step_size!r}")
        self.algorithm = algorithm
        self.step_size = float(step_size)
        self.order = list(order) if order is not None else list(fmus)
        if sorted(self.order) != sorted(fmus):
            raise ConfigError(
                f"order {self.order} must name each instance of {sorted(fmus)} once",
                value=self.order,
            )
        self.feedthrough_passes = int(feedthrough_passes)
        self._paths = {name: Path(p) for name, p in fmus.items()}
        self._connections = list(connections)
        self._start_values = {k: dict(v) for k, v in (start_values or {}).items()}
        self.instances: dict[str, _Instance] = {}

    # ------------------------------------------------------------------ set-up
    def _open(self) -> None:
        for name, path in self._paths.items():
            if not path.is_file():
                raise ConfigError(f"FMU '{path}' ({name}) does not exist", value=str(path))
            self.instances[name] = _Instance(name, path)
        self._links: list[tuple[_Instance, int, _Instance, int]] = []
        for source, target in self._connections:
            si, sv = _split(source, self.instances)
            ti, tv = _split(target, self.instances)
            src = self.instances[si].variable(sv, "output")
            dst = self.instances[ti].variable(tv, "input")
            self._links.append(
                (self.instances[si], src.valueReference, self.instances[ti], dst.valueReference)
            )
        for name in self._start_values:
            if name not in self.instances:
                raise ConfigError(f"start_values name unknown instance '{name}'", value=name)

    def pass_connections(self, sources: set[str] | None = None) -> None:
        """Pass every connection (or those from ``sources``) output -> input.

        Part of the master's public face for its coupling algorithms (:data:`ALGORITHMS`).
        """
        for src, svr, dst, dvr in self._links:
            if sources is None or src.name in sources:
                dst.fmu.setReal([dvr], src.fmu.getReal([svr]))

    def exchange(self) -> None:
        """Pass every connection ``feedthrough_passes`` times (direct feedthrough settles)."""
        for _ in range(self.feedthrough_passes):
            self.pass_connections()

    # ------------------------------------------------------------------ run
    def run(self, stop_time: float, *, record: Sequence[str] = ()) -> dict[str, np.ndarray]:
        """Simulate from 0 to ``stop_time``; return ``time`` and every recorded variable.

        Parameters
        ----------
        stop_time
            s; the number of steps is ``round(stop_time / step_size)``.
        record
            ``"<instance>.<variable>"`` of any Real variable, read at every communication
            point (t = 0 included).
        """
        self._open()
        try:
            probes = []
            for ref in record:
                inst, var = _split(ref, self.instances)
                probes.append((self.instances[inst], self.instances[inst].variable(var, "")))
            for name in self.order:
                inst = self.instances[name]
                inst.fmu.instantiate(loggingOn=False)
                inst.instantiated = True
                inst.fmu.setupExperiment(startTime=0.0)
                inst.fmu.enterInitializationMode()
                for var, value in self._start_values.get(name, {}).items():
                    inst.set_start(var, value)
                inst.fmu.exitInitializationMode()
                inst.initialized = True
            self.exchange()
            n = round(stop_time / self.step_size)
            h = self.step_size
            rows = np.empty((n + 1, len(probes)))
            rows[0] = [p.fmu.getReal([v.valueReference])[0] for p, v in probes]
            step = ALGORITHMS[self.algorithm]
            for k in range(n):
                step(self, k * h, h)
                rows[k + 1] = [p.fmu.getReal([v.valueReference])[0] for p, v in probes]
            result = {"time": np.arange(n + 1) * h}
            result.update({ref: rows[:, i] for i, ref in enumerate(record)})
            return result
        finally:
            for inst in self.instances.values():
                try:
                    inst.close()
                except Exception:
                    pass
            self.instances = {}


def _jacobi(master: FixedStepMaster, t: float, h: float) -> None:
    for name in master.order:
        master.instances[name].fmu.doStep(t, h)
    master.exchange()


def _gauss_seidel(master: FixedStepMaster, t: float, h: float) -> None:
    for name in master.order:
        master.instances[name].fmu.doStep(t, h)
        for _ in range(master.feedthrough_passes):
            master.pass_connections({name})
    master.exchange()


#: Coupling algorithms by name.
ALGORITHMS: dict[str, Callable[[FixedStepMaster, float, float], None]] = {
    "jacobi": _jacobi,
    "gauss-seidel": _gauss_seidel,
}
