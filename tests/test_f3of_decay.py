"""The F3OF's three decay tests (examples/f3of/f3of_dt{1,2,3}.toml) run, and oscillate at the
damped natural frequencies of the same data in the frequency domain (``f3of_decay.py``).

The time-domain period is the mean interval between upward zero crossings; the
frequency-domain one the fixed point ``w = Im(s)`` of the reduced ``s^2 (M + A(w)) + s B(w) +
K`` (the frequency a free decay rings at, A and B linear between the file's frequencies
0.1 rad/s apart). 0.5 %: the issue's target; the radiation memory (an IRF of 60 s from data
to 6 rad/s) makes the time-domain model's A(w) differ from the file's by the IRF's round-trip
error, which the model's notes report.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hydrofmu
from f3of_decay import damped_frequencies, model_matrices, pitch_basis, zero_crossing_period
from hydrofmu.io.readers import read_hydro_bodies
from paths import ROOT

F3OF = ROOT / "examples" / "f3of"
HINGE = np.array([0.0, 0.0, 3.5])  # m, each flap's reference point above its hinge


def _basis(which: str, config: dict) -> tuple[np.ndarray, np.ndarray, str]:
    """The constraint basis, the extra stiffness of the joints (18 x 18) and the output."""
    extra = np.zeros((18, 18))
    if which == "dt1":  # the whole device in surge on the 1e5 N/m spring
        t = np.zeros((18, 1))
        t[[0, 6, 12], 0] = 1.0
        extra[0, 0] = 1.0e5
        return t, extra, "base.pose[1]"
    if which == "dt2":  # the whole device pitching about the base's origin
        offsets = [np.zeros(3), np.array([-12.5, 0.0, 3.5]), np.array([12.5, 0.0, 3.5])]
        for body, d in enumerate(offsets):
            # The device turns as one rigid body about the pivot: each body's static load
            # (buoyancy - weight, at its reference point d from the pivot) rises with
            # it, k = F . d - (F . u)(d . u) about the axis u = e_y (the potential of the
            # load at the second-order rise of its point, d (1 - cos phi)).
            f = np.asarray(config["bodies"][body]["hydrostatic_offset"][:3])
            extra[6 * body + 4, 6 * body + 4] = float(f @ d - f[1] * d[1])
        return pitch_basis(offsets), extra, "base.pose[5]"
    t = np.zeros((18, 2))  # dt3: each flap about its hinge on the held base
    for k, body in ((0, 1), (1, 2)):
        t[6 * body:6 * body + 6, k] = pitch_basis([HINGE])[:, 0]
        # The static load (buoyancy - weight) at the reference point, 3.5 m above the
        # hinge: k = F . d about the axis (hydrofmu.runtime.forces.static_loads).
        f = np.asarray(config["bodies"][body]["hydrostatic_offset"][:3])
        extra[6 * body + 4, 6 * body + 4] = float(f @ HINGE)
    return t, extra, "hinge1.angle"


NOT_YET = ("the time-domain model's radiation memory, an IRF of data to 6 rad/s, rebuilds "
           "the flaps' A(w) only within 54 % in pitch (the model's notes): measured DT2 "
           "8.474 s against 8.406 s (0.8 %), DT3 14.54 s against 14.13 s (2.9 %)")


@pytest.mark.slow
@pytest.mark.parametrize(("which", "stop"), [
    ("dt1", 150.0),
    pytest.param("dt2", 50.0, marks=pytest.mark.xfail(reason=NOT_YET, strict=True)),
    pytest.param("dt3", 80.0, marks=pytest.mark.xfail(reason=NOT_YET, strict=True)),
])
def test_decay_period_matches_the_frequency_domain(which: str, stop: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = hydrofmu.Model.from_toml(F3OF / f"f3of_{which}.toml")
        mb = read_hydro_bodies(F3OF / "f3of.nc")
    mass, stiffness = model_matrices(model.config)
    t, extra, output = _basis(which, model.config)
    omega = np.asarray(mb.omega)
    w = damped_frequencies(t, mass, stiffness + extra, omega,
                           mb.added_mass_matrix(b2b=True), mb.damping_matrix(b2b=True))
    ds = model.simulate(stop, 0.05)
    period = zero_crossing_period(ds["time"].values, ds[output].values)
    # DT3: the fore flap released, the aft one at rest, excite the two flaps' modes (in
    # phase and in opposition) equally: cos(w1 t) + cos(w2 t) crosses zero at the mean
    # frequency (a beat), which is what the zero crossings measure.
    expected = 2 * np.pi / float(np.mean(w))
    print(f"{which}: time domain {period:.4f} s, frequency domain {expected:.4f} s "
          f"(modes {(2 * np.pi / w).round(4).tolist()} s)")
    assert period == pytest.approx(expected, rel=5e-3)


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
