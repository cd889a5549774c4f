"""State-space radiation in the model against the convolution of the same kernel (issue 6).

Both forms model the same IRF (same ``omega_max`` and taper; A_inf on the left side in
both), so their difference is the realisation error, which the identification bounds by
``ss_tolerance`` = 1 % (relative L2 error of each kernel entry). The comparisons use the
DOFs the scenario excites: heave and pitch (positions; they have hydrostatic restoring)
and surge *velocity*: surge has no restoring force, so its position integrates any
zero-frequency difference of the two forms over the whole record (a drift that grows with
the record length, not a property of the radiation model).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hydrofmu.config.configuration import resolve
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.simulator.simulator import Simulator
from paths import CAPYTAINE_CYLINDER
from physics_helpers import bemio_sphere_body, default_sphere_body, fit_sinusoid, run

#: Bodies of the acceptance: the default sphere with all six DOFs free, the BEMIO sphere,
#: and the Capytaine cylinder in surge and heave (its resolved roll and pitch stiffness is
#: negative with the default mass distribution: free roll/pitch capsize under either form).
BODIES: dict[str, dict[str, Any]] = {
    "default_sphere": default_sphere_body(),
    "bemio_sphere": bemio_sphere_body(),
    "capytaine_cylinder": {"name": "body", "hydro": str(CAPYTAINE_CYLINDER),
                           "dofs": ["surge", "heave"]},
}
#: Bound of the acceptance: 1 %, the realisation's own IRF tolerance (``ss_tolerance``).
#: Why that bound and not one fitted to the values seen: the identification guarantees
#: every kernel entry within it (relative L2 IRF error, checked when it is built, whatever
#: the machine or library versions pick as orders), and the response difference is that
#: kernel error filtered by the body, a fraction of it (the radiation memory is one of the
#: forces of the balance). Observed (worst over the DOFs compared), against the
#: realisation's worst IRF error of the entries involved (report of ``resolve``):
#:   default sphere (surge kernel 0.965 %): decay 0.70 %, RAO 0.61 %, irregular 0.54 %;
#:   BEMIO sphere (0.16 %): decay 0.066 %, RAO 0.022 %, irregular 0.019 %;
#:   Capytaine cylinder (0.53 %): decay 0.26 %, RAO 0.33 %, irregular 0.37 %.
#: The default sphere sits near the bound because its realisation sits near the tolerance
#: (not because of the run: the runs are deterministic to ~1e-12); a realisation that met
#: its tolerance but fed a larger error through the body would fail here, as it should.
BOUND = 0.01

_CACHE: dict[str, tuple[list, dict]] = {}


def model(key: str) -> tuple[list, dict]:
    if key not in _CACHE:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the data's own warnings, tested elsewhere
            _CACHE[key] = resolve({"bodies": [dict(BODIES[key], radiation="state_space")]},
                                  Path.cwd())
    return _CACHE[key]


def columns(bodies: list, cfg: dict) -> dict[str, int]:
    names = Simulator.output_names(bodies, cfg)
    return {"surge_velocity": names.index("body.velocity[1]"),
            "heave": names.index("body.pose[3]"), "pitch": names.index("body.pose[5]")}


def compared(key: str) -> list[str]:
    return ["surge_velocity", "heave"] + ([] if key == "capytaine_cylinder" else ["pitch"])


def both(key: str, params: dict[str, Any], stop: float) -> tuple[np.ndarray, dict]:
    bodies, cfg = model(key)
    out = {}
    for method in ("state_space", "convolution"):
        sim = Simulator(bodies, cfg, dict(params, **{"radiation.method": method}))
        t, y = run(sim, stop, 0.1)
        out[method] = y
    return t, out


def relative_rms(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((a - b) ** 2)) / np.sqrt(np.mean(b**2)))


@pytest.mark.slow
@pytest.mark.parametrize("key", list(BODIES))
def test_decay_state_space_matches_convolution(key: str) -> None:
    """Free decay from heave 1 m, pitch 0.05 rad and a surge velocity of 0.3 m/s, 60 s."""
    params: dict[str, Any] = {"wave.type": "none", "body.initial_pose[3]": 1.0,
                              "body.initial_velocity[1]": 0.3}
    if key != "capytaine_cylinder":
        params["body.initial_pose[5]"] = 0.05
    _t, out = both(key, params, 60.0)
    col = columns(*model(key))
    errors = {d: relative_rms(out["state_space"][:, col[d]], out["convolution"][:, col[d]])
              for d in compared(key)}
    assert max(errors.values()) < BOUND, errors


@pytest.mark.slow
@pytest.mark.parametrize("key", list(BODIES))
def test_regular_wave_rao_state_space_matches_convolution(key: str) -> None:
    """Response amplitude in regular head waves at 4, 9 and 20 s (the issue's 4-20 s)."""
    col = columns(*model(key))
    errors = {}
    for period in (4.0, 9.0, 20.0):
        w = 2.0 * math.pi / period
        # ramp 2 T, then the last 2 T of 7 T: the same transient remains in both forms
        t, out = both(key, {"wave.type": "regular", "wave.height": 1.0,
                            "wave.period": period, "wave.ramp_time": 2.0 * period},
                      7.0 * period)
        sel = t >= 5.0 * period
        for d in compared(key):
            amp = {m: abs(fit_sinusoid(t[sel], y[sel, col[d]], [w])[0])
                   for m, y in out.items()}
            assert amp["convolution"] > 1e-3  # a response to compare (m, m/s or rad)
            errors[(period, d)] = amp["state_space"] / amp["convolution"] - 1.0
    assert max(abs(e) for e in errors.values()) < BOUND, errors


@pytest.mark.slow
@pytest.mark.parametrize("key", list(BODIES))
def test_irregular_sea_state_space_matches_convolution(key: str) -> None:
    """JONSWAP Hs 2 m, Tp 8 s, 120 s instead of the issue's 30 min: both forms are linear
    and time-invariant, so the relative RMS of their difference is a ratio of spectral
    integrals of the same sea state (|H_ss - H_conv|^2 S over |H_conv|^2 S), which 120 s
    (15 peak periods, 200 components) already estimates; a longer record only narrows
    the estimate (the surge position, which would drift, is not compared). The 30-min
    record itself runs in ``docs/validation/ss_irregular_30min.py`` (about 10 min on
    this machine); its table ``docs/validation/ss_irregular_30min.md`` measured at most
    0.84 % (default sphere surge velocity), 0.075 % (BEMIO sphere), 0.37 % (cylinder)."""
    _t, out = both(key, {"wave.type": "irregular", "wave.height": 2.0, "wave.period": 8.0,
                         "wave.ramp_time": 20.0}, 120.0)
    col = columns(*model(key))
    errors = {d: relative_rms(out["state_space"][:, col[d]], out["convolution"][:, col[d]])
              for d in compared(key)}
    assert max(errors.values()) < BOUND, errors


def test_state_space_states_roll_back_bit_identically() -> None:
    """The realisation's states are part of the state vector: get_state, step, set_state
    and the same step again give bit-identical outputs."""
    bodies, cfg = model("bemio_sphere")
    sim = Simulator(bodies, cfg, {"wave.type": "regular", "wave.period": 8.0})
    part = sim.part("radiation")
    assert part.n_states > 0 and sim.y.size == 2 * 6 + part.n_states
    for k in range(20):
        sim.step(0.1 * k, 0.1)
    saved = sim.get_state()
    sim.step(2.0, 0.5)
    first = sim.output_vector().copy()
    assert np.any(sim.y[12:] != saved["y"][12:])  # the radiation states moved
    sim.set_state(saved)
    sim.step(2.0, 0.5)
    assert np.array_equal(sim.output_vector(), first)


def test_state_space_without_realisation_is_refused() -> None:
    """A configuration resolved for convolution carries no realisation: choosing the
    method as a parameter names the fix."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bodies, cfg = resolve({"bodies": [bemio_sphere_body()]}, Path.cwd())
    with pytest.raises(ConfigError, match="needs the state-space realisation made at build"):
        Simulator(bodies, cfg, {"radiation.method": "state_space"})


@pytest.mark.parametrize("key, value, match", [
    ("ss_tolerance", 0.0, r"\[radiation\] ss_tolerance=0.0 must be a relative error"),
    ("ss_max_order", 0, r"\[radiation\] ss_max_order=0 must be an integer in 1..100"),
])
def test_bad_state_space_settings(key: str, value: Any, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        resolve({"bodies": [bemio_sphere_body()], "radiation": {key: value}}, Path.cwd())


# ---------------------------------------------------------------------------- the FMU
@pytest.mark.slow
def test_fmu_stores_the_realisation_and_switches_method_at_run_time(tmp_path: Path) -> None:
    """One FMU (default sphere, state space by default): the payload holds the
    realisation, the log at initialization its per-entry report, state save/restore and
    serialization are bit-identical with the radiation states, and radiation.method =
    convolution chosen at run time gives the Simulator's convolution outputs."""
    import zipfile

    from hydrofmu.config.configuration import default_config
    from hydrofmu.export.fmu import build_fmu
    from hydrofmu.runtime.hydrodata.store import load_model
    from test_fmu import drive

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bodies, cfg = default_config(radiation={"method": "state_space"})
    fmu = build_fmu(bodies, cfg, tmp_path / "SS.fmu")
    with zipfile.ZipFile(fmu) as z:
        (tmp_path / "model.npz").write_bytes(z.read("resources/model.npz"))
    stored = load_model(tmp_path / "model.npz")["config"]["radiation"]["state_space"]
    assert stored["error"] is None and len(stored["bodies"]) == 1
    assert stored["bodies"][0]["diag"] == cfg["radiation"]["state_space"]["bodies"][0]["diag"]

    r = drive("state", {"fmu": str(fmu), "dt": 0.05, "steps_before": 40, "steps_after": 30,
                        "input_name": "body.F_pto[3]", "input_value": 2.0e4}, tmp_path)
    reference = np.array(r["reference"])
    assert np.all(np.isfinite(reference))
    assert np.array_equal(np.array(r["restored"]), reference)
    assert np.array_equal(np.array(r["deserialized"]), reference)
    logged = [m[2] for m in r["messages"]]
    assert any("radiation: state space" in m for m in logged)
    assert any("K[2,2] (heave <- heave)" in m for m in logged)  # the per-entry report

    stop, h = 20.0, 0.1
    r = drive("simulate", {"fmu": str(fmu), "dt": h, "stop_time": stop,
                           "input_time": [0.0, stop], "inputs": {},
                           "outputs": ["body.pose[3]"],
                           "parameters": {"radiation.method": "convolution"}}, tmp_path)
    heave_fmu = np.array(r["outputs"]["body.pose[3]"])
    sims = {m: Simulator(bodies, cfg, {"radiation.method": m})
            for m in ("convolution", "state_space")}
    heave = {m: run(s, stop, h)[1][:, columns(bodies, cfg)["heave"]] for m, s in sims.items()}
    scale = np.max(np.abs(heave["convolution"]))
    # same model, same arithmetic in another process: round-off only
    assert np.max(np.abs(heave_fmu - heave["convolution"])) < 1e-9 * scale
    # and the switch took effect: the state-space run differs beyond round-off
    assert np.max(np.abs(heave_fmu - heave["state_space"])) > 1e-6 * scale


def test_failed_realisation_is_stored_for_other_methods_and_reported_when_chosen() -> None:
    """A kernel that cannot reach the tolerance (1e-6 with one state per entry) fails the
    state space only: the export of a convolution model stores the message, and choosing
    state_space later reports it."""
    from hydrofmu.runtime.errors import HydroDataError
    from hydrofmu.statespace.payload import add_realisation

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bodies, cfg = resolve({"bodies": [bemio_sphere_body()],
                               "radiation": {"ss_tolerance": 1e-6, "ss_max_order": 1}},
                              Path.cwd())
    with pytest.raises(HydroDataError, match=r"body 'body': radiation\.method = state_space"):
        add_realisation(bodies, dict(cfg, radiation=dict(cfg["radiation"])))
    add_realisation(bodies, cfg, required=False)
    assert cfg["radiation"]["state_space"]["error"]
    Simulator(bodies, cfg)  # the configured convolution is unaffected
    with pytest.raises(ConfigError, match="its realisation failed at build time"):
        Simulator(bodies, cfg, {"radiation.method": "state_space"})


# ---------------------------------------------------------------- several bodies (RM3)
RM3_DIR = Path(__file__).resolve().parents[1] / "examples" / "rm3"


def _rm3(b2b: bool = True) -> tuple[list, dict]:
    import tomllib

    data = tomllib.loads((RM3_DIR / "rm3.toml").read_text(encoding="utf-8"))
    # the coupled float-spar surge-pitch group needs 14 states for 0.5 %: the 1 % bound
    # of the comparison is then not eaten by the realisation alone (measured with 1 %:
    # spar heave 1.09 % in the decay)
    data["radiation"].update(method="state_space", ss_max_order=20, ss_tolerance=0.005)
    data["multibody"]["b2b"] = b2b
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # WAMIT's 4-digit data: asymmetry notes
        return resolve(data, RM3_DIR)


@pytest.mark.slow
def test_rm3_state_space_with_cross_body_blocks_matches_convolution() -> None:
    """RM3 (float and spar, coupled radiation, prismatic PTO joint, planar spar): the
    realisation covers the 12 x 12 kernel with its float-spar blocks (one system, shared
    poles per coupled group), and decay and regular-wave responses agree with the
    convolution of the same kernel within 1 % RMS."""
    bodies, cfg = _rm3()
    entry = cfg["radiation"]["state_space"]
    assert entry["bodies"] == [] and entry["coupled"]["n"] == 12
    # the float-spar heave coupling is realised (the data's largest cross entry)
    assert any(line.startswith("K[2,8] (heave <- body1.heave)") for line in entry["report"])
    sim = Simulator(bodies, cfg)
    a_inf = sim.part("radiation").added
    assert abs(a_inf[2, 8]) > 1e4  # kg: the cross A_inf is on the left side too
    names = Simulator.output_names(bodies, cfg)
    for params, stop in (({"wave.type": "none", "float.initial_pose[3]": 0.5}, 60.0),
                         ({"wave.ramp_time": 20.0}, 80.0)):  # regular H 2.5 m, T 8 s
        out = {}
        for method in ("state_space", "convolution"):
            out[method] = run(Simulator(bodies, cfg, dict(params, **{
                "radiation.method": method})), stop, 0.1)[1]
        # the motions the scenarios excite (in the heave decay, surge and pitch move
        # only through entries below 1 % of their scale, left out of the realisation)
        keys = ["float.pose[3]", "spar.pose[3]", "pto.position"]
        if "wave.ramp_time" in params:
            keys += ["float.velocity[1]", "float.pose[5]", "spar.pose[5]"]
        errors = {k: relative_rms(out["state_space"][:, names.index(k)],
                                  out["convolution"][:, names.index(k)]) for k in keys}
        assert max(errors.values()) < BOUND, (params, errors)


def test_rm3_without_b2b_realises_each_body_alone() -> None:
    _bodies, cfg = _rm3(b2b=False)
    entry = cfg["radiation"]["state_space"]
    assert "coupled" not in entry and len(entry["bodies"]) == 2
    assert not any("body1" in line for line in entry["report"])
