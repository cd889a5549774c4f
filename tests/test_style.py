"""The code base stays ruff clean (rules in pyproject.toml, NPY included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean() -> None:
    # The ruff of this environment (the test extra pins its lower bound).
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format", "concise", "fmu_src",
         "tests", "build_scripts",
         "benchmarks", "examples"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
