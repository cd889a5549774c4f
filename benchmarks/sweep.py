"""Cost of ``hydrofmu sweep``: 2 Dask workers against 1, and the cost of one 3-hour sea state.

Usage::

    python benchmarks/sweep.py [--sea-states 8] [--duration 300] [--long 1800]

In a temporary folder: the default sphere (surge, heave, pitch; rk4 with 0.01 s internal
steps, convolution radiation, output every 0.1 s) in irregular JONSWAP seas. (1) The same
table of ``--sea-states`` sea states of ``--duration`` s is swept with ``--workers 1`` and
``--workers 2`` (each sweep builds its FMU and starts its local cluster; both are timed
end to end and without that start-up, from the first submitted task to the last result).
(2) One sea state of ``--long`` s is run by one worker, timed end to end, and the cost of a
3-hour sea state printed: measured when ``--long 10800``, else extrapolated from the cost per
communication step, which is constant once the radiation history (30 s) is full. The
defaults take ~1.5 min on an idle 2-core machine (``--long 10800`` adds ~2 min). Figures
measured while other processes load the cores say nothing about the speed-up (a second
worker gets no second core). Not a test: the figures go in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from hydrofmu.sweep import SweepOptions, run_sweep
from hydrofmu.sweep import runner as sweep_runner

MODEL = """\
[simulation]
time_scheme = "rk4"
max_internal_step = 0.01
output_interval = 0.1
[wave]
type = "irregular"
ramp_time = 20.0
[[bodies]]
name = "body"
hydro = "builtin:sphere"
dofs = ["surge", "heave", "pitch"]
"""


def _timed_sweep(folder: Path, name: str, seas: Path, options: SweepOptions
                 ) -> tuple[float, float]:
    """(end-to-end s, compute s: first submission to last result)."""
    marks: dict[str, float] = {}
    compute = sweep_runner._compute

    def timed(*args, **kwargs):
        marks["start"] = time.perf_counter()
        try:
            return compute(*args, **kwargs)
        finally:
            marks["end"] = time.perf_counter()

    sweep_runner._compute = timed
    try:
        start = time.perf_counter()
        run_sweep(folder / "model.toml", seas, folder / name, options)
        total = time.perf_counter() - start
    finally:
        sweep_runner._compute = compute
    return total, marks["end"] - marks["start"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sea-states", type=int, default=8, help="0: only the long run")
    parser.add_argument("--duration", type=float, default=300.0)
    parser.add_argument("--long", type=float, default=1800.0,
                        help="s; 10800 measures the 3-hour sea state instead of extrapolating")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hydrofmu-bench-sweep-") as tmp:
        folder = Path(tmp)
        (folder / "model.toml").write_text(MODEL)
        seas = folder / "seas.csv"
        rows = [f"{1.0 + 0.5 * (k % 4)},{6.0 + 2.0 * (k // 4)},{k + 1}"
                for k in range(args.sea_states)]
        seas.write_text("Hs,Tp,seed\n" + "\n".join(rows) + "\n")
        results = {}
        for workers in (1, 2) if args.sea_states > 0 else ():
            options = SweepOptions(duration=args.duration, transient=min(300.0, args.duration / 2),
                                   workers=workers, progress=False)
            results[workers] = _timed_sweep(folder, f"w{workers}.nc", seas, options)
            total, compute = results[workers]
            print(f"{workers} worker(s): {args.sea_states} sea states x {args.duration:g} s: "
                  f"{total:.1f} s end to end, {compute:.1f} s computing "
                  f"({compute / args.sea_states:.2f} s per sea state)")
        if results:
            print(f"speed-up 2 vs 1 worker: {results[1][0] / results[2][0]:.2f}x end to end, "
                  f"{results[1][1] / results[2][1]:.2f}x computing")
        long = folder / "long.csv"
        long.write_text("Hs,Tp,seed\n2.0,8.0,1\n")
        options = SweepOptions(duration=args.long, transient=min(300.0, args.long / 2),
                               workers=1, progress=False)
        total, compute = _timed_sweep(folder, "long.nc", long, options)
        steps = round(args.long / 0.1)
        print(f"one sea state of {args.long:g} s ({steps} communication steps of 0.1 s): "
              f"{compute:.1f} s computing ({1e3 * compute / steps:.2f} ms per step), "
              f"{total:.1f} s end to end")
        how = ("measured" if args.long == 10800.0
               else f"extrapolated from {args.long:g} s at that cost per step")
        print(f"cost of a 3-hour sea state: {compute * 108000 / steps:.1f} s computing, one "
              f"worker ({how})")


if __name__ == "__main__":
    main()
