"""A nonlinear body in the FMUs: the Python FMU carries the compiled panel kernel and
equals ``Model.simulate``; the native export steps it with a Runge-Kutta scheme only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hydrofmu
from hydrofmu.runtime.errors import ExportError
from panel_meshes import sphere, write_stl


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> hydrofmu.Model:
    folder = tmp_path_factory.mktemp("nonlinear_fmu")
    write_stl(folder / "sphere.stl", sphere(5.0, 20))
    return hydrofmu.Model.from_dict({
        "simulation": {"time_scheme": "rk4", "max_internal_step": 0.05, "stop_time": 10.0,
                       "output_interval": 0.1},
        "wave": {"type": "regular", "height": 2.0, "period": 6.0, "ramp_time": 4.0},
        "bodies": [{"name": "body", "hydro": "builtin:sphere",
                    "dofs": ["surge", "heave", "pitch"], "radiation": "state_space",
                    "mesh": "sphere.stl", "nonlinear": "instantaneous"}]},
        base_dir=folder)


def test_the_python_fmu_equals_model_simulate(model: hydrofmu.Model, tmp_path: Path) -> None:
    """10 s of a steep wave (H = 2 m on a 5 m sphere, instantaneous surface): the FMU, run
    by fmpy with its bundled kernel, gives Model.simulate's outputs bit for bit (the same
    simulator, the same C code compiled from the same source)."""
    ds = model.simulate(10.0, 0.1)
    fmu = model.build_fmu(tmp_path / "Nonlinear.fmu", model_name="NonlinearSphere",
                          native=False)  # the native FMU: tests/test_native_panels.py
    import zipfile

    names = zipfile.ZipFile(fmu).namelist()
    assert any("/panels/panel_kernel." in n for n in names), names
    ref = hydrofmu.simulate_fmu(fmu, stop_time=10.0, output_interval=0.1)
    for name in ("body.pose[3]", "body.F_hydrostatic[3]", "body.F_excitation[5]"):
        np.testing.assert_array_equal(ds[name].values, ref[name].values, err_msg=name)
    assert np.abs(ds["body.F_hydrostatic[3]"].values).max() > 1e4  # it does act


def test_the_native_export_refuses_a_scheme_it_does_not_step(model: hydrofmu.Model,
                                                             tmp_path: Path) -> None:
    """The native FMU steps the panels with an explicit Runge-Kutta scheme (equality with
    the Python FMU: tests/test_native_panels.py); with etdrk4 the build names the parts and
    the fix, and writes nothing."""
    import copy

    from hydrofmu.export.native import build_native_fmu

    config = copy.deepcopy(model.config)
    config["simulation"]["time_scheme"] = "etdrk4"
    with pytest.raises(ExportError, match=r"hydrostatics\.nonlinear.*rk4"):
        build_native_fmu(model.bodies, config, tmp_path / "N.fmu", model_name="N",
                         platforms=("linux64",))
    assert not (tmp_path / "N.fmu").exists()


def test_the_example_runs(tmp_path: Path) -> None:
    """examples/nonlinear/compare.py's three models over 8 s: finite, and the nonlinear
    ones differ from the linear one (H = 4 m on a 5 m sphere) while following it (the
    same wave: within 30 % of its peak heave over the first periods)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "nonlinear"))
    try:
        import compare
    finally:
        sys.path.pop(0)
    results = compare.run(8.0)
    linear = results["linear"]["body.pose[3]"].values
    for label in ("mean", "instantaneous"):
        z = results[label]["body.pose[3]"].values
        assert np.isfinite(z).all()
        assert 0.0 < np.abs(z - linear).max() < 0.3 * np.abs(linear).max(), label
