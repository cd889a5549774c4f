"""The PTO and the tunable parameters through a built FMU driven by fmpy in a fresh
interpreter (the FMU's bundled code, not the installed package).

One run of the default sphere in heave (constant-coefficient radiation, regular waves):
the damping changed mid-run changes the mean absorbed power to the closed form's value at
the new damping; the wave height changed mid-run scales the power by the square of the
ratio; a fixed parameter and an out-of-range damping set mid-run are refused and change
nothing; fmi2SetFMUstate brings back the damping saved with the state.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from hydrofmu.config.configuration import resolve
from hydrofmu.export.fmu import build_fmu
from hydrofmu.runtime.simulator.simulator import Simulator
from test_pto import HEIGHT, PERIOD, RAMP, closed_form_power, optimal_damping

TESTS = Path(__file__).resolve().parent
#: A host that has not finished in this time is stuck (the run takes ~10 s).
TIMEOUT = 180.0


def _config() -> dict:
    return {
        "simulation": {"time_scheme": "rk4", "max_internal_step": 0.02, "stop_time": 600.0,
                       "output_interval": 0.1},
        "wave": {"type": "regular", "height": HEIGHT, "period": PERIOD, "ramp_time": RAMP},
        "radiation": {"method": "constant"},
        "bodies": [{"name": "body", "hydro": "builtin:sphere", "dofs": ["heave"]}],
        "ptos": [{"name": "float", "dof": "heave", "damping": 1.0e5}],
    }


@pytest.fixture(scope="module")
def pto_fmu(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Simulator]:
    bodies, config = resolve(_config(), Path.cwd())
    path = build_fmu(bodies, config, tmp_path_factory.mktemp("pto") / "Pto.fmu")
    return path, Simulator(bodies, config)


SCRIPT = """
import json, math, sys
sys.path.insert(0, {tests!r})
from fmu_driver import Instance
import numpy as np
H, T = 0.1, {period!r}
inst = Instance({fmu!r}, "pto")
result = {{"start": inst.start({{"pto.float.damping": {c1!r}}})}}

def errors(since):
    return [m for s, _, m in inst.messages[since:] if s >= 3]

def mean_power(settle, periods):
    for _ in range(round(settle * T / H)):
        assert inst.step(H) == 0
    p = []
    for _ in range(round(periods * T / H)):
        assert inst.step(H) == 0
        p.append(inst.get(["pto.float.power"])[0])
    return float(np.mean(p))

result["p1"] = mean_power({ramp!r} / T + 15, 5)
state, t_state = inst.fmu.getFMUstate(), inst.time
n = len(inst.messages)
inst.set("pto.float.damping", {c2!r})
result["set_ok"] = errors(n)
result["damping_now"] = inst.get(["pto.float.damping"])[0]
result["p2"] = mean_power(15, 5)
n = len(inst.messages)
inst.set("wave.height", {half!r})
result["p3"] = mean_power(15, 5)
n = len(inst.messages)
result["refusal_status"] = [inst.call(inst.set, "wave.period", 5.0),
                            inst.call(inst.set, "pto.float.damping", -1.0)]
result["refusals"] = errors(n)
result["period_now"] = inst.get(["wave.period"])[0]
result["damping_kept"] = inst.get(["pto.float.damping"])[0]
inst.fmu.setFMUstate(state)
inst.time = t_state
result["damping_restored"] = inst.get(["pto.float.damping"])[0]
result["p1_again"] = mean_power(0, 5)
inst.close()
print("RESULT " + json.dumps(result))
"""


@pytest.mark.slow
@pytest.mark.fmu
def test_tunable_parameters_through_fmpy(pto_fmu: tuple[Path, Simulator],
                                         tmp_path: Path) -> None:
    fmu, sim = pto_fmu
    c_opt = optimal_damping(sim, 0.0)
    c1, c2 = 0.5 * c_opt, 2.0 * c_opt
    script = SCRIPT.format(tests=str(TESTS), fmu=str(fmu), period=PERIOD, ramp=RAMP,
                           c1=c1, c2=c2, half=0.5 * HEIGHT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([sys.executable, "-I", "-c", textwrap.dedent(script)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=TIMEOUT,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads([x for x in proc.stdout.splitlines() if x.startswith("RESULT ")][-1][7:])
    assert r["start"] == [0] and r["set_ok"] == [] and r["damping_now"] == c2
    # Mean power over 5 whole periods after >= 15 periods of settling: as test_pto's
    # closed-form tests (RK4 error < 7e-8, transient ~1e-10), 1e-5.
    assert r["p1"] == pytest.approx(closed_form_power(sim, c1, 0.0), rel=1e-5)
    assert r["p2"] == pytest.approx(closed_form_power(sim, c2, 0.0), rel=1e-5)
    # Linear model: half the wave height, a quarter of the power.
    assert r["p3"] == pytest.approx(0.25 * r["p2"], rel=1e-5)
    assert r["refusal_status"] == [3, 3]  # fmi2Error (hydrofmu's shim)
    assert any("parameter 'wave.period' is fixed" in m for m in r["refusals"]), r["refusals"]
    assert any("pto.float.damping = -1.0 refused" in m and "must be >= 0" in m
               for m in r["refusals"]), r["refusals"]
    assert r["period_now"] == PERIOD and r["damping_kept"] == c2
    # The saved state carries the damping and the wave height of its time.
    assert r["damping_restored"] == c1
    assert r["p1_again"] == pytest.approx(r["p1"], rel=1e-5)  # steady state, as p1


@pytest.mark.fmu
def test_model_description_declares_tunable(pto_fmu: tuple[Path, Simulator]) -> None:
    with zipfile.ZipFile(pto_fmu[0]) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    var = {v.get("name"): v for v in root.iter("ScalarVariable")}
    for name in ("pto.float.damping", "pto.float.stiffness", "wave.height", "wave.ramp_time"):
        assert var[name].get("variability") == "tunable", name
        assert var[name].get("causality") == "parameter"
    for name in ("wave.period", "max_internal_step", "body.initial_pose[3]"):
        assert var[name].get("variability") == "fixed", name
    for name in ("pto.float.force", "pto.float.power"):
        assert var[name].get("causality") == "output"
    assert var["pto.float.damping"].find("Real").get("min") == "0.0"
