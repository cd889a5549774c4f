"""``benchmarks/panels.py`` runs its mesh step (the FMU builds and timings are its own
run's): the hull it writes at a target size is closed, outward and of about that size, so
that the table's panel counts are what it says; no timing is asserted."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location(
    "hydrofmu_benchmark_panels",
    Path(__file__).resolve().parents[1] / "benchmarks" / "panels.py")
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


@pytest.mark.parametrize("target", [250, 1000])
def test_the_benchmark_hull_has_the_size_asked(target: int, tmp_path: Path) -> None:
    from hydrofmu.io.panel_mesh import read_body_mesh

    pytest.importorskip("capytaine")
    count = bench.write_sphere(tmp_path / "hull.stl", target)
    # a whole resolution step apart at most: n^2 steps of 2 n + 1 in 3.86 n^2
    assert abs(count - target) <= 0.15 * target, count
    mesh = read_body_mesh(tmp_path / "hull.stl")  # refuses an open or inward hull
    assert len(mesh.triangles) == count
