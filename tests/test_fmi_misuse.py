"""An importer that calls the FMU out of order or out of range (issue 13).

Each row of the issue's table is a short script driving one built FMU through fmpy's
low-level ``FMU2Slave`` (tests/fmu_driver.py's ``Instance``) in its own interpreter, with a
timeout: a hang or a crash fails that row only. After each refusal the script checks that
the host is alive and that a NEW instance initializes and steps.

What pythonfmu 0.7's C wrapper lets the Python slave return (read in its source,
``fmi2.cpp`` and ``PySlaveInstance.cpp``): ``do_step`` returning False is ``fmi2Discard``;
every other callback returns ``fmi2OK`` unless it raises (``fmi2Fatal``, instance dead).
hydrofmu's shim in front of the Linux binary (``uri_shim.c``, built with the system
compiler or the ziglang wheel) turns a call the slave marked as refused into ``fmi2Error``
(fmpy raises ``FMICallException`` with the status); the rows below assert the statuses of
the issue's table: fmi2Error for calls out of the state machine, bad time arguments, bad
parameters and bad state blobs; fmi2Discard for a step above the work limit.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest

from hydrofmu.config.configuration import default_config
from hydrofmu.export.fmu import build_fmu

TESTS = Path(__file__).resolve().parent
FMI_OK, FMI_DISCARD, FMI_ERROR = 0, 2, 3
#: Timeout of one row's interpreter, s: start-up (numpy, fmpy, the FMU's package ~3 s on
#: this 2-core machine shared by other jobs) plus a few steps, with a wide margin.
ROW_TIMEOUT = 90.0
N_COMPONENTS = 20  # irregular waves; few components keep each row's set-up short


@pytest.fixture(scope="session")
def misuse_fmu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default sphere in irregular waves (the issue's set-up), built once."""
    bodies, config = default_config(
        wave={"type": "irregular", "height": 2.0, "period": 8.0, "n_components": N_COMPONENTS},
        simulation={"start_time": 0.0, "stop_time": 50.0, "output_interval": 0.1},
    )
    return build_fmu(bodies, config, tmp_path_factory.mktemp("misuse") / "Misuse.fmu")


PRELUDE = """
import json, math, resource, sys
sys.path.insert(0, {tests!r})
from fmu_driver import Instance  # strips hydrofmu from sys.path and checks it
from fmpy.fmi1 import FMICallException
FMU = {fmu!r}
H = 0.1
result = {{}}

def errors(inst, since=0):
    return [m for s, _, m in inst.messages[since:] if s >= 3]

def discards(inst, since=0):
    return [m for s, _, m in inst.messages[since:] if s == 2]

STEPS = {{"simulator": 0}}

# Count the calls of the bundled simulator's step (the FMU runs in this interpreter: its
# package is in sys.modules), wrapped once per process.
def _count_simulator_steps():
    mods = [m for n, m in sys.modules.items() if n.startswith("_hydrofmu_")
            and n.endswith(".simulator.simulator")]
    assert len(mods) == 1, sorted(n for n in sys.modules if n.startswith("_hydrofmu_"))
    cls = mods[0].Simulator
    if not getattr(cls.step, "counted", False):
        step = cls.step
        def counted(self, *args, **kwargs):
            STEPS["simulator"] += 1
            return step(self, *args, **kwargs)
        counted.counted = True
        cls.step = counted

# The call's status and how many simulator steps it started (the work a refusal must
# come before), in place of its wall time.
def timed(inst, function, *args):
    _count_simulator_steps()
    before = STEPS["simulator"]
    status = inst.call(function, *args)
    return status, STEPS["simulator"] - before

# inst.step(h) and the simulator steps it ran (shows that the counter counts).
def counted_step(inst, h):
    _count_simulator_steps()
    before = STEPS["simulator"]
    status = inst.step(h)
    return status, STEPS["simulator"] - before

def fresh_instance_runs():
    inst = Instance(FMU, "fresh")
    inst.start()
    ok = inst.step(H) == 0 and all(map(math.isfinite, inst.get(["body.pose[3]"])))
    inst.close()
    return ok
"""

EPILOGUE = """
result["fresh_ok"] = fresh_instance_runs()
result["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT " + json.dumps(result))
"""


