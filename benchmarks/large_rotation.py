"""Cost of a step of a large-rotation model: the native FMU in a C host against the Python
FMU in fmpy (the same rigid-body kernel, ``runtime/bodies/body_kernel.c``, in both).

Models, one communication step of 0.1 s (set the PTO input, ``fmi2DoStep``, get every
output):

- the OSWEC survival example (``examples/oswec/oswec_survival.toml``: a flap on a revolute
  joint with large rotations, body-axes radiation, nonlinear hydrostatics and Froude-Krylov
  force on its 2,000-triangle hull cut at the instantaneous surface, rk4 at 0.02 s);
- a free asymmetric body (no water: the torque-free Newton-Euler equations, its rotation
  by a quaternion, rk4 at 0.01 s).

The native FMU runs in ``tests/c_host/native_host.c`` (``bench`` mode, dlopen), the Python
FMU in fmpy's ``FMU2Slave``; best of ``--repeat``, wall and CPU time (the machine is
shared: the CPU time is the real-time factor's).

    python benchmarks/large_rotation.py [--steps 2000] [--python-steps 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))

import native  # noqa: E402  (benchmarks/native.py: the C host)
from panels import host_us  # noqa: E402  (wall and CPU of the C host)

import hydrofmu  # noqa: E402
from hydrofmu.export.native import build_native_fmu  # noqa: E402

#: The communication step, s.
STEP = 0.1


def models() -> dict[str, tuple[list[Any], dict[str, Any], str]]:
    """name -> (bodies, config, the PTO input driven)."""
    from rigid_helpers import dry_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the BEM data's notes
        flap = hydrofmu.Model.from_toml(ROOT / "examples" / "oswec" / "oswec_survival.toml")
    free = dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "weightless": True,
                       "mass": 500.0, "inertia": [1000.0, 2000.0, 3000.0],
                       "rotations": "large", "initial_velocity": [0.0, 0.0, 0.0, 0.1, 1.0,
                                                                  0.05]}], dt=0.01)
    return {"OSWEC survival": (flap.bodies, flap.config, "hinge.T_pto"),
            "free body": (free.bodies, free.config, "b.F_pto[3]")}


def python_us(fmu: Path, input_name: str, steps: int, repeat: int) -> tuple[float, float]:
    """The Python FMU in fmpy: (wall, CPU) microseconds per step, best of ``repeat``."""
    import numpy as np
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}[input_name]
    outs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
    wall = cpu = float("inf")
    for _ in range(repeat):
        s = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu)),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="py")
        s.instantiate()
        s.setupExperiment(startTime=0.0)
        s.enterInitializationMode()
        s.exitInitializationMode()
        t = 0.0
        start, start_cpu = time.perf_counter(), time.process_time()
        for k in range(steps):
            s.setReal([vr], [1e3 * np.sin(0.3 * t)])
            s.doStep(currentCommunicationPoint=t, communicationStepSize=STEP)
            t = (k + 1) * STEP
            s.getReal(outs)
        wall = min(wall, (time.perf_counter() - start) / steps * 1e6)
        cpu = min(cpu, (time.process_time() - start_cpu) / steps * 1e6)
        s.terminate()
        s.freeInstance()
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--python-steps", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    native.DT = STEP  # the C host steps by the module's DT
    with tempfile.TemporaryDirectory(prefix="hydrofmu_large_rotation_bench_") as tmp:
        folder = Path(tmp)
        host = native.compile_host(folder)
        print(f"communication step {STEP} s; us per step (wall / CPU), best of {args.repeat} "
              f"({args.steps} native, {args.python_steps} Python steps); RTF from the CPU "
              "time")
        print(f"{'model':>15} {'native wall':>11} {'native CPU':>10} {'native RTF':>10} "
              f"{'Python wall':>11} {'Python CPU':>10} {'Python RTF':>10}")
        for label, (bodies, config, input_name) in models().items():
            name = "".join(c for c in label.title() if c.isalnum())
            python = folder / "python" / f"{name}.fmu"
            fmu = build_native_fmu(bodies, copy.deepcopy(config), folder / f"{name}.fmu",
                                   model_name=name, python_fmu=python, platforms=("linux64",))
            info = native.unpack(fmu, folder, name, input_name)
            n_wall, n_cpu = host_us(host, info, args.steps, args.repeat)
            p_wall, p_cpu = python_us(python, input_name, args.python_steps, args.repeat)
            print(f"{label:>15} {n_wall:>11.1f} {n_cpu:>10.1f} {STEP / (n_cpu * 1e-6):>9.1f}x "
                  f"{p_wall:>11.1f} {p_cpu:>10.1f} {STEP / (p_cpu * 1e-6):>9.1f}x", flush=True)


if __name__ == "__main__":
    main()
