"""Cost of one communication step of the default FMU with every time scheme.

Usage::

    python benchmarks/schemes.py [--steps 300] [--repeat 2] [--step-size 0.1]

Builds the default FMU (embedded sphere, regular waves, convolution radiation, 0.01 s
internal steps) and the empty pythonfmu FMU of ``benchmarks/run.py`` in a temporary
folder, then times, with the helpers of ``run.py`` (fmpy ``FMU2Slave``; set inputs,
``doStep``, get outputs; runs interleaved, best of ``--repeat``), one communication step
of the empty FMU and of one instance of the hydrofmu FMU per scheme (``time_scheme`` set
in initialization mode; the semi-implicit families with 5 substeps). Prints a markdown
table: microseconds per step, ratio to the empty FMU, derivative evaluations per
internal step.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import Driver, best_per_step, build_trivial

from hydrofmu.config.configuration import default_config
from hydrofmu.export.fmu import build_fmu
from hydrofmu.runtime.simulator.layout import parameter_table
from hydrofmu.runtime.simulator.simulator import Simulator

NAMES = ["euler", "heun", "rk2heun", "rk2", "rk3", "rk4", "ab2", "ab3", "ab4", "ab5",
         "leuler", "lab2", "lab3", "lab4", "lab5", "beuler5", "midpoint5", "anderson5",
         "aca5", "wilson5"]
#: Derivative evaluations per internal step once started (see the scheme modules).
EVALS = {"euler": 1, "heun": 1, "rk2heun": 2, "rk2": 2, "rk3": 3, "rk4": 4, "ab2": 1,
         "ab3": 1, "ab4": 1, "ab5": 1, "leuler": 1, "lab2": 1, "lab3": 1, "lab4": 1,
         "lab5": 1, "beuler5": 5, "midpoint5": 5, "anderson5": 5, "aca5": 6, "wilson5": 6}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300, help="steps per timed run")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs; the best is kept")
    parser.add_argument("--step-size", type=float, default=0.1, help="communication step, s")
    args = parser.parse_args(argv)
    h = args.step_size

    bodies, config = default_config()
    table = parameter_table(bodies, config)
    counts = {
        "n_real_par": sum(p.kind == "Real" for p in table),
        "n_int_par": sum(p.kind == "Integer" for p in table),
        "n_str_par": sum(p.kind == "String" for p in table),
        "n_in": len(Simulator.input_names(bodies, config)),
        "n_out": len(Simulator.output_names(bodies, config)),
    }
    with tempfile.TemporaryDirectory(prefix="hydrofmu_bench_") as tmp:
        folder = Path(tmp)
        fmu = build_fmu(bodies, config, folder / "HydroFMU.fmu")
        drivers = {"empty FMU": Driver(build_trivial(folder, counts), "trivial")}
        for name in NAMES:
            drivers[name] = Driver(fmu, name, {"time_scheme": name})
        best = best_per_step(
            {k: (lambda n, d=d: d.run(n, h)) for k, d in drivers.items()},
            args.steps, args.repeat,
        )
        for d in drivers.values():
            d.close()
    empty = best["empty FMU"]
    dt = float(config["simulation"]["max_internal_step"])
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}; communication step "
          f"{h:g} s, internal step {dt:g} s ({round(h / dt)} internal steps); "
          f"best of {args.repeat} x {args.steps} steps")
    print()
    print("| scheme | µs / communication step | ratio to empty FMU | evaluations / internal step |")
    print("|---|---|---|---|")
    print(f"| empty FMU | {empty:.1f} | 1 | - |")
    for name in NAMES:
        print(f"| `{name}` | {best[name]:.0f} | {best[name] / empty:.0f} | {EVALS[name]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