def run_row(fmu: Path, body: str, tmp_path: Path) -> dict[str, Any]:
    """Run one row's script in a fresh interpreter; return its result dictionary."""
    script = PRELUDE.format(tests=str(TESTS), fmu=str(fmu)) + textwrap.dedent(body) + EPILOGUE
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run(
        [sys.executable, "-I", "-c", script], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=ROW_TIMEOUT, check=False,
    )
    assert proc.returncode == 0, f"host died ({proc.returncode}):\n{proc.stderr[-3000:]}"
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    result = json.loads(line[len("RESULT "):])
    assert result.pop("fresh_ok") is True, "a new instance did not run after the refusal"
    return result


def started(extra: str = "", parameters: str = "None") -> str:
    return f"""
inst = Instance(FMU, "misuse")
inst.start({parameters})
assert inst.step(H) == 0
{extra}
"""


def test_do_step_at_infinite_time_is_refused(misuse_fmu: Path, tmp_path: Path) -> None:
    r = run_row(misuse_fmu, started("""
n = len(inst.messages)
result["status"], result["sim_steps"] = timed(inst, inst.fmu.doStep, math.inf, H)
result["log"] = errors(inst, n)
result["next"], result["next_steps"] = counted_step(inst, H)
inst.close()
"""), tmp_path)
    assert r["status"] == FMI_ERROR
    # refused before the simulator was asked to step (the "in under 10 s": no work
    # on an infinite interval), while the next good step does step it
    assert r["sim_steps"] == 0 and r["next_steps"] == 1
    assert any("currentCommunicationPoint = inf" in m for m in r["log"]), r["log"]
    assert r["next"] == FMI_OK  # the refused call left the instance usable at its time


def test_do_step_at_nan_time_is_refused(misuse_fmu: Path, tmp_path: Path) -> None:
    r = run_row(misuse_fmu, started("""
before = inst.get(["body.pose[3]"]).tolist()
n = len(inst.messages)
result["status"], result["sim_steps"] = timed(inst, inst.fmu.doStep, math.nan, H)
result["log"] = errors(inst, n)
result["unchanged"] = inst.get(["body.pose[3]"]).tolist() == before
result["next"] = inst.step(H)
inst.close()
"""), tmp_path)
    assert r["status"] == FMI_ERROR and r["sim_steps"] == 0
    assert any("currentCommunicationPoint = nan" in m for m in r["log"]), r["log"]
    assert r["unchanged"] and r["next"] == FMI_OK


@pytest.mark.parametrize("step", ["0.0", "-0.1", "math.nan", "math.inf"])
def test_bad_step_size_is_refused(misuse_fmu: Path, tmp_path: Path, step: str) -> None:
    r = run_row(misuse_fmu, started(f"""
n = len(inst.messages)
result["status"], result["sim_steps"] = timed(inst, inst.fmu.doStep, inst.time, {step})
result["log"] = errors(inst, n)
inst.close()
"""), tmp_path)
    assert r["status"] == FMI_ERROR and r["sim_steps"] == 0  # refused before any step
    assert any("communicationStepSize" in m for m in r["log"]), r["log"]


def test_do_step_at_the_wrong_time_is_refused(misuse_fmu: Path, tmp_path: Path) -> None:
    r = run_row(misuse_fmu, started("""
n = len(inst.messages)
result["status"], _ = timed(inst, inst.fmu.doStep, inst.time + 5.0, H)
result["log"] = errors(inst, n)
inst.close()
"""), tmp_path)
    assert r["status"] == FMI_ERROR
    assert any("but the FMU is at t = 0.1" in m for m in r["log"]), r["log"]


def test_huge_step_is_refused_by_the_work_limit(misuse_fmu: Path, tmp_path: Path) -> None:
    """fmi2DoStep(t, 1e9): 1e11 internal steps of 0.01 s; refused before any work."""
    r = run_row(misuse_fmu, started("""
n = len(inst.messages)
result["status"], result["sim_steps"] = timed(inst, inst.fmu.doStep, inst.time, 1e9)
result["log"] = discards(inst, n)
result["next"], result["next_steps"] = counted_step(inst, H)
inst.close()
"""), tmp_path)
    # refused before any work: the simulator was not asked to step (the next step is)
    assert r["status"] == FMI_DISCARD and r["sim_steps"] == 0 and r["next_steps"] == 1
    assert any("max_internal_steps_per_call = 10000000" in m and "raise the parameter" in m
               for m in r["log"]), r["log"]
    assert r["next"] == FMI_OK


