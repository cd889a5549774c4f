"""Large rotations in the native FMU (``bodies_blob.py``, ``csrc/hfn_bodies.c``): the same
rigid-body kernel as the Python FMU, so both FMUs give the same outputs.

- a torque-free asymmetric body (no water, ``rigid_helpers.dry_model``'s bodies) turning
  near its intermediate axis: the native FMU equals the Python FMU to 1e-10 of each
  output's scale over the flips, and conserves its kinetic energy and world angular
  momentum as the Python test does (rk4 at 0.01 s: < 1e-8 relative over 30 s);
- a sphere free in all six DOFs started at large angles and spinning, with nonlinear
  hydrostatics on its mesh, state-space radiation in its body axes (radiation states turned
  with it) and a regular wave: native equals Python to 1e-10 of each output's scale, and
  a rollback (get, set and serialized FMU state) gives the same outputs bit for bit;
- quadratic drag in world and in body axes natively equal to Python;
- what stays refused is named (a catenary mooring with large rotations).
"""

from __future__ import annotations

import copy
import os
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hydrofmu
from example_pairs import RK_TOLERANCE, scaled_errors
from hydrofmu.export.native import build_native_fmu
from hydrofmu.runtime.errors import ExportError
from native_helpers import compile_host, host_run, interface, pto_series, run
from panel_meshes import sphere, write_stl
from rigid_helpers import dry_model

pytestmark = pytest.mark.fmu

INERTIA = np.array([1000.0, 2000.0, 3000.0])  # kg m^2, principal
W0 = np.array([0.1, 1.0, 0.05])  # rad/s, near the intermediate axis


def _units(fmu: Path) -> list[str]:
    root = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))
    return [v[0].get("unit", "") for v in root.find("ModelVariables")
            if v.get("causality") == "output"]


def _pair(bodies: list, config: dict, folder: Path, name: str) -> tuple[Path, Path]:
    python = folder / "python" / f"{name}.fmu"
    native = build_native_fmu(bodies, copy.deepcopy(config), folder / f"{name}.fmu",
                              model_name=name, python_fmu=python, platforms=("linux64",))
    return python, native


def test_free_asymmetric_body_natively_equals_python_and_conserves(tmp_path: Path) -> None:
    sim = dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "weightless": True,
                      "mass": 500.0, "inertia": INERTIA.tolist(), "cog": [0.0, 0.0, 0.0],
                      "rotations": "large", "initial_velocity": [0.0, 0.0, 0.0, *W0]}],
                    dt=0.01)
    python, native = _pair(sim.bodies, sim.config, tmp_path, "Flip")
    dt, steps = 0.1, 300  # 30 s: the body flips about five times (period ~6.6 s)
    values = [0.0] * steps  # torque-free: the heave PTO input held at zero
    for side in ("run_python", "run_native"):
        (tmp_path / side).mkdir()
    ref = run(python, "b.F_pto[3]", values, dt, tmp_path / "run_python")
    got = run(native, "b.F_pto[3]", values, dt, tmp_path / "run_native")
    names = got["names"]
    rows = np.array(got["rows"])
    # No water, no joint: every load is zero, its round-off (the solve's residual of terms
    # of ~1e3 N m) below 1e-9 in both FMUs; the motion is compared.
    loads = [i for i, name in enumerate(names) if ".F_" in name]
    assert np.max(np.abs(rows[:, loads])) < 1e-9
    assert np.max(np.abs(np.array(ref["rows"])[:, loads])) < 1e-9
    motion = [i for i in range(len(names)) if i not in loads]
    err = scaled_errors(ref, got, _units(native))[:, motion]
    print(f"OBSERVED free body {err.max():.3g}")
    # The same kernel and force form in C and Python; the sums differ in order only
    # (round-off), amplified by the flips' sensitivity: 1e-10 of each output's scale.
    assert err.max() <= RK_TOLERANCE, (err.max(), names[motion[int(np.argmax(err.max(0)))]])
    iq = [names.index(f"b.quaternion[{i}]") for i in (1, 2, 3, 4)]
    iv = [names.index(f"b.velocity[{i}]") for i in (4, 5, 6)]
    from hydrofmu.runtime.bodies.rotations import matrix_from_quaternion

    wb = np.array([matrix_from_quaternion(r[iq]).T @ r[iv] for r in rows])
    h_world = np.array([matrix_from_quaternion(r[iq]) @ (INERTIA * w)
                        for r, w in zip(rows, wb, strict=True)])
    energy = 0.5 * np.einsum("ki,i,ki->k", wb, INERTIA, wb)
    assert np.ptp(np.sign(wb[:, 1])) == 2.0  # it flips: omega_2 changes sign
    # rk4 at 0.01 s, 30 s: both invariants to < 1e-8 relative (as the Python test at
    # 0.025 s; the error is ~16x smaller here)
    e0 = 0.5 * float(np.sum(INERTIA * W0**2))
    assert np.max(np.abs(energy - e0)) / e0 < 1e-8
    h0 = np.linalg.norm(INERTIA * W0)
    assert np.max(np.linalg.norm(h_world - h_world[0], axis=1)) / h0 < 1e-8


