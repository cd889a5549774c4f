"""The rigid-body kernel (``runtime/bodies/body_kernel.c``): sanitizer-clean C, the
rotation helpers against closed forms, and the refusal without a compiled library.

``tests/c_host/body_check.c`` drives the kernel directly (no Python): a free body and a
body hinged about an oblique axis, both with body-axes radiation and coupled added mass, at
5,000 seeded random states (rotations orthonormal, Euler and quaternion round trips, the
constraint force orthogonal to the allowed motions), a non-finite quaternion and a singular
mass refused with zeroed outputs. The physics of the equations is validated against closed
forms in ``test_large_rotations.py``.
"""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.runtime.bodies import body_kernel
from hydrofmu.runtime.bodies.body_files import SOURCE
from hydrofmu.runtime.bodies.rotations import (
    axis_angle_matrix,
    euler_from_matrix,
    matrix_from_euler,
    matrix_from_quaternion,
    quaternion_from_matrix,
    quaternion_rate,
)
from hydrofmu.runtime.errors import ConfigError
from rigid_helpers import dry_model
from test_panel_kernel_c import gcc_or_skip

HERE = Path(__file__).resolve().parent
CHECK = HERE / "c_host" / "body_check.c"


def test_the_kernel_is_sanitizer_clean_and_allocates_nothing(tmp_path: Path) -> None:
    """ASan, UBSan and float-cast-overflow find nothing; every check of body_check.c
    passes; the source calls no allocator (no allocation per step, by construction)."""
    cc = gcc_or_skip()
    exe = tmp_path / "body_check"
    build = subprocess.run(
        [cc, "-std=c99", "-O1", "-g", "-fsanitize=address,undefined,float-cast-overflow",
         "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-Wall", "-Wextra",
         "-Werror", f"-I{SOURCE.parent}", "-o", str(exe), str(CHECK), "-lm"],
        capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stderr
    env = {**os.environ, "ASAN_OPTIONS": "detect_leaks=1", "UBSAN_OPTIONS": "print_stacktrace=1"}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, check=False, env=env,
                          timeout=300)
    assert proc.returncode == 0, (proc.stdout, proc.stderr[-3000:])
    assert proc.stdout.strip().endswith("OK")
    assert "runtime error" not in proc.stderr and "Sanitizer" not in proc.stderr
    text = SOURCE.read_text()
    assert not any(f in text for f in ("malloc(", "calloc(", "realloc(", "free("))


def test_euler_angles_are_z_y_x_and_round_trip() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        roll, yaw = rng.uniform(-math.pi, math.pi, 2)
        pitch = rng.uniform(-1.5, 1.5)
        cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch),
                                  math.sin(pitch), math.cos(yaw), math.sin(yaw))
        rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
        ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
        rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
        r = matrix_from_euler(roll, pitch, yaw)
        # Products of three rotations by cos/sin: a few ulps (1e-15) apart.
        np.testing.assert_allclose(r, rz @ ry @ rx, atol=1e-15)
        # atan2 of entries of unit size: the angles back to 1e-13 (cos(pitch) >= 0.07).
        np.testing.assert_allclose(euler_from_matrix(r), [roll, pitch, yaw], atol=1e-13)
        q = quaternion_from_matrix(r)
        assert q[0] >= 0.0 and abs(np.linalg.norm(q) - 1.0) < 1e-15
        np.testing.assert_allclose(matrix_from_quaternion(q), r, atol=1e-15)
    # Gimbal lock: pitch = +pi/2 leaves roll - yaw; yaw is reported 0.
    e = euler_from_matrix(matrix_from_euler(0.7, math.pi / 2, 0.2))
    np.testing.assert_allclose(e, [0.5, math.pi / 2, 0.0], atol=1e-12)


def test_axis_angle_and_quaternion_rate_against_closed_forms() -> None:
    u = np.array([1.0, 2.0, 2.0]) / 3.0
    angle = 1.1
    r = axis_angle_matrix(u, angle)
    # Rodrigues' rotation leaves its axis and turns a normal vector by the angle.
    np.testing.assert_allclose(r @ u, u, atol=1e-15)
    n = np.array([2.0, -1.0, 0.0]) / math.sqrt(5.0)
    assert float(n @ r @ n) == pytest.approx(math.cos(angle), abs=1e-15)
    # The quaternion of a constant world angular velocity w: q(t) = [cos(|w|t/2),
    # sin(|w|t/2) w/|w|] * q0, whose derivative at t = 0 is the rate's closed form.
    w = np.array([0.3, -0.2, 0.5])
    q0 = quaternion_from_matrix(matrix_from_euler(0.2, 0.4, -1.0))
    a = float(np.linalg.norm(w))
    half = 0.5 * a
    turn = np.array([0.0, *(half * w / a)])  # d/dt [cos, sin w/|w|] at 0
    expected = np.array([-turn[1:] @ q0[1:], *(turn[1:] * q0[0] + np.cross(turn[1:], q0[1:]))])
    np.testing.assert_allclose(quaternion_rate(q0, w), expected, atol=1e-16)


def test_a_large_rotation_model_without_the_library_is_refused(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(body_kernel, "_loaded", {})
    monkeypatch.setattr(body_kernel, "bundled_library", lambda: tmp_path / "none.so")
    monkeypatch.setattr(body_kernel, "cached_library", lambda: tmp_path / "none-cache.so")
    with pytest.raises(ConfigError, match=r"rigid-body kernel.*C compiler.*rotations = "):
        dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "mass": 10.0,
                    "inertia": [1.0] * 3, "rotations": "large", "weightless": True}])
    bad = tmp_path / "bad.so"
    bad.write_bytes(b"not a library")
    with pytest.raises(body_kernel.BodyKernelUnavailable, match="does not load"):
        body_kernel.load_library(bad)


def test_a_non_finite_state_is_an_integration_error_naming_the_fix() -> None:
    # In a Python FMU an IntegrationError discards the step with its message (the state
    # stays at the step's start), as a diverging linear step does.
    from hydrofmu.runtime.errors import IntegrationError

    sim = dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "mass": 10.0,
                      "inertia": [1.0, 2.0, 3.0], "rotations": "large", "weightless": True}])
    y = sim.y.copy()
    y[sim.part("rigid_body.large_rotation").state_slice.start] = np.nan
    with pytest.raises(IntegrationError, match="max_internal_step"):
        sim.large.poses(y)