def test_work_limit_is_a_parameter(misuse_fmu: Path, tmp_path: Path) -> None:
    """With the limit at 100 internal steps, a 2 s step (201 steps of 0.01 s) is refused
    and a 0.5 s step (51) runs."""
    r = run_row(misuse_fmu, started("""
result["long"] = inst.step(2.0)
result["short"] = inst.step(0.5)
inst.close()
""", parameters='{"max_internal_steps_per_call": 100}'), tmp_path)
    assert r["long"] == FMI_DISCARD and r["short"] == FMI_OK


def test_do_step_after_terminate_is_refused(misuse_fmu: Path, tmp_path: Path) -> None:
    r = run_row(misuse_fmu, started("""
inst.fmu.terminate()
n = len(inst.messages)
result["status"], _ = timed(inst, inst.fmu.doStep, inst.time, H)
result["log"] = errors(inst, n)
inst.fmu.freeInstance()
"""), tmp_path)
    assert r["status"] == FMI_ERROR
    assert any("fmi2DoStep is not allowed in state 'terminated'" in m for m in r["log"]), r["log"]


def test_enter_initialization_after_steps_is_refused(misuse_fmu: Path, tmp_path: Path) -> None:
    """Refused and ignored: the instance does not reset, it continues from its time."""
    r = run_row(misuse_fmu, started("""
ref = Instance(FMU, "reference")
ref.start()
assert ref.step(H) == 0
n = len(inst.messages)
result["status"], _ = timed(inst, inst.fmu.enterInitializationMode)
result["log"] = errors(inst, n)
result["step"] = [inst.step(H), ref.step(H)]
result["same"] = inst.get(["body.pose[3]"]).tolist() == ref.get(["body.pose[3]"]).tolist()
inst.close(); ref.close()
"""), tmp_path)
    assert r["status"] == FMI_ERROR
    assert any("fmi2EnterInitializationMode is not allowed in state 'step complete'" in m
               for m in r["log"]), r["log"]
    assert r["step"] == [FMI_OK, FMI_OK] and r["same"] is True


@pytest.mark.parametrize(("name", "setter", "value"), [
    ("wave.period", "setReal", "5.0"),  # wave.height is tunable (test_pto_fmu.py)
    ("wave.seed", "setInteger", "7"),
    ("time_scheme", "setString", "'euler'"),
])
def test_set_fixed_parameter_after_initialization_is_refused(
    misuse_fmu: Path, tmp_path: Path, name: str, setter: str, value: str
) -> None:
    getter = setter.replace("set", "get")
    r = run_row(misuse_fmu, started(f"""
vr = [inst.vr[{name!r}]]
before = inst.fmu.{getter}(vr)
n = len(inst.messages)
result["status"] = inst.call(inst.fmu.{setter}, vr, [{value}])
result["log"] = errors(inst, n)
result["unchanged"] = inst.fmu.{getter}(vr) == before
result["next"] = inst.step(H)
inst.close()
"""), tmp_path)
    assert r["status"] == FMI_ERROR
    assert r["unchanged"] is True and r["next"] == FMI_OK
    assert any(f"parameter '{name}' is fixed" in m for m in r["log"]), r["log"]


