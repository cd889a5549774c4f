"""The benchmark's functions run (on tiny sizes, without building FMUs), so that
``benchmarks/run.py`` cannot rot; no timing is asserted."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

_SPEC = importlib.util.spec_from_file_location(
    "hydrofmu_benchmark_run", Path(__file__).resolve().parents[1] / "benchmarks" / "run.py")
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def test_benchmark_functions_on_tiny_sizes(tmp_path: Path) -> None:
    # constant coefficients: no state-space realisation to fit (seconds per body)
    bodies, config = bench.sphere_config(2, state_space=False, n_components=3)
    assert [b["name"] for b in config["bodies"]] == ["b0", "b1"]
    counts = bench.interface_counts(bodies, config)
    assert counts["n_in"] == 2 * 6 + 1 and counts["n_out"] > counts["n_in"]
    run = bench.simulator_run(bodies, config, {"radiation.method": "constant"}, 0.1)
    assert run(3) > 0.0
    costs = bench.cost_curve([1, 2], lambda n: bench.sphere_config(n, state_space=False),
                             {"radiation.method": "constant"}, steps=2, repeat=1)
    assert len(costs) == 2 and all(np.isfinite(c) and c > 0.0 for c in costs)
    png = tmp_path / "cost.png"
    bench.plot_costs(png, [1, 2], {"a": costs}, [1, 2], {"a": costs})
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
