"""Closed-form checks of the simpler force terms: hydrostatic imbalance, PTO input,
linear and quadratic viscous damping."""

from __future__ import annotations

import numpy as np
import pytest

from physics_helpers import (
    bemio_sphere_body,
    column,
    default_sphere_body,
    fit_sinusoid,
    make_simulator,
    rao,
    run,
)


def _settle(sim, stop: float = 120.0, inputs=None) -> float:
    t, out = run(sim, stop, 0.1, inputs=inputs)
    z = out[:, column(sim, "body.pose[3]")]
    return float(np.mean(z[t > stop - 20.0]))


def test_weight_buoyancy_imbalance_sets_the_equilibrium() -> None:
    """mass = 0.9 rho V: the body rises by (rho V - m) g / K33 (heave decays in ~30 s;
    after 100 s the remaining oscillation is < 1e-4 of the offset)."""
    hd_mass = 0.9 * 1000.0 * 261.724
    sim = make_simulator(bemio_sphere_body(mass=hd_mass, dofs=["heave"]),
                         wave={"type": "none"})
    k33 = sim.part("hydrostatics").stiffness[2, 2]
    expected = (1000.0 * 261.724 - hd_mass) * 9.81 / k33
    assert _settle(sim) == pytest.approx(expected, rel=1e-3)


def test_constant_pto_force_gives_static_offset() -> None:
    """F_pto = -1e5 N in heave: z = F / K33 (linear hydrostatics)."""
    sim = make_simulator(default_sphere_body(dofs=["heave"]), wave={"type": "none"})
    u = np.zeros(sim.u.size)
    u[2] = -1.0e5
    z = _settle(sim, inputs=lambda t: u)
    assert z == pytest.approx(-1.0e5 / sim.part("hydrostatics").stiffness[2, 2], rel=1e-3)


def test_pto_damping_through_the_input_equals_linear_damping() -> None:
    """A damper fed back through the PTO input (one communication step late, 0.01 s)
    gives the same steady response as the same damping inside the model: the
    co-simulation lag (w h = 0.008 rad) changes the amplitude by well under 1 %."""
    c = 2.0e5
    wave = {"type": "regular", "height": 1.0, "period": 6.0, "ramp_time": 10.0}
    inside = make_simulator(default_sphere_body(dofs=["heave"],
                                                linear_damping=[0, 0, c, 0, 0, 0]),
                            wave=wave)
    t, out_in = run(inside, 80.0, 0.01)
    outside = make_simulator(default_sphere_body(dofs=["heave"]), wave=wave)
    vcol = column(outside, "body.velocity[3]")
    u = np.zeros(outside.u.size)

    def pto(_t: float) -> np.ndarray:
        u[2] = -c * outside.output_vector()[vcol]
        return u

    _, out_out = run(outside, 80.0, 0.01, inputs=pto)
    zc = column(inside, "body.pose[3]")
    keep = t > 50.0
    w = 2 * np.pi / 6.0
    a_in = fit_sinusoid(t[keep], out_in[keep, zc], [w])[0]
    a_out = fit_sinusoid(t[keep], out_out[keep, zc], [w])[0]
    assert abs(a_out) == pytest.approx(abs(a_in), rel=0.01)
    assert abs(np.angle(a_out / a_in)) < 0.01


def test_linear_damping_in_the_rao() -> None:
    """Constant coefficients + linear damping B_v: the RAO with B + B_v, 0.5 %."""
    bv = 3.0e5
    sim = make_simulator(default_sphere_body(dofs=["heave"],
                                             linear_damping=[0, 0, bv, 0, 0, 0]),
                         wave={"type": "regular", "height": 1.0, "period": 5.0,
                               "ramp_time": 10.0},
                         radiation={"method": "constant"}, simulation={"max_internal_step": 0.02})
    t, out = run(sim, 100.0, 0.1)
    keep = t > 60.0
    w = 2 * np.pi / 5.0
    z = fit_sinusoid(t[keep], out[keep, column(sim, "body.pose[3]")], [w])[0]
    hd = sim.bodies[0]
    a, b = hd.coefficients_at(w)
    m, k = sim.mass[2, 2], sim.part("hydrostatics").stiffness[2, 2]
    x = hd.excitation_at(w)[2] * 0.5
    expected = x / (-w * w * (m + a[2, 2]) + 1j * w * (b[2, 2] + bv) + k)
    assert abs(z) == pytest.approx(abs(expected), rel=0.005)
    # Without the damping the response is larger: the term is really there.
    assert abs(z) < 0.99 * abs(rao(sim, hd, w)[2] * 0.5)


def test_quadratic_damping_against_harmonic_balance() -> None:
    """F = -B_q v|v| in regular waves: amplitude from the equivalent linear damping
    B_eq = 8/(3 pi) w |X| B_q (Lorentz), solved by fixed point. The neglected third
    harmonic of v|v| carries 1/5 of the fundamental's force and barely moves the
    fundamental of the response: 2 % bound (measured 0.56 %)."""
    bq = 5.0e5
    period = 5.0
    sim = make_simulator(default_sphere_body(dofs=["heave"],
                                             quadratic_damping=[0, 0, bq, 0, 0, 0]),
                         wave={"type": "regular", "height": 2.0, "period": period,
                               "ramp_time": 10.0},
                         radiation={"method": "constant"}, simulation={"max_internal_step": 0.02})
    t, out = run(sim, 100.0, 0.1)
    keep = t > 60.0
    w = 2 * np.pi / period
    z = fit_sinusoid(t[keep], out[keep, column(sim, "body.pose[3]")], [w])[0]
    hd = sim.bodies[0]
    a, b = hd.coefficients_at(w)
    m, k = sim.mass[2, 2], sim.part("hydrostatics").stiffness[2, 2]
    f = hd.excitation_at(w)[2] * 1.0
    amp = 0.0
    for _ in range(200):
        beq = 8.0 / (3.0 * np.pi) * w * amp * bq
        amp = abs(f / (-w * w * (m + a[2, 2]) + 1j * w * (b[2, 2] + beq) + k))
    assert abs(z) == pytest.approx(amp, rel=0.02)