@pytest.mark.parametrize(("parameters", "expected"), [
    ('{"max_internal_step": -1.0}', "max_internal_step must be a finite number > 0"),
    ('{"wave.gamma": 50.0}', "wave.gamma = 50.0 is above its maximum 20.0"),
    ('{"max_internal_step": 1e-6}', "radiation memory (3e+07 samples of 30 s)"),
    ('{"wave.period": 0.0}', "wave.period must be a finite number > 0"),
    ('{"max_internal_step": 1.0, "wave.period": 1.5}',
     "wave.period = 1.5 s is shorter than 4 internal steps"),
    ('{"wave.n_components": 10**9}', "wave.n_components = 1000000000 is above its maximum"),
])
def test_bad_parameters_are_refused_at_exit_initialization(
    misuse_fmu: Path, tmp_path: Path, parameters: str, expected: str
) -> None:
    r = run_row(misuse_fmu, f"""
inst = Instance(FMU, "misuse")
inst.fmu.setupExperiment(startTime=0.0)
inst.fmu.enterInitializationMode()
for name, value in {parameters}.items():
    inst.set(name, value)
n = len(inst.messages)
result["status"], _ = timed(inst, inst.fmu.exitInitializationMode)
result["log"] = errors(inst, n)
result["step"] = inst.step(H)
inst.close()
""", tmp_path)
    # Refused from the values (the "in under 10 s" stands for no allocation sized
    # by them: the memory bound below; a hang is the row's timeout)
    assert r["status"] == FMI_ERROR
    assert any(expected in m for m in r["log"]), r["log"]
    assert r["step"] == FMI_ERROR  # every step of a failed initialization is refused
    # The 1e9-component sea would need ~460 GB: refused from the estimate, nothing
    # allocated (the interpreter with numpy, fmpy and the FMU stays near 100-200 MB).
    assert r["maxrss_mb"] < 1000


def test_memory_estimate_refuses_before_allocating() -> None:
    """The cross-check of components x DOFs against the memory limit (the range check
    catches 1e9 first; many bodies reach the estimate's limit within the range)."""
    from hydrofmu.runtime.parameters.checks import parameter_problems
    from hydrofmu.runtime.simulator.layout import parameter_table

    bodies, config = default_config(wave={"type": "irregular"})
    table = parameter_table(bodies, config)
    values = {p.name: p.start for p in table} | {"wave.n_components": 100_000}
    assert parameter_problems(table, values, n_bodies=1) == []
    # 100 bodies: 1e5 x 600 DOFs x 64 B = 3.8 GB > 2 GiB
    problems = parameter_problems(table, values, n_bodies=100)
    assert any("GiB of wave tables" in p for p in problems), problems


STATE_ROW = """
import io
import numpy as np
inst = Instance(FMU, "misuse")
ref = Instance(FMU, "reference")
for i in (inst, ref):
    i.start()
    for _ in range(5):
        assert i.step(H) == 0
names = [v.name for v in inst.md.modelVariables if v.causality == "output"]
state = inst.fmu.getFMUstate()
blob = inst.fmu.serializeFMUstate(state)
inst.fmu.freeFMUstate(state)
with np.load(io.BytesIO(bytes(blob))) as npz:
    entries = {{k: npz[k] for k in npz.files}}
{mutate}
buffer = io.BytesIO()
np.savez(buffer, **entries)
bad = inst.fmu.deSerializeFMUstate(buffer.getvalue())
before = inst.get(names).tolist()
n = len(inst.messages)
result["status"] = inst.call(inst.fmu.setFMUstate, bad)
inst.fmu.freeFMUstate(bad)
result["log"] = errors(inst, n)
result["outputs_unchanged"] = inst.get(names).tolist() == before
rows = []
for i in (inst, ref):
    assert i.step(H) == 0
    assert i.step(H) == 0
    rows.append(i.get(names).tolist())
result["continues_identically"] = rows[0] == rows[1]
inst.close(); ref.close()
"""


@pytest.mark.parametrize(("mutate", "expected"), [
    ('entries["sim.y"] = entries["sim.y"] * np.nan', "'sim.y' has non-finite values"),
    ('entries["fmu.reals"][-1] = np.inf', "non-finite values at Real value references"),
    ('del entries["sim.y"]', "lacks the simulator entries ['y']"),
    ('del entries["fmu.time"]', "lacks the entries ['fmu.time']"),
    ('entries["fmu.model"] = np.array("another|model")', "belongs to another model"),
    ('entries["fmu.format"] = np.array(99)', "format version 99"),
    ('entries["sim.y"] = entries["sim.y"][:-1]', "'sim.y' has shape"),
    ('entries["fmu.phase"] = np.array("flying")', "unknown phase 'flying'"),
])
def test_refused_state_blob_leaves_the_instance_unchanged(
    misuse_fmu: Path, tmp_path: Path, mutate: str, expected: str
) -> None:
    r = run_row(misuse_fmu, STATE_ROW.format(mutate=mutate), tmp_path)
    assert r["status"] == FMI_ERROR
    assert any("fmi2SetFMUstate refused, the instance is unchanged" in m and expected in m
               for m in r["log"]), r["log"]
    assert r["outputs_unchanged"] is True
    assert r["continues_identically"] is True  # bit-identical to an untouched instance


