"""A seeded random sequence of FMI calls through fmpy's raw functions, where ``hydrofmu`` is
NOT importable: ``python -I fuzz_driver.py FMU CALLS SEED RESULT``.

The sequence (the generator and the choice of calls) is that of the ``fuzz`` mode of
``tests/c_host/native_host.c``; every status is checked against the FMI 2.0 state machine
of ``hydrofmu/fmi_states.py`` (a refused call gives fmi2Error; a step fmi2OK or, for a
non-finite input, fmi2Discard). Writes a JSON summary (counts, or the first mismatch).
Only fmpy and the standard library.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if not (Path(p or ".") / "hydrofmu").is_dir()]

import ctypes  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402

from fmpy import extract, read_model_description  # noqa: E402
from fmpy.fmi2 import FMU2Slave  # noqa: E402

OK, WARNING, DISCARD, ERROR = 0, 1, 2, 3
INST, INIT, STEP, TERM, ERR = range(5)
MASK = (1 << 64) - 1


class Rng:
    """The host's generator: a 64-bit LCG, 31 bits out."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def u32(self) -> int:
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & MASK
        return self.state >> 33

    def real(self) -> float:
        r = self.u32() % 16
        if r == 0:
            return math.nan
        if r == 1:
            return math.inf
        if r < 9:
            return (0.0, -0.0, 1.0, -1.0, 1e300, -1e300, 1e-300)[r - 2]
        return (self.u32() / 4294967296.0 - 0.5) * 2e5


