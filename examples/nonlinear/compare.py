"""The default sphere in a steep regular wave: linear model against nonlinear hydrostatics
and Froude-Krylov force at the mean and at the instantaneous surface.

    .venv/bin/python examples/nonlinear/compare.py --out out/nonlinear [--stop-time 60]

Prints, for each model, the heave's crest and trough over the last 3 periods and the mean
heave (a nonlinear model drifts its mean position: the waterplane of a sphere shrinks
away from the equator), and writes ``heave.png`` (heave and vertical hydrostatic +
excitation force against time).
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


def run(stop_time: float) -> dict[str, object]:
    """The three models' results (xarray Datasets) by label."""
    data = tomllib.loads((HERE / "sphere_steep_wave.toml").read_text())
    out = {}
    for label, mode in (("linear", None), ("mean", "mean"), ("instantaneous", "instantaneous")):
        d = copy.deepcopy(data)
        if mode is None:
            del d["bodies"][0]["mesh"], d["bodies"][0]["nonlinear"]
        else:
            d["bodies"][0]["nonlinear"] = mode
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the BEM data's own notes
            model = hydrofmu.Model.from_dict(d, base_dir=HERE)
        out[label] = model.simulate(stop_time, d["simulation"]["output_interval"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("out/nonlinear"))
    parser.add_argument("--stop-time", type=float, default=60.0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = run(args.stop_time)
    print(f"{'model':<14} {'crest m':>8} {'trough m':>9} {'mean m':>8}")
    for label, ds in results.items():
        t = ds["time"].values
        z = ds["body.pose[3]"].values[t >= t[-1] - 18.0]
        print(f"{label:<14} {z.max():8.4f} {z.min():9.4f} {z.mean():8.4f}")
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
        ax1.plot(t, ds["body.pose[3]"].values, label=label)
        force = ds["body.F_hydrostatic[3]"].values + ds["body.F_excitation[3]"].values
        ax2.plot(t, force / 1e6, label=label)
    ax1.set_ylabel("heave, m")
    ax2.set_ylabel("hydrostatic + excitation\nheave force, MN")
    ax2.set_xlabel("time, s")
    ax1.legend()
    ax1.set_title("r = 5 m sphere, H = 4 m, T = 6 s")
    fig.tight_layout()
    fig.savefig(args.out / "heave.png", dpi=120)
    print(f"wrote {args.out / 'heave.png'}")
    assert np.isfinite(results["instantaneous"]["body.pose[3]"].values).all()


if __name__ == "__main__":
    main()
