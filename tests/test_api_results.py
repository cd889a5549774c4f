"""Results with dimensions (``body``, ``dof``, ``joint``, ``pto``, ``line``) from
``Model.simulate`` and ``hydrofmu.simulate_fmu``, ``simulate_fmu`` with FMPy's arguments,
``Model.from_bem``, one check of the times, and each data warning once per load."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import hydrofmu
from hydrofmu.api.dimensions import DOF_LABELS, add_dimensions, flat_names
from hydrofmu.api.results import to_dataset
from hydrofmu.config.configuration import builtin_path
from hydrofmu.config.run_settings import simulation_problems
from paths import ROOT

RM3 = ROOT / "examples" / "rm3" / "rm3.toml"


def assert_structured_equals_flat(ds: xr.Dataset) -> int:
    """Every member of every structured variable equals its flat variable bit for bit;
    returns how many members were compared."""
    n = 0
    for body in ds["body"].values if "body" in ds.coords else []:
        for i, dof in enumerate(DOF_LABELS):
            for q in ("pose", "velocity", "acceleration", "F_excitation", "F_constraint"):
                flat = ds[f"{body}.{q}[{i + 1}]"].values
                assert np.array_equal(ds.sel(body=body, dof=dof)[q].values, flat), (body, q)
                n += 1
    return n


# ------------------------------------------------------------------ dimensions, in process
@pytest.fixture(scope="module")
def rm3_model() -> hydrofmu.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the WAMIT data's own warnings: not checked here
        return hydrofmu.Model.from_toml(RM3, simulation={"stop_time": 8.0})


def test_rm3_simulate_selects_by_body_and_dof(rm3_model: hydrofmu.Model) -> None:
    ds = rm3_model.simulate()
    heave = ds.sel(body="float", dof="heave")["pose"]
    assert np.array_equal(heave.values, ds["float.pose[3]"].values)
    assert np.ptp(heave.values) > 0.0  # the waves moved it: the check compares something
    assert ds["pose"].dims == ("time", "body", "dof")
    assert list(ds["body"].values) == ["float", "spar"]
    assert list(ds["dof"].values) == list(DOF_LABELS)
    assert assert_structured_equals_flat(ds) == 2 * 6 * 5
    # Units per DOF from the flat outputs' units; a description without the owner.
    units = {ds[f"float.pose[{i}]"].attrs["units"] for i in (1, 2, 3)}
    assert ds["pose"].attrs["units"].startswith(f"{units.pop()} (surge, sway, heave); ")
    assert "float" not in ds["pose"].attrs["description"]
    # Joints: the six-vector over (joint, dof), the prismatic joint's position over joint,
    # NaN for the planar joint that has none.
    assert list(ds["joint"].values) == ["pto", "plate"]
    assert np.array_equal(ds.sel(joint="plate", dof="roll")["joint.F_constraint"].values,
                          ds["plate.F_constraint[4]"].values)
    assert np.array_equal(ds.sel(joint="pto")["joint.position"].values,
                          ds["pto.position"].values)
    assert np.all(np.isnan(ds.sel(joint="plate")["joint.position"].values))
    # The flat variables are all there, in the model's order.
    assert flat_names(ds) == rm3_model.output_names


def test_mooring_lines_and_ptos_get_their_dimension() -> None:
    moored = hydrofmu.Model.from_toml(ROOT / "examples" / "moored_body.toml")
    ds = moored.simulate(stop_time=1.0, output_interval=0.1)
    lines = [int(m[1]) for n in moored.output_names
             if (m := re.fullmatch(r"mooring\.line(\d+)\.T_fairlead", n))]
    assert lines and list(ds["line"].values) == lines
    for k in lines:
        for q in ("T_fairlead", "T_anchor"):
            assert np.array_equal(ds.sel(line=k)[f"mooring.{q}"].values,
                                  ds[f"mooring.line{k}.{q}"].values)
    assert ds["mooring.T_fairlead"].attrs["units"] == ds["mooring.line1.T_fairlead"].attrs[
        "units"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the data's own warnings: not checked here
        oswec = hydrofmu.Model.from_toml(ROOT / "examples" / "oswec" / "oswec.toml")
    ds = oswec.simulate(stop_time=1.0, output_interval=0.1)
    ptos = [n.split(".")[1] for n in oswec.output_names
            if n.startswith("pto.") and n.endswith(".power")]
    assert ptos and list(ds["pto"].values) == ptos
    assert np.array_equal(ds.sel(pto=ptos[0])["pto.power"].values,
                          ds[f"pto.{ptos[0]}.power"].values)
    assert "wave.elevation" in ds and ds["wave.elevation"].dims == ("time",)


def test_add_dimensions_on_a_synthetic_table() -> None:
    """Members missing a quantity are NaN, units are grouped by DOF, a flat name that a
    structured one would take wins, and names of no group stay flat only."""
    rng = np.random.default_rng(7)
    names = [*(f"a.pose[{i}]" for i in range(1, 7)), *(f"b.pose[{i}]" for i in range(1, 7)),
             *(f"a.F_x[{i}]" for i in range(1, 7)), "pto.p1.power", "pto.p2.power",
             "pto.p1.force", "mooring.line2.T_anchor", "user.thing", "b.pose[7]"]
    units = ["m"] * 3 + ["rad"] * 3 + ["m"] * 3 + ["rad"] * 3 + ["N"] * 3 + ["N.m"] * 3 + [
        "W", "W", "N", "N", "1", "m"]
    time = np.arange(5) * 0.5
    values = rng.standard_normal((time.size, len(names)))
    ds = add_dimensions(to_dataset(time, names, values, units))
    assert ds["pose"].attrs["units"] == "m (surge, sway, heave); rad (roll, pitch, yaw)"
    assert ds["F_x"].attrs["units"] == "N (surge, sway, heave); N.m (roll, pitch, yaw)"
    assert np.all(np.isnan(ds.sel(body="b")["F_x"].values))  # b has no F_x
    assert np.array_equal(ds.sel(body="b", dof="yaw")["pose"].values, values[:, 11])
    assert list(ds["pto"].values) == ["p1", "p2"]
    assert np.all(np.isnan(ds.sel(pto="p2")["pto.force"].values))
    assert np.array_equal(ds.sel(line=2)["mooring.T_anchor"].values, values[:, 21])
    assert flat_names(ds) == names  # every flat variable kept, in order
    assert "joint" not in ds.dims  # no owner with F_constraint[1..6]
    clash = add_dimensions(to_dataset(time, ["pto.power", "pto.p1.power"], values[:, :2],
                                      ["W", "W"]))
    assert np.array_equal(clash["pto.power"].values, values[:, 0])  # the flat one wins


# ------------------------------------------------------------------ the FMU in fmpy
@pytest.mark.fmu
def test_simulate_fmu_runs_the_default_experiment_with_dimensions(
        rm3_model: hydrofmu.Model, tmp_path: Path) -> None:
    fmu = rm3_model.build_fmu(tmp_path / "RM3.fmu", model_name="RM3", native=False)
    ds = hydrofmu.simulate_fmu(fmu)  # no other argument: [simulation] of the model
    sim = rm3_model.config["simulation"]
    assert ds["time"].values[0] == sim["start_time"]
    assert ds["time"].values[-1] == pytest.approx(sim["stop_time"], abs=1e-9)
    assert ds.sizes["time"] == round((sim["stop_time"] - sim["start_time"])
                                     / sim["output_interval"]) + 1
    heave = ds.sel(body="float", dof="heave")["pose"]
    assert np.array_equal(heave.values, ds["float.pose[3]"].values)
    assert assert_structured_equals_flat(ds) == 2 * 6 * 5
    # The same model in process: the same structured results (the FMU runs the same
    # simulator from the same communication points: bit-identical, tests/test_api.py).
    ref = rm3_model.simulate()
    assert np.array_equal(ds["pose"].values, ref["pose"].values)
    assert ds["pose"].attrs == ref["pose"].attrs
    # output= records a subset; FMPy's structured input array is taken as it is.
    t = ds["time"].values
    push = np.zeros(t.size, dtype=[("time", float), ("float.F_pto[3]", float)])
    push["time"], push["float.F_pto[3]"] = t, 1.0e5 * np.sin(0.5 * t)
    a = hydrofmu.simulate_fmu(fmu, stop_time=2.0, input=push, output=["float.pose[3]"])
    b = hydrofmu.simulate_fmu(fmu, stop_time=2.0, output=["float.pose[3]"],
                              input={"float.F_pto[3]": (t, push["float.F_pto[3]"])})
    assert flat_names(a) == ["float.pose[3]"] and "pose" not in a
    assert np.array_equal(a["float.pose[3]"].values, b["float.pose[3]"].values)
    assert not np.array_equal(a["float.pose[3]"].values, ds["float.pose[3]"].values[:21])
    with pytest.raises(TypeError):
        hydrofmu.simulate_fmu(fmu, 2.0, 0.1)  # keyword-only: no silent start_time = 2.0
    with pytest.raises(hydrofmu.ConfigError, match=r"unknown output\(s\) \['float\.pos'\]"):
        hydrofmu.simulate_fmu(fmu, output=["float.pos"])


def test_simulate_fmu_on_a_missing_or_wrong_file_names_it_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(hydrofmu.ConfigError, match=r"FMU not found: nope\.fmu.*hydrofmu build"):
        hydrofmu.simulate_fmu("nope.fmu")
    text = tmp_path / "model.fmu"
    text.write_text("not a zip")
    with pytest.raises(hydrofmu.ConfigError, match=r"model\.fmu is not an FMU"):
        hydrofmu.simulate_fmu(text)


# ------------------------------------------------------------------ the model's face
def test_the_times_are_checked_once_with_one_message() -> None:
    model = hydrofmu.Model.default(bodies=[{"name": "body", "hydro": "builtin:sphere",
                                            "dofs": ["heave"], "radiation": "constant"}],
                                   simulation={"stop_time": 1.0})
    times = {"start_time": 0.0, "stop_time": -5.0, "output_interval": 0.1}
    expected = simulation_problems(times, {"stop_time": "stop_time"})
    assert expected
    with pytest.raises(hydrofmu.ConfigError) as err:
        model.simulate(stop_time=-5.0, output_interval=0.1)
    assert str(err.value) == "; ".join(expected)
    # The configuration's own times are named as its keys.
    with pytest.raises(hydrofmu.ConfigError, match=r"\[simulation\] stop_time = 1\.0 s"):
        model.simulate(start_time=1.0)
    assert not hasattr(hydrofmu.Model, "simulator")  # the stepping object is not handed out


def _sphere_kwargs() -> dict:
    return {"dofs": ["heave"], "radiation": "state_space", "wave": {"height": 1.0},
            "simulation": {"max_internal_step": 0.02}}


def test_from_bem_takes_a_dataset_or_a_path() -> None:
    path = builtin_path("sphere")
    with xr.open_dataset(path) as opened:
        data = opened.load()
    before = data.copy(deep=True)
    from_path = hydrofmu.Model.from_bem(path, **_sphere_kwargs())
    from_data = hydrofmu.Model.from_bem(data, **_sphere_kwargs())
    xr.testing.assert_identical(data, before)  # the caller's dataset is not changed
    # Capytaine's in-memory form: true complex variables instead of the (re, im) dimension.
    merged = data.copy()
    for name in [n for n in data.data_vars if "complex" in data[n].dims]:
        merged[name] = data[name].sel(complex="re") + 1j * data[name].sel(complex="im")
    merged = merged.drop_dims("complex")
    from_complex = hydrofmu.Model.from_bem(merged, **_sphere_kwargs())
    toml = hydrofmu.Model.default(bodies=[{"name": "body", "hydro": "builtin:sphere",
                                           "dofs": ["heave"], "radiation": "state_space"}],
                                  wave={"height": 1.0},
                                  simulation={"max_internal_step": 0.02})
    runs = [m.simulate(stop_time=4.0, output_interval=0.1)
            for m in (from_path, from_data, from_complex, toml)]
    assert np.ptp(runs[0]["body.pose[3]"].values) > 0.0
    for other in runs[1:]:
        assert np.array_equal(runs[0]["pose"].values, other["pose"].values)
    assert from_data.bodies[0].source.startswith("xarray.Dataset")
    # A table is the section, a string the body's key: both reach the model.
    assert from_path.config["wave"]["height"] == 1.0
    assert from_path.config["radiation"]["method"] == "state_space"


def test_from_bem_refuses_an_unknown_keyword() -> None:
    with pytest.raises(hydrofmu.ConfigError, match=r"unknown keyword 'mas'.*did you mean 'mass'"):
        hydrofmu.Model.from_bem(builtin_path("sphere"), mas=1.0)


# ------------------------------------------------------------------ each warning once
def test_the_readme_example_gives_each_data_warning_once(tmp_path: Path) -> None:
    """The README's Python example loads RM3 (whose WAMIT data warn): each warning once."""
    block = re.findall(r"<!-- python-api -->\s*```python\n(.*?)```",
                       (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)[0]
    lines = block.splitlines()
    end = next(i for i, line in enumerate(lines) if "model.simulate(" in line)
    first = "\n".join(lines[:end + 1])  # the load and the run: nothing written
    assert "Model.from_toml" in first
    proc = subprocess.run([sys.executable, "-c", first], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    warned = [line.split("Warning: ", 1)[1] for line in proc.stderr.splitlines()
              if re.search(r"^\S.*:\d+: \w*Warning: ", line)]
    assert warned, proc.stderr  # RM3's data do warn: the count below counts something
    repeated = {w: n for w, n in Counter(warned).items() if n > 1}
    assert not repeated, repeated