def test_valid_state_blob_is_still_restored(misuse_fmu: Path, tmp_path: Path) -> None:
    """The schema accepts what the FMU saves (the identity mutation)."""
    r = run_row(misuse_fmu, STATE_ROW.format(mutate="pass"), tmp_path)
    assert r["log"] == [] and r["continues_identically"] is True


def test_reset_gives_a_fresh_instance(misuse_fmu: Path, tmp_path: Path) -> None:
    r = run_row(misuse_fmu, started("""
inst.fmu.terminate()
inst.fmu.reset()
inst.start()
result["step"] = inst.step(H)
inst.close()
"""), tmp_path)
    assert r["step"] == FMI_OK


def test_free_instance_twice_is_ignored_with_a_message(misuse_fmu: Path, tmp_path: Path) -> None:
    """The second fmi2FreeInstance (and any call after the first) reaches the shim's
    registry, not pythonfmu's freed instance (which would abort the host)."""
    r = run_row(misuse_fmu, started("""
fmu = inst.fmu
fmu.terminate()
fmu.fmi2FreeInstance(fmu.component)
n = len(inst.messages)
fmu.fmi2FreeInstance(fmu.component)
result["log"] = errors(inst, n)
result["step"] = inst.call(fmu.doStep, inst.time, H)
result["after"] = errors(inst, n)[len(result["log"]):]
"""), tmp_path)
    assert r["log"] == ["fmi2FreeInstance called again on instance 'misuse', which is already "
                        "freed: ignored (host misuse)"], r["log"]
    assert r["step"] == FMI_ERROR
    assert any("fmi2DoStep called on instance 'misuse' after fmi2FreeInstance" in m
               for m in r["after"]), r["after"]


def test_refusal_status_does_not_depend_on_logging(misuse_fmu: Path, tmp_path: Path) -> None:
    """With logging off only errors reach the host (the reason of the refusal, nothing
    else), and a refused call is fmi2Error; with fmi2SetDebugLogging(on,
    ["logStatusError"]) only the refusals arrive, under that category, and the model's
    report lines (category logAll) are filtered out."""
    r = run_row(misuse_fmu, """
quiet = Instance(FMU, "quiet", logging_on=False)
quiet.start()
assert quiet.step(H) == 0
result["quiet_status"] = quiet.call(quiet.fmu.enterInitializationMode)
result["quiet_messages"] = list(quiet.messages)
result["quiet_next"] = quiet.step(H)
quiet.close()

picky = Instance(FMU, "picky", logging_on=False)
picky.fmu.setDebugLogging(True, ["logStatusError"])
picky.start()
assert picky.step(H) == 0
result["picky_status"] = picky.call(picky.fmu.doStep, math.nan, H)
result["picky_messages"] = list(picky.messages)
result["bad_vr"] = picky.call(picky.fmu.getReal, [10**6])
picky.close()
""", tmp_path)
    assert r["quiet_status"] == FMI_ERROR
    quiet = r["quiet_messages"]
    assert [(s, c) for s, c, _ in quiet] == [(FMI_ERROR, "logStatusError")], quiet
    assert "fmi2EnterInitializationMode" in quiet[0][2], quiet
    assert r["quiet_next"] == FMI_OK  # the refused call changed nothing
    assert r["picky_status"] == FMI_ERROR and r["bad_vr"] == FMI_ERROR
    messages = r["picky_messages"]
    assert [(s, c) for s, c, _ in messages] == [(FMI_ERROR, "logStatusError")], messages
    assert "currentCommunicationPoint = nan" in messages[0][2]


SHIM_ROW = """
inst = Instance(FMU, "shim")
inst.start()
result["step"] = inst.step(H)
n = len(inst.messages)
result["status"] = inst.call(inst.fmu.doStep, math.nan, H)
result["log"] = errors(inst, n)
inst.close()
"""


