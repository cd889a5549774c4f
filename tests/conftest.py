"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder of third-party data files, ``shared/data`` beside the checkout.

    Never skipped: without it the reader tests would pass vacuously.
    """
    folder = Path(__file__).resolve().parents[2] / "shared" / "data"
    if not folder.is_dir():
        pytest.fail(f"shared data folder not found at {folder}: check out 'shared/' beside the "
                    "repository (CI does); the reader tests need its BEM files")
    return folder