def main(fmu_path: str, calls: int, seed: int, result: str) -> None:
    md = read_model_description(fmu_path)
    outs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
    vr_max = max(v.valueReference for v in md.modelVariables) + 64
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(fmu_path),
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="fuzz")
    fmu.instantiate()
    fn = fmu._functions  # the raw ctypes functions: their status, not fmpy's exception
    c = fmu.component
    rng = Rng(seed)
    state, t, dt = INST, 0.0, 0.1
    counts = {"calls": 0, "steps": 0, "restored": 0}
    saved, saved_state, saved_t = None, INST, 0.0

    def fail(what: str) -> None:
        Path(result).write_text(json.dumps({**counts, "failure": what}))
        raise SystemExit(0)

    def vrs(*values: int) -> ctypes.Array:
        return (ctypes.c_uint * len(values))(*values)

    for i in range(calls):
        counts["calls"] += 1
        op = rng.u32() % 14
        what = f"call {i} op {op} in state {state}"
        if op == 0:
            s = fn["fmi2SetupExperiment"](c, 0, 0.0, 0.0, 0, 0.0)
            if s != (OK if state == INST else ERROR):
                fail(f"{what}: setup -> {s}")
        elif op == 1:
            s = fn["fmi2EnterInitializationMode"](c)
            if s != (OK if state == INST else ERROR):
                fail(f"{what}: enter -> {s}")
            state = INIT if s == OK else state
        elif op == 2:
            s = fn["fmi2ExitInitializationMode"](c)
            if state != INIT and s != ERROR:
                fail(f"{what}: exit -> {s}")
            if state == INIT:  # a parameter set to a bad value fails the initialization
                if s not in (OK, WARNING, ERROR):
                    fail(f"{what}: exit -> {s}")
                state, t = (STEP, 0.0) if s in (OK, WARNING) else (ERR, t)
        elif op in (3, 4, 5):
            h = dt * (1 + rng.u32() % 3) if rng.u32() % 8 else rng.real()
            at = t if rng.u32() % 8 else rng.real()
            s = fn["fmi2DoStep"](c, at, h, 0)
            if state != STEP:
                if s != ERROR:
                    fail(f"{what}: step -> {s}")
            elif math.isfinite(h) and 0 < h < 1e6 and at == t:
                if s == OK:
                    t += h
                    counts["steps"] += 1
                elif s != DISCARD:
                    fail(f"{what}: step({at}, {h}) -> {s}")
            elif s == OK:
                t = at + h
            elif s not in (ERROR, DISCARD):
                fail(f"{what}: step({at}, {h}) -> {s}")
        elif op == 6:
            if rng.u32() % 4:
                continue
            s = fn["fmi2Terminate"](c)
            if s != (OK if state in (STEP, ERR) else ERROR):
                fail(f"{what}: terminate -> {s}")
            state = TERM if s == OK else state
        elif op == 7:
            if rng.u32() % 4 == 0:
                if fn["fmi2Reset"](c) != OK:
                    fail(f"{what}: reset")
                state, t = INST, 0.0
        elif op == 8:
            vr, value = rng.u32() % vr_max, rng.real()
            s = fn["fmi2SetReal"](c, vrs(vr), 1, (ctypes.c_double * 1)(value))
            if s not in (OK, ERROR):
                fail(f"{what}: setReal({vr}, {value}) -> {s}")
        elif op == 9:
            n = rng.u32() % 8
            refs = [outs[rng.u32() % len(outs)] if rng.u32() % 2 else rng.u32() % vr_max
                    for _ in range(n)]
            s = fn["fmi2GetReal"](c, vrs(*refs), n, (ctypes.c_double * max(n, 1))())
            if s not in (OK, ERROR):
                fail(f"{what}: getReal -> {s}")
        elif op == 10:
            vr, value = rng.u32() % vr_max, rng.u32() - (1 << 30)
            setter = rng.u32() % 2
            buf = (ctypes.c_int * 1)(value)
            s = fn["fmi2SetInteger" if setter else "fmi2GetInteger"](c, vrs(vr), 1, buf)
            if s not in (OK, ERROR):
                fail(f"{what}: integer -> {s}")
        elif op == 11:
            vr = rng.u32() % vr_max
            setter = rng.u32() % 2
            buf = (ctypes.c_char_p * 1)(b"rk4")
            s = fn["fmi2SetString" if setter else "fmi2GetString"](c, vrs(vr), 1, buf)
            if s not in (OK, ERROR):
                fail(f"{what}: string -> {s}")
        elif op == 12:
            if saved is not None:
                fn["fmi2FreeFMUstate"](c, ctypes.byref(saved))
            saved = ctypes.c_void_p()
            if fn["fmi2GetFMUstate"](c, ctypes.byref(saved)) != OK:
                fail(f"{what}: getFMUstate")
            saved_state, saved_t = state, t
        elif op == 13 and saved is not None:
            size = ctypes.c_size_t()
            if fn["fmi2SerializedFMUstateSize"](c, saved, ctypes.byref(size)) != OK:
                fail(f"{what}: size")
            data = (ctypes.c_char * size.value)()
            if fn["fmi2SerializeFMUstate"](c, saved, data, size) != OK:
                fail(f"{what}: serialize")
            other = ctypes.c_void_p()
            if rng.u32() % 3 == 0:
                k = rng.u32() % size.value
                data[k] = bytes([data[k][0] ^ (1 + rng.u32() % 255)])
                s = fn["fmi2DeSerializeFMUstate"](c, data, size, ctypes.byref(other))
                if s == OK:
                    fn["fmi2FreeFMUstate"](c, ctypes.byref(other))
                elif s != ERROR:
                    fail(f"{what}: corrupt deserialize -> {s}")
            else:
                if fn["fmi2DeSerializeFMUstate"](c, data, size, ctypes.byref(other)) != OK:
                    fail(f"{what}: deserialize")
                if fn["fmi2SetFMUstate"](c, other) != OK:
                    fail(f"{what}: setFMUstate")
                fn["fmi2FreeFMUstate"](c, ctypes.byref(other))
                state, t = saved_state, saved_t
                counts["restored"] += 1
    if saved is not None:
        fn["fmi2FreeFMUstate"](c, ctypes.byref(saved))
    fmu.freeInstance()
    Path(result).write_text(json.dumps(counts))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
