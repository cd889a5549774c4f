"""Wall time of ``hydrofmu mooring replay`` against MoorDyn-C on the same file.

Usage::

    python benchmarks/moorings_replay.py [--duration 20] [--schemes rk2 rk4]

For each test file (``tests/data/moorings/chain_1line.txt``: 1 chain of 20 segments;
``body_3lines.txt``: 3 chains of 20 segments on a coupled body; ``clump_2lines.txt``: 2
chains of 10 segments joined by a free point) and scheme, the same motion
(6 m surge at 10 s period, sampled every 0.1 s) is replayed, in the same run, by hydrofmu
with the numpy line kernel, with the compiled kernel (``moorings/line_kernel.c``) one Python
scheme step at a time, with the compiled kernel stepping whole sample intervals in C (the
replay's default for explicit Runge-Kutta schemes), and by MoorDyn-C through the
``moordyn`` package, with the same segments, scheme and ``dtM``.
MoorDyn-C is driven the way its own drivers do: one ``Step`` call per sample, MoorDyn
sub-stepping at ``dtM`` inside (the coupled objects extrapolated linearly within the
sample). Initial conditions are timed apart (hydrofmu's replay is timed from a solved
initial state). Each time is the least of ``--repeat`` runs (the machine may be shared);
hydrofmu's CPU seconds are given too. MoorDyn runs in a subprocess (its binding can crash the
interpreter at exit). Also reported: the cost of one ``LineSystem.derivative`` with each
kernel, and MoorDyn-C's wall time per derivative evaluation (its replay wall time over
steps x stages: an upper bound, it includes its stepping).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "moorings"

MOORDYN_SCRIPT = r"""
import os, sys, time, numpy as np, moordyn
lines, motion = sys.argv[1], sys.argv[2]
data = np.genfromtxt(motion, delimiter=",", names=True)
t = data["t"]; names = data.dtype.names[1:]
x = np.column_stack([data[n] for n in names])
v = np.gradient(x, t, axis=0)
s = moordyn.Create(lines)
moordyn.SetVerbosity(s, moordyn.LEVEL_ERR)
t0 = time.perf_counter(); moordyn.Init(s, list(x[0]), list(v[0])); t_ic = time.perf_counter() - t0
t0 = time.perf_counter()
for i in range(t.size - 1):
    moordyn.Step(s, list(x[i]), list(v[i]), float(t[i]), float(t[i + 1] - t[i]))
wall = time.perf_counter() - t0
print(f"{t_ic} {wall}", flush=True)
os._exit(0)
"""


def write_motion(path: Path, coupled: list[str], duration: float) -> None:
    t = np.round(np.arange(0.0, duration + 1e-9, 0.1), 10)
    ramp = np.where(t < 10.0, 0.5 * (1 - np.cos(np.pi * t / 10.0)), 1.0)
    surge = 6.0 * np.sin(2 * np.pi * t / 10.0) * ramp
    base = {c: -10.0 for c in coupled if c.startswith("point") and c.endswith(".z")}
    with path.open("w") as fh:
        fh.write(",".join(["t", *coupled]) + "\n")
        for ti, si in zip(t, surge, strict=True):
            vals = [si if c.endswith(".x") else base.get(c, 0.0) for c in coupled]
            fh.write(",".join(repr(float(v)) for v in [ti, *vals]) + "\n")


def main() -> None:
    from hydrofmu.cosim.replay import Replay, coupled_columns, read_motion
    from hydrofmu.runtime.moorings.equilibrium import initial_state
    from hydrofmu.runtime.moorings.moordyn_input import read_moordyn
    from hydrofmu.runtime.schemes.registry import make_scheme

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--schemes", nargs="+", default=["rk2", "rk4"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import hydrofmu.cosim.replay as replay_module

    print(f"{'file':<18}{'scheme':<7}{'dtM':>7}{'nodes':>6}{'numpy s':>9}{'C s':>8}"
          f"{'C+steps s':>10}{'MD-C s':>8}{'ratios np/C/C+st':>19}{'IC ours/MD s':>14}"
          f"{'f us np/C/MD':>15}")
    for name in ("chain_1line.txt", "body_3lines.txt", "clump_2lines.txt"):
        for scheme in args.schemes:
            dtm = {"rk2": 0.001, "rk4": 0.002}.get(scheme, 0.001)
            with tempfile.TemporaryDirectory() as tmp:
                lines = Path(tmp) / "lines.txt"
                lines.write_text((DATA / name).read_text()
                                 .replace("rk2           tScheme", f"{scheme}  tScheme")
                                 .replace("0.001         dtM", f"{dtm}  dtM"))
                model = read_moordyn(lines)
                motion = Path(tmp) / "motion.csv"
                write_motion(motion, coupled_columns(model), args.duration)
                t, coords = read_motion(motion, model)
                reps = {"numpy": Replay(model=model, t=t, coords=coords, kernel="numpy"),
                        "c": Replay(model=model, t=t, coords=coords, kernel="c"),
                        "c+steps": Replay(model=model, t=t, coords=coords, kernel="c")}
                reps["c"].compiled_steps = False
                rep = reps["numpy"]
                p0, _ = rep.kinematics(0.0)
                t0 = time.perf_counter()
                x, info = initial_state(rep.system, p0)
                ic = time.perf_counter() - t0
                solved = replay_module.initial_state
                replay_module.initial_state = lambda s, p, x=x, info=info: (x.copy(), dict(info))
                ours: dict[str, list[float]] = {k: [] for k in reps}
                try:
                    for _ in range(args.repeat):  # interleaved: the same load for each
                        for key, r in reps.items():
                            t0 = time.perf_counter()
                            r.run()
                            ours[key].append(time.perf_counter() - t0)
                finally:
                    replay_module.initial_state = solved
                deriv = {k: min(timeit.repeat("f(0.0, x, p, 0 * p)", number=2000, repeat=3,
                                              globals={"f": reps[k].system.derivative,
                                                       "x": x, "p": p0})) / 2000 * 1e6
                         for k in ("numpy", "c")}
                md, md_ic = [], []
                for _ in range(args.repeat):
                    out = subprocess.run([sys.executable, "-c", MOORDYN_SCRIPT, str(lines),
                                          str(motion)], capture_output=True, text=True,
                                         env={**os.environ}, check=True).stdout.split()
                    md_ic.append(float(out[-2]))  # its banner comes first
                    md.append(float(out[-1]))
                sch = make_scheme(scheme)  # evaluations per step (semi-implicit: N)
                stages = getattr(sch, "stages", None) or getattr(sch, "substeps", 1)
                n_steps = round(args.duration / dtm)
                md_f = min(md) / (n_steps * stages) * 1e6
                best = {k: min(v) for k, v in ours.items()}
                ratios = "/".join(f"{best[k] / min(md):.1f}" for k in ("numpy", "c", "c+steps"))
                print(f"{name:<18}{scheme:<7}{dtm:>7}{rep.system.arrays.n_nodes:>6}"
                      f"{best['numpy']:>9.3f}{best['c']:>8.3f}{best['c+steps']:>10.3f}"
                      f"{min(md):>8.3f}{ratios:>19}{ic:>8.2f}/{min(md_ic):<5.2f}"
                      f"{deriv['numpy']:>6.0f}/{deriv['c']:.1f}/{md_f:.1f}")

if __name__ == "__main__":
    main()
