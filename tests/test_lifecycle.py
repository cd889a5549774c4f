"""Life cycle of the built FMU in one fmpy process: repeated instantiate / step / free does
not grow memory, and ``fmi2Reset`` reproduces the first run bit for bit.

Both run in a subprocess (``tests/fmu_driver.py``) where hydrofmu is not importable.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config
from hydrofmu.export.fmu import build_fmu
from test_fmu import DT, drive

pytestmark = pytest.mark.fmu

CYCLES, WARMUP, STEPS = 200, 20, 20


@pytest.fixture(scope="module")
def fmu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bodies, config = default_config()
    return build_fmu(bodies, config, tmp_path_factory.mktemp("lifecycle") / "HydroFMU.fmu")


@pytest.mark.slow
def test_repeated_instantiate_free_does_not_grow_memory(fmu: Path, tmp_path: Path) -> None:
    result = drive(
        "cycles",
        {"fmu": str(fmu), "cycles": CYCLES, "steps": STEPS, "dt": DT, "output": "body.pose[3]"},
        tmp_path,
    )
    rss = np.array(result["rss_kib"]) / 1024.0  # MB
    # Medians of the last ten cycles before and after: one cycle's RSS can hold a transient
    # ~1.8 MB (an allocation freed a cycle or two later; seen at single cycles of runs of
    # 200 and 400 cycles, before and after issue 29's changes alike), which is no leak:
    # measured this way, 0.92 MB before those changes, 0.96 MB after.
    growth = np.median(rss[-10:]) - np.median(rss[WARMUP - 10 : WARMUP])
    # Issue 7's acceptance: < 2 MB over the 180 cycles after the first 20 (12.3 MB before
    # the fix: every freed instance waited for a full cyclic collection; 0.74 MB measured
    # after it, allocator noise and pythonfmu's per-instantiation namespace).
    assert growth < 2.0, f"RSS grew by {growth:.2f} MB: {rss[WARMUP - 1]:.1f} -> {rss[-1]:.1f}"
    # Every cycle runs the same model: the last equals the first, bit for bit.
    assert result["first"] == result["last"]
    assert np.ptp(result["first"]) > 0.0  # the body moves: a real comparison


def test_reset_reproduces_the_first_run_bit_for_bit(fmu: Path, tmp_path: Path) -> None:
    result = drive(
        "reset",
        {
            "fmu": str(fmu),
            "start": {"wave.period": 6.0, "body.F_pto[3]": 5.0e3},
            "inputs": {"body.F_pto[3]": 5.0e3},
            "steps": 100,
            "dt": DT,
        },
        tmp_path,
    )
    first, second = (np.array(run) for run in result["runs"])
    assert first.shape == (100, second.shape[1])
    assert np.ptp(first) > 0.0
    # Deterministic model, same start values and inputs: identical, not merely close.
    assert np.array_equal(first, second)
