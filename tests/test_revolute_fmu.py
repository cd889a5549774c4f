"""A revolute joint through a built FMU: the sphere hinged on the world 5 m from its
reference point, a rotational PTO at the hinge and a torque input, regular waves; driven by
fmpy in a fresh interpreter (the FMU's bundled code). The joint's outputs exist with their
units and equal the in-process Simulator's."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import warnings
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.config.configuration import resolve
from hydrofmu.export.fmu import build_fmu
from hydrofmu.runtime.simulator.simulator import Simulator
from physics_helpers import bemio_sphere_body

TESTS = Path(__file__).resolve().parent
H = 0.1  # communication step, s
STEPS = 150
NAMES = ["hinge.angle", "hinge.angular_velocity", "pto.rot.torque", "pto.rot.power",
         "hinge.F_constraint[1]", "hinge.F_constraint[5]", "body.pose[1]", "body.pose[5]"]


def _config() -> dict:
    return {
        "simulation": {"time_scheme": "rk4", "max_internal_step": 0.02, "stop_time": 20.0,
                       "output_interval": H},
        "wave": {"type": "regular", "height": 1.0, "period": 8.0, "ramp_time": 5.0},
        "radiation": {"method": "constant"},
        "bodies": [bemio_sphere_body()],
        "joints": [{"name": "hinge", "kind": "revolute", "body": "body",
                    "axis": [0.0, 1.0, 0.0], "point": [-5.0, 0.0, -2.0],
                    "initial_angle": 0.01}],
        "ptos": [{"name": "rot", "joint": "hinge", "damping": 2.0e7}],
    }


def _torque(t: float) -> float:
    return 1.0e6 * math.sin(0.9 * t)


SCRIPT = """
import json, math, sys
sys.path.insert(0, {tests!r})
from fmu_driver import Instance
inst = Instance({fmu!r}, "hinge")
result = {{"start": inst.start(), "rows": []}}
for k in range({steps!r}):
    inst.set("hinge.T_pto", 1.0e6 * math.sin(0.9 * k * {h!r}))
    result["rows"].append(inst.get({names!r}).tolist())
    assert inst.step({h!r}) == 0
inst.close()
print("RESULT " + json.dumps(result))
"""


@pytest.mark.fmu
def test_revolute_joint_through_the_fmu(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sphere's BEM notes
        bodies, config = resolve(_config(), Path.cwd())
    fmu = build_fmu(bodies, config, tmp_path / "Hinge.fmu")
    with zipfile.ZipFile(fmu) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    var = {v.get("name"): v for v in root.iter("ScalarVariable")}

    def unit(name: str) -> str | None:
        return var[name].find("Real").get("unit")

    assert (unit("hinge.angle"), unit("hinge.angular_velocity"), unit("hinge.T_pto"),
            unit("pto.rot.torque"), unit("pto.rot.damping"), unit("hinge.initial_angle")) \
        == ("rad", "rad/s", "N.m", "N.m", "N.m.s/rad", "rad")
    assert var["hinge.T_pto"].get("causality") == "input"
    assert var["hinge.angle"].get("causality") == "output"
    assert var["pto.rot.damping"].get("variability") == "tunable"

    # The in-process simulator, same inputs held over each step.
    sim = Simulator(bodies, config)
    names = Simulator.output_names(bodies, config)
    inputs = Simulator.input_names(bodies, config)
    u = np.zeros(len(inputs))
    ref = []
    for k in range(STEPS):
        u[inputs.index("hinge.T_pto")] = _torque(k * H)
        sim.set_input_vector(u)
        y = sim.output_vector()
        ref.append([y[names.index(n)] for n in NAMES])
        sim.step(k * H, H)
    ref = np.array(ref)

    script = SCRIPT.format(tests=str(TESTS), fmu=str(fmu), steps=STEPS, h=H, names=NAMES)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([sys.executable, "-I", "-c", textwrap.dedent(script)],
                          cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = json.loads([x for x in proc.stdout.splitlines() if x.startswith("RESULT ")][-1][7:])
    assert r["start"] == [0]
    got = np.array(r["rows"])
    assert got[0, 0] == pytest.approx(0.01, abs=1e-15)  # the initial angle
    assert np.max(np.abs(ref[:, 0] - 0.01)) > 1e-3  # it moves
    # The same code on the same numbers (the bundled copy): equal to round-off, 1e-12 of
    # each output's scale.
    scale = np.max(np.abs(ref), axis=0)
    for j in range(len(NAMES)):
        np.testing.assert_allclose(got[:, j], ref[:, j], rtol=0, atol=1e-12 * scale[j])
