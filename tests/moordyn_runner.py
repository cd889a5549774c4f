"""Run MoorDyn-C (the ``moordyn`` PyPI package) through a prescribed motion; a subprocess.

Usage: ``python moordyn_runner.py LINES.txt MOTION.csv OUT.csv``. The coupled kinematics come
from hydrofmu's own interpolant of MOTION.csv (the same one the replay uses), given to
MoorDyn at every ``dtM`` step (MoorDyn extrapolates them linearly within its step). OUT.csv
has ``t``, the coupled forces MoorDyn returns, and ``FairTen<k>``, ``AnchTen<k>`` (the norm of
the end nodes' net force, as MoorDyn's OUTPUTS channels), at the motion's samples, and on its
last line the wall time of the run (initial conditions excluded), s. The process leaves with
``os._exit`` because the binding can crash the interpreter at exit.
"""

from __future__ import annotations

import csv
import math
import os
import sys
import time

import moordyn
import numpy as np

from hydrofmu.cosim.replay import HermiteMotion, read_motion
from hydrofmu.runtime.moorings.moordyn_input import read_moordyn


def main(lines: str, motion: str, out: str) -> None:
    model = read_moordyn(lines)
    t, coords = read_motion(motion, model)
    interp = HermiteMotion(t=t, values=coords)
    dtm = model.options.dtM
    system = moordyn.Create(lines)
    moordyn.SetVerbosity(system, moordyn.LEVEL_ERR)
    x0, v0 = interp(float(t[0]))
    moordyn.Init(system, list(x0), list(v0))
    handles = [moordyn.GetLine(system, k + 1) for k in range(len(model.lines))]
    nseg = [ln.n_segments for ln in model.lines]

    def row(tt: float, f) -> list[float]:
        fair = [np.linalg.norm(moordyn.GetLineNodeForce(h, n))
                for h, n in zip(handles, nseg, strict=True)]
        anch = [np.linalg.norm(moordyn.GetLineNodeForce(h, 0)) for h in handles]
        return [tt, *f, *fair, *anch]

    f = moordyn.Step(system, list(x0), list(v0), float(t[0]), 1e-12)
    rows = [row(float(t[0]), f)]
    start = time.perf_counter()
    for i in range(t.size - 1):
        t0, t1 = float(t[i]), float(t[i + 1])
        n = max(1, math.ceil((t1 - t0) / dtm - 1e-9))
        h = (t1 - t0) / n
        for k in range(n):
            tk = t0 + k * h
            xk, vk = interp(tk)
            f = moordyn.Step(system, list(xk), list(vk), tk, h)
        rows.append(row(t1, f))
    wall = time.perf_counter() - start
    nl = len(model.lines)
    header = ["t", *[f"F{j}" for j in range(len(x0))],
              *[f"FairTen{k + 1}" for k in range(nl)], *[f"AnchTen{k + 1}" for k in range(nl)]]
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
        w.writerow([f"wall={wall}"])
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(*sys.argv[1:4])
