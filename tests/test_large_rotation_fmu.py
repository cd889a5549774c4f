"""A large-rotation body in the Python FMU: it equals ``Model.simulate`` bit for bit (the
quaternion among the FMU's states, its outputs); the native FMU of the same model is
``test_native_large_rotations.py``'s."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hydrofmu
from panel_meshes import sphere, write_stl


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> hydrofmu.Model:
    folder = tmp_path_factory.mktemp("large_rotation_fmu")
    write_stl(folder / "sphere.stl", sphere(5.0, 16))
    return hydrofmu.Model.from_dict({
        "simulation": {"time_scheme": "rk4", "max_internal_step": 0.05, "stop_time": 6.0,
                       "output_interval": 0.1},
        "wave": {"type": "regular", "height": 2.0, "period": 6.0, "ramp_time": 2.0,
                 "direction": 1.570796},
        "bodies": [{"name": "body", "hydro": "builtin:sphere", "radiation": "state_space",
                    "mesh": "sphere.stl", "nonlinear": "mean", "rotations": "large",
                    "radiation_frame": "body",
                    "initial_pose": [0.0, 0.0, 0.0, 0.3, -0.4, 1.0],
                    "initial_velocity": [0.0, 0.0, 0.0, 0.2, 0.1, 0.5]}]},
        base_dir=folder)


def test_the_python_fmu_equals_model_simulate(model: hydrofmu.Model, tmp_path: Path) -> None:
    """6 s, every DOF free (the rotation by a quaternion), started at large angles: the
    FMU run by fmpy gives Model.simulate's outputs bit for bit (the same simulator)."""
    ds = model.simulate(6.0, 0.1)
    fmu = model.build_fmu(tmp_path / "Large.fmu", model_name="LargeSphere",
                          native=False)  # the Python FMU (native by default now)
    ref = hydrofmu.simulate_fmu(fmu, stop_time=6.0, output_interval=0.1)
    names = [f"body.quaternion[{i}]" for i in range(1, 5)]
    names += [f"body.pose[{i}]" for i in range(1, 7)] + ["body.F_radiation[5]"]
    for name in names:
        np.testing.assert_array_equal(ds[name].values, ref[name].values, err_msg=name)
    quat = np.stack([ds[n].values for n in names[:4]], axis=1)
    np.testing.assert_allclose(np.linalg.norm(quat, axis=1), 1.0, atol=1e-15)
    assert np.ptp(ds["body.pose[6]"].values) > 1.0  # it spins: yaw turns by > 1 rad
