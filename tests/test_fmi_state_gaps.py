"""The Python FMU's state machine where it differed from the native FMU and from FMI 2.0
(issue 29): ``fmi2GetDirectionalDerivative`` in initialization mode (FMI 2.0, section
4.2.4, allows it after ``fmi2EnterInitializationMode``; both FMUs answer it), and
``fmi2SetFMUstate`` after a failed initialization (section 2.1.3: after ``fmi2Error`` the
simulation may restart from a stored state; a state the FMU itself saved is restored).
The fuzz oracle (``tests/fuzz_driver.py``) expects the same, for both runtimes."""

from __future__ import annotations

import ctypes
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fmpy import extract, read_model_description
from fmpy.fmi2 import (
    FMU2Slave,
    fmi2CallbackAllocateMemoryTYPE,
    fmi2CallbackFreeMemoryTYPE,
    fmi2CallbackFunctions,
    fmi2CallbackLoggerTYPE,
    fmi2StepFinishedTYPE,
)

from hydrofmu.runtime.parameters.work_limits import internal_steps
from native_helpers import build_pair, fuzz_in_fmpy
from test_native_tunable import pto_config

pytestmark = pytest.mark.fmu

OK, WARNING, DISCARD, ERROR = 0, 1, 2, 3
EPS = np.finfo(float).eps


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(Python, native) FMUs of the free sphere with a heave PTO."""
    return build_pair(*pto_config(), tmp_path_factory.mktemp("gaps"), "Gaps",
                      platforms=("linux64",))


class Raw:
    """An instance driven through the raw FMI functions (statuses, not exceptions), with
    its logged messages."""

    def __init__(self, fmu: Path, tmp: Path) -> None:
        self.md = read_model_description(str(fmu))
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.slave = FMU2Slave(guid=self.md.guid, unzipDirectory=extract(str(fmu), tmp),
                               modelIdentifier=self.md.coSimulation.modelIdentifier,
                               instanceName="gaps")
        self.messages: list[str] = []

        def log(env: Any, name: Any, status: int, category: Any, message: bytes) -> None:
            self.messages.append(message.decode(errors="replace"))

        libc = ctypes.CDLL(None)
        libc.calloc.restype = ctypes.c_void_p
        self.callbacks = fmi2CallbackFunctions()
        self.callbacks.logger = fmi2CallbackLoggerTYPE(log)
        self.callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(
            lambda n, size: libc.calloc(n, size))
        self.callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(lambda p: libc.free(
            ctypes.c_void_p(p)))
        self.callbacks.stepFinished = fmi2StepFinishedTYPE()
        self.slave.instantiate(callbacks=self.callbacks, loggingOn=True)
        self.fn = self.slave._functions
        self.c = self.slave.component

    def call(self, name: str, *args: Any) -> int:
        return self.fn[name](self.c, *args)

    def start(self) -> None:
        assert self.call("fmi2SetupExperiment", 0, 0.0, 0.0, 0, 0.0) == OK
        assert self.call("fmi2EnterInitializationMode") == OK

    def set_real(self, name: str, value: float) -> int:
        return self.call("fmi2SetReal", (ctypes.c_uint * 1)(self.vr[name]), 1,
                         (ctypes.c_double * 1)(value))

    def get_real(self, name: str) -> float:
        out = (ctypes.c_double * 1)()
        assert self.call("fmi2GetReal", (ctypes.c_uint * 1)(self.vr[name]), 1, out) == OK
        return out[0]

    def jacobian(self, outputs: list[str], inputs: list[str]) -> tuple[int, np.ndarray]:
        """(worst status, d outputs / d inputs) column by column."""
        worst, cols = OK, []
        uv = (ctypes.c_uint * len(outputs))(*(self.vr[o] for o in outputs))
        kv = (ctypes.c_uint * 1)()
        for name in inputs:
            kv[0] = self.vr[name]
            dz = (ctypes.c_double * len(outputs))()
            worst = max(worst, self.call("fmi2GetDirectionalDerivative", uv, len(outputs),
                                         kv, 1, (ctypes.c_double * 1)(1.0), dz))
            cols.append(list(dz))
        return worst, np.array(cols).T

    def state(self) -> ctypes.c_void_p:
        saved = ctypes.c_void_p()
        assert self.call("fmi2GetFMUstate", ctypes.byref(saved)) == OK
        return saved

    def close(self) -> None:
        self.slave.freeInstance()


ACC = [f"body.acceleration[{i}]" for i in range(1, 7)]
PTO = [f"body.F_pto[{i}]" for i in range(1, 7)]


@pytest.mark.parametrize("runtime", ["python", "native"])
def test_the_derivative_is_answered_in_initialization_mode(
        runtime: str, pair: tuple[Path, Path], tmp_path: Path) -> None:
    """After fmi2EnterInitializationMode both FMUs give d acceleration / d F_pto, and it is
    the one they give after initialization: ``(M + A_inf)^-1`` (declared fixed). The Python
    FMU differentiates the simulator its parameters make at the start time (the one
    fmi2ExitInitializationMode builds). Tolerance: the native LU solve and the Python
    central difference of outputs affine in the input (rounding eps |y| / max(1, |u|):
    32 eps |y|), and 1e3 eps of the inverse's scale (cond(M + A_inf) ~ 1e2 for the LU)."""
    fmu = pair[runtime == "native"]
    raw = Raw(fmu, tmp_path / "u")
    try:
        raw.start()
        status, during = raw.jacobian(ACC, PTO)
        assert status == OK, raw.messages[-3:]
        assert raw.call("fmi2ExitInitializationMode") == OK
        status, after = raw.jacobian(ACC, PTO)
        assert status == OK
        y = max(abs(raw.get_real(name)) for name in ACC)  # the inputs are 0: h = 1 N
    finally:
        raw.close()
    bodies, config = pto_config()
    expected = np.linalg.inv(np.array(config["bodies"][0]["mass_matrix"])
                             + bodies[0].added_mass_inf)
    tol = 1e3 * EPS * np.max(np.abs(expected)) + 32 * EPS * y
    assert np.allclose(during, expected, rtol=0, atol=tol), np.max(np.abs(during - expected))
    assert np.allclose(during, after, rtol=0, atol=tol)


