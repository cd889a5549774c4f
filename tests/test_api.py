"""The Python API (``hydrofmu.Model``, ``simulate_fmu``, user parts): in-process runs equal
the FMU driven by fmpy, results carry units, and a user's part travels inside the FMU."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import hydrofmu
from hydrofmu.api.dimensions import flat_names
from hydrofmu.runtime.parts.part import unregister_part
from paths import ROOT

pytestmark = pytest.mark.fmu

USER_MODULE = Path(__file__).parent / "data" / "user_parts" / "seabed_spring.py"

# The FMU runs the same Simulator code on the same inputs and parameters, stepped from the
# same communication points; the only difference is fmpy's time bookkeeping (it may compute
# t = n h or accumulate t += h, a few ulp apart, which the simulator absorbs on its grid).
# Measured: 0 (bit-identical) on these cases; the bound allows round-off of the ~1e3
# internal steps' sums, 1e-12 of each output's peak, the acceptance bound of issue 19.
REL = 1e-12


def assert_same(a, b, names) -> None:
    assert np.array_equal(a["time"].values, b["time"].values) or np.allclose(
        a["time"].values, b["time"].values, rtol=0, atol=1e-12)
    for name in names:
        x, y = a[name].values, b[name].values
        # A structured variable is NaN where its member lacks the quantity: the same places.
        assert np.array_equal(np.isnan(x), np.isnan(y)), name
        peak = max(np.nanmax(np.abs(x)), np.nanmax(np.abs(y)))
        assert np.nanmax(np.abs(x - y)) <= REL * peak, (name, np.nanmax(np.abs(x - y)), peak)


def pto_signal(t_end: float):
    t = np.linspace(0.0, t_end, 41)
    return (t, 2.0e4 * np.sin(0.7 * t))


@pytest.mark.parametrize("case", ["rm3", "default"])
def test_model_simulate_equals_its_fmu_in_fmpy(case: str, tmp_path: Path) -> None:
    if case == "rm3":
        model = hydrofmu.Model.from_toml(ROOT / "examples" / "rm3" / "rm3.toml")
        inputs = {"float.F_pto[3]": pto_signal(20.0)}
    else:
        model = hydrofmu.Model.default()
        inputs = {"body.F_pto[3]": pto_signal(20.0)}
    params = {"wave.height": 1.5}
    ds = model.simulate(20.0, 0.1, inputs=inputs, parameters=params)
    # the Python FMU steps the same Simulator: bit-identical (the native one: 1e-12)
    fmu = model.build_fmu(tmp_path / f"{case}.fmu", model_name=f"Api{case.title()}",
                          native=False)
    ref = hydrofmu.simulate_fmu(fmu, stop_time=20.0, output_interval=0.1, input=inputs,
                                start_values=params)
    assert flat_names(ds) == flat_names(ref) == model.output_names
    assert list(ds.data_vars) == list(ref.data_vars)  # the structured ones too, in order
    structured = [v for v in ds.data_vars if v not in model.output_names]
    assert "pose" in structured
    assert_same(ds, ref, structured)
    for name in structured:  # labelled alike by both paths, from the flat names and units
        assert ds[name].attrs == ref[name].attrs, name
        assert ds[name].dims == ref[name].dims, name
    assert ds.sizes["time"] == ref.sizes["time"] == 201
    assert_same(ds, ref, model.output_names)
    # Units and descriptions: from the model in process, from the model description via fmpy.
    for name in model.output_names:
        assert ds[name].attrs["units"] == ref[name].attrs["units"], name
        assert ds[name].attrs["description"]
    first = model.output_names[0]
    assert ds[first].attrs["units"] == "m" and ds["time"].attrs["units"] == "s"
    # The response is not trivial: the inputs and the waves moved the body.
    heave = "float.pose[3]" if case == "rm3" else "body.pose[3]"
    assert np.ptp(ds[heave].values) > 1e-3


def test_simulate_refuses_bad_arguments_before_any_work() -> None:
    model = hydrofmu.Model.default(bodies=[{"name": "body", "hydro": "builtin:sphere",
                                            "dofs": ["heave"], "radiation": "constant"}])
    with pytest.raises(hydrofmu.ConfigError, match="output_interval"):
        model.simulate(10.0, 0.0)
    with pytest.raises(hydrofmu.ConfigError, match="stop_time"):
        model.simulate(-5.0, 0.1)
    with pytest.raises(hydrofmu.ConfigError, match=r"unknown input\(s\) \['body.F_pot\[3\]'\]"):
        model.simulate(1.0, 0.1, inputs={"body.F_pot[3]": 1.0})
    with pytest.raises(hydrofmu.ConfigError, match="not finite"):
        model.simulate(1.0, 0.1, inputs={"body.F_pto[3]": float("nan")})


def test_from_toml_overrides_a_section() -> None:
    path = ROOT / "examples" / "default_sphere_regular.toml"
    base = hydrofmu.Model.from_toml(path)
    changed = hydrofmu.Model.from_toml(path, wave={"height": 0.5})
    assert changed.config["wave"]["height"] == 0.5
    assert base.config["wave"]["height"] != 0.5
    with pytest.raises(hydrofmu.ConfigError, match="not found"):
        hydrofmu.Model.from_toml(path.with_name("no_such.toml"))


@contextmanager
def user_module(path: Path, kind: str) -> Iterator[ModuleType]:
    """The user's module at ``path`` imported by its file name, as a user's script imports
    it; afterwards out of ``sys.modules`` and its part (registered as ``kind``) unregistered."""
    sys.path.insert(0, str(path.parent))
    try:
        module = importlib.import_module(path.stem)
    finally:
        sys.path.remove(str(path.parent))
    try:
        yield module
    finally:
        sys.modules.pop(path.stem, None)
        unregister_part(kind)


def _user_model(module):
    return hydrofmu.Model.default(
        parts=[(module.SeabedSpring, {"stiffness": 3.0e5})],
        bodies=[{"name": "body", "hydro": "builtin:sphere", "dofs": ["heave"],
                 "radiation": "state_space", "initial_pose": [0, 0, 0.5, 0, 0, 0]}],
        wave={"type": "none"},
    )


def test_a_user_part_runs_in_the_fmu_where_its_module_cannot_be_imported(
    tmp_path: Path,
) -> None:
    """A part written outside the package, registered, exported with ``parts=``: the FMU
    carries its module and runs in a fresh process that cannot import it, with the same
    outputs as the in-process simulation (its tunable stiffness set to a non-default)."""
    src = tmp_path / "user_code"
    src.mkdir()
    shutil.copy(USER_MODULE, src / "seabed_spring.py")
    with user_module(src / "seabed_spring.py", "user.seabed_spring") as seabed_spring:
        model = _user_model(seabed_spring)
        assert "spring.force" in model.output_names
        assert "body.F_spring[3]" in model.output_names
        assert "spring.stiffness" in model.parameter_names
        params = {"spring.stiffness": 4.0e5}
        ds = model.simulate(30.0, 0.1, parameters=params)
        fmu = model.build_fmu(tmp_path / "Spring.fmu", model_name="SpringSphere")
    shutil.rmtree(src)  # the user's module is gone: only the FMU's copy is left
    result = tmp_path / "fmpy.npz"
    code = (
        "import importlib.util, json, sys, numpy as np\n"
        "assert importlib.util.find_spec('seabed_spring') is None\n"
        "from fmpy import simulate_fmu\n"
        f"r = simulate_fmu({str(fmu)!r}, stop_time=30.0, output_interval=0.1,\n"
        f"                 start_values=json.loads({json.dumps(json.dumps(params))}))\n"
        f"np.savez({str(result)!r}, **{{n: r[n] for n in r.dtype.names}})\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ref = np.load(result)
    assert np.allclose(ref["time"], ds["time"].values, rtol=0, atol=1e-12)
    for name in model.output_names:
        x, y = ds[name].values, ref[name]
        peak = max(np.max(np.abs(x)), np.max(np.abs(y)))
        assert np.max(np.abs(x - y)) <= REL * peak, (name, np.max(np.abs(x - y)), peak)
    # The spring acts: its force is -k z at every point, and the heave decays about 0.
    z = ds["body.pose[3]"].values
    assert np.allclose(ds["spring.force"].values, -4.0e5 * z, rtol=1e-12, atol=0)
    assert np.max(np.abs(z[-50:])) < 0.5 * np.max(np.abs(z[:50]))


def test_a_user_part_importing_build_time_hydrofmu_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "bad_part.py"
    src.write_text(USER_MODULE.read_text().replace(
        "from hydrofmu import Context", "from hydrofmu.config.configuration import resolve\n"
        "from hydrofmu import Context").replace("user.seabed_spring", "user.bad_spring"))
    with user_module(src, "user.bad_spring") as bad_part:
        model = _user_model(bad_part)
        with pytest.raises(hydrofmu.ExportError, match=r"hydrofmu\.config\.configuration"):
            model.build_fmu(tmp_path / "Bad.fmu", model_name="Bad")
    assert not (tmp_path / "Bad.fmu").exists()
