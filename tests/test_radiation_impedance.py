"""The state-space radiation fitted to the impedance ``K(iw) = B + iw (A - A_inf)``
(``[radiation] ss_fit = "impedance"``, :mod:`hydrofmu.statespace.impedance`): a closed-form
rational impedance recovered between its samples, the realisation of BEM data honouring
its A(w) and B(w) and passive, the key's refusal, and a model run with it."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import hydrofmu
from hydrofmu.io.readers import read_hydro
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.statespace.fit import modal_matrices, transfer_basis
from hydrofmu.statespace.impedance import (
    entry_weights,
    fit_group_impedance,
    order_ladder,
)
from hydrofmu.statespace.payload import check_settings
from hydrofmu.statespace.realisation import DEFAULT_TOLERANCE, realise_radiation
from paths import CAPYTAINE_CYLINDER, ROOT

EXAMPLES = ROOT / "examples"

#: Two lightly damped modes (1/s), the second narrower than the samples' spacing (0.1
#: rad/s) and sampled at its peak (as the F3OF's gap resonances are).
POLES = np.array([-0.08 + 0.7j, -0.02 + 1.9j])


def _rational(omega: np.ndarray) -> np.ndarray:
    """A strictly proper, stable K(iw) with K(0) = 0 on the modal basis of ``POLES``:
    residues in the null space of the zero-frequency row (as the fit imposes)."""
    g = transfer_basis(np.zeros(1), POLES)[0].real
    null = np.linalg.svd(g[None, :])[2][1:].T
    c = null @ np.array([2.0, -1.0, 0.5])
    return transfer_basis(omega, POLES) @ c


def test_a_rational_impedance_is_recovered_between_its_samples() -> None:
    # 40 samples of a 4-state rational function, fitted with 4 states: vector fitting
    # finds its poles, and the fit equals it everywhere (not only at the samples). The
    # bound is the round-off of the iterated least squares (measured ~1e-12).
    w = 0.1 * np.arange(1, 41)
    k11 = _rational(w)
    kw = np.zeros((w.size, 2, 2), dtype=complex)
    # a rank-one pair (one far-field mode radiated by both DOFs): K12 = 3 K11, K22 = 9 K11
    kw[:, 0, 0], kw[:, 0, 1], kw[:, 1, 0], kw[:, 1, 1] = k11, 3 * k11, 3 * k11, 9 * k11
    fits = fit_group_impedance(w, kw, [(0, 0), (0, 1), (1, 1)], tolerance=1e-6,
                               max_order=4, order=None)
    dense = np.linspace(0.01, 8.0, 4001)
    truth = _rational(dense)
    scale = np.max(np.abs(truth))
    assert np.max(np.abs(fits[(0, 0)].transfer(dense) - truth)) < 1e-9 * scale
    np.testing.assert_allclose(np.sort_complex(fits[(0, 0)].poles), np.sort_complex(POLES),
                               rtol=1e-9)
    # common poles and residues linear in the data keep the rank-one relation exactly
    k12, k22 = fits[(0, 1)].transfer(dense), fits[(1, 1)].transfer(dense)
    assert np.max(np.abs(k12 - 3 * fits[(0, 0)].transfer(dense))) < 1e-9 * 3 * scale
    assert np.max(np.abs(k22 - 9 * fits[(0, 0)].transfer(dense))) < 1e-9 * 9 * scale
    a, b = modal_matrices(fits[(0, 0)].poles)
    assert np.all(np.linalg.eigvals(a).real < 0.0) and b.shape == (4,)


def test_a_peak_between_the_samples_is_widened_until_one_sees_it() -> None:
    # The same modes sampled 0.1 rad/s apart but offset by 0.05: the narrow mode's peak
    # (half-width 0.02) falls between two samples 0.05 away. Its width is not determined
    # by them, and the fit's pole is widened to |Re p| = 0.05 (the nearest sample's
    # distance) instead of being left as narrow as the least squares likes.
    w = 0.05 + 0.1 * np.arange(40)
    kw = _rational(w)[:, None, None]
    fits = fit_group_impedance(w, kw, [(0, 0)], tolerance=0.5, max_order=4, order=4)
    narrow = fits[(0, 0)].poles[np.argmax(fits[(0, 0)].poles.imag)]
    assert narrow.imag == pytest.approx(1.9, abs=0.05)
    assert -narrow.real >= np.min(np.abs(narrow.imag - w)) - 1e-12


def test_the_error_is_the_rms_of_a_and_b_relative_to_their_scales() -> None:
    # entry_weights: a 1 % error of B at every frequency and none of A gives
    # sqrt(0.01^2 / 2) (the RMS over the 2 nw rows); of A alone the same.
    w = np.linspace(0.2, 3.0, 15)
    k = _rational(w)
    kw = k[:, None, None]
    wr, wi = entry_weights(w, kw, 0, 0)
    sb = np.max(np.abs(k.real))
    sa = np.max(np.abs(k.imag / w))
    err_b = np.concatenate([0.01 * sb * wr, 0.0 * wi])
    err_a = np.concatenate([0.0 * wr, 0.01 * sa * w * wi])
    assert np.linalg.norm(err_b) == pytest.approx(0.01 / np.sqrt(2), rel=1e-12)
    assert np.linalg.norm(err_a) == pytest.approx(0.01 / np.sqrt(2), rel=1e-12)
    assert order_ladder(10) == [2, 4, 6, 8, 10]
    assert order_ladder(40)[-1] == 40


def test_the_cylinders_realisation_honours_its_added_mass_and_damping() -> None:
    # The Capytaine cylinder fitted to its impedance at the default ss_tolerance (1 %,
    # the RMS of the errors of A and B relative to each DOF's largest value): the
    # realised A_ss(w), B_ss(w) against the data, and passive. The RMS is recomputed
    # after the passivity repair, which may change B by up to PASSIVITY_REPAIR_LIMIT
    # (2 %) at the top of the range: bound 1.5 x the tolerance (measured 0.3-0.8 %).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hd = read_hydro(CAPYTAINE_CYLINDER)
    real = realise_radiation(hd, fit="impedance")
    w = np.asarray(hd.omega)
    a_ss, b_ss = real.added_mass(w, hd.added_mass_inf), real.damping(w)
    live = sorted({f.row for f in real.fits if f.kind == "kernel" and f.row == f.col})
    assert set(live) >= {0, 2, 4}
    for k in live:
        sa = np.max(np.abs(hd.added_mass[:, k, k] - hd.added_mass_inf[k, k]))
        sb = np.max(np.abs(hd.radiation_damping[:, k, k]))
        rms = np.sqrt(np.mean(((a_ss[:, k, k] - hd.added_mass[:, k, k]) / sa) ** 2
                              + ((b_ss[:, k, k] - hd.radiation_damping[:, k, k]) / sb) ** 2)
                      / 2.0)
        assert rms < 1.5 * DEFAULT_TOLERANCE, (k, rms)
    assert real.passivity_margin >= -1e-9
    assert all("fitted to the impedance" in f.notes for f in real.fits if f.kind == "kernel")


def test_ss_fit_refuses_an_unknown_value() -> None:
    with pytest.raises(ConfigError, match=r"\[radiation\] ss_fit = 'imp' must be one of"):
        check_settings({"radiation": {"ss_fit": "imp"}})
    assert check_settings({"radiation": {"ss_fit": "impedance"}})[1] == 10


def test_a_model_runs_with_the_impedance_fit() -> None:
    # The BEMIO sphere's regular-wave example (heave) with the state space fitted either
    # way: both realise the same data within their tolerances (1 % each, in their own
    # norms), so the heave histories agree to about that (measured 0.036 % of the 1.05 m
    # amplitude); bound 1 %.
    import tomllib

    with (EXAMPLES / "sphere_bemio_regular.toml").open("rb") as fh:
        base = tomllib.load(fh)
    base["bodies"][0].pop("radiation", None)

    def run(fit: str) -> np.ndarray:
        data = {**base, "radiation": {"method": "state_space", "ss_fit": fit}}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = hydrofmu.Model.from_dict(data, EXAMPLES)
        assert model.config["radiation"]["state_space"]["error"] is None
        return np.asarray(model.simulate(60.0, 0.1)["body.pose[3]"].values)

    kernel, fitted = run("kernel"), run("impedance")
    amplitude = float(np.max(np.abs(kernel)))
    assert amplitude > 0.1
    assert np.max(np.abs(fitted - kernel)) < 0.01 * amplitude


@pytest.mark.slow
def test_the_native_fmu_steps_the_impedance_fit_as_the_python_fmu(tmp_path: Path) -> None:
    # The realisation is data (the same run-time arrays whatever it was fitted to), so the
    # native FMU steps it as the Python FMU does: the default sphere in regular waves, the
    # state space fitted to the impedance, rk4, PTO input changing every step; the bound
    # of the native state-space tests, 1e-10 of each output's peak (round-off of two
    # implementations of the same arithmetic; measured 2.7e-13).
    from hydrofmu.config.configuration import default_config
    from native_helpers import build_pair, compare

    bodies, config = default_config(radiation={"method": "state_space", "ss_fit": "impedance"},
                                    wave={"type": "regular", "height": 2.0, "period": 8.0})
    assert "fitted to the impedance" in " ".join(config["radiation"]["state_space"]["report"])
    pair = build_pair(bodies, config, tmp_path, "ImpedanceFit", scheme="rk4",
                      platforms=("linux64",))
    err, worst = compare(pair, "body.F_pto[3]", 1e5, 0.1, 300, tmp_path)
    assert err <= 1e-10, f"{worst}: {err:.3g} of its peak"
