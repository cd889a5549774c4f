"""Where the tests find their files: inside the repository, relative to this folder."""

from __future__ import annotations

from pathlib import Path

#: The repository root (the folder holding ``tests/``).
ROOT = Path(__file__).resolve().parents[1]
#: Third-party BEM files (WAMIT via BEMIO, WAMIT .out, Capytaine .nc), with their
#: provenance in its README; the examples read the same copies.
DATA_DIR = ROOT / "examples" / "data"
BEMIO_SPHERE = DATA_DIR / "sphere_bemio.h5"
CAPYTAINE_CYLINDER = DATA_DIR / "cylinder_capytaine.nc"
WAMIT_RM3 = DATA_DIR / "rm3_wamit.out"
