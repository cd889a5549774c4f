"""Tests of hydrofmu.waves: ramp, spectra, regular and irregular seas."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import integrate

from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.waves import models as waves

HS, TP = 2.5, 9.0
WP = 2.0 * np.pi / TP


def _m0(spectrum: object, lo: float = 0.0, hi: float = np.inf) -> float:
    """int S dw by adaptive quadrature, split at the peak (relative accuracy ~1e-12)."""
    f = spectrum  # callable of omega
    a = integrate.quad(f, lo, min(WP, hi), epsabs=0, epsrel=1e-12, limit=400)[0]
    b = integrate.quad(f, min(WP, hi), hi, epsabs=0, epsrel=1e-12, limit=400)[0]
    return a + b


# --------------------------------------------------------------------------------------
# Ramp
# --------------------------------------------------------------------------------------


def test_ramp_values() -> None:
    """Half-cosine: 0 before 0, 0.5 at T/2, 1 from T on; exact to round-off (1e-15)."""
    t = np.array([-1.0, 0.0, 2.5, 5.0, 7.0, 1e6])
    np.testing.assert_allclose(waves.ramp(t, 10.0), [0.0, 0.0, 0.5 * (1 - np.cos(np.pi / 4)),
                                                     0.5, 0.5 * (1 - np.cos(0.7 * np.pi)), 1.0],
                               rtol=0, atol=1e-15)
    assert waves.ramp(10.0, 10.0) == 1.0
    np.testing.assert_array_equal(waves.ramp(t, 0.0), 1.0)
    assert waves.ramp(np.zeros((2, 3)), 1.0).shape == (2, 3)
    with pytest.raises(ConfigError, match="ramp_time=-1"):
        waves.ramp(t, -1.0)


# --------------------------------------------------------------------------------------
# Spectra
# --------------------------------------------------------------------------------------


def test_pierson_moskowitz_m0_and_peak() -> None:
    """m0 = Hs^2 / 16 (closed form; quadrature to 1e-9 relative) and peak at 2 pi / Tp
    (argmax on a 1e-4 rad/s grid: within one grid step)."""
    m0 = _m0(lambda w: waves.pierson_moskowitz(w, HS, TP))
    assert m0 == pytest.approx(HS**2 / 16.0, rel=1e-9)
    w = np.arange(0.0, 5.0, 1e-4)
    assert abs(w[np.argmax(waves.pierson_moskowitz(w, HS, TP))] - WP) <= 1e-4
    assert waves.pierson_moskowitz(0.0, HS, TP) == 0.0


@pytest.mark.parametrize("gamma", [1.0, 2.0, 3.3, 7.0])
def test_jonswap_m0_and_peak(gamma: float) -> None:
    """m0 = Hs^2 / 16 for any gamma: the normalisation is numerical (quad, 1e-12), so the
    tolerance is the checking quadrature's, 1e-9. gamma = 1 is PM to round-off. Goda's
    approximation is within 2 % of the numerical factor (measured max 1.8 % at 7)."""
    m0 = _m0(lambda w: waves.jonswap(w, HS, TP, gamma))
    assert m0 == pytest.approx(HS**2 / 16.0, rel=1e-9)
    w = np.arange(0.0, 5.0, 1e-4)
    assert abs(w[np.argmax(waves.jonswap(w, HS, TP, gamma))] - WP) <= 1e-4
    goda = 1.0 - 0.287 * np.log(gamma)
    assert waves.jonswap_normalisation(gamma) == pytest.approx(goda, rel=0.02)
    if gamma == 1.0:
        np.testing.assert_allclose(waves.jonswap(w, HS, TP, 1.0),
                                   waves.pierson_moskowitz(w, HS, TP), rtol=1e-13, atol=0)


def test_spectra_reject_bad_parameters() -> None:
    with pytest.raises(ConfigError, match="hs=-1"):
        waves.pierson_moskowitz(1.0, -1.0, TP)
    with pytest.raises(ConfigError, match="tp=0"):
        waves.jonswap(1.0, HS, 0.0)
    with pytest.raises(ConfigError, match=r"gamma=0\.5"):
        waves.jonswap(1.0, HS, TP, 0.5)


# --------------------------------------------------------------------------------------
# Regular wave, dispersion
# --------------------------------------------------------------------------------------


def test_regular_wave_elevation() -> None:
    """eta = H/2 cos(w t - k (x cos b + y sin b) + phi), deep water k = w^2 / g."""
    rw = waves.RegularWave(2.0, 8.0, direction=np.pi / 6, phase=0.3)
    om, amp, ph = rw.components()
    assert om.shape == amp.shape == ph.shape == (1,)
    assert om[0] == pytest.approx(2 * np.pi / 8.0, rel=1e-15)
    assert amp[0] == 1.0 and ph[0] == 0.3
    k = om[0] ** 2 / 9.81
    t = np.linspace(0.0, 20.0, 7).reshape(7, 1)
    x, y = 10.0, -4.0
    expected = np.cos(om[0] * t - k * (x * np.cos(np.pi / 6) + y * np.sin(np.pi / 6)) + 0.3)
    got = rw.elevation(t, x, y)
    assert got.shape == (7, 1)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13)
    with pytest.raises(ConfigError, match="period=0"):
        waves.RegularWave(1.0, 0.0)
    with pytest.raises(ValueError, match="read-only"):
        om[0] = 1.0


def test_wave_number_finite_depth() -> None:
    """w^2 = g k tanh(k h) to 1e-13 relative; deep water limit; shallow limit w / sqrt(gh)."""
    w = np.array([0.0, 0.05, 0.3, 1.0, 3.0, 10.0])
    for h in (1.0, 10.0, 200.0, 1e5):
        k = waves.wave_number(w, h)
        np.testing.assert_allclose(9.81 * k * np.tanh(k * h), w**2, rtol=1e-13, atol=1e-300)
    np.testing.assert_array_equal(waves.wave_number(w), w**2 / 9.81)
    assert waves.wave_number(0.01, 1.0)[()] == pytest.approx(0.01 / np.sqrt(9.81), rel=1e-4)
    rw = waves.RegularWave(1.0, 10.0, water_depth=20.0)
    assert rw.wave_numbers[0] == pytest.approx(waves.wave_number(2 * np.pi / 10.0, 20.0))
    with pytest.raises(ConfigError, match="water_depth=-5"):
        waves.wave_number(w, -5.0)


# --------------------------------------------------------------------------------------
# Irregular wave
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("spectrum", ["jonswap", "pm"])
@pytest.mark.parametrize("discretization", ["equal_energy", "equal_width"])
def test_irregular_hs_of_long_record(spectrum: str, discretization: str) -> None:
    """4 sqrt(m0 of a 3 h record at dt = 0.25 s) is the requested Hs within 2 %.

    With deterministic amplitudes and random phases the record's variance is
    sum a_k^2 / 2 (= m0 of the spectrum over the range, 0.999 of Hs^2 / 16 with the
    default range) plus cross terms a_j a_k sin(dw_jk T) / (dw_jk T), small once T is
    long compared with 2 pi / dw between neighbouring components. Measured over 30 seeds
    (200 components): standard deviation of the Hs error 0.16-0.38 %, worst 1.1 %
    (JONSWAP, equal energy: narrow bins near the peak). 2 % is > 5 sigma; seed 3 here.
    """
    sea = waves.IrregularWave(HS, TP, spectrum=spectrum, discretization=discretization,
                              seed=3)
    t = np.arange(0.0, 3 * 3600.0, 0.25)
    eta = sea.elevation(t)
    hs_measured = 4.0 * np.sqrt(np.mean(eta**2))
    assert hs_measured == pytest.approx(HS, rel=0.02)
    assert sea.energy_fraction == pytest.approx(1.0, abs=2e-3)


def test_irregular_seed_reproduces_and_differs() -> None:
    t = np.linspace(0.0, 600.0, 2401)
    a = waves.IrregularWave(HS, TP, seed=7).elevation(t)
    b = waves.IrregularWave(HS, TP, seed=7).elevation(t)
    c = waves.IrregularWave(HS, TP, seed=8).elevation(t)
    np.testing.assert_array_equal(a, b)
    assert np.sqrt(np.mean((a - c) ** 2)) > 0.5 * np.sqrt(np.mean(a**2))
    # the same seed gives the same phases whatever the discretisation
    pe = waves.IrregularWave(HS, TP, seed=7).components()[2]
    pw = waves.IrregularWave(HS, TP, seed=7, discretization="equal_width").components()[2]
    np.testing.assert_array_equal(pe, pw)


def test_equal_energy_bins_carry_equal_energy() -> None:
    """Each bin's energy, integrated independently (quad, 1e-12), is m0_range / n.

    Measured 2e-6 relative (the edges come from a trapezoid cumulative on 32769 points);
    tolerance 1e-5. The frequency lies inside its bin, and a_k^2 / 2 is the bin energy.
    """
    n = 40
    sea = waves.IrregularWave(HS, TP, n_components=n, spectrum="jonswap")
    e = sea.bin_edges
    energies = np.array([
        integrate.quad(sea.spectral_density, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0]
        for lo, hi in itertools.pairwise(e)
    ])
    np.testing.assert_allclose(energies, energies.sum() / n, rtol=1e-5)
    om, amp, _ = sea.components()
    assert np.all((om > e[:-1]) & (om < e[1:]))
    np.testing.assert_allclose(amp**2 / 2, energies, rtol=1e-5)
    # centroid: int w S / int S over the first bin
    first = integrate.quad(lambda w: w * sea.spectral_density(w), e[0], e[1],
                           epsabs=0, epsrel=1e-12)[0] / energies[0]
    assert om[0] == pytest.approx(first, rel=1e-5)
    assert sea.m0 == pytest.approx(
        _m0(sea.spectral_density, *sea.omega_range), rel=1e-5)


def test_equal_width_bins() -> None:
    """Equal widths; frequencies randomised inside their bins (not at the centres, so no
    repeat period 2 pi / dw); a_k^2 / 2 = bin energy (measured 1.7e-5; tolerance 1e-4)."""
    n = 50
    sea = waves.IrregularWave(HS, TP, n_components=n, discretization="equal_width",
                              spectrum="pm", omega_range=(0.3, 3.0))
    e = sea.bin_edges
    np.testing.assert_allclose(np.diff(e), 2.7 / n, rtol=1e-12)
    assert sea.omega_range == (0.3, 3.0)
    om, amp, _ = sea.components()
    assert np.all((om >= e[:-1]) & (om <= e[1:]))
    centre_offset = (om - 0.5 * (e[:-1] + e[1:])) / np.diff(e)
    assert np.std(centre_offset) > 0.1  # uniform in the bin: std 0.29
    energies = np.array([
        integrate.quad(sea.spectral_density, lo, hi, epsabs=0, epsrel=1e-12)[0]
        for lo, hi in itertools.pairwise(e)
    ])
    np.testing.assert_allclose(amp**2 / 2, energies, rtol=1e-4)


def test_irregular_rejects_bad_options() -> None:
    with pytest.raises(ConfigError, match=r"spectrum='bretschneider'.*'jonswap', 'pm'"):
        waves.IrregularWave(HS, TP, spectrum="bretschneider")
    with pytest.raises(ConfigError, match=r"discretization='random'.*'equal_energy'"):
        waves.IrregularWave(HS, TP, discretization="random")
    with pytest.raises(ConfigError, match="omega_range"):
        waves.IrregularWave(HS, TP, omega_range=(2.0, 1.0))
    with pytest.raises(ConfigError, match="n_components=0"):
        waves.IrregularWave(HS, TP, n_components=0)
    with pytest.raises(ConfigError, match="must be integers"):
        waves.IrregularWave(HS, TP, seed=1.5)
    with pytest.raises(ConfigError, match="hs=0"):
        waves.IrregularWave(0.0, TP)
    sea = waves.IrregularWave(HS, TP, seed=np.int64(4), n_components=np.int32(10))
    assert sea.seed == 4 and sea.n_components == 10


def test_irregular_elevation_matches_components() -> None:
    """elevation() is the sum of the components' cosines (x, y shift via k), to 1e-12,
    for a 2-D time array."""
    sea = waves.IrregularWave(HS, TP, n_components=30, direction=0.4, water_depth=30.0)
    om, amp, ph = sea.components()
    k = sea.wave_numbers
    t = np.linspace(0.0, 100.0, 12).reshape(3, 4)
    x, y = 5.0, 2.0
    arg = om * t[..., None] - k * (x * np.cos(0.4) + y * np.sin(0.4)) + ph
    np.testing.assert_allclose(sea.elevation(t, x, y), np.cos(arg) @ amp, rtol=0, atol=1e-12)
