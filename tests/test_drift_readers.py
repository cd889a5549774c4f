"""Readers of second-order data: WAMIT mean drift (.7, .8, .9, .out), WAMIT QTFs (.12d,
.12s), BEMIO .h5 mean drift, and the dispatchers (issue 27, point 1).

The WAMIT files are the floating hemisphere of WEC-Sim Applications' mean-drift case
(examples/data/mean_drift_sphere). Every check compares the reader with the raw text parsed
here independently, or with a hand computation of the normalisation.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.io.bemio_drift import bemio_drift_methods, read_bemio_mean_drift
from hydrofmu.io.drift import MeanDrift
from hydrofmu.io.readers import read_hydro
from hydrofmu.io.second_order import read_mean_drift, read_qtf
from hydrofmu.io.wamit_drift import read_wamit_mean_drift, read_wamit_out_drift, read_wamit_qtf
from hydrofmu.runtime.errors import HydroDataError

DATA = Path(__file__).resolve().parents[1] / "examples" / "data"
SPHERE = DATA / "mean_drift_sphere" / "sphere"
RHO = 1000.0          # the readers' WAMIT default
METHODS = {".7": "control_surface", ".8": "momentum", ".9": "pressure"}


def _header() -> tuple[float, float]:
    """g and ULEN from the .out header, parsed here."""
    for line in SPHERE.with_suffix(".out").read_text(encoding="latin-1").splitlines():
        if "Gravity:" in line and "Length scale:" in line:
            nums = re.findall(r"[-+]?\d+\.\d+", line)
            return float(nums[0]), float(nums[1])
    raise AssertionError("no header line")


def _rows(path: Path, ncols: int) -> np.ndarray:
    """The numeric file's rows of ``ncols`` numbers (the .1 file's A(0), A_inf rows have 4)."""
    lines = path.read_text(encoding="latin-1").splitlines()[1:]
    return np.array([[float(x) for x in ln.split()] for ln in lines
                     if len(ln.split()) == ncols])


@pytest.fixture(scope="module")
def drift() -> dict[str, MeanDrift]:
    return {m: read_wamit_mean_drift(SPHERE.with_suffix(s)) for s, m in METHODS.items()}


@pytest.mark.parametrize("suffix", sorted(METHODS))
def test_wamit_numeric_rows_read_as_written(suffix: str, drift: dict[str, MeanDrift]) -> None:
    """Every entry of 60 random rows: omega = 2 pi / PER, heading, Re * rho g L^k."""
    g, ulen = _header()
    md = drift[METHODS[suffix]]
    rows = _rows(SPHERE.with_suffix(suffix), 8)
    rows = rows[(rows[:, 0] > 0) & (rows[:, 3] > 0)]
    rng = np.random.default_rng(27)
    for r in rows[rng.choice(len(rows), 60, replace=False)]:
        iw = int(np.argmin(np.abs(md.omega - 2 * np.pi / r[0])))
        assert md.omega[iw] == pytest.approx(2 * np.pi / r[0], rel=1e-12)
        ib = int(np.argmin(np.abs(md.direction - np.radians(r[1]))))
        assert md.direction[ib] == pytest.approx(np.radians(r[1]), abs=1e-12)
        i = int(r[3]) - 1
        k = 1 if i < 3 else 2
        assert md.values[iw, ib, i] == pytest.approx(r[6] * RHO * g * ulen ** k, rel=1e-12)
    # every row is somewhere: 200 periods, 1 heading; the momentum file lacks heave, roll, pitch
    assert md.values.shape == (len(np.unique(rows[:, 0])), 1, 6)
    expected = {int(i) - 1 for i in np.unique(rows[:, 3])}
    assert set(np.flatnonzero(md.dofs)) == expected


def test_wamit_normalisation_by_hand() -> None:
    """F = Fbar rho g A^2 L (forces), M = Mbar rho g A^2 L^2 (moments): one row by hand, and
    the power of ULEN through a file read with ULEN = 2 m."""
    # the surge row nearest WEC-Sim's regular wave (T = 2 s): PER 1.99466 s in the file
    surge = [ln.split() for ln in SPHERE.with_suffix(".7").read_text().splitlines()[1:]
             if ln.split()[3] == "1"]
    row = min(surge, key=lambda r: abs(float(r[0]) - 2.0))
    per, fbar = float(row[0]), float(row[6])
    md = read_wamit_mean_drift(SPHERE.with_suffix(".7"), rho=1025.0, g=9.81, ulen=1.0)
    iw = int(np.argmin(np.abs(md.omega - 2 * np.pi / per)))
    assert md.values[iw, 0, 0] == pytest.approx(fbar * 1025.0 * 9.81, rel=1e-12)
    md2 = read_wamit_mean_drift(SPHERE.with_suffix(".7"), rho=1025.0, g=9.81, ulen=2.0)
    ok = np.isfinite(md.values) & (md.values != 0.0)
    ratio = md2.values[ok] / md.values[ok]
    dof = np.broadcast_to(np.arange(6), md.values.shape)[ok]
    np.testing.assert_allclose(ratio[dof < 3], 2.0, rtol=1e-14)
    np.testing.assert_allclose(ratio[dof >= 3], 4.0, rtol=1e-14)


def test_wamit_out_sections_equal_numeric_files(drift: dict[str, MeanDrift]) -> None:
    """The .out's DRIFT FORCES sections give the numeric files' values: Mod cos(Pha) with
    Mod to 6 digits (half a unit: 5e-6 relative) and Pha in whole degrees (the entries that
    are not 0 or 180 degrees are rounding noise, below 1e-6 of the peak)."""
    for method, md in drift.items():
        out = read_wamit_out_drift(SPHERE.with_suffix(".out"), method)
        # periods: 7 digits in the .out, 6 in the numeric files (5e-6 relative)
        np.testing.assert_allclose(out.omega, md.omega, rtol=5e-6)
        assert np.array_equal(np.isnan(out.values), np.isnan(md.values))
        ok = np.isfinite(md.values)
        peak = np.max(np.abs(md.values[ok]))
        err = np.abs(out.values[ok] - md.values[ok]) - 5e-6 * np.abs(md.values[ok])
        assert np.max(err) <= 1e-6 * peak, method


def test_wamit_three_methods_spread(drift: dict[str, MeanDrift]) -> None:
    """The surge drift of the hemisphere by the three methods.

    Measured on this file (relative to the largest surge drift, 1.88 rho g A^2 L):
    momentum vs control surface 1.2 % for omega <= 5 rad/s (kR <= 2.55) and 5.8 % over the
    whole range (to kR = 10, where 40 waterline panels give 4 per wavelength); the pressure
    integration departs from both by up to 8 % for omega <= 3 rad/s and by 115 % over the
    range (near-field integration on a low-order mesh is the least converged of the three).
    The bounds below are these spreads rounded up."""
    w = drift["momentum"].omega
    s = {m: d.values[:, 0, 0] for m, d in drift.items()}
    peak = max(np.max(np.abs(v)) for v in s.values())

    def spread(a: str, b: str, sel: np.ndarray) -> float:
        return float(np.max(np.abs(s[a][sel] - s[b][sel])) / peak)

    low, mid, every = w <= 3.0, w <= 5.0, np.ones(w.size, bool)
    assert spread("momentum", "control_surface", mid) < 0.015
    assert spread("momentum", "control_surface", every) < 0.06
    assert spread("pressure", "control_surface", low) < 0.09
    assert spread("pressure", "momentum", low) < 0.10
    # the momentum method is the far-field one: it gives surge, sway and yaw only
    assert np.all(np.isnan(drift["momentum"].values[:, :, 2:5]))


def test_wamit_out_still_reads_as_hydro() -> None:
    """The .out with drift sections reads as a hydro file (a one-body WAMIT 7.3 file: no
    'Body number:' line, symmetry planes X=0, Y=0 so the vanishing pairs are not printed):
    its excitation moduli equal the .3 file's, its A and B the .1 file's (7 digits in both),
    made dimensional; the pairs the .1 file omits are zero. The data checks refuse the file
    as it is: B[surge, surge] < 0 from 7.4 rad/s (-5.8 % of its peak at 10 rad/s, kR = 10 on
    40 waterline panels), hence check=False."""
    g, ulen = _header()
    with pytest.raises(HydroDataError, match="negative on the diagonal"):
        read_hydro(SPHERE.with_suffix(".out"))
    hd = read_hydro(SPHERE.with_suffix(".out"), check=False)
    rows1 = _rows(SPHERE.with_suffix(".1"), 5)
    rows1 = rows1[rows1[:, 0] > 0]
    printed = {(int(i), int(j)) for i, j in rows1[:, 1:3]}
    for r in rows1[::23]:
        iw = int(np.argmin(np.abs(hd.omega - 2 * np.pi / r[0])))
        i, j = int(r[1]) - 1, int(r[2]) - 1
        k = 3 + (i >= 3) + (j >= 3)
        assert hd.added_mass[iw, i, j] == pytest.approx(r[3] * RHO * ulen ** k, rel=2e-6)
        assert hd.radiation_damping[iw, i, j] == pytest.approx(
            r[4] * RHO * hd.omega[iw] * ulen ** k, rel=2e-6, abs=1e-12)
    for i in range(6):
        for j in range(6):
            if (i + 1, j + 1) not in printed:
                assert np.all(hd.added_mass[:, i, j] == 0.0)
    rows = _rows(SPHERE.with_suffix(".3"), 7)
    rows = rows[rows[:, 0] > 0]
    for r in rows[::37]:
        iw = int(np.argmin(np.abs(hd.omega - 2 * np.pi / r[0])))
        i = int(r[2]) - 1
        scale = RHO * g * ulen ** (2 if i < 3 else 3)
        assert abs(hd.excitation[iw, 0, i]) == pytest.approx(r[3] * scale, rel=2e-6, abs=1e-9)



def test_wamit_out_drift_sections_right_after_the_excitation(tmp_path: Path) -> None:
    """Without the RAO tables (WAMIT run without motions output) the drift sections follow
    the diffraction forces directly: they are skipped, not read as excitation."""
    lines = SPHERE.with_suffix(".out").read_text(encoding="latin-1").splitlines()
    kept, skip = [], False
    for line in lines:
        skip = (skip or "RESPONSE AMPLITUDE OPERATORS" in line) and "DRIFT FORCES" not in line
        if not skip:
            kept.append(line)
    assert len(kept) < len(lines)
    edited = tmp_path / "no_rao.out"
    edited.write_text("\n".join(kept) + "\n", encoding="latin-1")
    a = read_hydro(SPHERE.with_suffix(".out"), check=False)
    b = read_hydro(edited, check=False)
    np.testing.assert_array_equal(b.excitation, a.excitation)
    np.testing.assert_array_equal(b.added_mass, a.added_mass)
    np.testing.assert_array_equal(read_wamit_out_drift(edited, "pressure").values,
                                  read_wamit_out_drift(SPHERE.with_suffix(".out"),
                                                       "pressure").values)

def _write_12(path: Path, rows: list[tuple[float, ...]]) -> None:
    text = [" WAMIT Numeric Output -- test file in the .12d/.12s layout"]
    for per1, per2, b1, b2, i, re_, im in rows:
        mod, pha = abs(complex(re_, im)), math.degrees(math.atan2(im, re_))
        text.append(f" {per1:13.6E} {per2:13.6E} {b1:13.6E} {b2:13.6E} {i:5d} "
                    f"{mod:13.6E} {pha:13.6E} {re_:13.6E} {im:13.6E}")
    path.write_text("\n".join(text) + "\n")


@pytest.mark.parametrize("suffix", [".12d", ".12s"])
def test_wamit_qtf_file(tmp_path: Path, suffix: str) -> None:
    """A small file in WAMIT's layout (PER1 PER2 BETA1 BETA2 I Mod Pha Re Im): one
    triangle written; the other half filled (conjugate for the difference QTF, equal for the
    sum); values * rho g L^k."""
    rng = np.random.default_rng(12)
    periods = [10.0, 8.0, 6.0]
    rows, truth = [], {}
    for a, p1 in enumerate(periods):
        for p2 in periods[a:]:
            for i in (1, 5):
                v = complex(*rng.normal(size=2))
                if p1 == p2 and suffix == ".12d":
                    v = complex(v.real, 0.0)
                rows.append((p1, p2, 0.0, 0.0, i, v.real, v.imag))
                truth[(p1, p2, i)] = v
    path = tmp_path / f"case{suffix}"
    _write_12(path, rows)
    rho, g, ulen = 1025.0, 9.81, 2.0
    q = read_wamit_qtf(path, rho=rho, g=g, ulen=ulen)
    assert q.kind == ("difference" if suffix == ".12d" else "sum")
    np.testing.assert_allclose(q.omega, np.sort(2 * np.pi / np.array(periods)), rtol=1e-12)
    for (p1, p2, i), v in truth.items():
        i1 = int(np.argmin(np.abs(q.omega - 2 * np.pi / p1)))
        i2 = int(np.argmin(np.abs(q.omega - 2 * np.pi / p2)))
        scale = rho * g * ulen ** (1 if i <= 3 else 2)
        assert q.values[0, i1, i2, i - 1] == pytest.approx(v * scale, rel=1e-6)
        other = np.conj(v) if suffix == ".12d" else v
        assert q.values[0, i2, i1, i - 1] == pytest.approx(other * scale, rel=1e-6)
    assert q.present.sum() == len(rows)
    assert np.all(q.values[..., [1, 2, 3, 5]] == 0.0)
    assert read_qtf(path, rho=rho, g=g, ulen=ulen).kind == q.kind


def test_wamit_qtf_bidirectional_pair_fill(tmp_path: Path) -> None:
    """With headings (0, 30) and (30, 0): Q(w2, w1; 30, 0) = conj Q(w1, w2; 0, 30)."""
    path = tmp_path / "bi.12d"
    _write_12(path, [(10.0, 8.0, 0.0, 30.0, 1, 1.0, 2.0), (8.0, 8.0, 30.0, 0.0, 1, 3.0, 0.5)])
    q = read_wamit_qtf(path, g=9.81, ulen=1.0)
    pairs = np.degrees(q.directions).round(6).tolist()
    h03, h30 = pairs.index([0.0, 30.0]), pairs.index([30.0, 0.0])
    i10 = int(np.argmin(np.abs(q.omega - 2 * np.pi / 10)))
    i8 = int(np.argmin(np.abs(q.omega - 2 * np.pi / 8)))
    s = RHO * 9.81
    assert q.values[h30, i8, i10, 0] == pytest.approx((1 - 2j) * s, rel=1e-6)
    assert q.values[h03, i8, i8, 0] == pytest.approx((3 - 0.5j) * s, rel=1e-6)


def test_wamit_numeric_needs_g_and_ulen(tmp_path: Path) -> None:
    lone = tmp_path / "lone.8"
    lone.write_text(SPHERE.with_suffix(".8").read_text())
    with pytest.raises(HydroDataError, match="ulen="):
        read_wamit_mean_drift(lone)
    assert read_wamit_mean_drift(lone, g=9.80665, ulen=1.0).method == "momentum"


def test_bemio_mean_drift(tmp_path: Path) -> None:
    """BEMIO's layout: body1/hydro_coeffs/mean_drift/<method>/val read by h5py as
    [dof, heading, frequency], divided by rho g (WEC-Sim's regExcitation multiplies by it)."""
    h5py = pytest.importorskip("h5py")
    assert bemio_drift_methods(DATA / "sphere_bemio.h5") == ()
    rng = np.random.default_rng(5)
    w = np.array([0.5, 1.0, 1.5, 2.0])
    beta = np.array([0.0, 90.0])
    val = rng.normal(size=(6, 2, 4))
    path = tmp_path / "drift.h5"
    with h5py.File(path, "w") as f:
        f["simulation_parameters/rho"] = 1025.0
        f["simulation_parameters/g"] = 9.81
        f["simulation_parameters/w"] = w
        f["simulation_parameters/wave_dir"] = beta
        f["body1/hydro_coeffs/mean_drift/momentum_conservation/val"] = val
    assert bemio_drift_methods(path) == ("momentum",)
    md = read_bemio_mean_drift(path, "momentum")
    np.testing.assert_array_equal(md.omega, w)
    np.testing.assert_allclose(md.direction, np.radians(beta), rtol=1e-15)
    for iw, ib, i in [(0, 0, 0), (3, 1, 5), (2, 1, 2)]:
        assert md.values[iw, ib, i] == pytest.approx(val[i, ib, iw] * 1025.0 * 9.81, rel=1e-14)
    with pytest.raises(HydroDataError, match="momentum"):
        read_bemio_mean_drift(path, "control_surface")
    assert read_mean_drift(path, "momentum").method == "momentum"


def test_dispatch(drift: dict[str, MeanDrift]) -> None:
    for suffix, method in METHODS.items():
        md = read_mean_drift(SPHERE.with_suffix(suffix))
        assert md.method == method
        np.testing.assert_array_equal(md.values, drift[method].values)
    assert read_mean_drift(SPHERE.with_suffix(".out"), "momentum").method == "momentum"
    with pytest.raises(HydroDataError, match="holds the momentum"):
        read_mean_drift(SPHERE.with_suffix(".8"), "pressure")
    with pytest.raises(HydroDataError, match="no mean drift reader"):
        read_mean_drift(SPHERE.with_suffix(".GDF"))
    ds = drift["control_surface"].to_dataset()
    assert ds["mean_drift"].sel(dof="surge").shape == (200, 1)
