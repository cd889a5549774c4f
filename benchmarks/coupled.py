"""Per-step cost of the body FMU coupled to the PTO controller FMU, against the body alone.

Usage::

    python benchmarks/coupled.py [--dt 0.02] [--steps 1500] [--repeat 2]

Builds the default body FMU and ``examples/controller``'s damper FMU in a temporary folder
and times, in this process, three runs of the damped body in regular waves:

- ``single FMU``: fmpy loop over the body FMU alone, F = -c v set before every step;
- ``project master``: :class:`hydrofmu.cosim.master.FixedStepMaster` (Gauss-Seidel), two FMUs;
- ``libcosim``: libcosimpy from an OSP system structure file, two FMUs.

Each is timed at ``steps`` and ``steps / 3`` steps and the difference is divided by the
difference of steps, so that instantiation and initialization drop out. Best of
``--repeat``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples" / "controller"))

from build_controller import build_controller  # noqa: E402
from routes import run_libcosim, run_loop, run_master  # noqa: E402

from hydrofmu.config.configuration import default_config  # noqa: E402
from hydrofmu.export.fmu import build_fmu  # noqa: E402


def per_step(run, body: Path, controller: Path, dt: float, steps: int, repeat: int) -> float:
    """Seconds per communication step, set-up excluded (difference of two run lengths)."""
    few = max(1, steps // 3)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run(body, controller, dt, few * dt, 2.0e5)
        t1 = time.perf_counter()
        run(body, controller, dt, steps * dt, 2.0e5)
        t2 = time.perf_counter()
        best = min(best, ((t2 - t1) - (t1 - t0)) / (steps - few))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dt", type=float, default=0.02, help="communication step, s")
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hydrofmu_bench_coupled_") as tmp:
        bodies, config = default_config()
        body = build_fmu(bodies, config, Path(tmp) / "HydroFMU.fmu")
        controller = build_controller(tmp)
        runs = {
            "single FMU (fmpy loop)": run_loop,
            "project master (Gauss-Seidel, 2 FMUs)": lambda *a: run_master(
                *a, algorithm="gauss-seidel"
            ),
            "libcosim (OSP, 2 FMUs)": run_libcosim,
        }
        costs = {
            name: per_step(run, body, controller, args.dt, args.steps, args.repeat)
            for name, run in runs.items()
        }
    base = costs["single FMU (fmpy loop)"]
    print(f"communication step {args.dt} s, {args.steps} steps, best of {args.repeat}")
    for name, cost in costs.items():
        print(f"{name:40s} {cost * 1e6:9.1f} us/step  x{cost / base:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
