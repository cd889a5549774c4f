"""The F3OF's three decay tests (examples/f3of/f3of_dt{1,2,3}.toml) run, and ring at the
complex natural frequencies of the same data in the frequency domain (``f3of_decay.py``).

The time-domain period is the mean interval between upward zero crossings after the first
(the release); DT3's released flap rings at the two flaps' modes at once (a beat), so its
two hinge angles are first projected on the frequency-domain mode shapes and each modal
coordinate measured alone. The frequency-domain period is ``2 pi / Im s`` of the reduced
``s^2 M + H(s) + K = 0`` (``H`` the radiation impedance continued to the damped ``s``).

Two comparisons: against the poles of the time-domain model's own radiation (DT1, DT2:
``A_inf`` and the IRF of ``B``, which the convolution realises exactly; DT3: the state
space fitted to the impedance, ``ss_fit = "impedance"``): the method's error, a few
0.01 %; and against the poles of the file's ``A(w)``, ``B(w)``: the issue's 0.5 %, where
the radiation model's own rendering of ``A(w)`` and ``B(w)`` adds its error (DT1, DT2:
the IRF's rebuild of ``A(w)`` from ``B`` up to 6 rad/s and the file's ``A_inf``; DT3:
the fit's 2 %).
"""

from __future__ import annotations

import warnings
from functools import cache

import numpy as np
import pytest
from scipy.linalg import eigh

import hydrofmu
from f3of_decay import (
    decay_period,
    decay_poles,
    irf_coefficients,
    model_matrices,
    pitch_basis,
    spline_coefficients,
    state_space_coefficients,
)
from hydrofmu.io.readers import read_hydro_bodies
from paths import ROOT

F3OF = ROOT / "examples" / "f3of"
HINGE = np.array([0.0, 0.0, 3.5])  # m, each flap's reference point above its hinge
STOP = {"dt1": 300.0, "dt2": 80.0, "dt3": 150.0}  # s: 5, 9 and 10 periods


def _basis(which: str, config: dict) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The constraint basis, the extra stiffness of the joints (18 x 18) and the outputs
    of the basis' coordinates."""
    extra = np.zeros((18, 18))
    if which == "dt1":  # the whole device in surge on the 1e5 N/m spring
        t = np.zeros((18, 1))
        t[[0, 6, 12], 0] = 1.0
        extra[0, 0] = 1.0e5
        return t, extra, ["base.pose[1]"]
    if which == "dt2":  # the whole device pitching about the base's origin
        offsets = [np.zeros(3), np.array([-12.5, 0.0, 3.5]), np.array([12.5, 0.0, 3.5])]
        for body, d in enumerate(offsets):
            # The device turns as one rigid body about the pivot: each body's static load
            # (buoyancy - weight, at its reference point d from the pivot) rises with
            # it, k = F . d - (F . u)(d . u) about the axis u = e_y (the potential of the
            # load at the second-order rise of its point, d (1 - cos phi)).
            f = np.asarray(config["bodies"][body]["hydrostatic_offset"][:3])
            extra[6 * body + 4, 6 * body + 4] = float(f @ d - f[1] * d[1])
        return pitch_basis(offsets), extra, ["base.pose[5]"]
    t = np.zeros((18, 2))  # dt3: each flap about its hinge on the held base
    for k, body in ((0, 1), (1, 2)):
        t[6 * body:6 * body + 6, k] = pitch_basis([HINGE])[:, 0]
        # The static load (buoyancy - weight) at the reference point, 3.5 m above the
        # hinge: k = F . d about the axis.
        f = np.asarray(config["bodies"][body]["hydrostatic_offset"][:3])
        extra[6 * body + 4, 6 * body + 4] = float(f @ HINGE)
    return t, extra, ["hinge1.angle", "hinge2.angle"]


