"""The mooring modules that run inside the FMU import only numpy, the standard library and
each other, and are bundled (they live under ``runtime/``)."""

from __future__ import annotations

import ast
from pathlib import Path

import hydrofmu
from hydrofmu.export.bundle import RUNTIME_ROOT, check_runtime_imports, runtime_sources

MOORING_RUNTIME = [
    "moorings/catenary.py",
    "moorings/quasistatic.py",
    "moorings/frames.py",
    "moorings/lines.py",
    "moorings/equilibrium.py",
    "moorings/moordyn_input.py",
    "moorings/moordyn_model.py",
    "moorings/line_layout.py",
    "forces/mooring_common.py",
]


def test_mooring_runtime_modules_pass_the_bundle_import_check() -> None:
    files = runtime_sources(RUNTIME_ROOT)
    assert all(m in files for m in MOORING_RUNTIME)
    check_runtime_imports(files)  # raises ExportError listing any offending import



def _local_imports(path: Path) -> set[str]:
    """Modules of the ``moorings`` package a module imports (relative, one level)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_mooring_modules_are_small_and_import_one_way() -> None:
    root = Path(hydrofmu.__file__).parent / "runtime" / "moorings"
    graph = {p.stem: _local_imports(p) for p in root.glob("*.py")}
    for p in [*root.glob("*.py"), *root.parent.glob("forces/*mooring*.py")]:
        n = len(p.read_text().splitlines())
        assert n <= 400, f"{p.name} has {n} lines; split it by job"

    # no cycle among the package's modules (imports inside functions included)
    def reach(start: str, seen: set[str]) -> set[str]:
        for m in graph.get(start, ()):
            if m not in seen:
                seen.add(m)
                reach(m, seen)
        return seen

    for name in graph:
        assert name not in reach(name, set()), f"moorings.{name} imports itself back"
    assert "equilibrium" not in reach("lines", set())
