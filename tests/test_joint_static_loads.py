"""The joints' static reactions as a stiffness (``joint.static_load``) against closed forms.

Bodies without water (no added mass, damping or excitation) whose hydrostatics are a weight
``-m g e_z`` at the centre of gravity and a buoyancy ``rho g V e_z`` at the centre of
buoyancy (the data's stiffness of a submerged body, its gravity terms moved to the given
mass and centre of gravity by the configuration, the imbalance as the static load at the
reference point). The linear model writes every force about the reference point; the
joints' reactions at rest turn with the bodies (``forces/static_loads.py``). Checked:

- a compound double pendulum, each reference point at its centre of gravity, the second
  body hinged on the first (a moving body) between the two: the two small-oscillation
  frequencies of ``det(K - w^2 M) = 0`` with the textbook ``M`` and ``K``;
- a slider on a pendulum (a prismatic joint along the pendulum's horizontal x axis, a
  spring across it): the weight the joint carries turns with the pendulum and pushes the
  slider along the tilted axis, the coupling ``-m_a g`` of ``K`` in (angle, slide);
- two flaps locked to a base that pitches about a hinge on the world, every hinge away
  from every reference point: the period is ``2 pi sqrt(I_P / k)`` with ``I_P`` the three
  bodies' inertia about the pivot and ``k = sum F . d`` the restoring moment of their
  point loads (weights, buoyancies) about it; and the one merged rigid body (mass, volume,
  centres and inertia combined) has the same reduced mass and stiffness.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.linalg

from hydrofmu.config.bodies import resolve_body
from hydrofmu.config.configuration import parse_config, resolve
from hydrofmu.runtime.hydrodata.model import HydroData
from hydrofmu.runtime.simulator.simulator import Simulator
from physics_helpers import bemio_sphere_body, run

G = 9.81
RHO = 1025.0
U = np.array([0.0, 1.0, 0.0])  # every hinge's axis


def _submerged(hd: HydroData, reference: np.ndarray, volume: float, cob: np.ndarray
               ) -> HydroData:
    """``hd`` without water but with the buoyancy of ``volume`` (m^3) at ``cob`` (m, from
    the reference point ``reference``, world frame): the data's stiffness is that of a
    submerged body whose mass ``rho V`` sits at its centre of buoyancy (zero)."""
    nw = hd.omega.size
    return hd.with_changes(
        added_mass=np.zeros((nw, 6, 6)), radiation_damping=np.zeros((nw, 6, 6)),
        added_mass_inf=np.zeros((6, 6)), excitation=np.zeros_like(hd.excitation),
        hydrostatic_stiffness=np.zeros((6, 6)), displaced_volume=float(volume),
        center_of_buoyancy=np.asarray(cob, dtype=float),
        center_of_gravity=np.asarray(cob, dtype=float),
        reference_point=np.asarray(reference, dtype=float), inertia_matrix=None, rho=RHO,
        g=G)


def _model(entries: list[dict[str, Any]], joints: list[dict[str, Any]]
           ) -> tuple[list[HydroData], dict[str, Any]]:
    """Bodies from ``entries`` (``name``, ``reference``, ``volume``, ``cob``, ``mass``,
    ``cog``, ``inertia``, optional ``initial_pose``), still water, with ``joints``."""
    data = {"bodies": [bemio_sphere_body(name=e["name"]) for e in entries],
            "wave": {"type": "none"}, "simulation": {"max_internal_step": 0.005}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sphere's BEM notes
        bodies, cfg = resolve(data, Path.cwd())
    out = []
    for k, e in enumerate(entries):
        hd = _submerged(bodies[k], e["reference"], e["volume"], e["cob"])
        spec = {key: v for key, v in e.items() if key not in ("reference", "volume", "cob")}
        cfg["bodies"][k], _ = resolve_body({"hydro": "-", **spec}, hd)
        out.append(hd)
    cfg["joints"] = parse_config({**data, "joints": joints})["joints"]
    return out, cfg


def _reduced(sim: Simulator) -> tuple[np.ndarray, np.ndarray]:
    """``T^T M T`` and ``T^T K T`` with ``K`` the stiffness every linear part declares."""
    t = sim.constraints.basis
    k = sum(p.linear_matrices()[0] for p in sim.parts
            if p.active and p.linear_matrices() is not None)
    return t.T @ sim.mass @ t, t.T @ k @ t


def _zero_crossing_period(t: np.ndarray, x: np.ndarray) -> float:
    """Mean period from the upward zero crossings (linear interpolation)."""
    i = np.flatnonzero((x[:-1] < 0.0) & (x[1:] >= 0.0))
    tc = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    return float(np.mean(np.diff(tc)))


def test_resolved_bodies_carry_weight_and_buoyancy() -> None:
    # The construction itself: the static load is rho g V - m g, the stiffness the
    # submerged body's K55 = rho g V z_b - m g z_g about the reference point.
    _, cfg = _model([{"name": "b", "reference": np.zeros(3), "volume": 2.0,
                      "cob": np.array([0.0, 0.0, 0.5]), "mass": 1500.0,
                      "cog": [0.0, 0.0, -1.0], "inertia": [1.0, 1.0, 1.0]}], [])
    body = cfg["bodies"][0]
    assert body["hydrostatic_offset"][2] == pytest.approx(G * (RHO * 2.0 - 1500.0))
    assert body["hydrostatic_stiffness"][4][4] == pytest.approx(
        RHO * G * 2.0 * 0.5 + 1500.0 * G * 1.0)


# A compound double pendulum: body 1 hangs from the world hinge P0 with its centre of
# gravity L1C below it; body 2 hangs from the hinge P1 (L1 below P0, on body 1) with its
# centre of gravity L2C below P1; each reference point at its centre of gravity (so
# neither hinge is at a reference point, and the second joins two moving bodies).
M1, M2 = 800.0, 300.0  # kg
I1, I2 = 150.0, 40.0  # kg m^2 about y through the centres of gravity
L1, L1C, L2C = 2.0, 0.8, 1.2  # m
P0 = np.array([0.3, 0.0, -1.0])  # m


def _double_pendulum() -> Simulator:
    r1 = P0 + np.array([0.0, 0.0, -L1C])
    r2 = P0 + np.array([0.0, 0.0, -L1 - L2C])
    dry = {"volume": 0.0, "cob": np.zeros(3), "cog": [0.0, 0.0, 0.0]}
    bodies, cfg = _model(
        [{"name": "one", "reference": r1, "mass": M1, "inertia": [I1, I1, I1], **dry},
         {"name": "two", "reference": r2, "mass": M2, "inertia": [I2, I2, I2], **dry}],
        [{"name": "top", "kind": "revolute", "body": "one", "axis": U.tolist(),
          "point": P0.tolist()},
         {"name": "knee", "kind": "revolute", "bodies": ["two", "one"], "axis": U.tolist(),
          "point": (P0 + np.array([0.0, 0.0, -L1])).tolist()}])
    return Simulator(bodies, cfg)


def test_double_pendulum_frequencies_equal_the_closed_form() -> None:
    """``M = [[I1 + m1 l1^2 + m2 L1^2, m2 L1 l2], [m2 L1 l2, I2 + m2 l2^2]]`` and
    ``K = diag(m1 g l1 + m2 g L1, m2 g l2)`` in the absolute angles: the weight of body 2
    reaches body 1 through the knee, 1.2 m below body 1's reference point."""
    sim = _double_pendulum()
    m_r, k_r = _reduced(sim)
    got = np.sort(np.sqrt(scipy.linalg.eigvals(k_r, m_r).real))
    mass = np.array([[I1 + M1 * L1C**2 + M2 * L1**2, M2 * L1 * L2C],
                     [M2 * L1 * L2C, I2 + M2 * L2C**2]])
    stiffness = np.diag([M1 * G * L1C + M2 * G * L1, M2 * G * L2C])
    expected = np.sort(np.sqrt(scipy.linalg.eigvals(stiffness, mass).real))
    # The same algebra in another basis: round-off (1e-12).
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # Without the joints' static reactions both frequencies would be off by more than a
    # per cent (the check can fail).
    part = sim.part("joint.static_load")
    k_without = k_r - sim.constraints.basis.T @ part.stiffness @ sim.constraints.basis
    assert np.all(np.abs(np.sort(np.sqrt(np.abs(scipy.linalg.eigvals(k_without, m_r).real)))
                         / expected - 1.0) > 0.01)


