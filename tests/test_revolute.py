"""Revolute joints, PTOs across them and fixed bodies against closed forms.

A dry body (no added mass, damping or excitation; zero displaced volume, so that the
hydrostatics carry the weight only: the gravity term ``-m g z_g`` of the stiffness and the
force ``-m g`` at the reference point) hinged on the world is a physical pendulum. The linear
model writes the weight about the reference point: with the reference point on the hinge
the pendulum's ``m g l`` is the stiffness ``-m g z_g``; with the reference point at the
centre of gravity it is the hinge's static-load stiffness ``(F . d) - (F . u)(d . u)``
(``forces/static_loads.py``: the hinge's reaction turning with the body). Both must give
``2 pi sqrt(I_hinge / (m g l))``.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hinge_helpers import response, steady_rao
from hydrofmu.config.bodies import resolve_body
from hydrofmu.config.configuration import parse_config, resolve
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.hydrodata.model import HydroData
from hydrofmu.runtime.simulator.simulator import Simulator
from physics_helpers import bemio_sphere_body, run

G = 9.81
MASS = 1000.0  # kg
I_COG = 500.0  # kg m^2, about each axis through the centre of gravity
ARM = 2.0  # m, centre of gravity below the hinge
HINGE = np.array([0.5, 0.0, -1.0])  # m


def _dry(hd: HydroData, reference: np.ndarray, a_inf: np.ndarray | None = None,
         stiffness: np.ndarray | None = None) -> HydroData:
    """``hd`` with the water switched off (or only the constant ``a_inf`` and
    ``stiffness`` kept), its reference point moved to ``reference`` (m)."""
    nw = hd.omega.size
    return hd.with_changes(
        added_mass=np.zeros((nw, 6, 6)), radiation_damping=np.zeros((nw, 6, 6)),
        added_mass_inf=np.zeros((6, 6)) if a_inf is None else a_inf,
        excitation=np.zeros_like(hd.excitation),
        hydrostatic_stiffness=np.zeros((6, 6)) if stiffness is None else stiffness,
        displaced_volume=0.0, center_of_buoyancy=np.zeros(3), center_of_gravity=np.zeros(3),
        reference_point=np.asarray(reference, dtype=float), inertia_matrix=None)


def _model(entries: list[dict[str, Any]], joints: list[dict[str, Any]],
           ptos: list[dict[str, Any]] | None = None, **changes: Any
           ) -> tuple[list[HydroData], dict[str, Any]]:
    """Bodies from the sphere's file resolved as ``entries`` (each with ``reference``,
    optional ``a_inf`` and ``stiffness``), still water, with ``joints`` and ``ptos``.

    The configuration is resolved with the sphere's data, then every body is replaced by
    its dry copy and resolved again (``resolve_body``: mass matrix, stiffness with the
    gravity terms of ``mass`` and ``cog``, the weight as the static offset)."""
    data = {"bodies": [bemio_sphere_body(name=e["name"]) for e in entries],
            "wave": {"type": "none"}, "simulation": {"max_internal_step": 0.005}, **changes}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sphere's BEM notes
        bodies, cfg = resolve(data, Path.cwd())
    out = []
    for k, e in enumerate(entries):
        hd = _dry(bodies[k], e["reference"], e.get("a_inf"), e.get("stiffness"))
        spec = {key: v for key, v in e.items() if key not in ("reference", "a_inf", "stiffness")}
        cfg["bodies"][k], _ = resolve_body({"hydro": "-", **spec}, hd)
        out.append(hd)
    checked = parse_config({**data, "joints": joints, "ptos": ptos or []})
    cfg["joints"], cfg["ptos"] = checked["joints"], checked["ptos"]
    return out, cfg


def _flap(reference: np.ndarray, **extra: Any) -> dict[str, Any]:
    cog = np.array([0.0, 0.0, -ARM]) + HINGE - reference  # relative to the reference point
    return {"name": "flap", "reference": reference, "mass": MASS,
            "inertia": [I_COG, I_COG, I_COG], "cog": cog.tolist(), **extra}


def _hinge(**extra: Any) -> dict[str, Any]:
    return {"name": "hinge", "kind": "revolute", "bodies": ["flap"], "axis": [0.0, 1.0, 0.0],
            "point": HINGE.tolist(), **extra}


def _zero_crossing_period(t: np.ndarray, x: np.ndarray) -> float:
    """Mean period from the upward zero crossings (linear interpolation: its error is
    O((w h)^3) at a crossing, where the curvature vanishes)."""
    i = np.flatnonzero((x[:-1] < 0.0) & (x[1:] >= 0.0))
    tc = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    return float(np.mean(np.diff(tc)))


def _series(sim: Simulator, names: list[str], stop: float, h: float, *keys: str):
    t, out = run(sim, stop, h)
    return t, [out[:, names.index(k)] for k in keys]


@pytest.mark.parametrize("where", ["hinge", "cog"])
def test_dry_flap_swings_with_the_physical_pendulum_period(where: str) -> None:
    """``T = 2 pi sqrt(I_hinge / (m g l))``, ``I_hinge = I_cog + m l^2``, whether the data's
    reference point is on the hinge or at the centre of gravity."""
    reference = HINGE if where == "hinge" else HINGE + np.array([0.0, 0.0, -ARM])
    bodies, cfg = _model([_flap(reference)], [_hinge(initial_angle=0.02)])
    sim = Simulator(bodies, cfg)
    names = Simulator.output_names(bodies, cfg)
    expected = 2 * math.pi * math.sqrt((I_COG + MASS * ARM**2) / (MASS * G * ARM))
    t, (angle, rate, pitch) = _series(sim, names, 4 * expected, 0.005, "hinge.angle",
                                      "hinge.angular_velocity", "flap.pose[5]")
    assert angle[0] == pytest.approx(0.02, abs=1e-15)
    # rk4 at w h = 0.01: period error ~ (w h)^4 / 120 ~ 1e-10; the crossings' linear
    # interpolation O((w h)^3) ~ 1e-6: 1e-5 (measured -1.5e-9 for both placements).
    assert _zero_crossing_period(t, angle) == pytest.approx(expected, rel=1e-5)
    # No damping: the amplitude stays (rk4's amplitude error ~ (w h)^5 per step; measured
    # 4e-16).
    assert np.max(np.abs(angle)) == pytest.approx(0.02, rel=1e-6)
    np.testing.assert_allclose(pitch, angle, rtol=0, atol=1e-15)  # hinged on the world
    # The angular velocity is the derivative of the angle: central differences err by
    # (w h)^2 / 6 = 1.8e-5 of the amplitude (measured 1.8e-5): 1e-4.
    np.testing.assert_allclose(np.gradient(angle, t)[1:-1], rate[1:-1], rtol=0,
                               atol=1e-4 * np.max(np.abs(rate)))


@pytest.mark.parametrize("where", ["hinge", "cog"])
def test_fixed_base_hinge_equals_the_world_hinge(where: str) -> None:
    """The flap hinged on a body with ``fixed = true`` moves exactly as hinged on the world
    (the same constraint on the flap's DOFs, the base's DOFs held; the fixed base counts
    as the world for the static load about the hinge), with the torque input ``T_pto``."""
    ref = HINGE if where == "hinge" else HINGE + np.array([0.0, 0.0, -ARM])
    base = {"name": "base", "reference": np.zeros(3), "fixed": True, "mass": 5000.0,
            "cog": [0.0, 0.0, 0.0]}
    world = _model([_flap(ref)], [_hinge(initial_angle=0.01)])
    on_base = _model([_flap(ref), base],
                     [_hinge(initial_angle=0.01, bodies=["flap", "base"])])
    results = []
    for bodies, cfg in (world, on_base):
        sim = Simulator(bodies, cfg)
        names = Simulator.output_names(bodies, cfg)
        inputs = Simulator.input_names(bodies, cfg)

        def torque(t: float, inputs: list[str] = inputs) -> np.ndarray:
            u = np.zeros(len(inputs))
            u[inputs.index("hinge.T_pto")] = 300.0 * math.sin(1.3 * t)
            return u

        _, out = run(sim, 6.0, 0.01, torque)
        results.append((names, out))
    (n1, o1), (n2, o2) = results
    for key in ("hinge.angle", "hinge.angular_velocity", "flap.pose[1]", "flap.pose[5]",
                "hinge.F_constraint[1]", "hinge.F_constraint[3]"):
        a, b = o1[:, n1.index(key)], o2[:, n2.index(key)]
        # The same equations reduced by different bases: round-off (1e-12 of the scale).
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-12 * np.max(np.abs(a)) + 1e-15)
    assert not np.any(o2[:, [n2.index(f"base.pose[{i + 1}]") for i in range(6)]])
    assert np.max(np.abs(o1[:, n1.index("hinge.angle")] - 0.01)) > 1e-3  # the torque acts


def test_static_hinge_reaction_balances_the_applied_loads() -> None:
    """The flap at rest (angle 0) with a surge force F at its reference point and the
    hinge torque that balances its moment about the axis, ``T = -(d x F) . u``: no
    acceleration, and the reaction on the flap about its reference point is minus every
    applied load (the weight, F, the torque)."""
    ref = HINGE + np.array([0.0, 0.0, -ARM])  # reference point at the centre of gravity
    bodies, cfg = _model([_flap(ref)], [_hinge()])
    sim = Simulator(bodies, cfg)
    names = Simulator.output_names(bodies, cfg)
    inputs = Simulator.input_names(bodies, cfg)
    f = np.array([400.0, 0.0, 0.0])
    u_axis = np.array([0.0, 1.0, 0.0])
    torque = -float(np.cross(ref - HINGE, f) @ u_axis)
    u = np.zeros(len(inputs))
    u[inputs.index("flap.F_pto[1]")] = f[0]
    u[inputs.index("hinge.T_pto")] = torque
    sim.set_input_vector(u)
    y = sim.output_vector()

    def get(prefix: str) -> np.ndarray:
        return np.array([y[names.index(f"{prefix}[{i + 1}]")] for i in range(6)])

    applied = get("flap.F_hydrostatic") + np.concatenate([f, torque * u_axis])
    assert applied[2] == pytest.approx(-MASS * G)  # the weight at rest
    scale = 1e-12 * MASS * G * ARM  # round-off of the solves
    np.testing.assert_allclose(get("flap.acceleration"), 0.0, atol=1e-12)
    np.testing.assert_allclose(get("hinge.F_constraint"), -applied, atol=scale)
    np.testing.assert_allclose(get("flap.F_constraint"), -applied, atol=scale)
    # A reaction through the hinge point: its moment about the axis at the hinge is zero.
    r = get("hinge.F_constraint")
    assert abs((r[3:] + np.cross(ref - HINGE, r[:3])) @ u_axis) < scale


def test_natural_period_with_added_mass_and_stiffness_moved_to_the_hinge() -> None:
    """Constant added mass and hydrostatics (the sphere's A_inf and K, no damping), the
    reference point 3 m below the hinge: the period equals ``2 pi sqrt(I / k)`` with the
    matrices moved to the hinge by hand (surge per unit rotation ``t = u x (r - p)``)."""
    sphere_data = bemio_sphere_body()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hd = resolve({"bodies": [sphere_data], "wave": {"type": "none"}},
                     Path.cwd())[0][0]
    a_inf = hd.added_mass_inf
    k_data = hd.hydrostatic_stiffness
    d = -3.0  # m, reference point below the hinge (the weight hangs: a stable pendulum)
    ref = HINGE + np.array([0.0, 0.0, d])
    entry = {"name": "flap", "reference": ref, "a_inf": a_inf, "stiffness": k_data,
             "mass": 261.8e3, "inertia": [2.0e7, 2.0e7, 3.0e7], "cog": [0.0, 0.0, -1.0]}
    bodies, cfg = _model([entry], [_hinge(initial_angle=0.01)])
    body = cfg["bodies"][0]
    m = np.asarray(body["mass_matrix"]) + a_inf
    k = np.asarray(body["hydrostatic_stiffness"])
    f0 = np.asarray(body["hydrostatic_offset"])
    # Rotation theta about y through the hinge: theta_y = theta, surge = d theta
    # (u x (r - p) = e_y x d e_z = d e_x). Parallel-axis terms:
    inertia = m[4, 4] + d * (m[0, 4] + m[4, 0]) + d * d * m[0, 0]
    stiffness = k[4, 4] + d * (k[0, 4] + k[4, 0]) + d * d * k[0, 0]
    stiffness += f0[2] * d  # the static load's (F . d) at the reference point, d e_z
    expected = 2 * math.pi * math.sqrt(inertia / stiffness)
    sim = Simulator(bodies, cfg)
    names = Simulator.output_names(bodies, cfg)
    t, (angle,) = _series(sim, names, 3 * expected, expected / 400, "hinge.angle")
    # rk4 at w h = 2 pi / 400: period error ~ 1e-10; crossings O((w h)^3) ~ 4e-6: 1e-5
    # (measured 1.7e-12; T = 7.884 s).
    assert _zero_crossing_period(t, angle) == pytest.approx(expected, rel=1e-5)
    # The parallel-axis terms matter: the pitch entries alone give a period 30 % longer.
    assert abs(2 * math.pi * math.sqrt(m[4, 4] / k[4, 4]) / expected - 1.0) > 0.05


def test_rotational_pto_on_the_hinge_damps_as_the_closed_form() -> None:
    """A PTO across the hinge (damping c, stiffness k_p): the angle decays as
    ``I th'' + c th' + (m g l + k_p) th = 0`` (log decrement and damped period), its torque
    output is ``-k_p th - c th'`` and its power ``c th'^2 + k_p th th'``."""
    ref = HINGE
    c, kp = 2000.0, 5000.0
    bodies, cfg = _model([_flap(ref)], [_hinge(initial_angle=0.03)],
                         [{"name": "rot", "joint": "hinge", "damping": c, "stiffness": kp}])
    sim = Simulator(bodies, cfg)
    names = Simulator.output_names(bodies, cfg)
    inertia = I_COG + MASS * ARM**2
    stiff = MASS * G * ARM + kp
    wn = math.sqrt(stiff / inertia)
    zeta = c / (2 * inertia * wn)
    period = 2 * math.pi / (wn * math.sqrt(1 - zeta**2))
    t, (angle, rate, torque, power) = _series(
        sim, names, 3 * period, 0.002, "hinge.angle", "hinge.angular_velocity",
        "pto.rot.torque", "pto.rot.power")
    np.testing.assert_allclose(torque, -kp * angle - c * rate, rtol=0, atol=1e-9 * stiff)
    np.testing.assert_allclose(power, -torque * rate, rtol=0, atol=1e-9 * stiff)
    # The closed form of the damped oscillator from th(0) = th0 at rest.
    wd = wn * math.sqrt(1 - zeta**2)
    exact = 0.03 * np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t))
    # rk4 at w h = 0.005: global error ~ (w h)^4 ~ 1e-9 of the amplitude: 1e-7 (measured
    # 1.3e-11).
    np.testing.assert_allclose(angle, exact, rtol=0, atol=1e-7 * 0.03)
    units = dict(zip(Simulator.output_names(bodies, cfg),
                     Simulator.output_units(bodies, cfg), strict=True))
    assert (units["pto.rot.torque"], units["hinge.angle"], units["hinge.angular_velocity"]) \
        == ("N.m", "rad", "rad/s")


