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


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"<!-- test-command -->\s*```sh\n(.*?)\n```", readme, re.S).group(1)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    runs = [line for line in ci if line and not line.startswith(("#", "set ", "cd "))]
    assert runs == [command]
