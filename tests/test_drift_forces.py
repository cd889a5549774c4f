"""Second-order wave loads (issue 27, point 2): the ``drift`` part and its configuration.

- Configuration: ``drift = "mean" | "newman" | "qtf"`` per body, unknown values refused
  naming the choices, the load reported as ``<body>.F_drift[1..6]``, no channel without it.
- Mean drift in regular waves: WAMIT's hemisphere (``sphere.7``, control surface) against
  ``rho g A^2`` times the file's non-dimensional coefficient, read from the file's own
  columns here; a moored body's mean offset against drift / mooring stiffness.
- Slow drift: NEMOH's OC3-Hywind QTF in a bichromatic sea (the force at the difference and
  sum frequencies against the QTF entries), Newman against the full QTF in a JONSWAP sea.

The hemisphere's first-order data (``sphere.out``) do not pass the build's checks (negative
surge damping above 7.4 rad/s), so the moving body is the embedded sphere and the drift
comes from ``drift_file``: the drift part is a pure forcing, independent of the body's
first-order data, and the offset check needs only the mooring stiffness (surge has no
hydrostatic stiffness).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config_data, resolve
from hydrofmu.config.drift import resolve_drift
from hydrofmu.io.second_order import read_qtf
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.forces.drift_loads import DriftLoad, bilinear, interp_frequency
from hydrofmu.runtime.simulator.simulator import Simulator
from hydrofmu.runtime.waves.models import IrregularWave
from physics_helpers import column, run

DATA = Path(__file__).resolve().parents[1] / "examples" / "data"
SPHERE = DATA / "mean_drift_sphere"
OC3 = DATA / "nemoh_oc3_hywind"
#: WAMIT's gravity in sphere.out ("Gravity: 9.80665"), which its .7 file is normalised by.
WAMIT_G = 9.80665


def _data(drift: dict[str, Any], *, wave: dict[str, Any] | None = None,
          dofs: list[str] | None = None, **body: Any) -> dict[str, Any]:
    data = default_config_data(wave=wave or {"type": "regular", "height": 0.1, "period": 2.0,
                                             "ramp_time": 4.0})
    data["bodies"] = [{"name": "body", "hydro": "builtin:sphere", "dofs": dofs or ["heave"],
                       **drift, **body}]
    return data


def _wamit_surge_coefficients() -> tuple[np.ndarray, np.ndarray]:
    """(omega, Re of the surge coefficient) from the columns of sphere.7 (period, beta1,
    beta2, dof, mod, phase, re, im; normalised by rho g ULEN, ULEN = 1 m)."""
    rows = np.loadtxt(SPHERE / "sphere.7", skiprows=1)
    surge = rows[(rows[:, 3] == 1) & (rows[:, 1] == 0.0) & (rows[:, 2] == 0.0)]
    omega = 2.0 * math.pi / surge[:, 0]
    order = np.argsort(omega)
    return omega[order], surge[order, 6]


# ------------------------------------------------------------------ configuration
@pytest.mark.parametrize(("body", "words"), [
    ({"drift": "meen"}, ["'mean'", "'newman'", "'qtf'"]),
    ({"drift": "mean", "drift_method": "far"}, ["control_surface", "momentum", "pressure"]),
    ({"drift_file": "x.7"}, ["without drift"]),
    ({"drift": "qtf", "drift_file": str(SPHERE / "sphere.7")}, ["QTF", "newman"]),
    ({"drift": "mean"}, ["sphere_capytaine.nc", "no mean drift reader", "drift_file"]),
    ({"drift": "mean", "drift_sum": 1}, ["true or false"]),
])
def test_drift_keys_are_checked(body: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ConfigError) as exc:
        resolve(_data(body), Path.cwd())
    for w in words:
        assert w in str(exc.value)


def test_drift_channel_only_when_configured() -> None:
    bodies, cfg = resolve(_data({}), Path.cwd())
    assert not any("F_drift" in n for n in Simulator.output_names(bodies, cfg))
    bodies, cfg = resolve(_data({"drift": "mean", "drift_file": str(SPHERE / "sphere.7")}),
                          Path.cwd())
    names = Simulator.output_names(bodies, cfg)
    assert [n for n in names if "F_drift" in n] == [f"body.F_drift[{i}]" for i in range(1, 7)]


def test_native_steps_drift_and_exact_refuses_it() -> None:
    """The native FMU steps the drift load in its Runge-Kutta mode (no refusal;
    tests/test_native_drift.py compares it with the Python FMU); the 'exact' scheme has no
    linear form for it and is refused at the configuration, naming the part."""
    from hydrofmu.export.native.assemble import refusal

    bodies, cfg = resolve(_data({"drift": "mean", "drift_file": str(SPHERE / "sphere.7")}),
                          Path.cwd())
    assert refusal(Simulator(bodies, cfg)) == ""
    data = _data({"drift": "mean", "drift_file": str(SPHERE / "sphere.7")})
    data["simulation"]["time_scheme"] = "exact"
    with pytest.raises(ConfigError, match="drift: the second-order wave load"):
        resolve(data, Path.cwd())


# ------------------------------------------------------------------ mean drift
def test_mean_drift_regular_waves_wamit_hemisphere() -> None:
    """Time-averaged F_drift[1] = rho g A^2 c(w) at file frequencies across the embedded
    body's range (0.05..5 rad/s): 0.5 % (the issue's bound). The load is faded in by
    ramp^2 and then constant, and the file's frequencies need no interpolation, so the
    average over whole periods after the ramp is exact to rounding (1e-16 measured) when
    the reader makes the file dimensional with WAMIT's own g (sphere.out's 9.80665)."""
    omega, coef = _wamit_surge_coefficients()
    picks = [i for i in np.linspace(0, omega.size - 1, 40).astype(int)
             if 0.6 <= omega[i] <= 5.0][::3]
    assert len(picks) >= 4
    amp = 0.05
    for i in picks:
        period = 2.0 * math.pi / omega[i]
        data = _data({"drift": "mean", "drift_file": str(SPHERE / "sphere.7")},
                     wave={"type": "regular", "height": 2 * amp, "period": period,
                           "ramp_time": 2.0})
        bodies, cfg = resolve(data, Path.cwd())
        sim = Simulator(bodies, cfg)
        h = period / 20
        t, out = run(sim, 2.0 + 2 * period, h)
        f = out[t >= 2.0 - 1e-9, column(sim, "body.F_drift[1]")][:-1]
        expected = bodies[0].rho * WAMIT_G * amp**2 * coef[i]
        assert f.mean() == pytest.approx(expected, rel=5e-3), omega[i]


def test_moored_body_mean_offset_equals_drift_over_stiffness() -> None:
    """Surge-only body on a linear spring k in T = 2 s, H = 0.1 m (WEC-Sim's case): the mean
    surge over whole wave periods after the transients equals A^2 D / k to 1 %. The
    spring is damped critically (linear damping) so that the start-up dies out (e^-30)."""
    omega, coef = _wamit_surge_coefficients()
    amp, period, k = 0.05, 2.0, 4.0e5
    data = _data({"drift": "mean", "drift_file": str(SPHERE / "sphere.7")},
                 wave={"type": "regular", "height": 2 * amp, "period": period,
                       "ramp_time": 6.0}, dofs=["surge"])
    stiffness = np.zeros((6, 6))
    stiffness[0, 0] = k
    data["moorings"] = [{"type": "linear", "body": "body", "stiffness": stiffness.tolist()}]
    bodies, cfg = resolve(data, Path.cwd())
    sim0 = Simulator(bodies, cfg)
    m = sim0.mass[0, 0] + sim0.added[0, 0]
    damping = np.zeros((6, 6))
    damping[0, 0] = 2.0 * math.sqrt(k * m)
    data["bodies"][0]["linear_damping"] = damping.tolist()
    bodies, cfg = resolve(data, Path.cwd())
    sim = Simulator(bodies, cfg)
    h = period / 20
    t, out = run(sim, 60.0, h)
    last = (t >= 60.0 - 5 * period - 1e-9)
    surge = out[last, column(sim, "body.pose[1]")][:-1]
    bodies_rho = bodies[0].rho
    drift = bodies_rho * WAMIT_G * amp**2 * np.interp(2 * math.pi / period, omega, coef)
    assert surge.mean() == pytest.approx(drift / k, rel=1e-2)


# ------------------------------------------------------------------ slow drift, OC3
def _oc3_tables(**keys: Any) -> dict[str, Any]:
    from hydrofmu.io.readers import read_hydro

    hd = read_hydro(OC3 / "Nemoh.cal", check=False)
    entry, _ = resolve_drift({"name": "spar", **keys}, hd, OC3 / "Nemoh.cal", OC3)
    assert entry is not None
    return entry


def _table(t: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    q = np.asarray(t["re"]) + 1j * np.asarray(t["im"])
    return np.asarray(t["omega"]), q[0]


def test_bichromatic_difference_and_sum_frequency_equal_the_qtf() -> None:
    """Two components at QTF grid frequencies w1 > w2; the part's force over one exact
    period 2 pi / (w1 - w2), by DFT: at w1 - w2 it is 2 a1 conj(a2) Qm(w1, w2), at w1 + w2
    2 a1 a2 Qp(w1, w2), at 2 w1 a1^2 Qp(w1, w1), its mean |a1|^2 Qm11 + |a2|^2 Qm22: to
    1e-6 relative (the issue's bound; the DFT of an exact period is exact to rounding)."""
    entry = _oc3_tables(drift="qtf", drift_sum=True)
    grid, qm = _table(entry["qtf"])
    _, qp = _table(entry["qtf_sum"])
    ref_m = read_qtf(OC3, "difference").values[0]
    ref_p = read_qtf(OC3, "sum").values[0]
    rng = np.random.default_rng(27)
    i1, i2 = 7, 3          # 0.6 and 0.4 rad/s: difference 0.2, sum 1.0, 2 w1 = 1.2
    w = grid[[i1, i2]]
    a = rng.normal(size=2) + 1j * rng.normal(size=2)
    load = DriftLoad(w, a, "qtf", difference=bilinear(w, grid, qm),
                     total_sum=bilinear(w, grid, qp))
    mu = w[0] - w[1]
    n = 64
    t = np.arange(n) * (2 * math.pi / mu) / n
    f = np.array([load.force(x) for x in t])            # (n, 6)
    spec = np.fft.fft(f, axis=0) / n                     # F = sum_k c_k e^{i k mu t}
    bins = np.round(np.array([mu, w.sum(), 2 * w[0]]) / mu).astype(int)
    assert np.allclose(bins * mu, [mu, w.sum(), 2 * w[0]])
    expected = {
        0: abs(a[0]) ** 2 * ref_m[i1, i1] + abs(a[1]) ** 2 * ref_m[i2, i2],
        bins[0]: 2 * a[0] * np.conj(a[1]) * ref_m[i1, i2],
        bins[1]: 2 * a[0] * a[1] * ref_p[i1, i2],
        bins[2]: a[0] ** 2 * ref_p[i1, i1],
    }
    for b, value in expected.items():
        got = spec[b] * (1 if b == 0 else 2)              # Re(c e^{i k mu t}): c = 2 spec[k]
        scale = np.abs(value).max()
        assert np.abs(got - value).max() <= 1e-6 * scale, b
        if b == 0:
            assert np.abs(got.imag).max() <= 1e-9 * scale


def _jonswap(n: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """A JONSWAP sea (Hs 6 m, Tp 10 s) on ``n`` equally spaced frequencies across the QTF's
    0.25..1.5 rad/s, amplitudes ``sqrt(2 S dw)``, seeded random phases: every difference
    frequency is a multiple of ``dw``, so the slow drift repeats exactly in 2 pi / dw."""
    wave = IrregularWave(hs=6.0, tp=10.0, spectrum="jonswap", gamma=3.3, seed=27)
    dw = 1.25 / n
    omega = 0.25 + (np.arange(n) + 0.5) * dw
    amp = np.sqrt(2.0 * wave.spectral_density(omega) * dw)
    phase = np.random.default_rng(27).uniform(0.0, 2.0 * math.pi, n)
    return omega, amp * np.exp(1j * phase)


def test_newman_against_full_qtf_in_a_jonswap_sea() -> None:
    """OC3-Hywind surge in a JONSWAP sea (Hs 6 m, Tp 10 s, 100 components).

    1. Both double sums are checked term by term: over one exact period 2 pi / dw the DFT
       bin of each difference frequency equals the sum of its pairs' coefficients
       (1e-9 relative).
    2. The mean forces differ only by the diagonal's interpolation: bilinear Qm(w, w)
       against the linear D(w) differ by f (1 - f) (Q01 + Q10 - Q00 - Q11) within a cell,
       at most a quarter of it.
    3. The slow-drift spectra (difference frequencies below 0.2 rad/s): the ratio of the
       expected spectra lies between the smallest and largest |Qm| / |Newman|
       squared over the pairs involved; the sample's band variance is held to that range
       widened by the sampling spread (a factor 2, for the ~hundreds of pairs in the band).
    """
    omega, a = _jonswap()
    entry = _oc3_tables(drift="qtf")
    grid, qm = _table(entry["qtf"])
    diag = np.real(np.einsum("iid->id", qm))
    newman = DriftLoad(omega, a, "newman", mean=interp_frequency(omega, grid, diag))
    full_q = bilinear(omega, grid, qm)
    full = DriftLoad(omega, a, "qtf", difference=full_q)
    dw = omega[1] - omega[0]
    assert np.allclose(np.diff(omega), dw)
    period = 2 * math.pi / dw
    n = 4096
    t = np.arange(n) * period / n
    fn = np.array([newman.force(x)[0] for x in t])
    fq = np.array([full.force(x)[0] for x in t])
    sn, sq = np.fft.rfft(fn) / n, np.fft.rfft(fq) / n
    # 1. each difference-frequency bin k (w_i - w_j = k dw) against its pairs
    nq = 0.5 * (interp_frequency(omega, grid, diag)[:, None, 0]
                + interp_frequency(omega, grid, diag)[None, :, 0])
    for k in (1, 5, 20):
        pairs = [(i, i - k) for i in range(k, omega.size)]
        cq = sum(2 * a[i] * np.conj(a[j]) * full_q[i, j, 0] for i, j in pairs)
        cn = sum(2 * a[i] * np.conj(a[j]) * nq[i, j] for i, j in pairs)
        assert abs(2 * sq[k] - cq) <= 1e-9 * abs(cq)
        assert abs(2 * sn[k] - cn) <= 1e-9 * abs(cn)
    # 2. the means
    k0 = np.clip(np.searchsorted(grid, omega, side="right") - 1, 0, grid.size - 2)
    cell = np.abs((qm[k0, k0 + 1, 0] + qm[k0 + 1, k0, 0]).real - diag[k0, 0] - diag[k0 + 1, 0])
    bound = np.sum(np.abs(a) ** 2 * 0.25 * cell)
    assert abs(sq[0].real - sn[0].real) <= bound + 1e-9 * abs(sq[0])
    mean_only = DriftLoad(omega, a, "mean", mean=interp_frequency(omega, grid, diag))
    assert mean_only.force(123.0)[0] == pytest.approx(sn[0].real, rel=1e-9)  # Newman's mean
    # 3. slow-drift band
    kmax = int(0.2 / dw)
    var_q = 2 * np.sum(np.abs(sq[1:kmax + 1]) ** 2)
    var_n = 2 * np.sum(np.abs(sn[1:kmax + 1]) ** 2)
    i, j = np.meshgrid(np.arange(omega.size), np.arange(omega.size), indexing="ij")
    band = (i - j >= 1) & (i - j <= kmax)
    weight = (np.abs(a)[:, None] * np.abs(a)[None, :]) ** 2 * np.abs(nq) ** 2
    live = band & (weight > 1e-3 * weight[band].max())
    ratio = np.abs(full_q[..., 0]) ** 2 / np.maximum(np.abs(nq) ** 2, 1e-300)
    lo, hi = ratio[live].min(), ratio[live].max()
    assert lo / 2 <= var_q / var_n <= 2 * hi, (var_q / var_n, lo, hi)


def test_python_fmu_carries_the_drift_data(tmp_path: Path) -> None:
    """The drift tables travel in the FMU's configuration (no file read at run time): the
    FMU, run by fmpy from a folder without the data, gives the in-process F_drift and surge
    (equal to 1e-12 of the peak: the same code on the same numbers)."""
    fmpy = pytest.importorskip("fmpy")
    from hydrofmu.api.model import Model

    data = _data({"drift": "newman", "drift_file": str(SPHERE / "sphere.7")},
                 wave={"type": "irregular", "height": 2.0, "period": 8.0, "ramp_time": 5.0,
                       "n_components": 30}, dofs=["surge", "heave"])
    data["simulation"].update(stop_time=20.0, output_interval=0.5)
    model = Model.from_dict(data)
    ds = model.simulate()
    fmu = model.build_fmu(tmp_path / "drift.fmu", native=False)
    names = ["body.F_drift[1]", "body.pose[1]"]
    res = fmpy.simulate_fmu(str(fmu), stop_time=20.0, output_interval=0.5, output=names)
    for name in names:
        ref = ds[name].values
        assert np.abs(ref).max() > 0.0
        assert np.allclose(res[name], ref, rtol=0.0, atol=1e-12 * np.abs(ref).max()), name


def test_drift_true_takes_the_qtf_when_there_is_one() -> None:
    """``drift = true``: 'qtf' from a NEMOH case with QTFs, 'newman' from a mean drift file."""
    assert _oc3_tables(drift=True)["mode"] == "qtf"
    from hydrofmu.config.configuration import builtin_path
    from hydrofmu.io.readers import read_hydro

    hd = read_hydro(builtin_path("sphere"))
    entry, notes = resolve_drift({"name": "b", "drift": True, "drift_file": "sphere.7"}, hd,
                                 builtin_path("sphere"), SPHERE)
    assert entry is not None and entry["mode"] == "newman" and "newman" in notes[0]


def test_heading_interpolation_and_its_range() -> None:
    """Linear weights between the two nearest headings (modulo 2 pi); outside, refused."""
    from hydrofmu.runtime.forces.drift import heading_weights

    grid = np.radians([0.0, 30.0, 90.0])
    assert heading_weights(grid, np.radians(30.0), "x") == [(1, 1.0)]
    assert heading_weights(grid, np.radians(360.0), "x") == [(0, 1.0)]
    (k0, w0), (k1, w1) = heading_weights(grid, np.radians(60.0), "x")
    assert (k0, k1) == (1, 2) and w0 == pytest.approx(0.5) and w1 == pytest.approx(0.5)
    with pytest.raises(ConfigError, match="outside the drift data's headings"):
        heading_weights(grid, np.radians(120.0), "x")


def test_oc3_regular_wave_mean_and_sum_frequency_through_the_model() -> None:
    """OC3-Hywind on a surge spring, ``drift = "qtf"``, ``drift_sum = true``, a regular wave
    at the QTF's 0.6 rad/s: after the ramp the model's F_drift is
    ``A^2 Qm(w, w) + Re(a^2 Qp(w, w) e^{2 i w t})``, checked by DFT over 4 exact periods
    against the file's entries (1e-6 relative, the issue's bound for the QTF entries)."""
    w = 0.6
    period = 2 * math.pi / w
    amp = 2.0
    data = default_config_data(
        simulation={"time_scheme": "rk4", "max_internal_step": 0.1},
        wave={"type": "regular", "height": 2 * amp, "period": period, "ramp_time": period})
    k = np.zeros((6, 6))
    k[0, 0] = 4.118e4
    data["bodies"] = [{"name": "spar", "hydro": str(OC3 / "Nemoh.cal"), "dofs": ["surge"],
                       "drift": "qtf", "drift_sum": True}]
    data["moorings"] = [{"type": "linear", "body": "spar", "stiffness": k.tolist()}]
    bodies, cfg = resolve(data, Path.cwd())
    sim = Simulator(bodies, cfg)
    n = 32
    t, out = run(sim, 5 * period, period / n)
    keep = slice(n, 5 * n)                               # after the ramp, 4 whole periods
    f = out[keep][:, [column(sim, f"spar.F_drift[{i}]") for i in (1, 3, 5)]]
    spec = np.fft.fft(f, axis=0) / f.shape[0]
    qm = read_qtf(OC3, "difference")
    qp = read_qtf(OC3, "sum")
    i = int(np.argmin(np.abs(qm.omega - w)))
    assert qm.omega[i] == pytest.approx(w, abs=1e-9)
    a = amp                                              # RegularWave: phase 0 at t = 0
    mean = amp**2 * qm.values[0, i, i, [0, 2, 4]].real
    double = a**2 * qp.values[0, i, i, [0, 2, 4]] * np.exp(2j * w * t[n])  # from t[n] on
    scale = np.abs(np.concatenate([mean, double])).max()
    assert np.abs(spec[0] - mean).max() <= 1e-6 * scale
    assert np.abs(2 * spec[8] - double).max() <= 1e-6 * scale   # 2 w: bin 2 * 4 periods
