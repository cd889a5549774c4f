"""Free decay: period and logarithmic decrement against predictions from the same data."""

from __future__ import annotations

import numpy as np
import pytest

from physics_helpers import (
    bemio_sphere_body,
    column,
    damped_prediction,
    default_sphere_body,
    exact_decay,
    log_decrement,
    make_simulator,
    natural_frequency,
    peaks,
    run,
)

BODIES = {
    "bemio_sphere": bemio_sphere_body,
    "default_sphere": default_sphere_body,
}


def _decay(factory, dof: int, x0: float, stop: float = 40.0):
    pose = [0.0] * 6
    pose[dof] = x0
    name = ("surge", "sway", "heave", "roll", "pitch", "yaw")[dof]
    sim = make_simulator(factory(dofs=[name], initial_pose=pose), wave={"type": "none"},
                         simulation={"max_internal_step": 0.01})
    t, out = run(sim, stop, 0.05)
    return sim, t, out[:, column(sim, f"body.pose[{dof + 1}]")]


def _single_frequency_prediction(sim, dof: int):
    hd = sim.bodies[0]
    m = sim.mass[dof, dof]
    k = sim.part("hydrostatics").stiffness[dof, dof]
    wn = natural_frequency(m, k, lambda w: hd.coefficients_at(w)[0][dof, dof], 0.06, 4.9)
    a, b = hd.coefficients_at(wn)
    return damped_prediction(m + a[dof, dof], b[dof, dof], k)


@pytest.mark.parametrize("body", sorted(BODIES))
def test_heave_decay_matches_single_frequency_prediction(body: str) -> None:
    """Period within 1.5 %, decrement within 20 % of the single-frequency closed form.

    The closed form treats A33 and B33 as constants at w_n; the real decay spans a band
    of frequencies around w_n (zeta ~ 0.08) over which B33 changes by tens of per cent,
    which shifts the decrement (measured +13 % for both spheres, the period -0.7 %). The
    exact answer from the same data is checked to 0.5 % in the next test.
    """
    sim, t, z = _decay(BODIES[body], 2, 1.0)
    tp, xp = peaks(t, z)
    period, delta = log_decrement(tp, xp, 3)
    p_period, p_delta = _single_frequency_prediction(sim, 2)
    assert period == pytest.approx(p_period, rel=0.015)
    assert delta == pytest.approx(p_delta, rel=0.20)


@pytest.mark.parametrize("body", sorted(BODIES))
def test_heave_decay_matches_fourier_inversion(body: str) -> None:
    """The whole decay curve against the Fourier inversion of H(w) from the same data.

    Differences come from the IRF truncation (30 s), the trapezoid convolution at
    dt = 0.01 s and RK4: measured 1.3e-3 m for a 1 m release; bound 5e-3 m (0.5 %).
    """
    sim, t, z = _decay(BODIES[body], 2, 1.0, stop=20.0)
    hd = sim.bodies[0]
    ref = exact_decay(hd, sim.mass[2, 2], sim.part("hydrostatics").stiffness[2, 2], 2, 1.0, t[::4])
    assert np.max(np.abs(z[::4] - ref)) < 5e-3


def test_pitch_decay_bemio_sphere() -> None:
    """Pitch about the centre of gravity (A55, B55 from the surge-pitch lever arm).

    Pitch is lightly damped (zeta ~ 0.01), so the decrement is small; the 20 % bound is
    the same modelling bound as for heave. (The Fourier inversion is not used here: with
    so sharp a resonance it does not converge on a practical frequency grid.)
    """
    sim, t, z = _decay(BODIES["bemio_sphere"], 4, 0.05, stop=80.0)
    tp, xp = peaks(t, z)
    period, delta = log_decrement(tp, xp, 3)
    p_period, p_delta = _single_frequency_prediction(sim, 4)
    assert period == pytest.approx(p_period, rel=0.015)
    assert delta == pytest.approx(p_delta, rel=0.20)
