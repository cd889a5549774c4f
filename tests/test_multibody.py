"""Several bodies in one model: body-to-body radiation blocks, the b2b switch, joints
(fixed, planar, prismatic with a PTO) and the RM3 example through its FMU."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hydrofmu.config.configuration import resolve
from hydrofmu.io.readers import read_hydro_bodies
from hydrofmu.runtime.errors import ConfigError, IntegrationError
from hydrofmu.runtime.simulator.simulator import Simulator
from paths import WAMIT_RM3
from physics_helpers import bemio_sphere_body, fit_sinusoid, run

ROOT = Path(__file__).resolve().parents[1]
RM3 = ROOT / "examples" / "rm3"


def _resolve(data: dict[str, Any], base: Path | None = None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # WAMIT's 4-digit data: asymmetry notes
        return resolve(data, Path.cwd() if base is None else base)


def _rm3_data(**changes: Any) -> dict[str, Any]:
    data = tomllib.loads((RM3 / "rm3.toml").read_text(encoding="utf-8"))
    for key, value in changes.items():
        data[key] = value if key == "joints" else {**data.get(key, {}), **value}
    return data


def _two_spheres(**extra: Any) -> dict[str, Any]:
    return {"bodies": [bemio_sphere_body(name="a", **extra),
                       bemio_sphere_body(name="b", **extra)]}


def _synthetic_coupling(cfg: dict[str, Any], nw: int, a33: float) -> None:
    """Heave-heave coupling a33 (kg) between bodies 0 and 1 at every frequency, no damping."""
    blk = np.zeros((6, 6))
    blk[2, 2] = a33
    cfg["coupling"] = [
        {"bodies": [k, j], "added_mass_inf": blk.tolist(),
         "added_mass": np.repeat(blk[None], nw, axis=0).tolist(),
         "radiation_damping": np.zeros((nw, 6, 6)).tolist()}
        for k, j in ((0, 1), (1, 0))
    ]


# ------------------------------------------------------------------ coupling data
def test_rm3_coupling_blocks_reach_the_left_side_and_b2b_off_drops_them() -> None:
    """The 12x12 A_inf of the model is the WAMIT file's, off-diagonal blocks included; the
    IRF cross block is nonzero; b2b = false keeps the diagonal blocks only."""
    mb = read_hydro_bodies(WAMIT_RM3, check=False)
    bodies, cfg = _resolve(_rm3_data(), RM3)
    rad = Simulator(bodies, cfg).part("radiation")
    np.testing.assert_array_equal(rad.added[:6, 6:], mb.block("float", "spar"))
    np.testing.assert_array_equal(rad.added[6:, :6], mb.block("spar", "float"))
    assert abs(rad.added[2, 8]) > 1e4  # kg: the float-spar heave coupling of the data
    # The IRF cross block: 2/pi int B_fs(w) cos(w t) dw, nonzero for heave.
    assert np.max(np.abs(rad.model._k[:, 2, 8])) > 1e3
    bodies, cfg = _resolve(_rm3_data(multibody={"b2b": False}), RM3)
    rad = Simulator(bodies, cfg).part("radiation")
    assert not np.any(rad.added[:6, 6:]) and not np.any(rad.model._k[:, :6, 6:])
    np.testing.assert_array_equal(rad.added[6:, 6:], mb.block("spar", "spar"))


def test_same_body_twice_from_one_file_is_refused() -> None:
    data = _rm3_data()
    data["bodies"][1]["hydro_body"] = "float"
    with pytest.raises(ConfigError, match="same body twice"):
        _resolve(data, RM3)


def test_identical_bodies_without_coupling_move_as_one_body() -> None:
    """Two copies of the sphere in one model, b2b on with zero coupling blocks and off:
    each body moves as the single-body model, to 1e-6 of the amplitude."""
    wave = {"type": "irregular", "height": 2.0, "period": 8.0, "ramp_time": 5.0, "seed": 3,
            "n_components": 30}
    sim_cfg = {"max_internal_step": 0.05}
    dofs = {"dofs": ["surge", "heave", "pitch"]}
    one = _resolve({"bodies": [bemio_sphere_body(name="a", **dofs)], "wave": wave,
                    "simulation": sim_cfg})
    _, ref = run(Simulator(*one), 40.0, 0.1)
    ref = ref[:, :18]  # pose, velocity, acceleration of the body
    for b2b in (True, False):
        bodies, cfg = _resolve({**_two_spheres(**dofs), "wave": wave, "simulation": sim_cfg,
                                "multibody": {"b2b": b2b}})
        _synthetic_coupling(cfg, bodies[0].nw, 0.0)
        sim = Simulator(bodies, cfg)
        names = Simulator.output_names(bodies, cfg)
        _, out = run(sim, 40.0, 0.1)
        for body in ("a", "b"):
            start = names.index(f"{body}.pose[1]")
            got = out[:, start : start + 18]
            # Same equations, different matrix sizes: round-off only (1e-6 of the scale).
            np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6 * np.abs(ref).max())


def test_coupled_added_mass_against_the_frequency_domain_solution() -> None:
    """Two spheres in heave (different masses) with a prescribed heave-heave added-mass
    coupling Ac, constant coefficients: the steady response equals
    (K - w^2 (M + A(w) + Ac) + i w B(w))^-1 X(w) of the 2x2 system (the off-diagonal
    blocks, their sign and their place on the left side)."""
    period = 8.0
    w = 2 * np.pi / period
    data = {"bodies": [bemio_sphere_body(name="a", dofs=["heave"]),
                       bemio_sphere_body(name="b", dofs=["heave"], mass=200.0e3)],
            "wave": {"type": "regular", "height": 2.0, "period": period, "ramp_time": 20.0},
            "radiation": {"method": "constant"}, "simulation": {"max_internal_step": 0.02}}
    bodies, cfg = _resolve(data)
    a_c = 1.0e5  # kg, a third of the sphere's own A33: a strong coupling
    _synthetic_coupling(cfg, bodies[0].nw, a_c)
    sim = Simulator(bodies, cfg)
    names = Simulator.output_names(bodies, cfg)
    t, out = run(sim, 160.0, 0.05)
    keep = t >= 160.0 - 5 * period  # transients decay as exp(-B t / 2(m + A)) ~ e^-9 by then
    eta = fit_sinusoid(t[keep], out[keep, names.index("wave.elevation")], [w])[0]
    z = [fit_sinusoid(t[keep], out[keep, names.index(f"{b}.pose[3]")], [w])[0] / eta
         for b in ("a", "b")]
    a, b = bodies[0].coefficients_at(w)
    x = bodies[0].excitation_at(w)[2]
    mass = [cfg["bodies"][k]["mass"] for k in range(2)]
    k33 = [cfg["bodies"][k]["hydrostatic_stiffness"][2][2] for k in range(2)]
    zmat = np.array([[k33[0] - w * w * (mass[0] + a[2, 2]) + 1j * w * b[2, 2], -w * w * a_c],
                     [-w * w * a_c, k33[1] - w * w * (mass[1] + a[2, 2]) + 1j * w * b[2, 2]]])
    expected = np.linalg.solve(zmat, [x, x])
    # rk4 at w dt = 0.016: phase error ~ (w dt)^4 / 120 ~ 1e-9; the residual transient
    # e^-9 ~ 1e-4 of the amplitude dominates: 5e-4.
    np.testing.assert_allclose(z, expected, rtol=5e-4)
    # The coupling matters: with the wrong sign the answer moves by more than 5 %.
    zmat[0, 1] = zmat[1, 0] = w * w * a_c
    wrong = np.linalg.solve(zmat, [x, x])
    assert np.max(np.abs(wrong - expected) / np.abs(expected)) > 0.05


def test_implicit_is_stable_across_bodies_where_lagged_diverges() -> None:
    """Heave-heave coupling Ac = 0.8 (m + A33): (M + A) stays positive definite, but the
    lagged treatment iterates with rho(M^-1 A) = (A33 + Ac) / m > 1 and diverges; the
    implicit one (the whole 2x2 added mass on the left side) stays bounded."""
    data = {**_two_spheres(dofs=["heave"]),
            "wave": {"type": "regular", "height": 2.0, "period": 8.0, "ramp_time": 10.0},
            "radiation": {"method": "constant"}, "simulation": {"max_internal_step": 0.05}}
    results = {}
    for method in ("implicit", "lagged"):
        bodies, cfg = _resolve({**data, "added_mass": {"method": method}})
        m = cfg["bodies"][0]["mass"]
        a33 = bodies[0].coefficients_at(2 * np.pi / 8.0)[0][2, 2]
        _synthetic_coupling(cfg, bodies[0].nw, 0.8 * (m + a33))
        sim = Simulator(bodies, cfg)
        try:
            _, out = run(sim, 60.0, 0.1)
            results[method] = float(np.max(np.abs(out)))
        except IntegrationError:
            results[method] = np.inf
    assert results["lagged"] == np.inf
    assert np.isfinite(results["implicit"]) and results["implicit"] < 1e7  # no divergence


# ------------------------------------------------------------------ joints
def _rm3_run(data: dict[str, Any], stop: float, h: float, damping: float = 1.2e6):
    bodies, cfg = _resolve(data, RM3)
    sim = Simulator(bodies, cfg, {"max_internal_step": 0.1})
    names = Simulator.output_names(bodies, cfg)
    inputs = Simulator.input_names(bodies, cfg)
    iv, ip = names.index("pto.velocity"), inputs.index("pto.F_pto")
    u = np.zeros(len(inputs))
    out = []
    for k in range(round(stop / h)):
        y = sim.output_vector()
        out.append(y.copy())
        u[ip] = -damping * y[iv]
        sim.set_input_vector(u)
        sim.step(k * h, h)
    return sim, names, np.array(out)


def test_prismatic_joint_keeps_off_axis_relative_motion_at_round_off() -> None:
    """RM3 in waves with the damper: the float's rotations equal the spar's, and its
    reference point moves relative to the spar only along z (round-off, 1e-12 of the
    motion); the spar stays in its plane (sway, roll, yaw exactly zero)."""
    sim, names, out = _rm3_run(_rm3_data(), 60.0, 0.1)
    q = np.array([out[:, names.index(f"{b}.pose[{i + 1}]")] for b in ("float", "spar")
                  for i in range(6)]).T
    r = sim.bodies[0].reference_point - sim.bodies[1].reference_point
    theta_b = q[:, 9:12]
    d = q[:, 0:3] - q[:, 6:9] - np.cross(theta_b, r)
    scale = np.abs(q).max()
    assert scale > 0.1  # m: the bodies do move
    assert np.max(np.abs(d[:, :2])) < 1e-12 * max(scale, 1.0)
    assert np.max(np.abs(q[:, 3:6] - q[:, 9:12])) < 1e-12 * max(scale, 1.0)
    assert not np.any(q[:, [7, 9, 11]])
    np.testing.assert_allclose(out[:, names.index("pto.position")], d[:, 2],
                               rtol=0, atol=1e-12 * scale)


def test_static_constraint_forces_balance_the_applied_forces() -> None:
    """Spar fixed to the ground, float on the prismatic joint, calm water, at rest: a
    surge force F on the float is held by the joint (-F on the float) and carried to the
    ground: the fixed joint's reaction on the spar is -F and the moment -(r x F) about
    the spar's reference point (r from the spar's to the float's reference point)."""
    joints = [{"name": "pto", "kind": "prismatic", "bodies": ["float", "spar"],
               "axis": [0.0, 0.0, 1.0]},
              {"name": "ground", "kind": "fixed", "body": "spar"}]
    data = _rm3_data(joints=joints, wave={"height": 0.0})
    data["bodies"][0]["dofs"] = "all"
    bodies, cfg = _resolve(data, RM3)
    sim = Simulator(bodies, cfg)
    names = Simulator.output_names(bodies, cfg)
    inputs = Simulator.input_names(bodies, cfg)
    force = np.array([1.0e5, -3.0e4, 0.0])
    u = np.zeros(len(inputs))
    for i in range(3):
        u[inputs.index(f"float.F_pto[{i + 1}]")] = force[i]
    sim.set_input_vector(u)
    y = sim.output_vector()

    def get(prefix: str) -> np.ndarray:
        return np.array([y[names.index(f"{prefix}[{i + 1}]")] for i in range(6)])

    def applied(body: str, pto: np.ndarray) -> np.ndarray:
        # Every force the parts apply (the hydrostatic offset of the data's centre of
        # buoyancy gives a small roll moment at rest) plus the external force.
        channels = ("F_radiation", "F_excitation", "F_hydrostatic", "F_mooring", "F_viscous")
        return pto + sum(get(f"{body}.{c}") for c in channels)

    r = bodies[0].reference_point - bodies[1].reference_point
    f_float = applied("float", np.concatenate([force, np.zeros(3)]))
    f_spar = applied("spar", np.zeros(6))
    scale = 1e-9 * np.abs(force).max() * max(1.0, np.linalg.norm(r))  # round-off of the solves
    np.testing.assert_allclose(get("pto.F_constraint"), -f_float, atol=scale)
    on_ground = np.concatenate([f_float[:3] + f_spar[:3],
                                f_float[3:] + f_spar[3:] + np.cross(r, f_float[:3])])
    np.testing.assert_allclose(get("ground.F_constraint"), -on_ground, atol=scale)
    np.testing.assert_allclose(get("float.F_constraint"), -f_float, atol=scale)
    np.testing.assert_allclose(get("float.acceleration"), 0.0, atol=1e-12)


