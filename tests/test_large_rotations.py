"""Large rotations (``[[bodies]] rotations = "large"``) against closed forms.

Bodies without water (``rigid_helpers.dry_model``): the Newton-Euler equations alone.

- torque-free asymmetric body: kinetic energy and angular momentum (world axes) conserved,
  their error converging at the scheme's order (rk4: 4 or better); the intermediate-axis
  (Dzhanibekov) flip's period equals the Jacobi elliptic solution's ``4 K(m) / lambda``;
- heavy symmetric top in steady precession: the precession rate equals the slow root of
  ``m g l = Omega I3 w3 - Omega^2 I1 cos(theta)`` and the tilt stays;
- a compound pendulum on a revolute joint released from 90 degrees: the hinge holds to
  round-off at every output and the period equals ``4 sqrt(I_P / (m g l)) K(sin^2(a/2))``;
- small angles: the large-rotation pendulum equals the linear model, the difference
  scaling as the amplitude cubed (relative: squared);
- bad values of ``rotations`` refused, naming the choices.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ellipk

from hydrofmu.runtime.bodies.rotations import matrix_from_quaternion
from hydrofmu.runtime.errors import ConfigError
from physics_helpers import run
from rigid_helpers import G, Weight, dry_model

INERTIA = np.array([1000.0, 2000.0, 3000.0])  # kg m^2, principal, about the reference point
W0 = np.array([0.1, 1.0, 0.05])  # rad/s, body axes: near the intermediate axis


def _free_body(dt: float, stop: float, h: float = 0.1) -> tuple[np.ndarray, ...]:
    """Torque-free body (weight balanced by buoyancy at the reference point): time, body
    angular velocity (nt, 3), energy (nt,), world angular momentum (nt, 3)."""
    sim = dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "weightless": True,
                      "mass": 500.0, "inertia": INERTIA.tolist(), "cog": [0.0, 0.0, 0.0],
                      "rotations": "large", "initial_velocity": [0.0, 0.0, 0.0, *W0]}],
                    dt=dt)
    t, out = run(sim, stop, h)
    names = sim.output_names(sim.bodies, sim.config)
    iv = [names.index(f"b.velocity[{i}]") for i in (4, 5, 6)]
    iq = [names.index(f"b.quaternion[{i}]") for i in (1, 2, 3, 4)]
    wb = np.empty((t.size, 3))
    h_world = np.empty((t.size, 3))
    for k, row in enumerate(out):
        rot = matrix_from_quaternion(row[iq])
        wb[k] = rot.T @ row[iv]
        h_world[k] = rot @ (INERTIA * wb[k])
    energy = 0.5 * np.einsum("ki,i,ki->k", wb, INERTIA, wb)
    return t, wb, energy, h_world


def test_torque_free_body_conserves_energy_and_momentum_at_fourth_order() -> None:
    errors = []
    for dt in (0.1, 0.05, 0.025):
        _, _, energy, h_world = _free_body(dt, 30.0)
        errors.append((abs(energy[-1] - energy[0]) / energy[0],
                       float(np.linalg.norm(h_world[-1] - h_world[0])
                             / np.linalg.norm(h_world[0]))))
    errors_arr = np.array(errors)
    slopes = np.log2(errors_arr[:-1] / errors_arr[1:])
    # rk4's global error is O(dt^4): each halving divides both errors by 16 or more
    # (measured 16.4-17.4 for the momentum, 32 for the energy); 3.8 leaves room for the
    # pre-asymptotic first pair, and a 3rd-order scheme (8x) fails it.
    assert np.all(slopes >= 3.8), (errors_arr, slopes)
    # At dt = 0.025 s (40 steps per turn) both are conserved to < 1e-8 relative.
    assert np.all(errors_arr[-1] < 1e-8), errors_arr


def test_intermediate_axis_flip_period_equals_the_elliptic_solution() -> None:
    t, wb, _, _ = _free_body(0.01, 80.0, h=0.02)
    i1, i2, i3 = INERTIA
    two_e = float(np.sum(INERTIA * W0**2))
    h2 = float(np.sum((INERTIA * W0) ** 2))
    if h2 < two_e * i2:  # the case of Landau & Lifshitz, with axes 1 and 3 swapped if not
        i1, i3 = i3, i1
    lam = math.sqrt((i3 - i2) * (h2 - two_e * i1) / (i1 * i2 * i3))
    m = (i2 - i1) * (two_e * i3 - h2) / ((i3 - i2) * (h2 - two_e * i1))
    period = 4.0 * ellipk(m) / lam  # the intermediate component is lambda-periodic sn / cn
    x = wb[:, 1]
    i = np.flatnonzero((x[:-1] < 0.0) & (x[1:] >= 0.0))
    crossings = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    assert crossings.size >= 2, crossings  # the body flips: omega_2 changes sign
    measured = np.diff(crossings)
    # The crossings are interpolated linearly between outputs 0.02 s apart, where
    # omega_2 passes zero at its steepest: error ~ (0.02)^2 * curvature, below 1e-4 of the
    # period; rk4 at 0.01 s adds ~1e-9.
    np.testing.assert_allclose(measured, period, rtol=1e-4)


def test_heavy_symmetric_top_precesses_at_the_closed_form_rate() -> None:
    mass, arm = 2.0, 0.1  # kg, m: centre of gravity above the pivot (the reference point)
    i1, i3 = 0.05, 0.02  # kg m^2 about the pivot (transverse, symmetry axis)
    tilt, spin = 0.5, 60.0  # rad, rad/s (w3: the angular velocity along the axis)
    c = math.cos(tilt)
    slow = (i3 * spin - math.sqrt((i3 * spin) ** 2 - 4.0 * i1 * c * mass * G * arm)) / (
        2.0 * i1 * c)
    axis = np.array([0.0, -math.sin(tilt), c])  # Rx(tilt) e_z
    w_world = slow * np.array([0.0, 0.0, 1.0]) + (spin - slow * c) * axis
    sim = dry_model([{"name": "top", "reference": [0.0, 0.0, 0.0], "mass": mass,
                      "weightless": True, "inertia": [i1, i1, i3], "cog": [0.0, 0.0, 0.0],
                      "dofs": ["roll", "pitch", "yaw"], "rotations": "large",
                      "initial_pose": [0.0, 0.0, 0.0, tilt, 0.0, 0.0],
                      "initial_velocity": [0.0, 0.0, 0.0, *w_world]}],
                    dt=0.001, parts=[(Weight, {"mass": mass, "cog": [0.0, 0.0, arm]})])
    t, out = run(sim, 3.0, 0.01)
    names = sim.output_names(sim.bodies, sim.config)
    iq = [names.index(f"top.quaternion[{i}]") for i in (1, 2, 3, 4)]
    axes = np.array([matrix_from_quaternion(row[iq])[:, 2] for row in out])
    azimuth = np.unwrap(np.arctan2(axes[:, 1], axes[:, 0]))
    rate = np.polyfit(t, azimuth, 1)[0]
    # Steady precession started exactly: the rate is the closed form's to the scheme's
    # error (rk4 at 1 ms with a 60 rad/s spin: 1e-9) and the tilt stays.
    assert rate == pytest.approx(slow, rel=1e-7)
    np.testing.assert_allclose(np.arccos(axes[:, 2]), tilt, atol=1e-8)
    # The slow root, not the fast one: near the gyroscopic limit m g l / (I3 w3) (they
    # differ by I1 Omega cos(theta) / (I3 w3) ~ 6 % at this spin).
    assert slow == pytest.approx(mass * G * arm / (i3 * spin), rel=0.1)


# A compound pendulum: centre of gravity (the reference point) L below a hinge on the world.
MASS, I_CG, ARM = 800.0, 150.0, 2.0


def _pendulum(angle: float, rotations: str, **extra: object
              ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    sim = dry_model([{"name": "b", "reference": [0.0, 0.0, -ARM], "mass": MASS,
                      "inertia": [I_CG] * 3, "cog": [0.0, 0.0, 0.0], "rotations": rotations,
                      **extra}],
                    [{"name": "h", "kind": "revolute", "body": "b", "axis": [0.0, 1.0, 0.0],
                      "point": [0.0, 0.0, 0.0], "initial_angle": angle}], dt=0.005)
    t, out = run(sim, 12.0, 0.01)
    return t, out, sim.output_names(sim.bodies, sim.config)


def test_revolute_joint_holds_at_ninety_degrees_and_swings_at_the_elliptic_period() -> None:
    angle = math.pi / 2
    t, out, names = _pendulum(angle, "large")
    pose = out[:, [names.index(f"b.pose[{i}]") for i in range(1, 7)]]
    quat = out[:, [names.index(f"b.quaternion[{i}]") for i in range(1, 5)]]
    reference = np.array([0.0, 0.0, -ARM])
    # The hinge point as a point of the body: r + x + R (p - r) = p, at every output.
    hinge = np.array([reference + x + matrix_from_quaternion(q) @ -reference
                      for x, q in zip(pose[:, :3], quat, strict=True)])
    # Round-off of the pose (the arm turned, 2 m) and of the quaternion's way through the
    # Euler angles at 90 degrees (gimbal lock: atan2 of entries ~1e-16): 1e-12 m.
    assert np.max(np.abs(hinge)) < 1e-12
    assert pose[0, 4] == pytest.approx(angle, abs=1e-15)
    # The hinge's reaction at release (at rest, arm horizontal): the reference point falls
    # with a = alpha L, alpha = m g L / I_P, so the hinge carries m g (1 - m L^2 / I_P)
    # upwards, no horizontal force (no centripetal term yet), and its moment about the
    # reference point is (p - r) x F with p - r = (L, 0, 0).
    reaction = out[0, [names.index(f"b.F_constraint[{i}]") for i in range(1, 7)]]
    lift = MASS * G * (1.0 - MASS * ARM**2 / (I_CG + MASS * ARM**2))
    expected = np.array([0.0, 0.0, lift, 0.0, -ARM * lift, 0.0])
    # Round-off of the solve with the 7848 N weight and 3350 kg m^2: 1e-9 N.
    np.testing.assert_allclose(reaction, expected, atol=1e-9 * MASS * G)
    period = 4.0 * math.sqrt((I_CG + MASS * ARM**2) / (MASS * G * ARM)) * ellipk(
        math.sin(angle / 2.0) ** 2)
    x = pose[:, 0]
    i = np.flatnonzero((x[:-1] < 0.0) & (x[1:] >= 0.0))
    crossings = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    # Zero crossings interpolated between outputs 0.01 s apart at the fastest point of
    # the swing: 1e-6 of the period (measured 3e-7).
    np.testing.assert_allclose(np.diff(crossings), period, rtol=1e-6)


def test_small_angles_give_the_linear_model() -> None:
    diffs = []
    for angle in (0.02, 0.01, 0.005):
        _, large, names = _pendulum(angle, "large")
        _, small, _ = _pendulum(angle, "small")
        col = names.index("b.pose[5]")
        diffs.append(float(np.max(np.abs(large[:, col] - small[:, col]))) / angle)
    ratios = np.array(diffs[:-1]) / np.array(diffs[1:])
    # The pendulum's relative frequency shift is a^2 / 16: the relative difference halves
    # the amplitude -> /4 (measured in the report); 3.6-4.4 allows the O(a^4) rest.
    assert np.all((ratios > 3.6) & (ratios < 4.4)), (diffs, ratios)
    assert diffs[0] < 1e-3  # 2 cm of angle at 0.02 rad: the models agree


def test_unknown_rotations_value_is_refused_with_the_choices() -> None:
    with pytest.raises(ConfigError, match="'small' or 'large'"):
        dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "mass": 1.0,
                    "inertia": [1.0] * 3, "rotations": "big"}])


def test_linear_hydrostatic_stiffness_in_rotation_is_refused() -> None:
    # cog below the reference point and no buoyancy: K44 = K55 = m g z_g != 0.
    with pytest.raises(ConfigError, match="nonlinear = \"mean\""):
        dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "mass": 10.0,
                    "inertia": [1.0] * 3, "cog": [0.0, 0.0, -1.0], "rotations": "large"}])


def test_two_free_rotations_are_refused() -> None:
    with pytest.raises(ConfigError, match="two rotations free"):
        dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "mass": 10.0,
                    "inertia": [1.0] * 3, "dofs": ["roll", "pitch"], "rotations": "large",
                    "weightless": True}])


def test_native_build_accepts_large_rotations() -> None:
    # The native FMU steps them with the same kernel (test_native_large_rotations.py).
    from hydrofmu.export.native.refusal import refusal

    sim = dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "mass": 10.0,
                      "inertia": [1.0] * 3, "rotations": "large", "weightless": True}])
    assert refusal(sim) == ""


def test_state_rollback_is_bit_identical() -> None:
    # What the FMU's get/set FMU state does: the quaternion states are in the state vector.
    sim = dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "weightless": True,
                      "mass": 500.0, "inertia": INERTIA.tolist(), "rotations": "large",
                      "initial_velocity": [0.0, 0.0, 0.0, *W0]}], dt=0.05)
    for k in range(10):
        sim.step(0.1 * k, 0.1)
    saved = sim.get_state()
    first = [sim.output_vector()]
    for k in range(10, 20):
        sim.step(0.1 * k, 0.1)
        first.append(sim.output_vector())
    sim.set_state(saved)
    again = [sim.output_vector()]
    for k in range(10, 20):
        sim.step(0.1 * k, 0.1)
        again.append(sim.output_vector())
    np.testing.assert_array_equal(np.array(first), np.array(again))
    # The quaternion state is read normalised; its own norm drifts by rk4's error only
    # (the ODE q' = 1/2 [0, w] q keeps it): after 2 s at 0.05 s, below 1e-8.
    part = sim.part("rigid_body.large_rotation")
    assert abs(float(np.linalg.norm(sim.y[part.state_slice])) - 1.0) < 1e-8


def _period(t: np.ndarray, x: np.ndarray) -> np.ndarray:
    i = np.flatnonzero((x[:-1] < 0.0) & (x[1:] >= 0.0))
    crossings = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    return np.diff(crossings)


def test_body_frame_added_mass_turns_with_the_pendulum() -> None:
    # An added mass in surge (a_x), heave (a_z) and pitch (a_55) at the reference point. In
    # body axes it turns with the pendulum: the hinge's inertia is I_P + a_x L^2 + a_55 at
    # every angle, and the large swing's period is the elliptic one with it. In world axes
    # the arm turns against it (a_x L^2 cos^2 + a_z L^2 sin^2): another period.
    a_x, a_z, a_55 = 400.0, 2000.0, 60.0
    added = np.diag([a_x, 0.0, a_z, 0.0, a_55, 0.0])
    angle = 2.0
    inertia = I_CG + MASS * ARM**2 + a_x * ARM**2 + a_55
    period = 4.0 * math.sqrt(inertia / (MASS * G * ARM)) * ellipk(math.sin(angle / 2.0) ** 2)
    t, out, names = _pendulum(angle, "large", added=added, radiation_frame="body")
    got = _period(t, out[:, names.index("b.pose[1]")])
    np.testing.assert_allclose(got, period, rtol=1e-6)  # as the dry pendulum's test
    t, out, names = _pendulum(angle, "large", added=added)
    world = _period(t, out[:, names.index("b.pose[1]")])
    assert np.all(np.abs(world / period - 1.0) > 1e-2), (world, period)


@pytest.mark.parametrize("entry", [{"radiation_frame": "hull"},
                                   {"radiation_frame": "body", "rotations": "small"}])
def test_radiation_frame_is_checked(entry: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="radiation_frame"):
        dry_model([{"name": "b", "reference": [0.0, 0.0, 0.0], "mass": 10.0,
                    "inertia": [1.0] * 3, "weightless": True, "rotations": "large", **entry}])


def test_angle_moorings_on_a_freely_turning_body_are_refused() -> None:
    # A catenary mooring reads the pose as MoorDyn's x-y'-z'' angles; the body's are
    # z-y'-x'': equal about one axis only, so a free rotation is refused, naming the fix.
    lines = [{"anchor": [150.0 * math.cos(a), 150.0 * math.sin(a), -50.0],
              "fairlead": [4.6 * math.cos(a), 4.6 * math.sin(a), -2.0], "length": 170.0,
              "weight": 471.2, "ea": 2.0e8} for a in (0.0, 2.1, 4.2)]
    entry = {"name": "body", "reference": [0.0, 0.0, 0.0], "mass": 1.0e5,
             "inertia": [1.0e6] * 3, "weightless": True, "rotations": "large"}
    with pytest.raises(ConfigError, match=r"mooring\.catenary.*x-y'-z''"):
        dry_model([entry], moorings=[{"type": "catenary", "body": "body", "lines": lines}])
    # About one axis the conventions agree: accepted.
    dry_model([{**entry, "dofs": ["surge", "heave", "pitch"]}],
              moorings=[{"type": "catenary", "body": "body", "lines": lines}])
