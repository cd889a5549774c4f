"""The OSWEC's free decay and pitch RAO, plotted: ``decay.png`` and ``rao.png``.

Run from the repository root (a minute or two)::

    .venv/bin/python examples/oswec/plot_oswec.py --out examples/oswec

- ``decay.png``: the flap released from 10 degrees in still water (``oswec_decay.toml``, no
  PTO, convolution radiation), the hinge angle over 120 s, with the period and logarithmic
  decrement of its first cycles.
- ``rao.png``: the hinge angle per metre of wave amplitude with the 12,000 N m s/rad PTO
  (``oswec.toml``) at wave periods 5-16 s, in the time domain (steady state fitted at the
  wave frequency) with convolution radiation and with A(w), B(w) at the wave frequency,
  against the frequency-domain solution of the same data ``(-w^2 (I + A) + i w (B + c) +
  K)^-1 X`` about the hinge (reduced by the model's own constraint basis).

It prints the table it plots.
"""

from __future__ import annotations

import argparse
import math
import warnings
from pathlib import Path

import numpy as np

import hydrofmu
from hydrofmu.runtime.simulator.simulator import Simulator

HERE = Path(__file__).resolve().parent
PERIODS = (5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 16.0)
#: Parts whose linear matrices are the frequency-domain K and C (radiation from the data).
LINEAR_KINDS = ("hydrostatics", "pto.linear", "joint.static_load", "viscous")


def frequency_domain(model: hydrofmu.Model, w: float) -> complex:
    """The hinge angle per unit wave amplitude at ``w`` (rad/s) from the data."""
    # The run time's simulator (an internal class) holds the matrices; Model does not
    # hand it out.
    sim = Simulator(model.bodies, model.config, {"wave.period": 2 * math.pi / w},
                    parts=model.parts)
    basis = sim.constraints.basis  # q = T q_r: the flap moves about the hinge only
    n = sim.n
    a, b = np.zeros((n, n)), np.zeros((n, n))
    a[:6, :6], b[:6, :6] = sim.bodies[0].coefficients_at(w)  # the flap; the base is fixed
    k, c = np.zeros((n, n)), np.zeros((n, n))
    for part in sim.parts:
        if part.kind in LINEAR_KINDS:
            stiffness, damping, _ = part.linear_matrices()
            k += stiffness
            c += damping
    x = np.zeros(n, dtype=complex)
    x[:6] = sim.bodies[0].excitation_at(w, 0.0)
    z = basis.T @ (-w * w * (sim.mass + a) + 1j * w * (b + c) + k) @ basis
    q = basis @ np.linalg.solve(z, basis.T @ x)
    return complex(q[4])  # the flap's pitch is the hinge angle (small rotations)


def time_domain(model: hydrofmu.Model, period: float, method: str) -> complex:
    """The steady hinge angle per unit wave amplitude, fitted over the last 120 s of 700 s
    together with the flap's free mode (its period ~19 s decays in ~160 s)."""
    ds = model.simulate(700.0, 0.1, parameters={"wave.period": period, "wave.height": 2.0,
                                                "wave.ramp_time": 40.0,
                                                "radiation.method": method})
    t = ds["time"].values
    keep = t >= t[-1] - 120.0
    w, wn = 2 * math.pi / period, 2 * math.pi / 19.0
    cols = [np.cos(w * t[keep]), np.sin(w * t[keep]), np.cos(wn * t[keep]),
            np.sin(wn * t[keep]), np.ones(keep.sum())]
    basis = np.column_stack(cols)

    def phasor(name: str) -> complex:
        coef = np.linalg.lstsq(basis, ds[name].values[keep], rcond=None)[0]
        return complex(coef[0], -coef[1])

    return phasor("hinge.angle") / phasor("wave.elevation")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE), help="folder of the two PNG files")
    out = Path(parser.parse_args().out)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the BEM data's notes (asymmetry, extrapolation)
        decay = hydrofmu.Model.from_toml(HERE / "oswec_decay.toml")
        waves = hydrofmu.Model.from_toml(HERE / "oswec.toml")

    ds = decay.simulate(120.0, 0.05)
    t, angle = ds["time"].values, np.degrees(ds["hinge.angle"].values)
    inner = np.flatnonzero((angle[1:-1] > angle[:-2]) & (angle[1:-1] >= angle[2:])) + 1
    tops = inner[angle[inner] > 0][:4]
    period = float(np.mean(np.diff(t[tops])))
    decrement = float(np.mean(np.log(angle[tops][:-1] / angle[tops][1:])))
    print(f"decay: period {period:.3f} s, logarithmic decrement {decrement:.4f}")
    fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
    ax.plot(t, angle, label="hinge.angle")
    ax.plot(t[tops], angle[tops], "o", label="peaks analysed")
    ax.set(xlabel="time [s]", ylabel="hinge angle [deg]",
           title=f"OSWEC free decay from 10 deg: T = {period:.2f} s, "
                 f"log decrement {decrement:.3f}")
    ax.grid(True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.savefig(out / "decay.png", dpi=110)

    rows = []
    print("period [s]  convolution  A,B at w  frequency domain  [rad/m]")
    for p in PERIODS:
        w = 2 * math.pi / p
        conv, const = time_domain(waves, p, "convolution"), time_domain(waves, p, "constant")
        fd = frequency_domain(waves, w)
        rows.append((p, abs(conv), abs(const), abs(fd)))
        print(f"{p:9.1f}  {abs(conv):11.5f}  {abs(const):8.5f}  {abs(fd):16.5f}")
    rows_a = np.array(rows)
    fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
    ax.plot(rows_a[:, 0], rows_a[:, 3], "-", color="k", label="frequency domain (data)")
    ax.plot(rows_a[:, 0], rows_a[:, 2], "s", mfc="none", label="time domain, A, B at w")
    ax.plot(rows_a[:, 0], rows_a[:, 1], "o", label="time domain, convolution")
    ax.set(xlabel="wave period [s]", ylabel="hinge angle per wave amplitude [rad/m]",
           title="OSWEC pitch RAO, PTO 12,000 N m s/rad (oswec.nc)")
    ax.grid(True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.savefig(out / "rao.png", dpi=110)
    print(f"wrote {out / 'decay.png'}\nwrote {out / 'rao.png'}")


if __name__ == "__main__":
    main()
