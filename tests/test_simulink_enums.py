"""No parameter that only a String can set (Simulink's FMU block and most C hosts set no
String): every choice parameter has an Integer twin ``<name>_enum`` declared as an FMI
enumeration (:mod:`hydrofmu.runtime.parameters.choices`, :mod:`hydrofmu.export.enumerations`),
in both FMUs; the twin sets the choice exactly as the String does."""

from __future__ import annotations

from pathlib import Path

import fmpy
import numpy as np
import pytest

import hydrofmu
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.parameters.choices import MAX_SUBSTEPS, items

#: Short runs: the choice shows in the first seconds (radiation memory, wave ramp).
STOP, STEP = 4.0, 0.1


@pytest.fixture(scope="module")
def fmus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("enums")
    model = hydrofmu.Model.default()
    return {"native": model.build_fmu(folder / "N.fmu", model_name="Sphere", native=True,
                                      platforms=(fmpy.platform,)),
            "python": model.build_fmu(folder / "P.fmu", model_name="Sphere", native=False)}


def _choices(description: str) -> list[str]:
    return description.split("(one of: ")[1].rstrip(")").split(", ")


@pytest.mark.parametrize("kind", ["native", "python"])
def test_every_string_parameter_has_an_enumeration(fmus, kind: str) -> None:
    md = fmpy.read_model_description(str(fmus[kind]), validate=True,
                                     validate_variable_names=True)
    by_name = {v.name: v for v in md.modelVariables}
    strings = [v for v in md.modelVariables if v.type == "String"]
    assert {v.name for v in strings} == {"wave.type", "wave.spectrum", "radiation.method",
                                         "added_mass.method", "time_scheme"}
    for v in strings:
        twin = by_name[f"{v.name}_enum"]
        assert twin.type == "Enumeration" and twin.causality == "parameter"
        assert twin.variability == v.variability
        listed = [item.name for item in twin.declaredType.items]
        assert [int(item.value) for item in twin.declaredType.items] == list(
            range(1, len(listed) + 1))
        for choice in _choices(v.description):  # every choice, families expanded
            expected = ([f"{choice[:-1]}{n}" for n in range(1, MAX_SUBSTEPS + 1)]
                        if choice.endswith("N") else [choice])
            assert set(expected) <= set(listed), (v.name, choice)
        assert listed[int(twin.start) - 1] == v.start  # the two start values agree


def test_items_of_the_scheme_families() -> None:
    listed = items(("exact", "midpointN"), "midpoint40")
    assert listed[:3] == ("exact", "midpoint1", "midpoint2")
    assert listed[-1] == "midpoint40"  # the start value when none of them
    assert len(listed) == 2 + MAX_SUBSTEPS


def test_the_twin_sets_the_choice_in_simulate() -> None:
    """``radiation.method_enum = 2`` is ``radiation.method = "constant"``, bit for bit, and
    not the default (convolution); both set to different choices is refused, naming both."""
    model = hydrofmu.Model.default()
    by_string = model.simulate(STOP, STEP, parameters={"radiation.method": "constant"})
    by_twin = model.simulate(STOP, STEP, parameters={"radiation.method_enum": 2})
    default = model.simulate(STOP, STEP)
    heave = "body.pose[3]"
    assert np.array_equal(by_twin[heave].values, by_string[heave].values)
    assert not np.array_equal(by_twin[heave].values, default[heave].values)
    agree = model.simulate(STOP, STEP, parameters={"radiation.method": "constant",
                                                   "radiation.method_enum": 2})
    assert np.array_equal(agree[heave].values, by_string[heave].values)
    with pytest.raises(ConfigError, match=r"radiation\.method_enum = 3.*disagree"):
        model.simulate(STOP, STEP, parameters={"radiation.method": "constant",
                                               "radiation.method_enum": 3})
    with pytest.raises(ConfigError, match=r"1\.\.4"):
        model.simulate(STOP, STEP, parameters={"wave.type_enum": 7})


def _run(fmu: Path, start_values: dict) -> np.ndarray:
    result = fmpy.simulate_fmu(str(fmu), stop_time=STOP, step_size=STEP,
                               output_interval=STEP, start_values=start_values,
                               output=["body.pose[3]", "wave.elevation"])
    return np.column_stack([result["body.pose[3]"], result["wave.elevation"]])


def test_the_python_fmu_takes_a_choice_as_an_enumeration(fmus) -> None:
    """Through fmi2SetInteger (fmpy sets an enumeration so): the same run as the String;
    ``wave.type_enum = 1`` (none) gives a calm sea."""
    fmu = fmus["python"]
    by_twin = _run(fmu, {"radiation.method_enum": 2})
    by_string = _run(fmu, {"radiation.method": "constant"})
    assert np.array_equal(by_twin, by_string)
    assert not np.array_equal(by_twin, _run(fmu, {}))
    calm = _run(fmu, {"wave.type_enum": 1})
    assert np.all(calm[:, 1] == 0.0)
    with pytest.raises(Exception, match=r"(?i)exitInitializationMode|fmi2Error|failed"):
        _run(fmu, {"radiation.method": "constant", "radiation.method_enum": 3})


def test_the_native_fmu_takes_its_build_choice_as_an_enumeration(fmus) -> None:
    """The native FMU steps matrices assembled at build: the twin at its start value is
    taken (the same run), another value is refused as the String is (rebuild)."""
    fmu = fmus["native"]
    md = fmpy.read_model_description(str(fmu))
    start = next(int(v.start) for v in md.modelVariables if v.name == "radiation.method_enum")
    assert np.array_equal(_run(fmu, {"radiation.method_enum": start}), _run(fmu, {}))
    with pytest.raises(Exception, match=r"(?i)fmi2SetInteger|fmi2Error|failed"):
        _run(fmu, {"radiation.method_enum": start % 3 + 1})


@pytest.mark.parametrize(("setting", "shown"), [
    ({"radiation.method_enum": 2}, ("constant", 2)),
    ({"radiation.method": "constant"}, ("constant", 2)),
    ({}, ("convolution", 1)),
])
def test_the_python_fmu_shows_the_choice_it_runs(fmus, tmp_path: Path, setting: dict,
                                                 shown: tuple) -> None:
    """After initialization the String and its twin both show the choice the model runs
    with, whichever of them set it."""
    from fmpy import extract
    from fmpy.fmi2 import FMU2Slave

    fmu = fmus["python"]
    md = fmpy.read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu), str(tmp_path / "u")),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="show")
    slave.instantiate()
    try:
        slave.setupExperiment(startTime=0.0)
        for name, value in setting.items():
            if isinstance(value, str):
                slave.setString([vr[name]], [value])
            else:
                slave.setInteger([vr[name]], [value])
        slave.enterInitializationMode()
        slave.exitInitializationMode()
        assert (slave.getString([vr["radiation.method"]])[0].decode(),
                slave.getInteger([vr["radiation.method_enum"]])[0]) == shown
        slave.terminate()
    finally:
        slave.freeInstance()
