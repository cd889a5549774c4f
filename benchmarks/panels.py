"""Cost of a step of a nonlinear body against its number of panels (250-4,000 triangles):
the native FMU in a C host and the Python FMU in fmpy, and their real-time factors.

The model is the shipped example ``examples/nonlinear/sphere_steep_wave.toml`` (the
default sphere, r = 5 m, heaving in a 4 m, 6 s regular wave, cut at the instantaneous
surface, rk4 at 0.02 s) with its hull remeshed at each size (Capytaine's ``mesh_sphere``,
as ``build_scripts/make_sphere_hull.py`` writes the shipped one, 3,024 triangles). One step
is the example's communication step (0.05 s): set the PTO input, ``fmi2DoStep``, get every
output; the native FMU in ``tests/c_host/native_host.c`` (``bench`` mode, dlopen), the
Python FMU in fmpy's ``FMU2Slave``; best of ``--repeat``. The real-time factor is the
communication step over the wall time of a step.

    python benchmarks/panels.py [--steps 2000] [--python-steps 100] [--repeat 3]
                                [--sizes 250 500 1000 2000 4000]

Needs a C compiler (gcc) and the ``bem`` extra (Capytaine, for the meshes).
"""

from __future__ import annotations

import argparse
import copy
import math
import resource
import struct
import sys
import tempfile
import time
import tomllib
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import native  # noqa: E402  (benchmarks/native.py: the C host and the two timers)

import hydrofmu  # noqa: E402
from hydrofmu.export.native import build_native_fmu  # noqa: E402

EXAMPLE = ROOT / "examples" / "nonlinear" / "sphere_steep_wave.toml"
#: The example's communication step, s (its output interval).
STEP = 0.05
#: Triangles per resolution^2 of a merged mesh_sphere(resolution=(n, 2 n)) (3,024 at 28).
PER_N2 = 3024 / 28**2


def write_sphere(path: Path, triangles: int) -> int:
    """A closed sphere hull (r = 5 m) of about ``triangles`` triangles as a binary STL;
    returns its count."""
    import capytaine as cpt

    from hydrofmu.io.panel_mesh import merged

    n = max(4, round(math.sqrt(triangles / PER_N2)))
    m = cpt.mesh_sphere(radius=5.0, center=(0.0, 0.0, 0.0), resolution=(n, 2 * n))
    mesh = merged(m.vertices, m.faces, "sphere")
    tri = mesh.vertices[mesh.triangles]
    with open(path, "wb") as f:
        f.write(b"hydrofmu benchmark sphere".ljust(80))
        f.write(struct.pack("<I", len(tri)))
        for t in tri:
            normal = np.cross(t[1] - t[0], t[2] - t[0])
            normal /= np.linalg.norm(normal)
            f.write(struct.pack("<12fH", *normal, *t.ravel(), 0))
    return len(tri)


def build(folder: Path, size: int) -> tuple[int, Path, Path]:
    """(triangles, native FMU, Python FMU) of the example with a hull of ``size``."""
    count = write_sphere(folder / f"sphere_{size}.stl", size)
    data = tomllib.loads(EXAMPLE.read_text())
    data["bodies"][0]["mesh"] = f"sphere_{size}.stl"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a coarse hull's volume differs from the data's
        model = hydrofmu.Model.from_dict(data, base_dir=folder)
    name = f"Panels{size}"
    fmu = build_native_fmu(model.bodies, copy.deepcopy(model.config), folder / f"{name}.fmu",
                           model_name=name, python_fmu=folder / "python" / f"{name}.fmu",
                           platforms=("linux64",))
    return count, fmu, folder / "python" / f"{name}.fmu"


def host_us(host: Path, info: dict, steps: int, repeat: int) -> tuple[float, float]:
    """The native FMU in the C host: (wall, CPU) microseconds per step, best of ``repeat``
    (the CPU time is the child's, instantiation included: on a shared machine the wall
    time counts the other processes' turns too)."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = min(wall, native.host_us(host, info, steps, 1))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu = min(cpu, used / steps * 1e6)
    return wall, cpu


def python_us(fmu: Path, steps: int, repeat: int) -> tuple[float, float]:
    """The Python FMU in fmpy: (wall, CPU) microseconds per step, best of ``repeat`` (as
    ``benchmarks/native.py`` drives it, the CPU time of the steps alone too)."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}["body.F_pto[3]"]
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
            s.setReal([vr], [1e5 * np.sin(0.3 * t)])
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
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000, 4000])
    args = parser.parse_args()
    native.DT = STEP  # the timers step by the module's DT
    with tempfile.TemporaryDirectory(prefix="hydrofmu_panels_bench_") as tmp:
        folder = Path(tmp)
        host = native.compile_host(folder)
        print(f"communication step {STEP} s, rk4 at 0.02 s; us per step (wall / CPU), best "
              f"of {args.repeat} ({args.steps} native, {args.python_steps} Python steps); "
              "RTF from the CPU time")
        print(f"{'triangles':>9} {'native wall':>11} {'native CPU':>10} {'native RTF':>10} "
              f"{'Python wall':>11} {'Python CPU':>10} {'Python RTF':>10}")
        for size in args.sizes:
            count, fmu, py = build(folder, size)
            info = native.unpack(fmu, folder, fmu.stem, "body.F_pto[3]")
            n_wall, n_cpu = host_us(host, info, args.steps, args.repeat)
            p_wall, p_cpu = python_us(py, args.python_steps, args.repeat)
            print(f"{count:>9} {n_wall:>11.1f} {n_cpu:>10.1f} {STEP / (n_cpu * 1e-6):>9.1f}x "
                  f"{p_wall:>11.1f} {p_cpu:>10.1f} {STEP / (p_cpu * 1e-6):>9.1f}x", flush=True)


if __name__ == "__main__":
    main()
