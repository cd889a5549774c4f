"""The static equilibrium of a one-line MoorDyn file by MoorDyn-C (the ``moordyn`` PyPI
package): ``python moordyn_static_runner.py LINES.txt X Y Z SETTLE OUT.json`` initialises the
system with its coupled point at (X, Y, Z) (MoorDyn's IC stage: dynamic relaxation) and
then steps it with the point held for SETTLE seconds (MoorDyn-C 2.7 builds its initial
conditions in still water and applies the current from its first step on: the line settles
in it by its drag), and writes the first line's node positions (m) and its end tensions (N,
MoorDyn's FairTen and AnchTen: the norm of the end nodes' net force), with their change
over the last 10 s (how settled). A subprocess: the binding can crash the
interpreter at exit, so it leaves with ``os._exit``. A ``current_profile.txt`` beside
LINES.txt is MoorDyn-C's steady current (``Currents = 1`` in its OPTIONS).
"""

from __future__ import annotations

import json
import os
import sys

import moordyn
import numpy as np


def main(lines: str, x: str, y: str, z: str, settle: str, out: str) -> None:
    cwd = os.getcwd()
    os.chdir(os.path.dirname(os.path.abspath(lines)))  # the folder of current_profile.txt
    system = moordyn.Create(os.path.basename(lines))
    moordyn.SetVerbosity(system, moordyn.LEVEL_ERR)
    r0 = [float(x), float(y), float(z)]
    moordyn.Init(system, r0, [0.0, 0.0, 0.0])
    line = moordyn.GetLine(system, 1)
    n = moordyn.GetLineN(line)
    t, dt, steps = 0.0, 0.5, round(float(settle) / 0.5)
    fair = []
    for _ in range(steps):
        moordyn.Step(system, r0, [0.0, 0.0, 0.0], t, dt)
        t += dt
        fair.append(float(np.linalg.norm(moordyn.GetLineNodeForce(line, n))))
    nodes = [list(moordyn.GetLineNodePos(line, i)) for i in range(n + 1)]
    result = {"nodes": nodes,
              "fair": float(np.linalg.norm(moordyn.GetLineNodeForce(line, n))),
              "anch": float(np.linalg.norm(moordyn.GetLineNodeForce(line, 0))),
              "fair_change": float(np.ptp(fair[-20:])) if len(fair) >= 20 else None}
    os.chdir(cwd)
    with open(out, "w") as fh:
        json.dump(result, fh)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(*sys.argv[1:7])