@pytest.fixture(scope="module")
def spinning(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    folder = tmp_path_factory.mktemp("native_large_rotation")
    write_stl(folder / "sphere.stl", sphere(5.0, 16))
    model = hydrofmu.Model.from_dict({
        "simulation": {"time_scheme": "rk4", "max_internal_step": 0.05, "stop_time": 20.0,
                       "output_interval": 0.1},
        "wave": {"type": "regular", "height": 2.0, "period": 6.0, "ramp_time": 2.0,
                 "direction": 1.570796},
        "bodies": [{"name": "body", "hydro": "builtin:sphere", "radiation": "state_space",
                    "mesh": "sphere.stl", "nonlinear": "mean", "rotations": "large",
                    "radiation_frame": "body",
                    "initial_pose": [0.0, 0.0, 0.0, 0.3, -0.4, 1.0],
                    "initial_velocity": [0.0, 0.0, 0.0, 0.2, 0.1, 0.5]}]},
        base_dir=folder)
    python, native = _pair(model.bodies, model.config, folder, "Spin")
    return python, native, _units(native)


@pytest.mark.parametrize("dt", [0.05, 0.1, 1.0])
def test_spinning_sphere_natively_equals_python(spinning: tuple, dt: float,
                                                tmp_path: Path) -> None:
    python, native, units = spinning
    steps = round(20.0 / dt)
    values = pto_series(steps, 1.0e4)  # N in heave, changing at every step
    for side in ("python", "native"):
        (tmp_path / side).mkdir()
    ref = run(python, "body.F_pto[3]", values, dt, tmp_path / "python")
    got = run(native, "body.F_pto[3]", values, dt, tmp_path / "native")
    err = scaled_errors(ref, got, units, panels=True)
    worst = ref["names"][int(np.argmax(err.max(0)))]
    print(f"OBSERVED spinning sphere {dt} {err.max():.3g} {worst}")
    # rk4 in both; the sums in other orders (round-off), the panel sums' noise floor of
    # example_pairs: the Runge-Kutta class's 1e-10 of each output's scale.
    assert err.max() <= RK_TOLERANCE, (err.max(), worst)
    yaw = np.array(got["rows"])[:, got["names"].index("body.pose[6]")]
    assert np.ptp(yaw) > 1.0  # it spins: yaw turns by more than 1 rad


@pytest.mark.parametrize("frame", ["world", "body"])
def test_quadratic_drag_natively_equals_python(frame: str, tmp_path: Path) -> None:
    """A free body spinning down under quadratic drag in every DOF (in world axes, or in
    its body axes with radiation_frame = "body": the velocity turned before, the force
    after), launched with a heave PTO force changing every step."""
    sim = dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "weightless": True,
                      "mass": 500.0, "inertia": INERTIA.tolist(), "rotations": "large",
                      "radiation_frame": frame,
                      "quadratic_damping": [50.0, 80.0, 100.0, 400.0, 600.0, 900.0],
                      "initial_velocity": [0.5, 0.0, 0.0, *W0]}], dt=0.01)
    python, native = _pair(sim.bodies, sim.config, tmp_path, "Drag")
    dt, steps = 0.1, 200
    values = pto_series(steps, 500.0)
    for side in ("run_python", "run_native"):
        (tmp_path / side).mkdir()
    ref = run(python, "b.F_pto[3]", values, dt, tmp_path / "run_python")
    got = run(native, "b.F_pto[3]", values, dt, tmp_path / "run_native")
    err = scaled_errors(ref, got, _units(native))
    worst = ref["names"][int(np.argmax(err.max(0)))]
    print(f"OBSERVED drag {frame} {err.max():.3g} {worst}")
    assert err.max() <= RK_TOLERANCE, (err.max(), worst)
    drag = np.array(got["rows"])[:, got["names"].index("b.F_viscous[5]")]
    assert np.ptp(drag) > 10.0  # the drag acts (N m), and is compared


