"""The moored OC3-Hywind spar in a short-crested sea with a current
(``spar_spread_current.toml``): simulate, then plot the surge and sway offsets (the mean
offset and the slow drift, a 100 s moving average, on top of the wave-frequency motion),
the second-order load and the fairlead tensions.

Usage: ``python examples/spread_current/plot_offsets.py [--stop-time S] [--out DIR]``
(1800 s by default, about 4 min on one core; writes ``DIR/spar_offsets.png`` and prints the
mean offsets, the slow-drift and wave-frequency standard deviations).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import hydrofmu

HERE = Path(__file__).resolve().parent


def moving_average(x: np.ndarray, n: int) -> np.ndarray:
    """Centred moving average over ``n`` samples (edges: the shorter windows)."""
    kernel = np.ones(n) / n
    return np.convolve(x, kernel, mode="same") / np.convolve(np.ones_like(x), kernel,
                                                             mode="same")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stop-time", type=float, default=1800.0, help="s")
    ap.add_argument("--out", default="out/examples", help="output folder")
    args = ap.parse_args()
    model = hydrofmu.Model.from_toml(HERE / "spar_spread_current.toml")
    ds = model.simulate(args.stop_time, 0.5)
    t = ds["time"].values
    dt = float(t[1] - t[0])
    keep = t >= min(300.0, t[-1] / 2)      # after the ramp and the lines' settling
    window = max(1, round(100.0 / dt))      # 100 s: longer than the waves, shorter than
    rows = []                               # the ~270 s surge period of the moored spar
    for dof, name in ((1, "surge"), (2, "sway")):
        x = ds[f"spar.pose[{dof}]"].values
        slow = moving_average(x, window)
        rows.append((name, x, slow))
        print(f"{name}: mean offset {x[keep].mean():.3f} m, slow drift std "
              f"{slow[keep].std():.3f} m, wave-frequency std {(x - slow)[keep].std():.3f} m")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(4, 1, figsize=(10, 11), sharex=True)
    for ax, (name, x, slow) in zip(axes[:2], rows, strict=True):
        ax.plot(t, x, lw=0.6, label=f"{name}")
        ax.plot(t, slow, lw=1.6, label="100 s moving average (mean offset + slow drift)")
        ax.axhline(x[keep].mean(), color="k", ls="--", lw=0.8, label="mean offset")
        ax.set_ylabel(f"{name} (m)")
        ax.legend(loc="upper left", fontsize=8)
    for dof, name in ((1, "surge"), (2, "sway")):
        axes[2].plot(t, ds[f"spar.F_drift[{dof}]"].values / 1e3, lw=0.6, label=name)
    axes[2].set_ylabel("F_drift (kN)")
    axes[2].legend(loc="upper left", fontsize=8)
    names = [f"mooring.line{k}.T_fairlead" for k in (1, 2, 3)]
    for n in names:
        axes[3].plot(t, ds[n].values / 1e3, lw=0.6, label=n)
    axes[3].set_ylabel("tension (kN)")
    axes[3].set_xlabel("time (s)")
    axes[3].legend(loc="upper left", fontsize=8)
    fig.suptitle("OC3-Hywind spar on three catenary lines: Hs 6 m, Tp 10 s, cos-2s (s = 10) "
                 "about 20 deg, 1 m/s power-law current toward -30 deg", fontsize=10)
    fig.tight_layout()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / "spar_offsets.png", dpi=110)
    print(f"wrote {out / 'spar_offsets.png'}")


if __name__ == "__main__":
    main()