def test_revolute_model_is_linear_for_the_exact_scheme() -> None:
    """The hinge and its PTO declare linear forms: the exact scheme takes the model and
    matches rk4 (the linear output map is used and checked when built)."""
    ref = HINGE + np.array([0.0, 0.0, -ARM])
    outs = []
    for scheme in ("exact", "rk4"):
        bodies, cfg = _model([_flap(ref)], [_hinge(initial_angle=0.02)],
                             [{"name": "rot", "joint": "hinge", "damping": 800.0}])
        sim = Simulator(bodies, cfg, {"time_scheme": scheme, "max_internal_step": 0.005,
                                      "radiation.method": "constant"})
        assert sim.linear_model.linear
        names = Simulator.output_names(bodies, cfg)
        outs.append(_series(sim, names, 5.0, 0.05, "hinge.angle", "pto.rot.power")[1])
    # rk4 at w h = 0.01 against the exact discretisation: (w h)^4 ~ 1e-8 of the amplitude
    # (measured 6e-10 for the angle, 6e-10 of the largest power).
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=0, atol=1e-7 * 0.02)
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=0,
                               atol=1e-6 * np.max(np.abs(outs[0][1])))


def test_revolute_and_fixed_configuration_errors_name_the_fix() -> None:
    flap = _flap(HINGE)
    with pytest.raises(ConfigError, match="needs point"):
        Simulator(*_model([flap], [{k: v for k, v in _hinge().items() if k != "point"}]))
    with pytest.raises(ConfigError, match="axis must not be zero"):
        Simulator(*_model([flap], [_hinge(axis=[0, 0, 0])]))
    bodies, cfg = _model([flap], [_hinge()])
    with pytest.raises(ConfigError, match="initial_pose violates the joint"):
        Simulator(bodies, cfg, {"flap.initial_pose[1]": 0.1})  # the hinge point moves
    Simulator(bodies, cfg, {"flap.initial_pose[5]": 0.01})  # about the hinge: consistent
    with pytest.raises(ConfigError, match="fixed = true and dofs contradict"):
        _model([{**flap, "fixed": True, "dofs": ["pitch"]}], [])
    data = {"bodies": [bemio_sphere_body(name="flap")],
            "joints": [{"name": "hinge", "kind": "revolute", "body": "flap",
                        "axis": [0, 1, 0], "point": [0, 0, 0]}],
            "ptos": [{"name": "p", "joint": "nothere", "damping": 1.0}]}
    with pytest.raises(ConfigError, match="must name a revolute or prismatic joint"):
        parse_config(data)
    data["ptos"] = [{"name": "p", "joint": "hinge", "dof": "pitch"}]
    with pytest.raises(ConfigError, match="either joint or body and dof"):
        parse_config(data)


