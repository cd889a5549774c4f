"""Heave free decay of the default sphere and of the BEMIO sphere, through their FMUs.

Builds each FMU, simulates the release from 1 m with fmpy, and compares the measured
damped period and logarithmic decrement with the single-frequency prediction from the
same BEM data (natural frequency solved from K33 = w^2 (m + A33(w))).

    python examples/decay_test.py [--out DIR]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import warnings
from pathlib import Path

import numpy as np
import scipy.optimize

from hydrofmu.config.configuration import resolve
from hydrofmu.cosim.fmpy_run import simulate, write_csv
from hydrofmu.export.fmu import build_fmu

HERE = Path(__file__).resolve().parent
CASES = {
    "default_sphere": {"name": "body", "hydro": "builtin:sphere"},
    "bemio_sphere": {"name": "body", "hydro": "data/sphere_bemio.h5",
                     "mass": 261.8e3, "inertia": [2.0e7, 2.0e7, 3.0e7]},
}


def prediction(hd, m: float, k: float) -> tuple[float, float]:
    """Damped period (s) and log decrement from A33, B33 at the natural frequency."""
    def a33(w: float) -> float:
        return hd.coefficients_at(w)[0][2, 2]

    wn = scipy.optimize.brentq(lambda w: w * w * (m + a33(w)) - k, hd.omega[0], hd.omega[-1])
    b33 = hd.coefficients_at(wn)[1][2, 2]
    zeta = b33 / (2.0 * (m + a33(wn)) * wn)
    wd = wn * math.sqrt(1.0 - zeta**2)
    return 2.0 * math.pi / wd, 2.0 * math.pi * zeta / math.sqrt(1.0 - zeta**2)


def measure(t: np.ndarray, z: np.ndarray, cycles: int = 3) -> tuple[float, float]:
    """Period and decrement from the first peaks (parabolic refinement)."""
    i = np.flatnonzero((z[1:-1] > z[:-2]) & (z[1:-1] >= z[2:])) + 1
    y0, y1, y2 = z[i - 1], z[i], z[i + 1]
    d = 0.5 * (y0 - y2) / (y0 - 2 * y1 + y2)
    tp = t[i] + d * (t[1] - t[0])
    xp = y1 - 0.25 * (y0 - y2) * d
    return float(np.mean(np.diff(tp[: cycles + 1]))), float(
        np.mean(np.log(xp[:cycles] / xp[1 : cycles + 1])))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="folder for the FMUs and CSV files")
    args = parser.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="hydrofmu-decay-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"{'case':16s} {'T meas':>8s} {'T pred':>8s} {'delta meas':>11s} {'delta pred':>11s}")
    for name, body in CASES.items():
        data = {"wave": {"type": "none"}, "simulation": {"max_internal_step": 0.01},
                "bodies": [{**body, "dofs": ["heave"], "initial_pose": [0, 0, 1, 0, 0, 0]}]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bodies, cfg = resolve(data, HERE)
        fmu = build_fmu(bodies, cfg, out / f"decay_{name}.fmu", model_name=f"Decay_{name}",
                        overwrite=True)
        res = simulate(fmu, stop_time=30.0, output_interval=0.02)
        write_csv(res, out / f"decay_{name}.csv")
        m = cfg["bodies"][0]["mass_matrix"][2][2]
        k = cfg["bodies"][0]["hydrostatic_stiffness"][2][2]
        tp, dp = prediction(bodies[0], m, k)
        tm, dm = measure(np.asarray(res["time"]), np.asarray(res["body.pose[3]"]))
        print(f"{name:16s} {tm:8.4f} {tp:8.4f} {dm:11.4f} {dp:11.4f}")
    print(f"results in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
