"""Shared fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from paths import DATA_DIR


@pytest.fixture(scope="session", autouse=True)
def mooring_kernel() -> None:
    """The compiled mooring kernel in the cache before any test: the catenary solve has no
    numpy copy (tests that build catenary lines without the API find it there)."""
    from hydrofmu.export.body_kernel_build import compiled_library as body_kernel
    from hydrofmu.export.line_kernel_build import compiled_library

    compiled_library()
    body_kernel()  # the rigid-body kernel: rotations have no numpy copy either


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The repository's folder of third-party BEM files (``examples/data``)."""
    return DATA_DIR


@pytest.fixture
def reached(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Probes in place of the work a refusal must come before: reading the configuration,
    constructing the simulator (which allocates the wave components and histories),
    building an FMU, running one. Each records its name and raises, so a refusal that
    comes after it shows in the list (and in the status, which is then not 2)."""
    import hydrofmu.config.configuration
    import hydrofmu.cosim.fmpy_run
    import hydrofmu.export.fmu
    import hydrofmu.runtime.simulator.simulator

    names: list[str] = []

    def probe(name: str):
        def reached_here(*args, **kwargs):
            names.append(name)
            raise RuntimeError(f"{name} was reached")

        return reached_here

    monkeypatch.setattr(hydrofmu.config.configuration, "load_config", probe("load_config"))
    monkeypatch.setattr(hydrofmu.runtime.simulator.simulator.Simulator, "__init__",
                        probe("Simulator"))
    monkeypatch.setattr(hydrofmu.export.fmu, "build_fmu", probe("build_fmu"))
    monkeypatch.setattr(hydrofmu.cosim.fmpy_run, "simulate", probe("simulate"))
    return names