@pytest.mark.parametrize("period", [6.0, 8.0, 11.0])
def test_hinged_sphere_rao_equals_the_frequency_domain(period: float) -> None:
    """The sphere hinged on the world 5 m aft of its reference point, a rotational PTO
    of 2e7 N m s/rad, regular waves, convolution radiation: the steady hinge angle per
    unit elevation (amplitude and phase) equals the reduced frequency-domain solution."""
    data: dict[str, Any] = {
        "simulation": {"max_internal_step": 0.05},
        "wave": {"type": "regular", "height": 1.0, "period": period, "ramp_time": 20.0},
        "radiation": {"method": "convolution", "irf_duration": 40.0},
        "bodies": [bemio_sphere_body()],
        "joints": [{"name": "hinge", "kind": "revolute", "body": "body",
                    "axis": [0.0, 1.0, 0.0], "point": [-5.0, 0.0, -2.0]}],
        "ptos": [{"name": "rot", "joint": "hinge", "damping": 2.0e7}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sphere's BEM notes
        bodies, cfg = resolve(data, Path.cwd())
    sim = Simulator(bodies, cfg)
    got = steady_rao(sim, period, 200.0, 0.1, "hinge.angle")
    expected = response(sim, 2 * math.pi / period)[4]  # the body's pitch is the angle
    # IRF cut at 40 s and at the data's last frequency, rk4 at w h <= 0.05, the residual
    # transient 180 s after the ramp: 1e-3 (measured 4.4e-5, 1.2e-5, 3e-7 in amplitude;
    # 2e-5, 3e-5, 7e-6 rad in phase).
    assert abs(got / expected - 1.0) < 1e-3


def test_hinge_between_two_free_bodies_keeps_its_point_and_axis() -> None:
    """Two dry bodies, every DOF free, hinged together and driven by ``T_pto``: the hinge
    point moves as one point of both bodies and their relative rotation stays along the
    axis (round-off, 1e-12 of the motion; measured 5e-16 and 2e-17 of the 45 m free fall);
    the angle output is ``u . (theta_a - theta_b)``."""
    axis = np.array([0.3, 1.0, 0.2]) / np.linalg.norm([0.3, 1.0, 0.2])
    other = {"name": "arm", "reference": HINGE + np.array([1.0, 0.5, 2.0]), "mass": 3000.0,
             "inertia": [900.0, 1200.0, 800.0], "cog": [0.0, 0.0, 0.0]}
    bodies, cfg = _model([_flap(HINGE + np.array([0.0, 0.0, -ARM])), other],
                         [_hinge(bodies=["flap", "arm"], axis=axis.tolist())])
    sim = Simulator(bodies, cfg)
    names = Simulator.output_names(bodies, cfg)
    inputs = Simulator.input_names(bodies, cfg)

    def torque(t: float) -> np.ndarray:
        u = np.zeros(len(inputs))
        u[inputs.index("hinge.T_pto")] = 500.0 * math.sin(2.0 * t)
        return u

    _, out = run(sim, 3.0, 0.01, torque)
    q = np.array([out[:, names.index(f"{b}.pose[{i + 1}]")] for b in ("flap", "arm")
                  for i in range(6)]).T
    r = [np.asarray(hd.reference_point) for hd in bodies]
    point = [q[:, 6 * k : 6 * k + 3] + np.cross(q[:, 6 * k + 3 : 6 * k + 6], HINGE - r[k])
             for k in range(2)]
    rel = q[:, 3:6] - q[:, 9:12]
    scale = np.abs(q).max()
    assert scale > 1e-3  # it moves (free fall and the torque)
    np.testing.assert_allclose(point[0], point[1], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(rel - np.outer(rel @ axis, axis), 0.0, atol=1e-12 * scale)
    np.testing.assert_allclose(out[:, names.index("hinge.angle")], rel @ axis, rtol=0,
                               atol=1e-12 * scale)
    assert np.max(np.abs(rel @ axis)) > 1e-3  # the torque turns one against the other
