"""The parameters are checked by one function with one default per setting, and a model
is built once between ``config.resolve`` and ``build_fmu``.

``parameters.checks.check_parameters`` is what the simulator's constructor runs (so
``config.resolve`` and ``fmi2ExitInitializationMode``) and what ``build_fmu`` runs on the
defaults of a configuration that ``resolve`` did not build; the IRF lengths have one
default (``parameters.table.IRF_DURATION``) and an explicit 0 is refused, naming the
setting, instead of becoming 30 s.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from hydrofmu.config.configuration import CHECKED_KEY, DEFAULTS, default_config, model_digest
from hydrofmu.export import fmu as export_fmu
from hydrofmu.export.fmu import build_fmu
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.parameters.checks import check_parameters
from hydrofmu.runtime.parameters.table import CONFIG_DEFAULTS, IRF_DURATION, config_value
from hydrofmu.runtime.simulator.layout import parameter_table
from hydrofmu.runtime.simulator.simulator import Simulator


@pytest.fixture(scope="module")
def model() -> tuple[list, dict]:
    return default_config()


def test_the_configuration_defaults_are_the_run_time_table() -> None:
    assert DEFAULTS is CONFIG_DEFAULTS
    for section in ("radiation", "excitation"):
        assert CONFIG_DEFAULTS[section]["irf_duration"] == IRF_DURATION
        assert config_value({}, section, "irf_duration") == IRF_DURATION
        assert config_value({section: {"irf_duration": None}}, section,
                            "irf_duration") == IRF_DURATION
        # An explicit value is kept as given, 0 included (the part refuses it).
        assert config_value({section: {"irf_duration": 0.0}}, section, "irf_duration") == 0.0


@pytest.mark.parametrize(("section", "overrides"), [
    ("radiation", {}),  # the default body: convolution radiation
    ("excitation", {"wave.type": "input"}),  # the elevation-input wave's kernel
])
def test_an_explicit_zero_irf_duration_is_refused(model: tuple[list, dict], section: str,
                                                  overrides: dict) -> None:
    bodies, cfg = model
    cfg = copy.deepcopy(cfg)
    cfg[section]["irf_duration"] = 0.0
    with pytest.raises(ConfigError, match=rf"{section}\.irf_duration must be a finite "
                                          r"number > 0, got 0\.0"):
        Simulator(bodies, cfg, overrides)


def test_a_missing_irf_duration_takes_the_one_default(model: tuple[list, dict]) -> None:
    bodies, cfg = model
    cfg = copy.deepcopy(cfg)
    del cfg["radiation"]["irf_duration"]
    sim = Simulator(bodies, cfg)
    # The kernel covers 0 .. IRF_DURATION at max_internal_step: the report says so.
    assert any(f"{IRF_DURATION:g} s" in line for line in sim.report), sim.report


def test_one_check_sizes_first_then_entries_then_cross_conditions(
        model: tuple[list, dict]) -> None:
    bodies, cfg = model
    table = parameter_table(bodies, cfg)
    values = check_parameters(table, cfg, {"wave.period": 6.0})
    assert values["wave.period"] == 6.0
    with pytest.raises(ConfigError, match=r"unknown parameter 'wave\.periodd'"):
        check_parameters(table, cfg, {"wave.periodd": 6.0})
    # 1e-6 s steps over the 30 s kernel: 3e7 samples of 6 x 6 + 6, ~10 GB of radiation
    # memory (limit 2 GiB), refused from the estimate before anything is allocated.
    with pytest.raises(ConfigError, match="radiation memory"):
        Simulator(bodies, cfg, {"max_internal_step": 1e-6})
    # The same length of the kernel is the configuration's: 1e-3 s of kernel fits.
    small = copy.deepcopy(cfg)
    small["radiation"]["irf_duration"] = 1e-3
    assert check_parameters(parameter_table(bodies, small), small,
                            {"max_internal_step": 1e-6})["max_internal_step"] == 1e-6
    with pytest.raises(ConfigError, match="shorter than 4 internal steps"):
        check_parameters(table, cfg, {"wave.period": 0.02})


def test_resolve_marks_the_model_it_built(model: tuple[list, dict]) -> None:
    bodies, cfg = model
    digest = model_digest(bodies, cfg)
    assert cfg[CHECKED_KEY] == digest
    # The payload's JSON round trip keeps it; any change of the model changes it.
    assert model_digest(bodies, json.loads(json.dumps(cfg, allow_nan=True))) == digest
    changed = copy.deepcopy(cfg)
    changed["wave"]["height"] = 2.5
    assert model_digest(bodies, changed) != digest
    heavier = [bodies[0].with_changes(rho=1026.0)]
    assert model_digest(heavier, cfg) != digest


class _Stop(Exception):
    pass


def test_build_fmu_does_not_build_a_resolved_model_again(
        model: tuple[list, dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bodies, cfg = model
    # A changed model is checked before anything is built (the one check's message).
    bad = copy.deepcopy(cfg)
    bad["wave"]["period"] = 0.02
    with pytest.raises(ConfigError, match="shorter than 4 internal steps"):
        build_fmu(bodies, bad, tmp_path / "bad.fmu", uri_shim=False)
    # The resolved one: the staged slave is only inspected, not initialized again.
    seen = []

    def inspect(staging: Path, package: str, *, initialize: bool = True) -> dict:
        seen.append(initialize)
        raise _Stop

    monkeypatch.setattr(export_fmu, "inspect_slave", inspect)
    with pytest.raises(_Stop):
        build_fmu(bodies, cfg, tmp_path / "good.fmu", uri_shim=False)
    assert seen == [False]