def test_shim_built_with_ziglang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with only Python and pip: CC=zig forces the ziglang wheel's compiler
    (``python -m ziglang cc``); the FMU carries the shim and a refused call is fmi2Error."""
    from hydrofmu.export import python_binary as native

    monkeypatch.setenv("CC", "zig")
    command = native.c_compiler()
    assert command is not None and command[1:4] == ["-m", "ziglang", "cc"]
    bodies, config = default_config()
    fmu = build_fmu(bodies, config, tmp_path / "Zig.fmu", model_name="Zig")
    with zipfile.ZipFile(fmu) as z:
        assert "binaries/linux64/Zig_pythonfmu.so" in z.namelist()
    r = run_row(fmu, SHIM_ROW, tmp_path)
    assert r["step"] == FMI_OK and r["status"] == FMI_ERROR
    assert any("currentCommunicationPoint = nan" in m for m in r["log"]), r["log"]


def test_without_a_compiler_the_build_warns_and_refusals_are_logged_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No compiler at all: one warning naming what is lost and the fix; the FMU has
    pythonfmu's binary alone, whose refused call returns fmi2OK with the logged error."""
    import warnings

    from hydrofmu.export import python_binary as native

    monkeypatch.setattr(native, "c_compiler", lambda: None)
    bodies, config = default_config()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fmu = build_fmu(bodies, config, tmp_path / "Bare.fmu", model_name="Bare")
    hints = [str(w.message) for w in caught if "no C compiler" in str(w.message)]
    assert len(hints) == 1 and "pip install 'hydrofmu[native]'" in hints[0], hints
    with zipfile.ZipFile(fmu) as z:
        assert "binaries/linux64/Bare_pythonfmu.so" not in z.namelist()
    r = run_row(fmu, SHIM_ROW, tmp_path)
    assert r["step"] == FMI_OK and r["status"] == FMI_DISCARD  # pythonfmu's best
    assert any("currentCommunicationPoint = nan" in m for m in r["log"]), r["log"]


# ---------------------------------------------------------------------- model description
def test_default_experiment_ranges_and_archive_modes(misuse_fmu: Path) -> None:
    import xml.etree.ElementTree as ET

    with zipfile.ZipFile(misuse_fmu) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in z.infolist()}
    de = root.find("DefaultExperiment")
    assert de is not None
    assert {k: float(v) for k, v in de.attrib.items()} == {
        "startTime": 0.0, "stopTime": 50.0, "stepSize": 0.1}
    by_name = {sv.get("name"): sv for sv in root.iter("ScalarVariable")}
    assert by_name["wave.period"].find("Real").get("min") == "0.001"
    assert by_name["wave.n_components"].find("Integer").get("max") == "100000"
    assert by_name["max_internal_step"].find("Real").get("min") == "1e-06"
    assert by_name["wave.direction"].find("Real").get("min") is None  # unbounded
    files = {n: m for n, m in modes.items() if not n.endswith("/")}
    assert files and set(files.values()) == {0o644}, files
    assert set(m for n, m in modes.items() if n.endswith("/")) <= {0o755}



# ---------------------------------------------------------------------- fuzzed input files
FUZZ_VARIANTS = 50
FUZZ_CASE_TIMEOUT = 20  # s per case: a read takes < 1 s; a hang is what this catches
FUZZ_TOML = """\
[simulation]
max_internal_step = 0.01
[wave]
type = "regular"
height = 2.0
period = 8.0
[radiation]
method = "constant"
[[bodies]]
name = "body"
hydro = "builtin:sphere"
dofs = ["heave"]
"""


def _fuzz_source(kind: str, tmp_path: Path) -> tuple[Path, str]:
    from paths import BEMIO_SPHERE, CAPYTAINE_CYLINDER, WAMIT_RM3

    if kind == "toml":
        path = tmp_path / "base.toml"
        path.write_text(FUZZ_TOML)
        return path, "check"
    return {"nc": CAPYTAINE_CYLINDER, "h5": BEMIO_SPHERE, "out": WAMIT_RM3}[kind], "info"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["nc", "h5", "out", "toml"])