def test_in_initialization_mode_parameters_it_cannot_build_are_named(
        pair: tuple[Path, Path], tmp_path: Path) -> None:
    """The Python FMU's parameters are checked when its model is built: a derivative asked
    in initialization mode with a refused value gives fmi2Error, NaN and the reason; set
    right, the same call answers."""
    raw = Raw(pair[0], tmp_path / "u")
    try:
        raw.start()
        assert raw.set_real("wave.period", -5.0) == OK  # checked at the build, not here
        status, jac = raw.jacobian(ACC[2:3], PTO[2:3])
        assert status == ERROR and math.isnan(jac[0, 0])
        assert any("cannot be built" in m and "wave.period" in m for m in raw.messages)
        assert raw.set_real("wave.period", 8.0) == OK
        status, jac = raw.jacobian(ACC[2:3], PTO[2:3])
        assert status == OK and jac[0, 0] > 0.0
    finally:
        raw.close()


@pytest.mark.parametrize("bad", [math.nan, -5.0])
def test_a_state_saved_after_a_failed_initialization_is_restored(
        bad: float, pair: tuple[Path, Path], tmp_path: Path) -> None:
    """FMI 2.0, section 2.1.3: after fmi2Error a stored state may be restored. A state the
    Python FMU saved after its initialization failed (a non-finite parameter among its
    values) is restored with fmi2OK and is that failure again (steps and derivatives refused
    by name); the state saved in initialization mode restores initialization mode, where the
    parameter is corrected and the run goes on."""
    raw = Raw(pair[0], tmp_path / "u")
    try:
        raw.start()
        in_init = raw.state()
        assert raw.set_real("wave.period", bad) == OK
        assert raw.call("fmi2ExitInitializationMode") == ERROR
        failed = raw.state()
        assert raw.call("fmi2SetFMUstate", failed) == OK, raw.messages[-2:]
        assert raw.call("fmi2DoStep", 0.0, 0.1, 0) == ERROR
        assert "initialization failed" in raw.messages[-1]
        status, _ = raw.jacobian(ACC[2:3], PTO[2:3])
        assert status == ERROR and "initialization failed" in raw.messages[-1]
        assert raw.call("fmi2SetFMUstate", in_init) == OK
        assert raw.get_real("wave.period") == 8.0  # the state's own value
        assert raw.call("fmi2ExitInitializationMode") == OK
        assert raw.call("fmi2DoStep", 0.0, 0.1, 0) == OK
        for saved in (in_init, failed):
            raw.call("fmi2FreeFMUstate", ctypes.byref(saved))
    finally:
        raw.close()


@pytest.mark.parametrize("runtime", ["python", "native"])
def test_a_non_finite_input_start_value_is_zero_after_initialization(
        runtime: str, pair: tuple[Path, Path], tmp_path: Path) -> None:
    """fmi2ExitInitializationMode warns that a non-finite input start value is replaced by
    zero until it is set: both FMUs then step (the Python one used to keep the value and
    refuse every step as a non-finite input)."""
    raw = Raw(pair[runtime == "native"], tmp_path / "u")
    try:
        assert raw.set_real("body.F_pto[3]", math.inf) == OK
        raw.start()
        # the native FMU returns fmi2Warning; pythonfmu's binary returns fmi2OK whatever
        # the slave logs (the message is the warning)
        assert raw.call("fmi2ExitInitializationMode") in (
            (WARNING,) if runtime == "native" else (OK, WARNING))
        assert any("zero is used" in m for m in raw.messages)
        assert raw.call("fmi2DoStep", 0.0, 0.1, 0) == OK, raw.messages[-1:]
    finally:
        raw.close()


def test_the_work_of_a_step_too_long_to_count_is_infinite() -> None:
    """A step of 1e308 s over internal steps of 1e-3 s: the count overflows to inf (and the
    step is refused by the work limit) instead of an OverflowError, which pythonfmu turned
    into fmi2Fatal."""
    assert internal_steps(1e308, 1e-3) == math.inf
    assert internal_steps(1.0, 0.1) == 11.0  # ceil(10) + 1 (a partial step)


@pytest.mark.parametrize("seed", [1, 3])
def test_the_python_fmu_meets_the_oracle(seed: int, pair: tuple[Path, Path],
                                         tmp_path: Path) -> None:
    """2,000 seeded random calls on the Python FMU, each status against the oracle's FMI 2.0
    state machine, restored states and derivatives included. Seed 1 reached a step of
    DBL_MAX s (fmi2Fatal, then a crash), seed 3 a state restored after a non-finite input
    start value."""
    out = fuzz_in_fmpy(pair[0], 2000, seed, tmp_path)
    assert "failure" not in out, out["failure"]
    assert out["restored"] > 0 and out.get("derivatives", 0) > 0
