"""Directional spreading (issue 27, point 2): cos-2s and a table, one heading per
component, the excitation and the drift interpolated in heading, reproducible seeds.

- the cos-2s normalisation against its closed form (Gamma functions) and hand values,
  the directional spectrum integrating over directions to the 1-D spectrum;
- the components' headings against the cos-2s cumulative (stratified: within 1/N) and a
  table's weights (each direction's count within 1 of ``w N``);
- same seed, same sea (bit-identical); the long-crested limits (a one-row table is today's
  unidirectional sea, bit for bit; ``s -> inf`` tends to it within the heading bound);
- a body's excitation: the coefficients against a hand interpolation in heading, their
  variance against the frequency-domain integral ``int int |X|^2 S D`` (statistical bound
  from the data), and the time series' variance against the coefficients (record bound).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config_data, resolve
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.simulator.simulator import Simulator
from hydrofmu.runtime.waves.models import IrregularWave
from hydrofmu.runtime.waves.spreading import (
    DirectionalSpreading,
    ShortCrestedSea,
    cos2s_density,
    cos2s_normalisation,
    heading_weight_matrix,
)

#: The embedded sphere's data have the headings 0 and 90 deg: seas spread about 45 deg.
MEAN = math.pi / 4
#: cos-2s exponent of the seas below: heading std sqrt(2 / (s + 1)) = 10.4 deg, so the
#: stratified extremes (quantiles 1/(2N), N = 200: 2.8 sigma = 29 deg) stay within 0..90.
S = 60.0


def _sim(wave: dict[str, Any], dofs: list[str] | None = None) -> Simulator:
    data = default_config_data(wave={"type": "irregular", "height": 2.0, "period": 8.0,
                                     "ramp_time": 0.0, **wave})
    data["bodies"] = [{"name": "body", "hydro": "builtin:sphere",
                       "dofs": dofs or ["surge", "sway", "heave"]}]
    bodies, cfg = resolve(data, Path.cwd())
    return Simulator(bodies, cfg)


# ------------------------------------------------------------------ the spreading law
@pytest.mark.parametrize("s", [0.5, 1.0, 2.0, 10.0, 75.5, 1000.0])
def test_cos2s_integrates_to_one(s: float) -> None:
    # The trapezoid rule on a periodic smooth integrand is exact to rounding (1e-12 kept
    # for the sum of 2^16 terms); s = 0.5 has a kink at +-pi (|cos|), second order:
    # error ~ h^2 ~ 1e-8.
    theta = np.linspace(-math.pi, math.pi, 2**16 + 1)
    d = cos2s_density(theta, s)
    total = float(np.sum(0.5 * (d[1:] + d[:-1]) * np.diff(theta)))
    assert total == pytest.approx(1.0, abs=1e-8 if s == 0.5 else 1e-12)


def test_cos2s_normalisation_hand_values() -> None:
    # C(1) = Gamma(2) / (2 sqrt(pi) Gamma(3/2)) = 1 / pi; C(2) = Gamma(3) / (2 sqrt(pi)
    # Gamma(5/2)) = 2 / (2 sqrt(pi) 3 sqrt(pi) / 4) = 4 / (3 pi); C(s) ~ sqrt(s / (4 pi))
    # for large s (Gamma(s+1)/Gamma(s+1/2) ~ sqrt(s), relative 1/(8 s)).
    assert cos2s_normalisation(1.0) == pytest.approx(1.0 / math.pi, rel=1e-14)
    assert cos2s_normalisation(2.0) == pytest.approx(4.0 / (3.0 * math.pi), rel=1e-14)
    s = 1e6
    assert cos2s_normalisation(s) == pytest.approx(math.sqrt(s / (4 * math.pi)), rel=1e-6)


def test_directional_spectrum_integrates_to_the_1d_spectrum() -> None:
    # S(w, b) = S(w) D(b): int over b (trapezoid, periodic: exact to rounding) gives S(w)
    sea = IrregularWave(hs=2.0, tp=8.0)
    omega = np.linspace(0.4, 3.0, 27)
    theta = np.linspace(-math.pi, math.pi, 4097)
    s2 = sea.spectral_density(omega)[:, None] * cos2s_density(theta - 0.3, S)[None, :]
    integral = np.sum(0.5 * (s2[:, 1:] + s2[:, :-1]) * np.diff(theta), axis=1)
    np.testing.assert_allclose(integral, sea.spectral_density(omega), rtol=1e-12)


def test_headings_follow_the_cos2s_cumulative() -> None:
    n = 400
    spreading = DirectionalSpreading("cos2s", s=S)
    offsets = np.sort(spreading.offsets(n, seed=5))
    theta, cdf = spreading.cdf_grid()
    f = np.interp(offsets, theta, cdf)
    # stratified: the i-th smallest of N samples lies in the quantile bin [i/N, (i+1)/N)
    i = np.arange(n)
    assert np.all(f >= i / n - 1e-12) and np.all(f <= (i + 1) / n + 1e-12)
    # the grid cumulative against the closed form at one point: F(0) = 1/2 (symmetry),
    # and the density's closed form against the grid's derivative (trapezoid, h^2)
    assert np.interp(0.0, theta, cdf) == pytest.approx(0.5, abs=1e-12)
    mid = 0.5 * (theta[1:] + theta[:-1])
    slope = np.diff(cdf) / np.diff(theta)
    np.testing.assert_allclose(slope, cos2s_density(mid, S), atol=1e-6 * cos2s_normalisation(S))


def test_table_weights_give_the_counts() -> None:
    n = 200
    spreading = DirectionalSpreading("table", directions=(0.3, -0.2, 0.0),
                                     weights=(1.0, 2.0, 5.0))
    offsets = spreading.offsets(n, seed=3)
    for d, w in zip(spreading.directions, spreading.weights, strict=True):
        count = int(np.sum(offsets == d))
        assert abs(count - w * n) <= 1.0  # one stratified sample per 1/N of the cumulative
    assert spreading.directions == (-0.2, 0.0, 0.3)
    assert sum(spreading.weights) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize(("kw", "words"), [
    ({"kind": "cos2s", "s": 0.0}, ["spreading_s", "> 0"]),
    ({"kind": "table", "directions": (0.0, 0.1), "weights": (1.0,)}, ["same length"]),
    ({"kind": "table", "directions": (0.0,), "weights": (-1.0,)}, ["> 0"]),
    ({"kind": "table", "directions": (0.0, 0.0), "weights": (1.0, 1.0)}, ["repeats"]),
    ({"kind": "table", "directions": ("a",), "weights": (1.0,)}, ["lists of numbers"]),
    ({"kind": "swell"}, ["cos2s, table"]),
])
def test_bad_spreading_is_refused(kw: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ConfigError) as exc:
        DirectionalSpreading(**kw)
    for w in words:
        assert w in str(exc.value)


@pytest.mark.parametrize(("wave", "words"), [
    ({"spreading": "cos-2s"}, ["none, cos2s, table"]),
    ({"spreading": "table", "spreading_directions": "0 0.1"}, ["lists of numbers"]),
])
def test_bad_spreading_keys_are_refused(wave: dict[str, Any], words: list[str]) -> None:
    from hydrofmu.runtime.waves.spreading import spreading_from_config

    with pytest.raises(ConfigError) as exc:
        spreading_from_config(wave)
    for w in words:
        assert w in str(exc.value)


def test_heading_weights_interpolate_and_refuse_outside() -> None:
    grid = np.radians([0.0, 30.0, 90.0])
    w = heading_weight_matrix(grid, np.radians([30.0, 360.0, 60.0]), "x")
    np.testing.assert_array_equal(w[0], [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(w[1], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(w[2], [0.0, 0.5, 0.5], atol=1e-15)
    with pytest.raises(ConfigError, match=r"outside the data's headings"):
        heading_weight_matrix(grid, np.radians([45.0, 100.0]), "x")


# ------------------------------------------------------------------ seeds and limits
def test_same_seed_same_sea() -> None:
    t = np.linspace(0.0, 300.0, 601)
    make = lambda seed: ShortCrestedSea(  # noqa: E731
        sea=IrregularWave(hs=2.0, tp=8.0, seed=seed, direction=MEAN),
        spreading=DirectionalSpreading("cos2s", s=S))
    a, b, c = make(7), make(7), make(8)
    np.testing.assert_array_equal(a.headings, b.headings)
    np.testing.assert_array_equal(a.elevation(t, 50.0, -20.0), b.elevation(t, 50.0, -20.0))
    assert not np.array_equal(a.headings, c.headings)
    # the spreading leaves the long-crested sea's components untouched
    for x, y in zip(a.components(), IrregularWave(hs=2.0, tp=8.0, seed=7).components(),
                    strict=True):
        np.testing.assert_array_equal(x, y)


def test_one_row_table_is_the_unidirectional_sea() -> None:
    long = _sim({"direction": 0.0})
    one = _sim({"direction": 0.0, "spreading": "table", "spreading_directions": [0.0],
                "spreading_weights": [1.0]})
    a = long.part("wave_excitation").components.coefficients
    b = one.part("wave_excitation").components.coefficients
    np.testing.assert_array_equal(a, b)


def test_narrow_cos2s_tends_to_the_long_crested_sea() -> None:
    # s = 1e8: offsets of std sqrt(2 / s) = 1.4e-4 rad. The sphere's loads are its 0 deg
    # data turned (axisymmetric), so a pair (Fx, Fy) moves by at most |d_i| times its
    # length when the heading moves by d_i: the bound checked coefficient by coefficient.
    one = _sim({"direction": MEAN, "spreading": "table", "spreading_directions": [0.0],
                "spreading_weights": [1.0]})
    narrow = _sim({"direction": MEAN, "spreading": "cos2s", "spreading_s": 1e8})
    wave = narrow.part("wave_excitation").wave
    offsets = np.asarray(wave.headings) - MEAN
    omega, amp, _ = wave.components()
    x0 = _data_at(narrow.bodies[0], omega, 0)
    pair = np.stack([np.hypot(np.abs(x0[:, 0]), np.abs(x0[:, 1]))] * 2
                    + [np.zeros(omega.size)]
                    + [np.hypot(np.abs(x0[:, 3]), np.abs(x0[:, 4]))] * 2
                    + [np.zeros(omega.size)], axis=1)
    bound = pair * (np.abs(offsets) * amp)[:, None] * (1 + 1e-9) + 1e-9
    diff = np.abs(narrow.part("wave_excitation").components.coefficients
                  - one.part("wave_excitation").components.coefficients)
    assert np.all(diff <= bound)
    assert np.max(np.abs(offsets)) < 1e-3


def test_spreading_needs_an_irregular_sea_and_headings_in_the_data() -> None:
    with pytest.raises(ConfigError, match=r"wave\.type = irregular"):
        _sim({"type": "regular", "spreading": "cos2s", "spreading_s": S})
    # the Capytaine cylinder's data (heading 0 only) are not axisymmetric to 1e-3 (its
    # coarse mesh): a sea spread about 0 is refused
    data = default_config_data(wave={"type": "irregular", "height": 2.0, "period": 8.0,
                                     "spreading": "cos2s", "spreading_s": S})
    data["bodies"] = [{"name": "body", "dofs": ["heave"],
                       "hydro": str(Path(__file__).resolve().parents[1] / "examples" / "data"
                                    / "cylinder_capytaine.nc")}]
    with pytest.raises(ConfigError, match=r"outside the data's headings"):
        resolve(data, Path.cwd())
    with pytest.raises(ConfigError, match="elevation input"):
        _sim({"type": "input", "spreading": "cos2s", "spreading_s": S})


# ------------------------------------------------------------------ the excitation
def _data_at(hd: Any, omega: np.ndarray, ib: int) -> np.ndarray:
    """The data's X at heading index ``ib``, linear in frequency, shape (n, 6)."""
    return np.stack([np.interp(omega, hd.omega, hd.excitation[:, ib, i].real)
                     + 1j * np.interp(omega, hd.omega, hd.excitation[:, ib, i].imag)
                     for i in range(6)], axis=1)