def test_fuzzed_files_give_one_line_errors(kind: str, tmp_path: Path) -> None:
    """50 truncated or byte-flipped copies (seeded) of each format the readers accept:
    every case ends with exit 0 (the damage hit data that still reads) or exit 2 with one
    ``error:`` line; never a traceback, an internal error or a hang."""
    source, command = _fuzz_source(kind, tmp_path)
    work = tmp_path / "cases"
    work.mkdir()
    request = {
        "file": str(source), "command": command, "n": FUZZ_VARIANTS, "seed": 13,
        "workdir": str(work), "case_timeout": FUZZ_CASE_TIMEOUT,
        "result": str(tmp_path / "result.json"),
    }
    (tmp_path / "request.json").write_text(json.dumps(request))
    proc = subprocess.run(
        [sys.executable, str(TESTS / "fuzz_cli_worker.py"), str(tmp_path / "request.json")],
        capture_output=True, text=True, timeout=FUZZ_VARIANTS * FUZZ_CASE_TIMEOUT, check=False,
    )
    assert proc.returncode == 0, f"the worker died ({proc.returncode}): {proc.stderr[-3000:]}"
    cases = json.loads((tmp_path / "result.json").read_text())
    assert len(cases) == FUZZ_VARIANTS
    failed = 0
    for case in cases:
        lines = case["stderr"].splitlines()
        assert "Traceback" not in case["stderr"], case
        assert case["status"] in (0, 2), case
        assert all(ln.startswith(("error: ", "warning: ")) for ln in lines), case
        assert "internal error" not in case["stderr"], case
        errors = [ln for ln in lines if ln.startswith("error: ")]
        assert len(errors) == (case["status"] == 2), case
        warnings = [ln for ln in lines if ln.startswith("warning: ")]
        assert len(warnings) == len(set(warnings)), case  # each warning once
        failed += case["status"] == 2
        if case["label"].startswith("truncated") and kind != "toml":
            assert case["status"] == 2, case  # a truncated data file never reads
    # The damage must reach the parsers: every truncation (17 of 50) and most header flips.
    assert failed >= FUZZ_VARIANTS // 3, [c["label"] for c in cases if c["status"] == 0]


# ---------------------------------------------------------------------- the tables themselves
def test_state_table_follows_fmi2_co_simulation() -> None:
    from hydrofmu.runtime.fmi import state_machine as fsm

    assert set(fsm.ALLOWED) == set(fsm.CALLS)
    # FMI 2.0 section 4.2.4: doStep only between steps; parameters before the end of
    # initialization; inputs also between steps; nothing may set after termination.
    assert fsm.ALLOWED["do_step"] == {fsm.STEP_COMPLETE}
    assert fsm.refusal("do_step", fsm.TERMINATED) is not None
    assert fsm.refusal("set_input", fsm.STEP_COMPLETE) is None
    assert fsm.refusal("set_parameter", fsm.STEP_COMPLETE) is not None
    for state in fsm.STATES:
        assert fsm.refusal("set_input", state) is None or state in (
            fsm.STEP_FAILED, fsm.TERMINATED, fsm.ERROR)
    message = fsm.refusal("get", fsm.INSTANTIATED, type_name="Integer")
    assert message is not None and message.startswith("fmi2GetInteger is not allowed")
    assert fsm.next_state("terminate", fsm.STEP_COMPLETE) == fsm.TERMINATED
    assert fsm.next_state("do_step", fsm.STEP_COMPLETE) == fsm.STEP_COMPLETE


def test_step_time_tolerance_scales_with_the_step_and_the_time() -> None:
    from hydrofmu.runtime.parameters.work_limits import step_refusal

    def refused(t: float, h: float, now: float) -> bool:
        return step_refusal(t, h, fmu_time=now, max_internal_step=0.01, limit=10**7) is not None

    assert not refused(0.1 + 1e-12, 0.1, 0.1)  # round-off of an accumulated time
    assert refused(0.1 + 1e-6, 0.1, 0.1)  # a 1e-5 fraction of the step is not round-off
    # After 1e7 s of 0.1 s steps the time's own spacing (1.9e-9 s) exceeds 1e-9 h:
    # 8 ulps are accepted, 100 are not.
    now = 1e7
    assert not refused(now + 4 * math.ulp(now), 0.1, now)
    assert refused(now + 100 * math.ulp(now), 0.1, now)
    assert refused(0.0, 1e5 + 0.01, 0.0)  # 1e7 + 2 internal steps > 1e7
    assert not refused(0.0, 1e5 - 0.02, 0.0)
