"""Cost of ``Simulator.step`` with the ``exact`` scheme against RK4, in the same run.

The default sphere, six DOFs, state-space radiation, regular and irregular waves (the
configured number of components), communication step 0.1 s; RK4 with 0.01 s internal
steps, by its linear map (the default on a linear model) and stagewise (the same scheme
step by step, ``schemes/linear_rk.py`` switched off). Times the step alone and the step
plus ``output_vector``, after the ramp.

    python benchmarks/exact_scheme.py [--steps 300] [--n-components 200]
"""

from __future__ import annotations

import argparse
import time

from hydrofmu.config.configuration import default_config
from hydrofmu.runtime.simulator.simulator import Simulator


def per_step(sim: Simulator, steps: int, h: float, outputs: bool) -> float:
    """Mean wall time of one communication step, µs."""
    start = time.perf_counter()
    for _ in range(steps):
        sim.step(sim.time, h)
        if outputs:
            sim.output_vector()
    return (time.perf_counter() - start) / steps * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--n-components", type=int, default=200)
    parser.add_argument("--step-size", type=float, default=0.1)
    args = parser.parse_args()
    bodies, cfg = default_config(radiation={"method": "state_space"})
    h = args.step_size
    print("| wave | scheme | step alone (µs) | step + outputs (µs) |\n|---|---|---|---|")
    for wave in ("regular", "irregular"):
        for scheme in ("rk4", "rk4 stagewise", "exact"):
            sim = Simulator(bodies, cfg, {"wave.type": wave,
                                          "time_scheme": scheme.split()[0],
                                          "wave.n_components": args.n_components})
            if scheme.endswith("stagewise"):
                sim.interval_stepper = None
            for _ in range(round(25.0 / h)):  # past the 20 s ramp, caches warm
                sim.step(sim.time, h)
            alone = per_step(sim, args.steps, h, outputs=False)
            both = per_step(sim, args.steps, h, outputs=True)
            print(f"| {wave} | {scheme} | {alone:.1f} | {both:.1f} |")


if __name__ == "__main__":
    main()
