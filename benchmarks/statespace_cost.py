"""Cost of one state-space radiation evaluation vs one convolution force evaluation.

``python benchmarks/statespace_cost.py`` realises the radiation kernel of the embedded
default sphere (all six DOFs) and times, per call:

- state space: ``derivative(x, v)`` + ``force(x, v)`` of
  :class:`hydrofmu.runtime.forces.radiation_ss.StateSpaceRadiation` (one RK stage needs both);
- convolution: :class:`hydrofmu.runtime.forces.radiation.ConvolutionRadiation` at dt = 0.01 s
  with a 30 s kernel, (a) ``commit`` + ``force`` (a new grid step: the history sums are
  recomputed, once per internal step) and (b) ``force`` alone (a later stage of the same
  step: the sums are cached).

Not a test: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import timeit
import warnings

import numpy as np

from hydrofmu.config.configuration import builtin_path
from hydrofmu.io.readers import read_hydro
from hydrofmu.runtime.forces.radiation import ConvolutionRadiation
from hydrofmu.runtime.irf.transforms import radiation_irf
from hydrofmu.statespace.realisation import realise_radiation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000, help="calls per timing")
    parser.add_argument("--repeat", type=int, default=5, help="timings (best is kept)")
    args = parser.parse_args()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hd = read_hydro(builtin_path("sphere"))
    real = realise_radiation(hd)
    print(real.report())
    ss = real.runtime()
    rng = np.random.default_rng(1)
    x = rng.normal(size=ss.n_states)
    v = rng.normal(size=6)

    def ss_eval() -> None:
        ss.derivative(x, v)
        ss.force(x, v)

    dt = 0.01
    t = np.arange(0.0, 30.0 + 0.5 * dt, dt)
    conv = ConvolutionRadiation(radiation_irf(hd, t), dt)
    conv.start(np.zeros(6))
    for _ in range(t.size):
        conv.commit(rng.normal(size=6))

    def conv_step() -> None:
        conv.commit(v)
        conv.force(0.5 * dt, 0.0, v, v)

    def conv_stage() -> None:
        conv.force(0.5 * dt, 0.0, v, v)

    def best(fn: object) -> float:
        return min(timeit.repeat(fn, number=args.number, repeat=args.repeat)) / args.number

    t_ss = best(ss_eval)
    t_step = best(conv_step)
    t_stage = best(conv_stage)
    print(f"state space ({ss.n_states} states): derivative + force {t_ss * 1e6:.2f} us")
    print(f"convolution (30 s at 0.01 s, {int(conv.mask.sum())} live entries): "
          f"commit + force {t_step * 1e6:.2f} us, force (cached sums) {t_stage * 1e6:.2f} us")
    print(f"ratio convolution step / state space: {t_step / t_ss:.1f}")


if __name__ == "__main__":
    main()
