"""Shared fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from paths import DATA_DIR


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The repository's folder of third-party BEM files (``examples/data``)."""
    return DATA_DIR
