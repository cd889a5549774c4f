"""Cost of a 0.1 s step of the moored models and of the convolution sphere natively in a C
host, against their Python FMU and a trivial C FMU of the same variables, and the moored
RM3's lines alone against MoorDyn-C (issue 31), all in one run:

- the shipped moored body (``examples/moored_body.toml``: three chains, 24 segments,
  midpoint5 at 0.01 s);
- the RM3 with WEC-Sim's MoorDyn mooring (``examples/rm3/rm3_moordyn.toml``: six chains,
  60 segments, three free buoys, midpoint5 at 0.005 s);
- the default sphere with convolution radiation (``examples/default_sphere_regular.toml``:
  rk4 at 0.01 s, a 30 s radiation memory).

One step = set one input, ``fmi2DoStep`` of 0.1 s, get every output:

- the native FMU in the C host ``tests/c_host/native_host.c`` (``bench`` mode, dlopen);
- the trivial C FMU of the same variables: the same runtime, host and model description
  with a model of one state, no sinusoid, no lines and a zero output map (what the FMI
  calls cost alone; ``benchmarks/native.py``'s ``trivial_copy``), built in the same run;
- the Python FMU of the same model in fmpy's ``FMU2Slave``.

Then the lines alone over the RM3's 400 s (its ``stop_time``): the spar's motion is
recorded from the native FMU (fmpy, a seeded PTO force new at every step), and the six
lines are driven through it (same file, ``midpoint5`` at the model's 0.005 s) by

- hydrofmu's line kernel (``line_kernel.c``, the one the native FMU compiles in), stepping
  whole 0.1 s intervals in C (``hydrofmu mooring replay``'s compiled stepper), and
- MoorDyn-C (the ``moordyn`` package), one ``Step`` per 0.1 s sample, MoorDyn sub-stepping
  at ``dtM`` inside, as its own drivers do (in a subprocess: the binding can crash the
  interpreter at exit);

both timed without their initial conditions; MoorDyn-C also at the file's own options
(WEC-Sim's ``dtM`` = 0.0005 s, its default scheme RK2). Each time is the least of
``--repeat`` runs (the machine may be shared).

Draws ``docs/benchmarks/native_lines.png``.

    python benchmarks/native_lines.py [--steps 2000] [--python-steps 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from native import DT, compile_host, host_us, trivial_copy, unpack  # noqa: E402

from hydrofmu.api.model import Model  # noqa: E402
from hydrofmu.export.native import build_native_fmu  # noqa: E402

MODELS = {"moored body (3 chains, midpoint5, 0.01 s)":
          (ROOT / "examples" / "moored_body.toml", "body.F_pto[1]"),
          "RM3 + WEC-Sim MoorDyn mooring (6 chains, 3 buoys, midpoint5, 0.005 s)":
          (ROOT / "examples" / "rm3" / "rm3_moordyn.toml", "pto.F_pto"),
          "default sphere, convolution radiation (rk4, 0.01 s)":
          (ROOT / "examples" / "default_sphere_regular.toml", "body.F_pto[3]")}
RM3 = "RM3 + WEC-Sim MoorDyn mooring (6 chains, 3 buoys, midpoint5, 0.005 s)"

#: MoorDyn-C through the ``moordyn`` package: one Step per sample, the wall time of the
#: steps (initial conditions apart) and the fairlead tensions at the end, on stdout.
MOORDYN_SCRIPT = r"""
import os, sys, time, numpy as np, moordyn
lines, motion = sys.argv[1], sys.argv[2]
data = np.load(motion)
t, x, v = data["t"], data["x"], data["v"]
s = moordyn.Create(lines)
moordyn.SetVerbosity(s, moordyn.LEVEL_ERR)
moordyn.Init(s, list(x[0]), list(v[0]))
t0, c0 = time.perf_counter(), time.process_time()
for i in range(t.size - 1):
    moordyn.Step(s, list(x[i]), list(v[i]), float(t[i]), float(t[i + 1] - t[i]))
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
print(f"WALL {wall} CPU {cpu}", flush=True)
os._exit(0)
"""


def python_us(fmu: Path, input_name: str, steps: int, folder: Path) -> tuple[float, float]:
    """µs per step of the Python FMU in fmpy (set the input, step, get every output):
    (wall, CPU of this process)."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu))
    outs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
    vr_in = next(v.valueReference for v in md.modelVariables if v.name == input_name)
    slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu), unzipdir=str(folder)),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="p")
    slave.instantiate()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.exitInitializationMode()
    t0, c0 = time.perf_counter(), time.process_time()
    for k in range(steps):
        slave.setReal([vr_in], [1e5 * (k % 7 - 3) / 3.0])
        slave.doStep(currentCommunicationPoint=k * DT, communicationStepSize=DT)
        slave.getReal(outs)
    us = ((time.perf_counter() - t0) / steps * 1e6, (time.process_time() - c0) / steps * 1e6)
    slave.terminate()
    slave.freeInstance()
    return us


