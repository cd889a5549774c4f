"""The OSWEC flap in a survival sea (oswec_survival.toml): the linear model against large
rotations with nonlinear hydrostatics and Froude-Krylov force.

    .venv/bin/python examples/oswec/compare_survival.py --out out/oswec_survival [--stop-time 150]

Three models of the same flap, wave and PTO:

- ``linear``: small rotations, linear hydrostatics and excitation (``rotations``, ``mesh``
  and ``nonlinear`` removed): the frequency-domain model in time;
- ``large, body axes``: the file as written: the pose by the exact hinge angle, the
  pressure on the hull cut at the instantaneous surface, radiation and damping in the
  flap's body axes (``radiation_frame = "body"``);
- ``large, world axes``: the same with ``radiation_frame = "world"`` (WEC-Sim's
  convention): the radiation's hinge damping and added mass fall with the angle (to 1/17
  and 1/8.5 at 90 degrees), and the flap is then driven over.

Prints each model's largest and smallest hinge angle over the last two wave periods and
writes ``angle.png`` (the hinge angle and the hinge's hydrostatic moment against time).
"""

from __future__ import annotations

import argparse
import copy
import tomllib
import warnings
from pathlib import Path

import numpy as np

import hydrofmu

HERE = Path(__file__).resolve().parent
HINGE = np.array([0.0, 0.0, -8.9])  # m
COG = np.array([0.0, 0.0, -3.9])  # m, the flap's reference point at rest


def run(stop_time: float) -> dict[str, object]:
    """The three models' results (xarray Datasets) by label."""
    data = tomllib.loads((HERE / "oswec_survival.toml").read_text())
    out = {}
    for label in ("linear", "large, body axes", "large, world axes"):
        d = copy.deepcopy(data)
        body = d["bodies"][0]
        if label == "linear":
            for key in ("rotations", "radiation_frame", "mesh", "nonlinear"):
                body.pop(key, None)
        elif label == "large, world axes":
            body["radiation_frame"] = "world"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the BEM data's own notes
            model = hydrofmu.Model.from_dict(d, base_dir=HERE)
        out[label] = model.simulate(stop_time, d["simulation"]["output_interval"])
    return out


def hinge_moment(ds: object) -> np.ndarray:
    """The hydrostatic load's moment about the hinge axis (y), N m: its moment about the
    reference point plus the arm from the hinge to the displaced reference point."""
    f = np.stack([ds[f"flap.F_hydrostatic[{i}]"].values for i in range(1, 7)], axis=1)
    x = np.stack([ds[f"flap.pose[{i}]"].values for i in range(1, 4)], axis=1)
    arm = COG + x - HINGE
    return f[:, 4] + (arm[:, 2] * f[:, 0] - arm[:, 0] * f[:, 2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("out/oswec_survival"))
    parser.add_argument("--stop-time", type=float, default=150.0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = run(args.stop_time)
    period = 10.0
    print(f"{'model':<18} {'max deg':>8} {'min deg':>8}   (last {2 * period:g} s)")
    for label, ds in results.items():
        t = ds["time"].values
        a = np.degrees(ds["hinge.angle"].values[t >= t[-1] - 2 * period])
        print(f"{label:<18} {a.max():8.2f} {a.min():8.2f}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(9, 6))
    for label, ds in results.items():
        t = ds["time"].values
        ax1.plot(t, np.degrees(ds["hinge.angle"].values), label=label)
        ax2.plot(t, hinge_moment(ds) / 1e6, label=label)
    ax1.set_ylim(-120.0, 120.0)
    ax1.set_ylabel("hinge angle, deg")
    ax2.set_ylabel("hydrostatic moment\nabout the hinge, MN m")
    ax2.set_xlabel("time, s")
    ax1.legend(loc="lower left")
    ax1.set_title("OSWEC flap, H = 4 m, T = 10 s, depth 10.9 m")
    fig.tight_layout()
    fig.savefig(args.out / "angle.png", dpi=120)
    print(f"wrote {args.out / 'angle.png'}")


if __name__ == "__main__":
    main()