@cache
def _decay(which: str) -> dict:
    """The decay run and its frequency-domain poles (file data, the model's own IRF)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = hydrofmu.Model.from_toml(F3OF / f"f3of_{which}.toml")
        mb = read_hydro_bodies(F3OF / "f3of.nc")
    mass, stiffness = model_matrices(model.config)
    t, extra, outputs = _basis(which, model.config)
    stiffness = stiffness + extra
    omega = np.asarray(mb.omega)
    added, damping = mb.added_mass_matrix(b2b=True), mb.damping_matrix(b2b=True)
    data = spline_coefficients(t, omega, added, damping)
    rad = model.config["radiation"]
    if rad["method"] == "state_space":  # DT3: fitted to the impedance (ss_fit)
        own = state_space_coefficients(t, rad["state_space"]["coupled"],
                                       mb.added_mass_inf_matrix(b2b=True))
    else:
        own = irf_coefficients(t, omega, damping, mb.added_mass_inf_matrix(b2b=True),
                               float(rad["irf_duration"]),
                               float(model.config["simulation"]["max_internal_step"]))
    # The undamped modes at the data's A(0.5 rad/s): the guesses and the mode shapes.
    a_mid = data(0.5)[0]
    lam, shapes = eigh(t.T @ stiffness @ t, t.T @ mass @ t + a_mid)
    guesses = np.sqrt(lam).tolist()
    ds = model.simulate(STOP[which], 0.05)
    coords = np.linalg.solve(shapes, np.array([ds[o].values for o in outputs]))
    periods = [decay_period(ds["time"].values, c) for c in coords]
    return {"periods": np.array(periods),
            "data": 2 * np.pi / decay_poles(t, mass, stiffness, data, guesses).imag,
            "own": 2 * np.pi / decay_poles(t, mass, stiffness, own, guesses).imag}


@pytest.mark.slow
@pytest.mark.parametrize("which", ["dt1", "dt2", "dt3"])
def test_decay_rings_at_the_poles_of_the_models_own_radiation(which: str) -> None:
    """The method: the time-domain run against the poles of the same radiation it
    realises. 0.05 %: the crossings' mean over 5-10 periods of a decay that also holds
    other, faster-decaying terms of the memory, and the first-order continuation of
    ``H`` (measured: DT1 0.002 %, DT2 0.017 %, DT3 0.000 and 0.028 %)."""
    r = _decay(which)
    print(f"{which}: time domain {r['periods'].round(4).tolist()} s, poles of the model's "
          f"own radiation {r['own'].round(4).tolist()} s")
    np.testing.assert_allclose(r["periods"], r["own"], rtol=5e-4)


@pytest.mark.slow
@pytest.mark.parametrize(("which", "mode"), [
    ("dt1", 0), ("dt2", 0), ("dt3", 0), ("dt3", 1),
])
def test_decay_period_matches_the_frequency_domain(which: str, mode: int) -> None:
    """The issue's 0.5 % against the poles of the file's A(w), B(w) (measured: DT1
    47.44 s against 47.28 s, DT2 8.192 s against 8.163 s: 0.35 %, the IRF's rebuild of
    A(w) from the data's B up to 6 rad/s and A_inf, as the poles of the model's own
    radiation show; DT3, its radiation fitted to A(w) and B(w) together: the flaps in
    opposition 14.397 s against 14.360 s, +0.26 %, turning together 13.867 s against
    13.894 s, -0.20 %, the fit's 2 % RMS error of A and B, which the own poles carry
    within 0.03 %). With the kernel of B (the convolution) DT3's first mode was 4.6 %
    slow: B's gap resonances, one sample each, give the kernel's A(w) wrong areas
    (examples/f3of/README.md)."""
    r = _decay(which)
    print(f"{which}: time domain {r['periods'].round(4).tolist()} s, poles of the data "
          f"{r['data'].round(4).tolist()} s")
    assert r["periods"][mode] == pytest.approx(r["data"][mode], rel=5e-3)


def _dt1(**hinge: object) -> dict:
    import tomllib

    with (F3OF / "f3of_dt1.toml").open("rb") as fh:
        data = tomllib.load(fh)
    data["joints"][0].update(hinge)
    return data


def test_a_locked_hinge_holds_its_angle() -> None:
    # DT1 for 5 s: the base surges from 5 m, the locked flaps ride along (their hinge
    # angles stay at round-off, their surge is the base's).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = hydrofmu.Model.from_dict(_dt1(), F3OF)
    ds = model.simulate(5.0, 0.5)
    assert np.max(np.abs(ds["hinge1.angle"].values)) < 1e-12
    np.testing.assert_allclose(ds["flap1.pose[1]"].values, ds["base.pose[1]"].values,
                               atol=1e-9)
    assert abs(float(ds["base.pose[1]"].values[-1]) - 5.0) > 1e-3  # it moved


@pytest.mark.parametrize(("hinge", "match"), [
    ({"locked": "yes"}, "locked = 'yes' must be true or false"),
    ({"initial_angle": 0.1}, "locked = true holds the angle at 0"),
])
def test_a_locked_hinge_refuses_contradictions(hinge: dict, match: str) -> None:
    with warnings.catch_warnings(), pytest.raises(hydrofmu.ConfigError, match=match):
        warnings.simplefilter("ignore")
        hydrofmu.Model.from_dict(_dt1(**hinge), F3OF).simulate(0.1, 0.1)