# A base that pitches about a hinge on the world, two flaps locked to it, mirror images
# (the device is at rest in the initial pose: the loads' moments about the pivot cancel).
PIVOT = np.array([0.0, 0.0, 0.0])  # m
BASE = {"name": "base", "reference": np.array([0.0, 0.0, -2.0]), "volume": 1.5,
        "cob": np.array([0.0, 0.0, 0.5]), "mass": 2000.0, "cog": [0.0, 0.0, -1.0],
        "inertia": [900.0, 700.0, 900.0]}


def _flap(side: float) -> dict[str, Any]:
    return {"name": f"flap{'1' if side < 0 else '2'}",
            "reference": np.array([3.0 * side, 0.0, -1.0]), "volume": 0.8,
            "cob": np.array([0.0, 0.0, 0.3]), "mass": 500.0, "cog": [0.0, 0.0, -0.5],
            "inertia": [80.0, 60.0, 80.0]}


def _hinge(side: float) -> dict[str, Any]:
    name = f"flap{'1' if side < 0 else '2'}"
    return {"name": f"hinge_{name}", "kind": "revolute", "bodies": [name, "base"],
            "axis": U.tolist(), "point": [3.0 * side, 0.0, -2.5], "locked": True}


def _pivot(angle: float = 0.0) -> dict[str, Any]:
    return {"name": "pivot", "kind": "revolute", "body": "base", "axis": U.tolist(),
            "point": PIVOT.tolist(), "initial_angle": angle}


