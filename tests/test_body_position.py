"""A body's horizontal position and the phase of its wave excitation (issue 9: two
identical bodies far apart). The data of every reader is phased on the incident wave at
its own origin; ``position = [x, y]`` moves a body's data there, multiplying its
excitation by ``exp(-i k (x cos beta + y sin beta))`` (finite-depth k)."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.optimize

from hydrofmu.config.configuration import resolve
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.forces.wave_excitation import position_phase
from hydrofmu.runtime.simulator.simulator import Simulator
from physics_helpers import bemio_sphere_body, fit_sinusoid, run

#: Distance of the second body along the heading (0 rad, +x), m: a few wavelengths of an
#: 8 s wave (100 m), far beyond any hydrodynamic interaction of two 10 m spheres.
DISTANCE = 250.0
DOFS = {"dofs": ["surge", "heave", "pitch"]}


def _resolve(data: dict[str, Any]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the BEMIO sphere's own data notes
        return resolve(data, Path.cwd())


def _two_bodies(wave: dict[str, Any], b2b: bool, coupling: bool) -> tuple[list, dict]:
    bodies, cfg = _resolve({
        "bodies": [bemio_sphere_body(name="a", **DOFS),
                   bemio_sphere_body(name="b", position=[DISTANCE, 0.0], **DOFS)],
        "wave": wave, "simulation": {"max_internal_step": 0.05},
        "multibody": {"b2b": b2b}})
    if coupling:  # the coupling blocks of two far bodies: zero (b2b on, nothing to add)
        nw = bodies[0].nw
        zero = np.zeros((6, 6))
        cfg["coupling"] = [
            {"bodies": [k, j], "added_mass_inf": zero.tolist(),
             "added_mass": np.zeros((nw, 6, 6)).tolist(),
             "radiation_damping": np.zeros((nw, 6, 6)).tolist()}
            for k, j in ((0, 1), (1, 0))]
    return bodies, cfg


def _wavenumber(omega: float, depth: float, g: float) -> float:
    """Independent root of w^2 = g k tanh(k h) (scipy's brentq), rad/m."""
    if math.isinf(depth):
        return omega**2 / g
    return scipy.optimize.brentq(lambda k: g * k * math.tanh(k * depth) - omega**2,
                                 1e-12, 10.0 * omega**2 / g + 10.0 / depth, xtol=1e-15)


def test_far_bodies_move_alike_with_b2b_on_and_off_in_an_irregular_sea() -> None:
    """b2b on (zero cross blocks: the bodies are 250 m apart) and off: the same motions."""
    wave = {"type": "irregular", "height": 2.0, "period": 8.0, "ramp_time": 5.0, "seed": 3,
            "n_components": 30}
    outs = []
    for b2b in (True, False):
        bodies, cfg = _two_bodies(wave, b2b, coupling=b2b)
        names = Simulator.output_names(bodies, cfg)
        _, out = run(Simulator(bodies, cfg), 40.0, 0.1)
        cols = [names.index(f"{b}.{q}[{i}]") for b in "ab" for q in ("pose", "velocity")
                for i in range(1, 7)]
        outs.append(out[:, cols])
    scale = np.abs(outs[1]).max()
    # the same equations with and without zero blocks: round-off only (1e-6 of the scale)
    np.testing.assert_allclose(outs[0], outs[1], rtol=0, atol=1e-6 * scale)


def test_excitation_of_a_far_body_in_an_irregular_sea_against_its_components() -> None:
    """The excitation force on the far body, at every output time, equals the sum over
    the wave's components of X(w) a e^{i(w t + phi - k d)} (independent wave number)."""
    wave = {"type": "irregular", "height": 2.0, "period": 8.0, "ramp_time": 0.0, "seed": 5,
            "n_components": 40}
    bodies, cfg = _two_bodies(wave, True, coupling=False)
    sim = Simulator(bodies, cfg)
    names = Simulator.output_names(bodies, cfg)
    t, out = run(sim, 20.0, 0.5)
    omega, amp, phase = sim.part("wave_excitation").wave.components()
    hd = bodies[1]
    k = np.array([_wavenumber(w, hd.water_depth, hd.g) for w in omega])
    x = np.array([hd.excitation_at(w, 0.0) for w in omega])  # (nc, 6), at the data origin
    coef = x * (amp * np.exp(1j * (phase - k * DISTANCE)))[:, None]
    expected = (np.exp(1j * np.outer(t, omega)) @ coef).real
    got = out[:, [names.index(f"b.F_excitation[{i}]") for i in range(1, 7)]]
    scale = np.abs(expected).max(axis=0)
    for i in (0, 2, 4):  # surge, heave, pitch (sway, roll, yaw carry no head-sea force)
        # same sum in another order; the wave numbers agree to ~1e-14: round-off, 1e-9
        np.testing.assert_allclose(got[:, i], expected[:, i], rtol=0, atol=1e-9 * scale[i])
    # and the shift is real: without it the force differs at the order of itself
    shifted = (np.exp(1j * np.outer(t, omega)) @ (x * (amp * np.exp(1j * phase))[:, None])).real
    assert np.abs(shifted[:, 2] - got[:, 2]).max() > 0.3 * scale[2]


def test_regular_wave_response_of_the_far_body_is_shifted_by_k_d() -> None:
    """Steady regular-wave response: z_b / z_a = exp(-i k d) (closed form) for surge
    velocity, heave and pitch."""
    period = 8.0
    w = 2.0 * math.pi / period
    bodies, cfg = _two_bodies({"type": "regular", "height": 2.0, "period": period,
                               "ramp_time": 20.0}, True, coupling=True)
    names = Simulator.output_names(bodies, cfg)
    t, out = run(Simulator(bodies, cfg), 200.0, 0.05)
    keep = t >= 200.0 - 5.0 * period
    k = _wavenumber(w, bodies[0].water_depth, bodies[0].g)
    expected = np.exp(-1j * k * DISTANCE)
    for q, i in (("velocity", 1), ("pose", 3), ("pose", 5)):
        za, zb = (fit_sinusoid(t[keep], out[keep, names.index(f"{b}.{q}[{i}]")], [w],
                               trend=(q == "pose" and i == 1))[0] for b in "ab")
        # the transients of the two bodies differ (the ramp meets them at other phases)
        # and decay as exp(-B t / 2(M + A)); measured residue after 160 s below 1e-4 of
        # the amplitude (heave): 1e-3
        assert abs(zb / za - expected) < 1e-3, (q, i, zb / za, expected)


def test_position_phase_and_bad_positions() -> None:
    bodies, _cfg = _two_bodies({"type": "none"}, False, coupling=False)
    hd = bodies[0]
    w = np.linspace(0.2, 2.0, 7)
    for beta in (0.0, 0.7):
        factor = position_phase(hd, (DISTANCE, 30.0), w, beta)
        k = np.array([_wavenumber(om, hd.water_depth, hd.g) for om in w])
        expected = np.exp(-1j * k * (DISTANCE * math.cos(beta) + 30.0 * math.sin(beta)))
        np.testing.assert_allclose(factor, expected, rtol=1e-12, atol=0)
    # finite depth: the wave number of the dispersion relation, not the deep-water one
    shallow = hd.with_changes(water_depth=20.0)
    k = np.array([_wavenumber(om, 20.0, hd.g) for om in w])
    np.testing.assert_allclose(position_phase(shallow, (DISTANCE, 0.0), w, 0.0),
                               np.exp(-1j * k * DISTANCE), rtol=1e-10, atol=0)
    assert np.abs(k * DISTANCE - w**2 / hd.g * DISTANCE).max() > 1.0  # it matters
    with pytest.raises(ConfigError, match=r"body 'a': position must be a list of 2"):
        _resolve({"bodies": [bemio_sphere_body(name="a", position=[1.0, 2.0, 3.0])]})
    with pytest.raises(ConfigError, match=r"wave.type = input with bodies away"):
        Simulator(*_two_bodies({"type": "input"}, False, coupling=False))