def record_motion(fmu: Path, body: str, input_name: str, duration: float,
                  folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """Times (s) and ``body.pose[1..6]`` (m, rad) of the native FMU in fmpy every 0.1 s,
    driven by a seeded PTO force that changes at every step."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu))
    vrs = {v.name: v.valueReference for v in md.modelVariables}
    pose = [vrs[f"{body}.pose[{k}]"] for k in range(1, 7)]
    slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu), unzipdir=str(folder)),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="m")
    slave.instantiate()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.exitInitializationMode()
    n = round(duration / DT)
    force = 1e5 * np.random.default_rng(2026).standard_normal(n)
    rows = [slave.getReal(pose)]
    for k in range(n):
        slave.setReal([vrs[input_name]], [float(force[k])])
        slave.doStep(currentCommunicationPoint=k * DT, communicationStepSize=DT)
        rows.append(slave.getReal(pose))
    slave.terminate()
    slave.freeInstance()
    return DT * np.arange(n + 1), np.array(rows)


def with_options(text: str, dtm: float | None, scheme: str | None) -> str:
    """The MoorDyn file with ``dtM`` and ``tScheme`` set (``None``: as the file has it)."""
    lines = text.splitlines()
    opt = next(i for i, ln in enumerate(lines) if "OPTIONS" in ln.upper())
    body = [ln for ln in lines[opt + 1:]]
    end = next(i for i, ln in enumerate(body) if ln.lstrip().startswith("---"))
    keep = [ln for ln in body[:end]
            if not re.search(r"\s(dtM|tScheme)\b", ln) or
            (dtm is None and " dtM" in ln) or (scheme is None and "tScheme" in ln)]
    if dtm is not None:
        keep.insert(0, f"{dtm!r}   dtM   - time step (s)")
    if scheme is not None:
        keep.insert(1, f"{scheme}   tScheme   - time scheme")
    return "\n".join(lines[:opt + 1] + keep + body[end:]) + "\n"


def lines_alone(model: Model, fmu: Path, input_name: str, folder: Path,
                repeat: int) -> dict[str, Any]:
    """The RM3's lines alone through the spar's recorded motion: hydrofmu's kernel and
    MoorDyn-C (the same file, scheme and step; and MoorDyn-C at the file's own)."""
    from hydrofmu.cosim.line_stepper import CompiledSteps
    from hydrofmu.cosim.replay import Replay, coupled_columns
    from hydrofmu.runtime.moorings.equilibrium import initial_state
    from hydrofmu.runtime.moorings.moordyn_input import read_moordyn
    from hydrofmu.runtime.schemes.registry import make_scheme

    cfg = model.config
    duration = float(cfg["simulation"]["stop_time"])
    dtm = float(cfg["simulation"]["max_internal_step"])
    scheme = cfg["simulation"]["time_scheme"]
    mooring = cfg["moorings"][0]
    t, pose = record_motion(fmu, mooring["body"], input_name, duration, folder / "motion")
    coords = pose.copy()
    coords[:, :3] += np.asarray(mooring["reference_point"], dtype=float)
    same = folder / "lines_same.txt"
    same.write_text(with_options(mooring["text"], dtm, scheme))
    own = folder / "lines_own.txt"
    own.write_text(mooring["text"])
    lines_model = read_moordyn(same)
    assert coupled_columns(lines_model) == [f"body1.{d}" for d in
                                            ("x", "y", "z", "roll", "pitch", "yaw")]
    replay = Replay(model=lines_model, t=t, coords=coords, kernel="c")
    p0, _ = replay.kinematics(float(t[0]))
    x0, _ = initial_state(replay.system, p0)
    steps = [max(1, int(np.ceil((t[i + 1] - t[i]) / dtm - 1e-9))) for i in range(t.size - 1)]
    ours = (float("inf"), float("inf"))
    for _ in range(repeat):
        stepper = CompiledSteps(system=replay.system, scheme=make_scheme(scheme),
                                motion=replay.motion, n_bodies=1)
        x = x0.copy()
        start, cpu = time.perf_counter(), time.process_time()
        for i, n in enumerate(steps):
            x = stepper.advance(x, float(t[i]), (t[i + 1] - t[i]) / n, n)
        ours = min(ours, (time.perf_counter() - start, time.process_time() - cpu))
    motion = folder / "motion.npz"
    vel = np.array([replay.motion(float(ti))[1] for ti in t])
    np.savez(motion, t=t, x=coords, v=vel)

    def moordyn_wall(path: Path) -> tuple[float, float]:
        best = (float("inf"), float("inf"))
        for _ in range(repeat):
            out = subprocess.run([sys.executable, "-c", MOORDYN_SCRIPT, str(path), str(motion)],
                                 capture_output=True, text=True, env={**os.environ},
                                 check=False, cwd=folder)
            found = re.search(r"WALL ([-+0-9.eE]+) CPU ([-+0-9.eE]+)", out.stdout)
            assert found, f"MoorDyn-C gave no time: {out.stdout[-2000:]}{out.stderr[-2000:]}"
            best = min(best, (float(found.group(1)), float(found.group(2))))
        return best

    evaluations = sum(steps) * (int(re.sub(r"\D", "", scheme) or 1))
    return {"duration": duration, "dtm": dtm, "scheme": scheme, "ours": ours,
            "ours_eval_us": ours[1] / evaluations * 1e6, "moordyn": moordyn_wall(same),
            "moordyn_own": moordyn_wall(own), "own_dtm": read_moordyn(own).options.dtM,
            "own_scheme": read_moordyn(own).options.tScheme}


def plot(rows: list[tuple], path: Path) -> None:
    """Bars of µs per step: the native FMU (CPU) and the trivial C FMU in the C host, the
    Python FMU in fmpy, and real time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    names = [r[0].split(" (")[0] for r in rows]
    y = range(len(rows))
    ax.barh([i + 0.27 for i in y], [r[2][1] for r in rows], height=0.27,
            label="native, C host (CPU)")
    ax.barh(list(y), [r[3][1] for r in rows], height=0.27, label="trivial C FMU (CPU)")
    ax.barh([i - 0.27 for i in y], [r[4][1] for r in rows], height=0.27,
            label="Python FMU, fmpy (CPU)")
    ax.axvline(DT * 1e6, color="k", lw=0.8, ls="--", label="real time (0.1 s)")
    ax.set_xscale("log")
    ax.set_yticks(list(y), names)
    ax.set_xlabel("µs per 0.1 s step")
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def host_cost(host: Path, info: dict[str, Any], steps: int, repeat: int) -> tuple[float, float]:
    """µs per step of an FMU in the C host: (wall, as the host times its loop; CPU of the
    host process over the run, instantiation included), the least of ``repeat`` runs."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = host_us(host, info, steps, 1)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / steps
        best = min(best, (wall, cpu * 1e6))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--python-steps", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plot", default=str(ROOT / "docs" / "benchmarks" /
                                              "native_lines.png"))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="hydrofmu_bench_lines_") as tmp:
        folder = Path(tmp)
        host = compile_host(folder)
        for i, (label, (toml, input_name)) in enumerate(MODELS.items()):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = Model.from_toml(toml)
                name = f"M{i}"
                native = build_native_fmu(model.bodies, copy.deepcopy(model.config),
                                          folder / f"{name}.fmu", model_name=name,
                                          python_fmu=folder / "py" / f"{name}.fmu",
                                          platforms=("linux64",))
            info = unpack(native, folder, name, input_name)
            trivial = trivial_copy(info, folder, name)
            nat = host_cost(host, info, args.steps, args.repeat)
            empty = host_cost(host, trivial, args.steps * 10, args.repeat)
            py = python_us(folder / "py" / f"{name}.fmu", input_name, args.python_steps,
                           folder / f"py_{name}")
            rows.append((label, info["n_out"], nat, empty, py))
            if label == RM3:
                alone = lines_alone(model, native, input_name, folder, args.repeat)
    print(f"µs per {DT} s step (wall as timed / CPU of the process); real time x from CPU")
    print("| model | outputs | native, C host | trivial C FMU | ratio (CPU) | real time x | "
          "Python FMU, fmpy | Python / native (CPU) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, n_out, nat, empty, py in rows:
        print(f"| {label} | {n_out} | {nat[0]:.1f} / {nat[1]:.1f} | {empty[0]:.2f} / "
              f"{empty[1]:.2f} | {nat[1] / empty[1]:.0f} | {DT * 1e6 / nat[1]:.0f} | "
              f"{py[0]:.0f} / {py[1]:.0f} | {py[1] / nat[1]:.0f} |")
    a = alone
    print(f"\nRM3's six lines alone over {a['duration']:.0f} s of the spar's recorded motion "
          f"({a['scheme']}, dtM = {a['dtm']} s), s wall / s CPU:")
    print(f"- hydrofmu's line kernel, whole intervals in C: {a['ours'][0]:.3f} / "
          f"{a['ours'][1]:.3f} ({a['duration'] / a['ours'][1]:.0f}x real time in CPU; "
          f"{a['ours_eval_us']:.2f} µs CPU per evaluation)")
    print(f"- MoorDyn-C, same file, scheme and dtM: {a['moordyn'][0]:.3f} / "
          f"{a['moordyn'][1]:.3f} ({a['duration'] / a['moordyn'][1]:.0f}x real time in CPU); "
          f"ours / MoorDyn-C in CPU = {a['ours'][1] / a['moordyn'][1]:.2f}")
    print(f"- MoorDyn-C at the file's own options ({a['own_scheme']}, dtM = {a['own_dtm']} s):"
          f" {a['moordyn_own'][0]:.3f} / {a['moordyn_own'][1]:.3f}")
    rm3 = next(r for r in rows if r[0] == RM3)
    print(f"- the whole moored RM3 natively: {rm3[2][1] * a['duration'] / DT * 1e-6:.3f} s CPU "
          f"for {a['duration']:.0f} s ({DT * 1e6 / rm3[2][1]:.0f}x real time)")
    plot(rows, Path(args.plot))


if __name__ == "__main__":
    main()