def _excitation_by_hand(sim: Simulator) -> np.ndarray:
    """X(w_i, b_i) a_i e^{i phi_i} of the axisymmetric sphere: the 0 deg data with the
    horizontal force and moment turned by b_i."""
    wave = sim.part("wave_excitation").wave
    omega, amp, phase = wave.components()
    x0 = _data_at(sim.bodies[0], omega, 0)
    c, s_ = np.cos(wave.headings), np.sin(wave.headings)
    out = x0.copy()
    out[:, 0], out[:, 1] = c * x0[:, 0] - s_ * x0[:, 1], s_ * x0[:, 0] + c * x0[:, 1]
    out[:, 3], out[:, 4] = c * x0[:, 3] - s_ * x0[:, 4], s_ * x0[:, 3] + c * x0[:, 4]
    return out * (amp * np.exp(1j * phase))[:, None]


def test_excitation_variance_against_the_frequency_domain() -> None:
    sim = _sim({"direction": MEAN, "spreading": "cos2s", "spreading_s": S})
    part = sim.part("wave_excitation")
    coef = part.components.coefficients
    # 1. each component's coefficient is X(w_i, b_i) a_i e^{i phi_i}, interpolated by hand
    np.testing.assert_allclose(coef, _excitation_by_hand(sim), rtol=1e-13, atol=1e-9)
    # 2. the realised variance sum |c_i|^2 / 2 against int int |X|^2 S D dw db. Each
    #    component is a_i^2/2 |X(w_i, b)|^2 with b drawn from D: the expectation is the
    #    integral over D at w_i, and the spread of the sum is bounded by 5 standard
    #    deviations of independent draws (stratification only reduces it).
    wave = part.wave
    omega, amp, _ = wave.components()
    hd = sim.bodies[0]
    theta, cdf = wave.spreading.cdf_grid()
    beta = MEAN + theta
    dens = np.gradient(cdf, theta)
    realised = 0.5 * np.sum(np.abs(coef) ** 2, axis=0)
    x0 = _data_at(hd, omega, 0)
    c, s_ = np.cos(beta)[None, :], np.sin(beta)[None, :]
    turned = (x0[:, :1] * c - x0[:, 1:2] * s_, x0[:, :1] * s_ + x0[:, 1:2] * c)
    for dof in (0, 1):  # surge and sway: the DOFs the heading moves
        x2 = np.abs(turned[dof]) ** 2  # |X(w_i, b)|^2, (n, nb)
        mean_b = np.trapezoid(x2 * dens, theta, axis=1)
        var_b = np.trapezoid(x2**2 * dens, theta, axis=1) - mean_b**2
        expected = 0.5 * np.sum(amp**2 * mean_b)
        sigma = 0.5 * math.sqrt(np.sum(amp**4 * np.maximum(var_b, 0.0)))
        assert abs(realised[dof] - expected) <= 5.0 * sigma
    # 3. the force's variance over a record against sum |c_i|^2 / 2: the cross terms of
    #    random phases average to a random sum whose standard deviation is computed here
    #    (the record's own bound); 5 of them allowed.
    t = np.arange(0.0, 3 * 3600.0, 0.25)
    forces = np.array([part.components.force(tt)[:2] for tt in t])
    var_t = np.mean(forces**2, axis=0)
    dw = omega[:, None] - omega[None, :]
    big_t = t[-1] - t[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        avg = np.where(dw == 0.0, 0.0, np.minimum(1.0, 2.0 / (big_t * np.abs(dw))))
    for dof in (0, 1):
        c = np.abs(coef[:, dof])
        cross = np.outer(c, c) * avg * 0.5
        rms = math.sqrt(np.sum(cross**2))
        assert abs(var_t[dof] - realised[dof]) <= 5.0 * rms


# ------------------------------------------------------------------ the drift
def _synthetic_tables() -> dict[str, Any]:
    """A mean drift and a difference QTF on 2 headings (0, 90 deg), 5 frequencies: values
    chosen so that every interpolation weight shows."""
    omega = np.linspace(0.3, 1.5, 5)
    rng = np.random.default_rng(11)
    mean = rng.normal(size=(5, 2, 6))              # (nw, nb, 6), as config/drift writes
    q = rng.normal(size=(2, 5, 5, 6)) + 1j * rng.normal(size=(2, 5, 5, 6))
    q = 0.5 * (q + np.conj(np.swapaxes(q, 1, 2)))  # Hermitian in (w_i, w_j)
    for b in range(2):  # the QTF's diagonal is the mean drift
        for k in range(5):
            q[b, k, k] = mean[k, b]
    heads = [0.0, math.pi / 2]
    return {"mean": {"omega": omega.tolist(), "direction": heads, "values": mean.tolist()},
            "qtf": {"omega": omega.tolist(), "direction": heads, "re": q.real.tolist(),
                    "im": q.imag.tolist()}}


def test_spread_drift_tables_interpolate_in_heading() -> None:
    from hydrofmu.runtime.forces.drift import pair_headings, spread_tables

    entry = _synthetic_tables()
    omega = np.array([0.45, 0.9, 1.2, 1.35])
    heads = np.radians([10.0, 45.0, 80.0, 30.0])
    f = heads / (math.pi / 2)
    mean = np.asarray(entry["mean"]["values"])
    grid = np.asarray(entry["mean"]["omega"])
    kw, total = spread_tables(entry, "newman", omega, omega, heads, "x")
    assert total is None
    for i in range(4):
        d0 = [np.interp(omega[i], grid, mean[:, 0, c]) for c in range(6)]
        d1 = [np.interp(omega[i], grid, mean[:, 1, c]) for c in range(6)]
        np.testing.assert_allclose(kw["mean"][i], (1 - f[i]) * np.array(d0)
                                   + f[i] * np.array(d1), rtol=1e-13, atol=1e-14)
    # on the QTF's grid frequencies (the bilinear interpolation's diagonal off the grid
    # mixes in off-diagonal entries, as for a long-crested sea)
    on_grid = grid[[1, 2, 3, 4]]
    kw, _ = spread_tables(entry, "mean", on_grid, on_grid, heads, "x")
    kq, _ = spread_tables(entry, "qtf", on_grid, on_grid, heads, "x")
    q = kq["difference"]
    # the pairs' heading is the mean of the two; the diagonal is the mean drift
    ph = pair_headings(heads)
    assert ph[0, 2] == pytest.approx(np.radians(45.0), abs=1e-15)
    np.testing.assert_allclose(np.diagonal(q, axis1=0, axis2=1).T.real, kw["mean"],
                               rtol=1e-12, atol=1e-13)
    # Hermitian: Q(i, j) = conj Q(j, i), kept by the symmetric pair heading
    np.testing.assert_allclose(q, np.conj(np.swapaxes(q, 0, 1)), atol=1e-14)
    with pytest.raises(ConfigError, match=r"outside the data's headings"):
        spread_tables(entry, "mean", omega, omega, np.radians([10.0, 100.0, 0.0, 0.0]), "x")


# ------------------------------------------------------------------ the native FMU
@pytest.mark.fmu
def test_native_fmu_equals_python_in_a_spread_sea(tmp_path: Path) -> None:
    """The spreading changes only the excitation's sinusoids, which the native FMU steps
    as any internal wave: every output within 1e-12 of its peak (tests/test_native_fmu.py's
    acceptance and argument)."""
    from hydrofmu.config.configuration import default_config
    from native_helpers import build_pair, compare

    bodies, config = default_config(
        radiation={"method": "state_space"},
        wave={"type": "irregular", "height": 2.0, "period": 8.0, "ramp_time": 20.0,
              "seed": 7, "direction": MEAN, "spreading": "cos2s", "spreading_s": S})
    assert all(config["bodies"][0]["free_dofs"])  # sway and roll move in the spread sea
    pair = build_pair(bodies, config, tmp_path, "Spread", platforms=("linux64",))
    err, name = compare(pair, "body.F_pto[3]", 1e5, 0.1, 300, tmp_path)
    assert err <= 1e-12, f"{name}: {err:.3g} of its peak"


# ------------------------------------------------------------------ axisymmetric bodies
def test_axisymmetry_by_data() -> None:
    from hydrofmu.io.readers import read_hydro
    from hydrofmu.runtime.forces.headings import is_axisymmetric, rotate_loads

    sim = _sim({})
    hd = sim.bodies[0]
    assert is_axisymmetric(hd)
    data = Path(__file__).resolve().parents[1] / "examples" / "data"
    with pytest.warns(Warning):
        assert not is_axisymmetric(read_hydro(data / "rm3_wamit.out", body="float"))
    # the rotation convention against the data: X(90 deg) is X(0) turned by 90 deg (to
    # the mesh's symmetry, 1e-3 of the largest force and moment)
    turned = rotate_loads(hd.excitation[:, 0, :], np.array(math.pi / 2))
    for group in (slice(0, 3), slice(3, 6)):
        scale = np.max(np.abs(hd.excitation[:, :, group]))
        assert np.max(np.abs(turned[:, group] - hd.excitation[:, 1, group])) < 1e-3 * scale


def test_axisymmetric_body_in_a_sea_spread_about_zero_is_symmetric() -> None:
    """The embedded sphere (data at 0 and 90 deg) in a sea spread about 0: the headings
    below 0 take the 0 deg data turned. Mirroring every heading (b -> -b) keeps surge,
    heave, pitch and negates sway, roll, yaw, to rounding."""
    from hydrofmu.runtime.forces.wave_excitation import excitation_at

    sim = _sim({"direction": 0.0, "spreading": "cos2s", "spreading_s": 5.0})
    wave = sim.part("wave_excitation").wave
    hd = sim.bodies[0]
    omega, _, _ = wave.components()
    assert np.min(wave.headings) < -0.5 and np.max(wave.headings) > 0.5
    a = excitation_at(hd, omega, wave.headings, "x")
    b = excitation_at(hd, omega, -wave.headings, "x")
    sign = np.array([1, -1, 1, -1, 1, -1])
    np.testing.assert_allclose(b, a * sign, rtol=0, atol=1e-12 * np.max(np.abs(a)))
    # and the sway force is the surge force turned: |X_sway| = |X_surge| |tan b| (the data's
    # own excitation is along its heading to 1e-3 of the largest force)
    np.testing.assert_allclose(np.abs(a[:, 1]), np.abs(a[:, 0] * np.tan(wave.headings)),
                               atol=2e-3 * np.max(np.abs(a[:, :3])))


def test_axisymmetric_drift_outside_the_data_is_turned() -> None:
    from hydrofmu.runtime.forces.drift import spread_tables
    from hydrofmu.runtime.forces.headings import rotate_loads

    entry = _synthetic_tables()
    entry["mean"] = {"omega": entry["mean"]["omega"], "direction": [0.0],
                     "values": np.asarray(entry["mean"]["values"])[:, :1].tolist()}
    grid = np.asarray(entry["mean"]["omega"])
    heads = np.radians([-40.0, 0.0, 130.0])
    kw, _ = spread_tables(entry, "mean", grid[:3], grid[:3], heads, "x", axisymmetric=True)
    d0 = np.asarray(entry["mean"]["values"])[:3, 0]
    np.testing.assert_allclose(kw["mean"], rotate_loads(d0, heads[:, None][:, 0]),
                               rtol=1e-14, atol=1e-14)
    with pytest.raises(ConfigError, match=r"outside the data's headings"):
        spread_tables(entry, "mean", grid[:3], grid[:3], heads, "x", axisymmetric=False)


def test_linear_response_variance_against_the_frequency_domain() -> None:
    """The sphere free in surge, sway and heave (state-space radiation, the ``exact``
    scheme) in a sea spread about 45 deg: each DOF's velocity variance over 3 h against
    ``sum_i |i w_i H(w_i) X(w_i, b_i)|^2 a_i^2 / 2`` with ``H`` from the data's A(w), B(w)
    and the hydrostatic stiffness. The record's own bound: the cross terms of the random
    phases average over the record T to a sum whose rms (``min(1, 2 / (T |dw|))`` per
    pair) is computed here; 5 of them allowed, plus 1 % for the state-space realisation
    (its B(w) within 1e-3 of the largest damping, its A within 2e-3, in the report)."""
    from hydrofmu.runtime.forces.wave_excitation import excitation_at
    from physics_helpers import column, lhs_matrices, run

    data = default_config_data(
        simulation={"time_scheme": "exact", "max_internal_step": 0.05},
        radiation={"method": "state_space"},
        wave={"type": "irregular", "height": 2.0, "period": 8.0, "ramp_time": 20.0,
              "direction": MEAN, "spreading": "cos2s", "spreading_s": 10.0, "seed": 3})
    data["bodies"] = [{"name": "body", "hydro": "builtin:sphere",
                       "dofs": ["surge", "sway", "heave"]}]
    bodies, cfg = resolve(data, Path.cwd())
    sim = Simulator(bodies, cfg)
    t, out = run(sim, 3 * 3600.0 + 100.0, 0.5)
    wave = sim.part("wave_excitation").wave
    omega, amp, _ = wave.components()
    hd = sim.bodies[0]
    x = excitation_at(hd, omega, wave.headings, "x")
    k = sim.part("hydrostatics").stiffness[:3, :3]
    v = np.zeros((omega.size, 3), dtype=complex)
    for i, w in enumerate(omega):
        m, b = lhs_matrices(sim, hd, w)
        v[i] = 1j * w * np.linalg.solve(-w**2 * m[:3, :3] + 1j * w * b[:3, :3] + k, x[i, :3])
    keep = t >= 100.0  # after the ramp and the start's transient
    span = t[keep][-1] - t[keep][0]
    dw = omega[:, None] - omega[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        avg = np.where(dw == 0.0, 0.0, np.minimum(1.0, 2.0 / (span * np.abs(dw))))
    for d in range(3):
        c = np.abs(v[:, d]) * amp
        fd = 0.5 * np.sum(c**2)
        var_t = np.mean(out[keep, column(sim, f"body.velocity[{d + 1}]")] ** 2)
        rms = math.sqrt(np.sum((np.outer(c, c) * avg * 0.5) ** 2))
        assert abs(var_t - fd) <= 5.0 * rms + 0.01 * fd, (d, var_t, fd, rms)
    # the sway is excited by the spreading only: it is not small beside the surge
    assert np.mean(out[keep, column(sim, "body.velocity[2]")] ** 2) > 0.5 * np.mean(
        out[keep, column(sim, "body.velocity[1]")] ** 2)