def test_catenary_with_large_rotations_is_refused_by_name(tmp_path: Path) -> None:
    lines = [{"anchor": [150.0 * np.cos(a), 150.0 * np.sin(a), -50.0],
              "fairlead": [4.6 * np.cos(a), 4.6 * np.sin(a), -2.0], "length": 170.0,
              "weight": 471.2, "ea": 2.0e8} for a in (0.0, 2.1, 4.2)]
    sim = dry_model([{"name": "body", "reference": [0.0, 0.0, 0.0], "mass": 1.0e5,
                      "inertia": [1.0e6] * 3, "weightless": True, "rotations": "large",
                      "dofs": ["surge", "heave", "pitch"]}],
                    moorings=[{"type": "catenary", "body": "body", "lines": lines}])
    with pytest.raises(ExportError, match=r'rotations = "large".*mooring\.catenary'):
        build_native_fmu(sim.bodies, sim.config, tmp_path / "N.fmu", model_name="N",
                         platforms=("linux64",))


@pytest.fixture(scope="module")
def unpacked(spinning: tuple, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    target = tmp_path_factory.mktemp("spin unpacked")
    zipfile.ZipFile(spinning[1]).extractall(target)
    return {**interface(spinning[1], "body.F_pto[3]"),
            "binary": str(target / "binaries" / "linux64" / "Spin.so"),
            "uri": (target / "resources").as_uri(), "folder": target}


def test_rollback_and_serialized_state_bit_identical(unpacked: dict[str, Any],
                                                      tmp_path: Path) -> None:
    """The C host's misuse cases on the spinning sphere: every refusal, a rollback through
    fmi2Get/SetFMUstate and a serialized state restored in a second instance give
    bit-identical outputs (the quaternion and the radiation states are in the state vector;
    the bodies' arrays are scratch, rewritten at every call)."""
    host = compile_host(tmp_path / "native_host")
    proc = host_run(host, "misuse", unpacked, 0.1, 0)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("OK"), proc.stdout[-3000:]


def test_sanitizers_find_nothing_with_large_rotations(unpacked: dict[str, Any],
                                                      tmp_path: Path) -> None:
    """ASan and UBSan (float-cast overflow too): the misuse cases and seeded random FMI
    calls on the spinning sphere give no report."""
    host = compile_host(tmp_path / "asan_host", "-fsanitize=address,undefined",
                        "-fsanitize=float-cast-overflow", "-fno-sanitize-recover=all",
                        "-fno-omit-frame-pointer", direct=True)
    env = {**os.environ, "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
           "UBSAN_OPTIONS": "print_stacktrace=1"}
    for mode, steps, extra in (("misuse", 0, ()), ("fuzz", 1500, ("20261128",))):
        proc = host_run(host, mode, unpacked, 0.1, steps, *extra, env=env)
        assert proc.returncode == 0, (mode, proc.stdout[-2000:], proc.stderr[-4000:])
        assert "runtime error" not in proc.stderr and "Sanitizer" not in proc.stderr
        assert proc.stdout.strip().endswith("OK")


def test_no_allocation_while_stepping_large_rotations(unpacked: dict[str, Any],
                                                      tmp_path: Path) -> None:
    """Steps at the grid step and at another length allocate nothing: the bodies' arrays
    are allocated at instantiation."""
    host = compile_host(tmp_path / "count_host", "-DCOUNT_ALLOC",
                        "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc", direct=True)
    for dt in (0.1, 0.07):
        proc = host_run(host, "bench", unpacked, dt, 100)
        assert proc.returncode == 0, proc.stdout[-2000:]
        line = next(x for x in proc.stdout.splitlines() if x.startswith("ALLOCATIONS"))
        assert line.split()[1] == "0" and int(line.split()[3]) > 10, line


def test_wave_height_changed_mid_run_natively_equals_python(spinning: tuple,
                                                            tmp_path: Path) -> None:
    """wave.height (tunable in both FMUs) changed at 5 s: the excitation's sinusoids and the
    panels' wave scale with it in the force form as in the Python FMU."""
    python, native, units = spinning
    dt, steps = 0.1, 150
    values = pto_series(steps, 1.0e4)
    changes = [(50, "wave.height", 3.0)]
    for side in ("run_python", "run_native"):
        (tmp_path / side).mkdir()
    ref = run(python, "body.F_pto[3]", values, dt, tmp_path / "run_python", changes)
    got = run(native, "body.F_pto[3]", values, dt, tmp_path / "run_native", changes)
    err = scaled_errors(ref, got, units, panels=True)
    print(f"OBSERVED spinning sphere, height changed {err.max():.3g}")
    assert err.max() <= RK_TOLERANCE, (err.max(), ref["names"][int(np.argmax(err.max(0)))])
    excitation = np.array(got["rows"])[:, got["names"].index("body.F_excitation[3]")]
    # the heave excitation grows with the height (3 m against 2 m): its late swing is larger
    assert np.ptp(excitation[100:]) > 1.2 * np.ptp(excitation[20:50])