def _closed_form() -> tuple[float, float]:
    """``I_P`` (kg m^2) and ``k = sum F . d`` (N m/rad) of the three bodies about the
    pivot: each weight ``-m g e_z`` at its centre of gravity and each buoyancy
    ``rho g V e_z`` at its centre of buoyancy, ``d`` from the pivot."""
    inertia, k = 0.0, 0.0
    for e in (BASE, _flap(-1.0), _flap(1.0)):
        cog = e["reference"] + np.asarray(e["cog"]) - PIVOT
        cob = e["reference"] + e["cob"] - PIVOT
        inertia += e["inertia"][1] + e["mass"] * (cog[0] ** 2 + cog[2] ** 2)
        k += -e["mass"] * G * cog[2] + RHO * G * e["volume"] * cob[2]
    return inertia, k


def _locked_device(angle: float = 0.0) -> Simulator:
    poses = {}
    for side in (-1.0, 1.0):  # the flaps turned with the base about the pivot
        f = _flap(side)
        d = f["reference"] - PIVOT
        poses[f["name"]] = [*(angle * np.cross(U, d)), *(angle * U)]
    bodies, cfg = _model(
        [BASE, *({**_flap(s), "initial_pose": poses[_flap(s)["name"]]} for s in (-1, 1))],
        [_pivot(angle), _hinge(-1.0), _hinge(1.0)])
    return Simulator(bodies, cfg)


def test_flaps_locked_to_a_pitching_base_ring_at_the_closed_form_period() -> None:
    inertia, k = _closed_form()
    assert k > 0.0  # the device is stable about the pivot
    sim = _locked_device(0.02)
    m_r, k_r = _reduced(sim)
    # One DOF (the pivot's angle), whatever T's normalisation: w^2 = k / I_P (round-off).
    assert float(k_r[0, 0] / m_r[0, 0]) == pytest.approx(k / inertia, rel=1e-12)
    names = Simulator.output_names(sim.bodies, sim.config)
    period = 2.0 * math.pi * math.sqrt(inertia / k)
    t, out = run(sim, 3.0 * period, 0.005)
    angle = out[:, names.index("pivot.angle")]
    # rk4 at w h ~ 0.01: period error ~ 1e-10; the crossings' linear interpolation
    # O((w h)^3) ~ 1e-6: 1e-5.
    assert _zero_crossing_period(t, angle) == pytest.approx(period, rel=1e-5)
    np.testing.assert_allclose(out[:, names.index("hinge_flap1.angle")], 0.0, atol=1e-12)


