"""The README's Python section runs as written (in a copy of the examples folder)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paths import ROOT

pytestmark = pytest.mark.fmu


def python_blocks(text: str) -> list[str]:
    """The ```python blocks that follow a ``<!-- python-api -->`` marker."""
    return re.findall(r"<!-- python-api -->\s*```python\n(.*?)```", text, flags=re.S)


def test_the_readme_python_section_runs(tmp_path: Path) -> None:
    blocks = python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) == 1
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    proc = subprocess.run([sys.executable, "-c", blocks[0]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert re.fullmatch(r"float heave: -?\d+\.\d{3} m", lines[-2]), lines
    assert float(lines[-1]) == 0.0  # the FMU in fmpy gives the in-process outputs
    assert (tmp_path / "out" / "readme" / "RM3.fmu").is_file()
