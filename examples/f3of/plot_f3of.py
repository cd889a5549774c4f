"""The F3OF's three decay tests, plotted: ``decay.png``.

Run from the repository root (a few minutes)::

    .venv/bin/python examples/f3of/plot_f3of.py --out examples/f3of

DT1: the base's surge on the 1e5 N/m spring (flaps locked), from 5 m; DT2: the base's
pitch about (0, 0, -9) m (flaps locked), from 10 degrees; DT3: both hinge angles, the base
held, the fore flap released from 10 degrees. It prints each decay's period (mean interval
between upward zero crossings after the first, the release); DT3's flaps ring at two
modes at once, so its periods are those of the sum and the difference of the two hinge
angles (the flaps turning together, in opposition: the device's mirror symmetry makes
them the modes). ``tests/test_f3of_decay.py`` compares them with the frequency-domain
solution of the same data.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np

import hydrofmu

HERE = Path(__file__).resolve().parent
CASES = (("dt1", 300.0, ["base.pose[1]"], "base surge (m)"),
         ("dt2", 120.0, ["base.pose[5]"], "base pitch (rad)"),
         ("dt3", 120.0, ["hinge1.angle", "hinge2.angle"], "hinge angle (rad)"))


def period(t: np.ndarray, x: np.ndarray) -> float:
    """Mean interval between upward zero crossings of ``x`` after the first, s."""
    i = np.flatnonzero((x[:-1] < 0) & (x[1:] >= 0))
    times = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    return float(np.mean(np.diff(times)[1:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("."), help="folder for decay.png")
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(8, 9), constrained_layout=True)
    for ax, (case, stop, outputs, label) in zip(axes, CASES, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = hydrofmu.Model.from_toml(HERE / f"f3of_{case}.toml")
        ds = model.simulate(stop, 0.05)
        t = ds["time"].values
        for name in outputs:
            ax.plot(t, ds[name].values, label=name)
        x = [ds[name].values for name in outputs]
        if len(x) == 2:  # the two flaps' modes: together, in opposition
            p = [period(t, x[0] + x[1]), period(t, x[0] - x[1])]
            text = f"modes {p[0]:.2f} s (together), {p[1]:.2f} s (in opposition)"
        else:
            text = f"period {period(t, x[0]):.2f} s"
        print(f"{case}: {text}")
        ax.set_title(f"{case.upper()}: {text}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(label)
        ax.grid(True)
        ax.legend()
    args.out.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out / "decay.png", dpi=90)
    print(f"wrote {args.out / 'decay.png'}")


if __name__ == "__main__":
    main()
