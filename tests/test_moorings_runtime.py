"""The mooring modules that run inside the FMU import only numpy, the standard library and
each other, so that the lead can add them to ``bundle.RUNTIME_MODULES`` as they are."""

from __future__ import annotations

from pathlib import Path

import hydrofmu
from hydrofmu.bundle import RUNTIME_MODULES, _runtime_sources, check_runtime_imports

MOORING_RUNTIME = [
    "moorings/catenary.py",
    "moorings/quasistatic.py",
    "moorings/frames.py",
    "moorings/lines.py",
    "moorings/equilibrium.py",
    "moorings/moordyn_input.py",
]


def test_mooring_runtime_modules_pass_the_bundle_import_check() -> None:
    root = Path(hydrofmu.__file__).parent
    files = _runtime_sources(root, [*RUNTIME_MODULES, *MOORING_RUNTIME])
    assert all(m in files for m in MOORING_RUNTIME)
    check_runtime_imports(files)  # raises ExportError listing any offending import

