"""A seeded random sequence of FMI calls through fmpy's raw functions, each status checked
by an oracle, where ``hydrofmu`` is NOT importable:
``python -I fuzz_driver.py FMU CALLS SEED RESULT [native|python]`` (default: ``native``
for an FMU with ``resources/model.bin``).

The arguments reach the extremes: steps up to ``DBL_MAX`` (and 5e-324), start times near
+-1e300 (where ``t + h`` rounds to ``t``), NaN and infinite values, unknown value
references, foreign FMU states. :class:`Oracle` knows the expected status of every call
from the FMI 2.0 co-simulation state machine (section 4.2.4), the model description (each
value reference's type, causality and variability) and the arguments:

- a call out of the state machine, an unknown value reference, an output set, a step with
  ``currentCommunicationPoint`` off the FMU's time, a step size that is not finite and
  ``> 0``, or one for which ``t + h`` rounds to ``t`` (or overflows): fmi2Error;
- a step with a non-finite input: fmi2Discard; any other step: fmi2OK or fmi2Discard (a
  state that diverges, a step too long to discretise);
- after fmi2Discard the step failed state, after a step's fmi2Error the error state: only
  the getters, fmi2SetFMUstate, fmi2Terminate, fmi2Reset remain;
- the load FMU (outputs ``A_inf[i,j]``): a step that is not a whole number of
  ``max_internal_step``: fmi2Error; more than ``max_internal_steps_per_call`` of them:
  fmi2Discard;
- fmi2GetDirectionalDerivative: a NULL array with a nonzero count, a known that is not an
  input, an unknown that is not an output, a non-finite seed or input, a model without it
  (``providesDirectionalDerivative``), the state instantiated: fmi2Error; the refused
  call's unknowns NaN;
- the native FMU's parameters: a tunable one (``variability="tunable"``) takes a finite
  value ``>= 0``, a fixed one only its start value (it was assembled with it).

``native`` (default) checks all of it. ``python``: the Python FMU's documented deviations
(``hydrofmu/runtime/fmi/state_machine.py``: a refused step leaves it in step complete; its
parameters take other values before initialization, so its initialization may fail: the
error state, kept by a state saved there) are allowed, its derivative is expected where the
native one is (in initialization mode it may refuse the parameters set so far; an input
near ``DBL_MAX`` overflows its central difference), and no foreign state is passed
(pythonfmu's wrapper would dereference it). Both: fmi2SetFMUstate restores the saved state
in every state, error included (FMI 2.0, section 2.1.3). Writes a JSON summary (counts, or
the first mismatch). Only fmpy and the standard library.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if not (Path(p or ".") / "hydrofmu").is_dir()]

import ctypes  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import zipfile  # noqa: E402

from fmpy import extract, read_model_description  # noqa: E402
from fmpy.fmi2 import FMU2Slave  # noqa: E402

OK, WARNING, DISCARD, ERROR = 0, 1, 2, 3
INST, INIT, STEP, FAILED, TERM, ERR = range(6)
MASK = (1 << 64) - 1
DBL_MAX = sys.float_info.max
SPECIAL = (0.0, -0.0, 1.0, -1.0, 1e300, -1e300, 1e-300, DBL_MAX, -DBL_MAX, 5e-324)
START_TIMES = (0.0, 0.0, 0.0, 0.0, 0.0, 3.3, 1e17, -1e17, 1e300, -1e300)


class Rng:
    """A 64-bit LCG, 31 bits out (the C host's generator)."""

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
        if r < 2 + len(SPECIAL) and r < 12:
            return SPECIAL[(r - 2 + self.u32()) % len(SPECIAL)]
        return (self.u32() / 4294967296.0 - 0.5) * 2e5


class Oracle:
    """The expected status of every call, and the state and time it leaves."""

    def __init__(self, md: object, flavour: str) -> None:
        self.strict = flavour == "native"
        # an Enumeration (a choice parameter's twin) is set and read as an Integer
        self.vars = {("Integer" if v.type == "Enumeration" else v.type, v.valueReference): v
                     for v in md.modelVariables}
        self.inputs = {v.valueReference: float(v.start or 0.0) for v in md.modelVariables
                       if v.causality == "input" and v.type == "Real"}
        self.outputs = {v.valueReference for v in md.modelVariables
                        if v.causality == "output" and v.type == "Real"}
        self.derivative = bool(md.coSimulation.providesDirectionalDerivative)
        # the load FMU (outputs A_inf[i,j]): steps on the grid of max_internal_step only,
        # at most max_internal_steps_per_call of them (fmi2Discard beyond)
        named = {v.name: v for v in md.modelVariables}
        self.grid = (float(named["max_internal_step"].start)
                     if "A_inf[1,1]" in named and "max_internal_step" in named else None)
        self.limit = float(named["max_internal_steps_per_call"].start
                           if "max_internal_steps_per_call" in named else 1e7)
        self.reset()

    def reset(self) -> None:
        self.state, self.t, self.start = INST, 0.0, 0.0
        self.u = dict(self.inputs)
        self.lost = False  # python: after a refused step, any status until fmi2Reset
        self.init_failed = False  # the error state is a failed initialization's

    def snapshot(self) -> tuple:
        """What fmi2GetFMUstate saves: a state saved in step failed or after a failed step
        is the one before that step (step complete); after a failed initialization, that
        failure (the error state, no simulator)."""
        state = STEP if self.state in (FAILED, ERR) and not self.init_failed else self.state
        return state, self.t, self.start, dict(self.u), self.init_failed

    def restore(self, snap: tuple) -> None:
        """fmi2SetFMUstate of a :meth:`snapshot` (allowed in every state, error included:
        FMI 2.0, section 2.1.3)."""
        self.state, self.t, self.start, u, self.init_failed = snap
        self.u = dict(u)

    def setup(self, start: float) -> set[int]:
        return {OK} if self.state == INST else {ERROR}

    def after_setup(self, status: int, start: float) -> None:
        if status == OK:
            self.start = start

    def exit(self) -> set[int]:
        if self.state != INIT:
            return {ERROR}
        if not self.strict:
            return {OK, WARNING, ERROR}
        # a non-finite input start value: a warning, and zero is used until it is set
        return {WARNING} if not all(math.isfinite(v) for v in self.u.values()) else {OK}

    def after_exit(self, status: int) -> None:
        if self.state != INIT:
            return
        if status in (OK, WARNING):
            self.state, self.t = STEP, self.start
            self.u = {k: v if math.isfinite(v) else 0.0 for k, v in self.u.items()}
        else:
            self.state, self.init_failed = ERR, True

    def step(self, at: float, h: float) -> set[int]:
        if self.state != STEP:
            return {ERROR}
        valid_h = math.isfinite(h) and h > 0.0
        if not valid_h:
            return {ERROR}
        ulp = math.ulp(self.t) if math.isfinite(self.t) else math.inf
        if at != self.t:  # off the FMU's time: refused unless within its tolerance
            near = abs(at - self.t) <= 1e-9 * h + 16.0 * ulp
            return {OK, DISCARD, ERROR} if near else {ERROR}
        if not (self.t + h > self.t and math.isfinite(self.t + h)):
            return {ERROR} if self.strict else {OK, DISCARD, ERROR}
        if not self.strict:  # it checks parameters set before initialization at a step
            return {OK, DISCARD, ERROR}
        if not all(math.isfinite(v) for v in self.u.values()):
            return {DISCARD}
        if self.grid:  # the load FMU
            k = h / self.grid
            if k > self.limit:
                return {DISCARD}
            return {OK} if abs(k - round(k)) <= 1e-6 and round(k) >= 1 else {ERROR}
        return {OK, DISCARD}

    def after_step(self, status: int, at: float, h: float) -> None:
        if not self.strict and status == ERROR and self.state == STEP:
            self.lost = True
        if status == OK:
            self.t = at + h
        elif self.strict and status == DISCARD:
            self.state = FAILED
        elif self.strict and status == ERROR and self.state == STEP:
            self.state = ERR

    def set_value(self, kind: str, vr: int, value: object) -> set[int]:
        v = self.vars.get((kind, vr))
        if v is None or v.causality in ("output", "local", "independent"):
            return {ERROR}
        if v.causality == "input":
            if self.state not in (INST, INIT, STEP):
                return {ERROR}
            # the Python FMU refuses a non-finite input when it is set
            return {OK} if self.strict or math.isfinite(value) else {OK, ERROR}
        if v.variability == "tunable":
            if self.state not in (INST, INIT, STEP):
                return {ERROR}
            if not self.strict:
                return {OK, ERROR}
            return {OK} if isinstance(value, float) and math.isfinite(value) and value >= 0 \
                else {ERROR}
        if self.state not in (INST, INIT):  # fixed: before initialization ends
            return {ERROR}
        if not self.strict:
            return {OK, ERROR}
        return {OK} if _same(v, value) else {ERROR}

    def after_set(self, status: int, kind: str, vr: int, value: object) -> None:
        if status == OK and kind == "Real" and vr in self.u:
            self.u[vr] = value

    def derivative_of(self, unknowns: list[int], knowns: list[int], seeds: list[float],
                      null: bool) -> set[int]:
        """fmi2GetDirectionalDerivative: the outputs' unknowns along the inputs' knowns (a
        NULL array with a nonzero count, another reference, a non-finite seed or input, a
        model without it, or the state instantiated: fmi2Error)."""
        error = (null or self.state == INST
                 or any(vr not in self.outputs for vr in unknowns)
                 or any(vr not in self.inputs for vr in knowns)
                 or not all(math.isfinite(v) for v in seeds)
                 or not all(math.isfinite(v) for v in self.u.values()))
        if self.strict:
            return {ERROR} if error or not self.derivative else {OK}
        # python: answered by its linux64 shim (the fuzzed models have no user parts),
        # whatever the description declares for its other platforms' binaries
        if error or (self.init_failed and self.state in (ERR, TERM)):
            return {ERROR}  # after a failed initialization there is no model
        if self.state == INIT:  # the model is built from the parameters set so far,
            return {OK, ERROR}  # which it may refuse
        if max((abs(v) for v in self.u.values()), default=0.0) > 1e300:
            return {OK, ERROR}  # the central difference's step of |u| overflows
        return {OK}

    def get_values(self, kind: str, vrs: list[int]) -> set[int]:
        if self.state == INST or any((kind, vr) not in self.vars for vr in vrs):
            return {ERROR}
        return {OK}


def _same(v: object, value: object) -> bool:
    """``value`` is the variable's start value (the only one a native fixed parameter takes)."""
    if v.start is None:
        return False
    if v.type == "Real":
        a, b = float(v.start), float(value)
        return a == b or (math.isnan(a) and math.isnan(b))
    if v.type in ("Integer", "Enumeration"):
        return int(v.start) == value
    return str(v.start).encode() == value


def main(fmu_path: str, calls: int, seed: int, result: str, flavour: str = "native") -> None:
    md = read_model_description(fmu_path)
    outs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
    vr_max = max(v.valueReference for v in md.modelVariables) + 64
    unzip = fmu_path if Path(fmu_path).is_dir() else extract(fmu_path)
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzip,
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="fuzz")
    fmu.instantiate()
    fn = fmu._functions  # the raw ctypes functions: their status, not fmpy's exception
    c = fmu.component
    rng = Rng(seed)
    drng = Rng(seed ^ 0x5EED)  # the derivative calls' own stream
    oracle = Oracle(md, flavour)
    counts = {"calls": 0, "steps": 0, "restored": 0, "discarded": 0, "errors": 0,
              "foreign": 0}
    saved, saved_snapshot = None, None
    garbage = (ctypes.c_double * 64)()  # a "state" this FMU did not make

    def fail(what: str) -> None:
        Path(result).write_text(json.dumps({**counts, "failure": what}))
        raise SystemExit(0)

    def check(what: str, status: int, allowed: set[int]) -> int:
        if status not in allowed and not oracle.lost:
            fail(f"{what} -> {status}, expected one of {sorted(allowed)} "
                 f"(oracle state {oracle.state}, t = {oracle.t!r})")
        return status

    def vrs(*values: int) -> ctypes.Array:
        return (ctypes.c_uint * len(values))(*values)

    for i in range(calls):
        counts["calls"] += 1
        op = rng.u32() % 15
        what = f"call {i} op {op}"
        if op == 0:
            start = START_TIMES[rng.u32() % len(START_TIMES)]
            s = check(f"{what}: setup({start})", fn["fmi2SetupExperiment"](c, 0, 0.0, start, 0,
                                                                          0.0),
                      oracle.setup(start))
            oracle.after_setup(s, start)
        elif op == 1:
            s = check(f"{what}: enter", fn["fmi2EnterInitializationMode"](c),
                      {OK} if oracle.state == INST else {ERROR})
            oracle.state = INIT if s == OK else oracle.state
        elif op == 2:
            s = check(f"{what}: exit", fn["fmi2ExitInitializationMode"](c), oracle.exit())
            oracle.after_exit(s)
        elif op in (3, 4, 5):
            h = 0.1 * (1 + rng.u32() % 3) if rng.u32() % 12 else rng.real()
            at = oracle.t if rng.u32() % 12 else rng.real()
            s = check(f"{what}: step({at!r}, {h!r})", fn["fmi2DoStep"](c, at, h, 0),
                      oracle.step(at, h))
            counts["steps"] += s == OK
            counts["discarded"] += s == DISCARD
            counts["errors"] += s == ERROR
            oracle.after_step(s, at, h)
        elif op == 6:
            if rng.u32() % 4:
                continue
            s = check(f"{what}: terminate", fn["fmi2Terminate"](c),
                      {OK} if oracle.state in (STEP, FAILED, ERR) else {ERROR})
            oracle.state = TERM if s == OK else oracle.state
        elif op == 7:
            if rng.u32() % 4 == 0:
                check(f"{what}: reset", fn["fmi2Reset"](c), {OK})
                oracle.reset()
        elif op == 8:
            vr = rng.u32() % vr_max
            if rng.u32() % 2 and oracle.inputs:
                vr = sorted(oracle.inputs)[rng.u32() % len(oracle.inputs)]
            value = rng.real()
            s = check(f"{what}: setReal({vr}, {value!r})",
                      fn["fmi2SetReal"](c, vrs(vr), 1, (ctypes.c_double * 1)(value)),
                      oracle.set_value("Real", vr, value))
            oracle.after_set(s, "Real", vr, value)
        elif op == 9:
            n = rng.u32() % 8
            refs = [outs[rng.u32() % len(outs)] if rng.u32() % 2 else rng.u32() % vr_max
                    for _ in range(n)]
            check(f"{what}: getReal({refs})",
                  fn["fmi2GetReal"](c, vrs(*refs), n, (ctypes.c_double * max(n, 1))()),
                  oracle.get_values("Real", refs))
        elif op == 10:
            vr, value = rng.u32() % vr_max, rng.u32() - (1 << 30)
            buf = (ctypes.c_int * 1)(value)
            if rng.u32() % 2:
                check(f"{what}: setInteger({vr}, {value})",
                      fn["fmi2SetInteger"](c, vrs(vr), 1, buf),
                      oracle.set_value("Integer", vr, value))
            else:
                check(f"{what}: getInteger({vr})", fn["fmi2GetInteger"](c, vrs(vr), 1, buf),
                      oracle.get_values("Integer", [vr]))
        elif op == 11:
            vr = rng.u32() % vr_max
            buf = (ctypes.c_char_p * 1)(b"rk4")
            if rng.u32() % 2:
                check(f"{what}: setString({vr})", fn["fmi2SetString"](c, vrs(vr), 1, buf),
                      oracle.set_value("String", vr, b"rk4"))
            else:
                check(f"{what}: getString({vr})", fn["fmi2GetString"](c, vrs(vr), 1, buf),
                      oracle.get_values("String", [vr]))
        elif op == 12:
            if saved is None:
                saved = ctypes.c_void_p()
            check(f"{what}: getFMUstate", fn["fmi2GetFMUstate"](c, ctypes.byref(saved)), {OK})
            saved_snapshot = oracle.snapshot()
        elif op == 13 and saved is not None:
            size = ctypes.c_size_t()
            check(f"{what}: size", fn["fmi2SerializedFMUstateSize"](c, saved,
                                                                    ctypes.byref(size)), {OK})
            data = (ctypes.c_char * size.value)()
            check(f"{what}: serialize", fn["fmi2SerializeFMUstate"](c, saved, data, size), {OK})
            other = ctypes.c_void_p()
            if rng.u32() % 3 == 0:  # a flipped byte: the state's checksum refuses it
                k = rng.u32() % size.value
                data[k] = bytes([data[k][0] ^ (1 + rng.u32() % 255)])
                check(f"{what}: corrupt deserialize",
                      fn["fmi2DeSerializeFMUstate"](c, data, size, ctypes.byref(other)),
                      {ERROR} if oracle.strict else {OK, ERROR})
                if other.value:
                    fn["fmi2FreeFMUstate"](c, ctypes.byref(other))
            else:
                check(f"{what}: deserialize",
                      fn["fmi2DeSerializeFMUstate"](c, data, size, ctypes.byref(other)), {OK})
                check(f"{what}: setFMUstate", fn["fmi2SetFMUstate"](c, other), {OK})
                check(f"{what}: freeFMUstate", fn["fmi2FreeFMUstate"](c, ctypes.byref(other)),
                      {OK})
                oracle.restore(saved_snapshot)
                counts["restored"] += 1
        elif op == 14 and oracle.strict:  # a state this instance did not make
            foreign = ctypes.c_void_p(ctypes.addressof(garbage))
            which = rng.u32() % 3
            name = ("fmi2GetFMUstate", "fmi2SetFMUstate", "fmi2FreeFMUstate")[which]
            arg = foreign if which == 1 else ctypes.byref(foreign)
            check(f"{what}: {name}(foreign)", fn[name](c, arg), {ERROR})
            counts["foreign"] += 1
        if drng.u32() % 8 == 0:  # fmi2GetDirectionalDerivative, from its own stream (the
            # main sequence stays the one it was before the call existed)
            n_unknown, n_known = drng.u32() % 6, drng.u32() % 4
            unknowns = [outs[drng.u32() % len(outs)] if drng.u32() % 4 else drng.u32() % vr_max
                        for _ in range(n_unknown)]
            ins = sorted(oracle.inputs) or [0]
            knowns = [ins[drng.u32() % len(ins)] if drng.u32() % 4 else drng.u32() % vr_max
                      for _ in range(n_known)]
            seeds = [1.0 if drng.u32() % 4 else drng.real() for _ in range(n_known)]
            null = drng.u32() % 8 == 0 and n_unknown + n_known > 0
            dz = (ctypes.c_double * max(n_unknown, 1))()
            args = [vrs(*unknowns), n_unknown, vrs(*knowns), n_known,
                    (ctypes.c_double * max(n_known, 1))(*seeds), dz]
            if null:  # one of the four arrays NULL (its count nonzero)
                args[[0, 2, 4, 5][drng.u32() % 4] if n_unknown and n_known
                     else ([0, 5] if n_unknown else [2, 4])[drng.u32() % 2]] = None
            s = check(f"{what}: directional derivative({unknowns}, {knowns}, {seeds}, "
                      f"null={null})", fn["fmi2GetDirectionalDerivative"](c, *args),
                      oracle.derivative_of(unknowns, knowns, seeds, null))
            counts["derivatives"] = counts.get("derivatives", 0) + (s == OK)
            if s == ERROR and n_unknown and not null and oracle.strict and not all(
                    math.isnan(v) for v in dz[:n_unknown]):
                fail(f"{what}: a refused derivative left values that are not NaN")
    if saved is not None:
        fn["fmi2FreeFMUstate"](c, ctypes.byref(saved))
    fmu.freeInstance()
    Path(result).write_text(json.dumps(counts))


def flavour_of(fmu_path: str) -> str:
    """``native`` for an FMU with ``resources/model.bin`` (a .fmu or an unpacked folder),
    else ``python``."""
    path = Path(fmu_path)
    if path.is_dir():
        return "native" if (path / "resources" / "model.bin").is_file() else "python"
    with zipfile.ZipFile(path) as z:
        return "native" if "resources/model.bin" in z.namelist() else "python"


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4],
         *(sys.argv[5:6] or [flavour_of(sys.argv[1])]))