def test_locked_device_equals_the_merged_rigid_body() -> None:
    """The merged body (reference point the base's): mass and volume summed, centres of
    gravity and buoyancy weighted, inertia about the combined centre of gravity (parallel
    axes), on the same pivot: the same reduced mass and stiffness as the three bodies."""
    parts = (BASE, _flap(-1.0), _flap(1.0))
    ref = BASE["reference"]
    mass = sum(e["mass"] for e in parts)
    volume = sum(e["volume"] for e in parts)
    cog = sum(e["mass"] * (e["reference"] + e["cog"]) for e in parts) / mass
    cob = sum(e["volume"] * (e["reference"] + e["cob"]) for e in parts) / volume
    inertia = np.zeros((3, 3))
    for e in parts:
        c = e["reference"] + np.asarray(e["cog"]) - cog
        inertia += np.diag(e["inertia"]) + e["mass"] * (c @ c * np.eye(3) - np.outer(c, c))
    merged = {"name": "base", "reference": ref, "volume": volume, "cob": cob - ref,
              "mass": mass, "cog": (cog - ref).tolist(), "inertia": inertia.tolist()}
    bodies, cfg = _model([merged], [_pivot()])
    one = Simulator(bodies, cfg)
    m1, k1 = _reduced(one)
    m3, k3 = _reduced(_locked_device())
    # Each a 1 x 1 matrix in a unit-norm basis: the pivot's angle scaled by the basis
    # vector's norm, which differs between the two models; the ratio is basis-free.
    assert float(k3[0, 0] / m3[0, 0]) == pytest.approx(float(k1[0, 0] / m1[0, 0]),
                                                        rel=1e-12)
    inertia_p, k = _closed_form()
    assert float(k1[0, 0] / m1[0, 0]) == pytest.approx(k / inertia_p, rel=1e-12)


def test_slider_on_a_pendulum_couples_as_the_closed_form() -> None:
    """The pendulum (``m_b``, ``I_b``, centre of gravity ``l_b`` below the hinge ``P``) carries
    a slider (``m_a``, ``I_a``, centre of gravity ``L`` below ``P``) on a prismatic joint
    along its x axis with a spring ``k_s``. In the angle ``phi`` and the slide ``s``:
    ``V = m_a g (L phi^2 / 2 - s phi) + m_b g l_b phi^2 / 2 + k_s s^2 / 2`` (the slider's
    height ``-s sin phi - L cos phi``), ``T = m_a (s' - L phi')^2 / 2 + (I_a + I_b + m_b
    l_b^2) phi'^2 / 2``: the two frequencies of ``det(K - w^2 M) = 0``."""
    m_a, i_a, m_b, i_b = 400.0, 30.0, 900.0, 120.0
    big_l, l_b, k_s = 2.5, 1.0, 3000.0
    hinge = np.array([0.0, 0.0, 0.0])
    dry = {"volume": 0.0, "cob": np.zeros(3), "cog": [0.0, 0.0, 0.0]}
    bodies, cfg = _model(
        [{"name": "arm", "reference": hinge + np.array([0.0, 0.0, -l_b]), "mass": m_b,
          "inertia": [i_b, i_b, i_b], **dry},
         {"name": "slider", "reference": hinge + np.array([0.0, 0.0, -big_l]),
          "mass": m_a, "inertia": [i_a, i_a, i_a], **dry}],
        [{"name": "top", "kind": "revolute", "body": "arm", "axis": U.tolist(),
          "point": hinge.tolist()},
         {"name": "slide", "kind": "prismatic", "bodies": ["slider", "arm"],
          "axis": [1.0, 0.0, 0.0]}])
    cfg["ptos"] = parse_config({"bodies": [bemio_sphere_body(name="arm"),
                                           bemio_sphere_body(name="slider")],
                                "joints": cfg["joints"],
                                "ptos": [{"name": "spring", "joint": "slide",
                                          "stiffness": k_s}]})["ptos"]
    sim = Simulator(bodies, cfg)
    m_r, k_r = _reduced(sim)
    got = np.sort(np.sqrt(scipy.linalg.eigvals(k_r, m_r).real))
    mass = np.array([[i_a + m_a * big_l**2 + i_b + m_b * l_b**2, -m_a * big_l],
                     [-m_a * big_l, m_a]])
    stiffness = np.array([[m_a * G * big_l + m_b * G * l_b, -m_a * G], [-m_a * G, k_s]])
    expected = np.sort(np.sqrt(scipy.linalg.eigvals(stiffness, mass).real))
    np.testing.assert_allclose(got, expected, rtol=1e-12)  # round-off