def test_joint_configuration_errors_name_the_fix() -> None:
    with pytest.raises(ConfigError, match=r"kind 'slider' unknown.*prismatic"):
        _resolve(_rm3_data(joints=[{"name": "j", "kind": "slider", "body": "float"}]), RM3)
    with pytest.raises(ConfigError, match="needs bodies = \\[first, second\\]"):
        _resolve(_rm3_data(joints=[{"name": "j", "kind": "prismatic", "body": "float"}]),
                 RM3)
    with pytest.raises(ConfigError, match="axis must be 3 finite numbers"):
        _resolve(_rm3_data(joints=[{"name": "j", "kind": "prismatic", "axis": [0, 0, 0],
                                    "bodies": ["float", "spar"]}]), RM3)
    data = _rm3_data()
    data["bodies"][0]["initial_pose"] = [0.0, 0.0, 0.5, 0.0, 0.01, 0.0]  # pitch != spar's
    with pytest.raises(ConfigError, match="initial_pose violates the joint"):
        _resolve(data, RM3)
    data["bodies"][0]["initial_pose"] = [0.0, 0.0, 0.5, 0.0, 0.0, 0.0]  # along the axis: ok
    _resolve(data, RM3)


# ------------------------------------------------------------------ RM3 through the FMU
@pytest.mark.fmu
@pytest.mark.slow
def test_rm3_example_through_the_fmu(tmp_path: Path) -> None:
    """H 2.5 m, T 8 s, ramp 100 s, PTO damper 1.2e6 N s/m fed back from outside the FMU at
    each communication step; 300 s simulated at 0.05 s and 0.025 s steps (internal step
    0.05 s): heaves and relative heave periodic, positive mean power, halving the
    communication step changes the amplitudes by < 1 %."""
    proc = subprocess.run([sys.executable, str(RM3 / "rm3_pto.py"), "--out", str(tmp_path),
                           "--steps", "0.05", "0.025"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = re.findall(r"^\s*([\d.]+)" + r"\s+([-\d.e+]+)" * 5 + r"$", proc.stdout, re.M)
    assert len(rows) == 2, proc.stdout
    vals = np.array([[float(x) for x in r[1:]] for r in rows])
    # Periodic: one period apart, the samples agree to 1e-4 of the amplitude (the ramp
    # ended 160 s before the window; the slowest transient, the spar's pitch, has decayed).
    assert np.all(vals[:, 3] < 1e-4)
    assert np.all(vals[:, 4] > 0.0)  # W: the damper absorbs power
    assert np.all(vals[:, :3] > 0.1)  # m: every heave moves
    change = np.abs(vals[1, :3] - vals[0, :3]) / vals[1, :3]
    assert np.all(change < 0.01), change


@pytest.mark.slow
def test_rm3_cross_kernel_agrees_with_the_coupled_coefficients() -> None:
    """RM3 with the damper in regular waves: in steady state the convolution with the
    coupled 12x12 kernel gives the heave response of the constant coupled A(w), B(w)
    (the frequency-domain answer), to 2e-3, while dropping the coupling (b2b = false)
    changes the spar's heave by more than 10 %."""
    w = 2 * np.pi / 8.0

    def response(**changes: Any) -> np.ndarray:
        _, names, out = _rm3_run(_rm3_data(**changes), 200.0, 0.1)
        t = 0.1 * np.arange(out.shape[0])
        keep = t >= t[-1] - 40.0  # five periods, 100 s after the ramp
        return np.array([fit_sinusoid(t[keep], out[keep, names.index(f"{b}.pose[3]")],
                                      [w])[0] for b in ("float", "spar")])

    conv = response()
    const = response(radiation={"method": "constant"})
    off = response(radiation={"method": "constant"}, multibody={"b2b": False})
    # IRF cut at 30 s and at the data's last frequency, residual transients of the ramp:
    # 2e-3 of the amplitude (measured: 1e-5 float, 5e-4 spar).
    np.testing.assert_allclose(conv, const, rtol=2e-3)
    assert abs(abs(off[1]) / abs(const[1]) - 1.0) > 0.1
