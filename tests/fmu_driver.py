"""Drive built hydrofmu FMUs in a process where the ``hydrofmu`` package is NOT importable.

Run by ``tests/test_fmu.py`` as ``python -I fmu_driver.py <scenario> <request.json>``;
writes the scenario's JSON result to ``request["result"]``. ``-I`` keeps PYTHONPATH, the
user site and the script folder out of ``sys.path``; the editable install of hydrofmu is a
``.pth`` entry in site-packages, so every ``sys.path`` entry holding a ``hydrofmu`` package
is removed below and ``hydrofmu`` is checked to be unimportable. Every result records which
``_hydrofmu_*`` packages the FMUs loaded and that ``hydrofmu`` was never imported, so a test
can prove that the FMU ran its own bundled code.

Only fmpy, libcosimpy, numpy and the standard library are used here.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if not (Path(p or ".") / "hydrofmu").is_dir()]

import importlib.util  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
from fmpy import extract, read_model_description  # noqa: E402
from fmpy.fmi1 import FMICallException  # noqa: E402
from fmpy.fmi2 import (  # noqa: E402
    FMU2Slave,
    fmi2CallbackAllocateMemoryTYPE,
    fmi2CallbackFreeMemoryTYPE,
    fmi2CallbackFunctions,
    fmi2CallbackLoggerTYPE,
)

if importlib.util.find_spec("hydrofmu") is not None:  # pragma: no cover - environment check
    raise SystemExit("fmu_driver: 'hydrofmu' is importable; the FMU would not be isolated")


def _isolation() -> dict[str, Any]:
    return {
        "hydrofmu_imported": any(m == "hydrofmu" or m.startswith("hydrofmu.") for m in sys.modules),
        "bundled_packages": sorted(
            m for m in sys.modules if m.startswith("_hydrofmu_") and "." not in m
        ),
    }


class Instance:
    """An fmpy ``FMU2Slave`` with a Python logger that records every message."""

    def __init__(self, fmu_path: str, name: str = "instance", *, logging_on: bool = True) -> None:
        self.md = read_model_description(fmu_path)
        self.unzipdir = extract(fmu_path)
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.var = {v.name: v for v in self.md.modelVariables}
        self.messages: list[tuple[int, str, str]] = []
        self._callbacks = fmi2CallbackFunctions()
        self._callbacks.logger = fmi2CallbackLoggerTYPE(self._log)
        from fmpy import calloc, free

        self._callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self._callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        self.fmu = FMU2Slave(
            guid=self.md.guid,
            unzipDirectory=self.unzipdir,
            modelIdentifier=self.md.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self.fmu.instantiate(callbacks=self._callbacks, loggingOn=logging_on)
        self.time = 0.0

    def _log(self, env: Any, instance: bytes, status: int, category: bytes, message: bytes) -> None:
        self.messages.append(
            (int(status), (category or b"").decode(), (message or b"").decode(errors="replace"))
        )

    def start(self, parameters: dict[str, Any] | None = None, t0: float = 0.0) -> list[int]:
        """Set up, set parameters in initialization mode, exit it; return the statuses."""
        self.fmu.setupExperiment(startTime=t0)
        self.fmu.enterInitializationMode()
        for name, value in (parameters or {}).items():
            self.set(name, value)
        status = self.call(self.fmu.exitInitializationMode)
        self.time = t0
        return [status]

    def set(self, name: str, value: Any) -> None:
        kind = self.var[name].type
        vr = [self.vr[name]]
        if kind == "Real":
            self.fmu.setReal(vr, [float(value)])
        elif kind in ("Integer", "Enumeration"):
            self.fmu.setInteger(vr, [int(value)])
        else:
            self.fmu.setString(vr, [str(value)])

    def call(self, function: Callable[..., Any], *args: Any) -> int:
        """Call an FMI function; return its status instead of raising."""
        try:
            function(*args)
        except FMICallException as exc:
            return int(exc.status)
        return 0

    def step(self, h: float) -> int:
        status = self.call(self.fmu.doStep, self.time, h)
        if status == 0:
            self.time += h
        return status

    def get(self, names: list[str]) -> np.ndarray:
        return np.array(self.fmu.getReal([self.vr[n] for n in names]))

    def close(self) -> None:
        # fmi2Terminate is refused (fmi2Error) where FMI 2.0 does not allow it, e.g. right
        # after fmi2Reset (state "instantiated"); the instance is freed all the same.
        self.call(self.fmu.terminate)
        self.fmu.freeInstance()
        shutil.rmtree(self.unzipdir, ignore_errors=True)


def _outputs(md: Any) -> list[str]:
    return [v.name for v in md.modelVariables if v.causality == "output"]


def _run(inst: Instance, steps: int, h: float, inputs: dict[str, float]) -> list[list[float]]:
    names = _outputs(inst.md)
    rows = []
    for _ in range(steps):
        for name, value in inputs.items():
            inst.set(name, value)
        status = inst.step(h)
        if status != 0:
            raise RuntimeError(f"doStep status {status}: {inst.messages[-3:]}")
        rows.append(inst.get(names).tolist())
    return rows


# ---------------------------------------------------------------------------- scenarios
def scenario_simulate(req: dict[str, Any]) -> dict[str, Any]:
    """fmpy.simulate_fmu with a PTO force input signal."""
    from fmpy import simulate_fmu

    md = read_model_description(req["fmu"])
    inputs = [v.name for v in md.modelVariables if v.causality == "input"]
    t = np.asarray(req["input_time"], dtype=float)
    signal = np.zeros(t.size, dtype=[("time", np.float64)] + [(n, np.float64) for n in inputs])
    signal["time"] = t
    for name, values in req["inputs"].items():
        signal[name] = np.asarray(values, dtype=float)
    result = simulate_fmu(
        req["fmu"],
        start_time=0.0,
        stop_time=req["stop_time"],
        output_interval=req["dt"],
        input=signal,
        output=req["outputs"],
        start_values=req.get("parameters", {}),
    )
    return {
        "time": result["time"].tolist(),
        "outputs": {name: result[name].tolist() for name in req["outputs"]},
    }


def scenario_nan_input(req: dict[str, Any]) -> dict[str, Any]:
    """A NaN PTO force: doStep must give a non-OK status, a message, finite outputs."""
    inst = Instance(req["fmu"])
    inst.start()
    names = _outputs(inst.md)
    h = req["dt"]
    _run(inst, 5, h, {})
    before = inst.get(names)
    inst.messages.clear()
    inst.set(req["input_name"], float("nan"))
    nan_status = inst.step(h)
    nan_messages = list(inst.messages)
    after = inst.get(names)
    inst.set(req["input_name"], 0.0)
    recover_status = inst.step(h)
    inst.close()
    return {
        "nan_status": nan_status,
        "messages": nan_messages,
        "outputs_finite": bool(np.all(np.isfinite(after))),
        "outputs_unchanged": bool(np.array_equal(before, after)),
        "recover_status": recover_status,
    }


def scenario_bad_parameter(req: dict[str, Any]) -> dict[str, Any]:
    """A bad parameter value: statuses and messages of initialization and the first step."""
    inst = Instance(req["fmu"])
    exit_status = inst.start({req["name"]: req["value"]})[0]
    exit_messages = list(inst.messages)
    inst.messages.clear()
    step_status = inst.step(req["dt"])
    step_messages = list(inst.messages)
    outputs = inst.get(_outputs(inst.md))
    inst.close()
    return {
        "exit_status": exit_status,
        "exit_messages": exit_messages,
        "step_status": step_status,
        "step_messages": step_messages,
        "outputs_finite": bool(np.all(np.isfinite(outputs))),
    }


def scenario_diverge(req: dict[str, Any]) -> dict[str, Any]:
    """An unstable scheme/step: the diverging step must be refused, not produce NaN."""
    inst = Instance(req["fmu"])
    inst.start(req["parameters"])
    names = _outputs(inst.md)
    statuses = []
    last_good = inst.get(names)
    for _ in range(req["max_steps"]):
        status = inst.step(req["dt"])
        statuses.append(status)
        if status != 0:
            break
        last_good = inst.get(names)
    after = inst.get(names)
    messages = list(inst.messages)
    inst.close()
    return {
        "statuses": statuses,
        "messages": messages,
        "outputs_finite": bool(np.all(np.isfinite(after))),
        "outputs_kept": bool(np.array_equal(after, last_good)),
    }


def scenario_state(req: dict[str, Any]) -> dict[str, Any]:
    """Get/set and serialize/deserialize the FMU state; continuations must be identical."""
    h, n1, n2 = req["dt"], req["steps_before"], req["steps_after"]
    force = {req["input_name"]: req["input_value"]}
    inst = Instance(req["fmu"], "a")
    inst.start(req.get("parameters"))
    _run(inst, n1, h, force)
    t_saved = inst.time
    state = inst.fmu.getFMUstate()
    blob = bytes(inst.fmu.serializeFMUstate(state))
    reference = _run(inst, n2, h, force)

    inst.fmu.setFMUstate(state)
    inst.time = t_saved
    restored = _run(inst, n2, h, force)
    inst.fmu.freeFMUstate(state)

    # Into a fresh instance that was only instantiated and initialized with defaults.
    fresh = Instance(req["fmu"], "b")
    fresh.start()
    state2 = fresh.fmu.deSerializeFMUstate(blob)
    fresh.fmu.setFMUstate(state2)
    fresh.fmu.freeFMUstate(state2)
    fresh.time = t_saved
    deserialized = _run(fresh, n2, h, force)
    messages = inst.messages + fresh.messages

    # Bytes that are not a state: restoring them is refused with a message.
    fresh.messages.clear()
    garbage = fresh.fmu.deSerializeFMUstate(b"not an FMU state")
    garbage_status = fresh.call(fresh.fmu.setFMUstate, garbage)
    garbage_messages = list(fresh.messages)
    after_garbage = fresh.step(h)
    inst.close()
    fresh.close()
    return {
        "reference": reference,
        "restored": restored,
        "deserialized": deserialized,
        "state_bytes": len(blob),
        "messages": messages,
        "garbage_status": garbage_status,
        "garbage_messages": garbage_messages,
        "step_after_garbage": after_garbage,
    }


def scenario_instances(req: dict[str, Any]) -> dict[str, Any]:
    """Several instances (of one or several FMUs) stepped alternately vs each one alone."""
    runs = req["runs"]  # [{"fmu":..., "inputs": {...}}, ...]
    h, n = req["dt"], req["steps"]
    solo = []
    for k, run in enumerate(runs):
        inst = Instance(run["fmu"], f"solo{k}")
        inst.start()
        solo.append(_run(inst, n, h, run["inputs"]))
        inst.close()
    together = [Instance(run["fmu"], f"together{k}") for k, run in enumerate(runs)]
    rows: list[list[list[float]]] = [[] for _ in runs]
    for inst in together:
        inst.start()
    for _ in range(n):
        for k, (inst, run) in enumerate(zip(together, runs, strict=True)):
            rows[k].extend(_run(inst, 1, h, run["inputs"]))
    model_names = [inst.md.modelName for inst in together]
    for inst in together:
        inst.close()
    return {"solo": solo, "together": rows, "model_names": model_names}


def scenario_cosim(req: dict[str, Any]) -> dict[str, Any]:
    """Step the FMU with libcosim (constant PTO force by an override manipulator)."""
    from libcosimpy.CosimEnums import CosimVariableType
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave

    log_output_level(CosimLogLevel.WARNING)
    md = read_model_description(req["fmu"])
    vr = {v.name: v.valueReference for v in md.modelVariables}
    step_ns = round(req["dt"] * 1e9)
    n = req["steps"]
    execution = CosimExecution.from_step_size(step_ns)
    slave = CosimLocalSlave(fmu_path=req["fmu"], instance_name="hydro")
    index = execution.add_local_slave(slave)
    observer = CosimObserver.create_time_series(buffer_size=n + 10)
    execution.add_observer(observer)
    manipulator = CosimManipulator.create_override()
    execution.add_manipulator(manipulator)
    for name in req["outputs"]:
        observer.start_time_series(index, vr[name], CosimVariableType.REAL)
    for name, value in req["inputs"].items():
        execution.real_initial_value(index, vr[name], float(value))
    for name, value in req["inputs"].items():
        manipulator.slave_real_values(index, [vr[name]], [float(value)])
    ok = execution.simulate_until(target_time=n * step_ns)
    series = {}
    times: list[int] = []
    for name in req["outputs"]:
        # From step 1: libcosimpy trims a sample per step number 0 it finds (it takes
        # them for unfilled slots), so from step 0 it drops the newest sample.
        times, _steps, values = observer.time_series_real_samples(
            index, vr[name], from_step=1, sample_count=n
        )
        series[name] = list(values)
    status = execution.status()
    return {
        "ok": bool(ok),
        "time_ns": list(times),
        "outputs": series,
        "current_time_ns": int(status.current_time),
        "error_code": int(status.error_code),
    }


def scenario_broken_model(req: dict[str, Any]) -> dict[str, Any]:
    """An FMU whose payload is unreadable: instantiation must fail cleanly, with a message."""
    messages: list[tuple[int, str, str]] = []

    class Probe(Instance):
        def _log(self, *args: Any) -> None:
            super()._log(*args)
            messages.extend(self.messages[-1:])

    try:
        Probe(req["fmu"], "broken")
    except Exception as exc:  # fmpy raises a plain Exception when fmi2Instantiate gives NULL
        return {"instantiated": False, "error": str(exc), "messages": messages}
    return {"instantiated": True, "error": "", "messages": messages}


def scenario_sweep(req: dict[str, Any]) -> dict[str, Any]:
    """Several runs of one FMU, each in a fresh instance with its own parameters: the
    statuses, the requested outputs after every communication step, the messages."""
    results = []
    for k, run in enumerate(req["runs"]):
        inst = Instance(req["fmu"], f"sweep{k}")
        inst.start(run["parameters"])
        rows, statuses = [], []
        for _ in range(run["steps"]):
            status = inst.step(run["dt"])
            statuses.append(status)
            rows.append(inst.get(run["outputs"]).tolist())
            if status != 0:
                break
        results.append({"rows": rows, "statuses": statuses, "messages": list(inst.messages)})
        inst.close()
    return {"runs": results}


def scenario_series(req: dict[str, Any]) -> dict[str, Any]:
    """Set ``start`` values in initialization mode, constant inputs before every step; the
    outputs after each step and every logged message (as the C host in tests/c_host)."""
    inst = Instance(req["fmu"])
    inst.start(req.get("start", {}))
    rows = _run(inst, req["steps"], req["dt"], req.get("inputs", {}))
    names = _outputs(inst.md)
    inst.close()
    index = [names.index(n) for n in req["outputs"]]
    return {
        "outputs": {
            n: [row[i] for row in rows] for n, i in zip(req["outputs"], index, strict=True)
        },
        "messages": inst.messages,
    }


def scenario_cycles(req: dict[str, Any]) -> dict[str, Any]:
    """Repeated instantiate / step / free of one unpacked FMU in one process, as an importer
    does: resident memory after each cycle, and the outputs of the first and last cycles."""
    from fmpy import calloc, free

    def rss_kib() -> int:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS in /proc/self/status")

    md = read_model_description(req["fmu"])
    unzipdir = extract(req["fmu"])
    vr = {v.name: v.valueReference for v in md.modelVariables}
    out = [vr[req["output"]]]
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(lambda *args: None)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    rss, first, last = [], None, None
    h = req["dt"]
    for k in range(req["cycles"]):
        fmu = FMU2Slave(
            guid=md.guid,
            unzipDirectory=unzipdir,
            modelIdentifier=md.coSimulation.modelIdentifier,
            instanceName=f"cycle{k}",
        )
        fmu.instantiate(callbacks=callbacks, loggingOn=False)
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        series = []
        for i in range(req["steps"]):
            fmu.doStep(i * h, h)
            series.append(fmu.getReal(out)[0])
        fmu.terminate()
        fmu.freeInstance()
        first = series if first is None else first
        last = series
        rss.append(rss_kib())
    shutil.rmtree(unzipdir, ignore_errors=True)
    return {"rss_kib": rss, "first": first, "last": last}


def scenario_reset(req: dict[str, Any]) -> dict[str, Any]:
    """Run, fmi2Reset, run again with the same start values and inputs: both series."""
    inst = Instance(req["fmu"])
    runs = []
    for _ in range(2):
        inst.start(req.get("start", {}))
        rows = _run(inst, req["steps"], req["dt"], req.get("inputs", {}))
        runs.append(rows)
        inst.fmu.reset()
    inst.close()
    return {"runs": runs}


SCENARIOS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "series": scenario_series,
    "cycles": scenario_cycles,
    "reset": scenario_reset,
    "sweep": scenario_sweep,
    "diverge": scenario_diverge,
    "simulate": scenario_simulate,
    "nan_input": scenario_nan_input,
    "bad_parameter": scenario_bad_parameter,
    "state": scenario_state,
    "instances": scenario_instances,
    "cosim": scenario_cosim,
    "broken_model": scenario_broken_model,
}


def main(argv: list[str]) -> int:
    scenario, request_path = argv[1], Path(argv[2])
    req = json.loads(request_path.read_text())
    tempfile.tempdir = req.get("tempdir") or tempfile.gettempdir()
    result = SCENARIOS[scenario](req)
    result["isolation"] = _isolation()
    Path(req["result"]).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
