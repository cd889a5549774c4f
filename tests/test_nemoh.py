"""NEMOH v3 readers: first-order results into HydroData and the QTFs (issue 27, point 1).

The case is the OC3-Hywind spar of examples/data/nemoh_oc3_hywind. Each check compares the
reader with NEMOH's own tables parsed here independently (the .tec files against the
.dat files NEMOH writes beside them), or with a hand computation.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.io.nemoh import read_nemoh
from hydrofmu.io.nemoh_qtf import read_nemoh_mean_drift, read_nemoh_qtf
from hydrofmu.io.readers import read_hydro
from hydrofmu.io.second_order import read_mean_drift, read_qtf
from hydrofmu.runtime.errors import HydroDataError

CASE = Path(__file__).resolve().parents[1] / "examples" / "data" / "nemoh_oc3_hywind"
RES = CASE / "results"
RHO, G = 1025.0, 9.81           # Nemoh.cal's first two values, checked below
#: CA.dat / CM.dat print 6 significant digits (0.xxxxxxE+nn): half a unit of the last digit
#: is at most 5e-6 of the value; the .tec tables print 7.
SIX_DIGITS = 5.5e-6


@pytest.fixture(scope="module")
def hd():
    with pytest.warns(Warning):       # the data checks warn (A_inf estimated, B dips)
        return read_nemoh(CASE)


def _matrices(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies, matrices (nw, 6, 6)) of CA.dat / CM.dat, row = motion DOF."""
    lines = path.read_text().splitlines()
    nw = int(lines[0].split(":")[1])
    w, mats = [], []
    for k in range(nw):
        block = lines[1 + 7 * k: 8 + 7 * k]
        w.append(float(block[0]))
        mats.append([[float(x) for x in ln.split()] for ln in block[1:]])
    return np.array(w), np.array(mats)


def _tec_forces(path: Path) -> np.ndarray:
    """(nw, 6) complex F as the .tec prints it (|F|, angle in rad), one zone."""
    rows = [[float(x) for x in ln.split()] for ln in path.read_text().splitlines()
            if ln.strip() and ln.strip()[0] in "0123456789-"]
    a = np.array(rows)
    return a[:, 1::2] * np.exp(1j * a[:, 2::2])


def test_environment_and_reference(hd) -> None:
    cal = CASE.joinpath("Nemoh.cal").read_text().splitlines()
    assert (hd.rho, hd.g) == (float(cal[1].split()[0]), float(cal[2].split()[0])) == (RHO, G)
    assert hd.water_depth == np.inf                  # DEPTH 0 is NEMOH's infinite depth
    np.testing.assert_array_equal(hd.reference_point, [float(x) for x in cal[14].split()[4:7]])
    text = CASE.joinpath("Mesh", "Hydrostatics.dat").read_text()
    get = {k: float(re.search(rf"{k}\s*=\s*(\S+)", text).group(1))
           for k in ("XF", "YF", "ZF", "XG", "YG", "ZG", "Displacement")}
    np.testing.assert_allclose(hd.center_of_buoyancy + hd.reference_point,
                               [get["XF"], get["YF"], get["ZF"]], atol=1e-12)
    np.testing.assert_allclose(hd.center_of_gravity + hd.reference_point,
                               [get["XG"], get["YG"], get["ZG"]], atol=1e-12)
    assert hd.displaced_volume == get["Displacement"]


def test_radiation_equals_ca_cm(hd) -> None:
    """RadiationCoefficients.tec (what the reader reads) against CM.dat (added mass) and
    CA.dat (damping): row j of those files is the motion DOF, column i the force DOF."""
    w_m, cm = _matrices(RES / "CM.dat")
    w_a, ca = _matrices(RES / "CA.dat")
    np.testing.assert_allclose(hd.omega, w_m, atol=5e-5)     # CM.dat prints 4 decimals
    np.testing.assert_array_equal(w_m, w_a)
    for ours, table in ((hd.added_mass, cm), (hd.radiation_damping, ca)):
        theirs = table.transpose(0, 2, 1)                   # [w, force i, motion j]
        np.testing.assert_allclose(ours, theirs, rtol=SIX_DIGITS, atol=1e-30)
    # not symmetric by construction: the surge-pitch coupling read both ways agrees
    assert hd.added_mass[0, 0, 4] == pytest.approx(hd.added_mass[0, 4, 0], rel=1e-3)


def test_excitation_is_fk_plus_diffraction_conjugated(hd) -> None:
    """X = conj(FK + diffraction) (NEMOH e^{-i w t} -> e^{+i w t}), the .tec tables (7
    digits: the sum agrees to 2e-6 of each DOF's largest value)."""
    fk = _tec_forces(RES / "FKForce.tec")
    dif = _tec_forces(RES / "DiffractionForce.tec")
    exc = _tec_forces(RES / "ExcitationForce.tec")
    x = hd.excitation[:, 0, :]
    np.testing.assert_allclose(x, np.conj(exc), rtol=1e-15)
    peak = np.max(np.abs(exc), axis=0)
    assert np.all(np.max(np.abs(exc - (fk + dif)), axis=0) <= 2e-6 * peak)
    # Fe.dat: the same in N/m and degrees, 6 digits and phases to 0.01 degree
    fe = np.array([[float(v) for v in ln.split()] for ln in
                   (RES / "Fe.dat").read_text().splitlines()[3:] if ln.strip()])
    x_fe = fe[:, 1:7] * np.exp(1j * np.radians(fe[:, 7:13]))
    np.testing.assert_allclose(np.conj(x), x_fe, atol=0, rtol=SIX_DIGITS + np.radians(0.005))
    # e^{+i w t}: the surge load leads the elevation at the origin by 90 degrees at low
    # frequency (inertia of the fluid accelerating under the crest), as WAMIT's hemisphere
    assert np.degrees(np.angle(x[0, 0])) == pytest.approx(90.0, abs=0.01)


def test_hydrostatics_by_hand(hd) -> None:
    """KH.dat read as printed; K33 = rho g A_wp and K44 = rho g (V (zB - zG) + I_wp) with the
    circular waterplane's I_wp = A_wp^2 / (4 pi). Measured: K33 5e-6 from rho g A_wp (NEMOH
    integrates the two over the panels differently), K44 1e-5 (zB printed to 3 decimals:
    3e-5)."""
    kh = np.array([[float(v) for v in ln.split()] for ln in
                   CASE.joinpath("Mesh", "KH.dat").read_text().splitlines() if ln.strip()])
    np.testing.assert_array_equal(hd.hydrostatic_stiffness, kh)
    text = CASE.joinpath("Mesh", "Hydrostatics.dat").read_text()
    awp = float(re.search(r"Waterplane area =\s*(\S+)", text).group(1))
    k33 = RHO * G * awp
    k44 = RHO * G * (hd.displaced_volume * (hd.center_of_buoyancy[2]
                                            - hd.center_of_gravity[2]) + awp ** 2 / (4 * np.pi))
    assert hd.hydrostatic_stiffness[2, 2] == pytest.approx(k33, rel=1e-5)
    assert hd.hydrostatic_stiffness[3, 3] == pytest.approx(k44, rel=1e-4)
    assert hd.hydrostatic_stiffness[4, 4] == pytest.approx(k44, rel=1e-4)
    assert hd.inertia_matrix is not None and hd.inertia_matrix[0, 0] == pytest.approx(
        RHO * hd.displaced_volume, rel=1e-6)


def test_read_hydro_dispatch(hd) -> None:
    for path in (CASE, CASE / "Nemoh.cal"):
        other = read_hydro(path, check=False)
        np.testing.assert_array_equal(other.excitation, hd.excitation)
        np.testing.assert_array_equal(other.added_mass, hd.added_mass)
    assert read_hydro(CASE, "body1", check=False).name == hd.name


def test_not_a_nemoh_folder(tmp_path: Path) -> None:
    with pytest.raises(HydroDataError, match=r"Nemoh\.cal"):
        read_nemoh(tmp_path)


def _qtf_rows(name: str) -> np.ndarray:
    lines = (RES / "QTF" / name).read_text().splitlines()
    assert lines[0].split()[0] == "w1[rad/s]"
    return np.array([[float(v) for v in ln.split()] for ln in lines[1:] if ln.strip()])


@pytest.mark.parametrize("kind, name", [("difference", "OUT_QTFM_N_0.dat"),
                                        ("sum", "OUT_QTFP_N_0.dat")])
def test_qtf_entries(kind: str, name: str) -> None:
    """Every entry of 80 random rows: Q(w1, w2) = conj(Re + i Im) rho g; its mirror
    conj (difference) or equal (sum); |Q| and the phase columns agree (7 digits)."""
    q = read_nemoh_qtf(CASE, kind)
    rows = _qtf_rows(name)
    assert q.kind == kind and q.omega.size == 26 and q.present.sum() == len(rows)
    rng = np.random.default_rng(32)
    for r in rows[rng.choice(len(rows), 80, replace=False)]:
        i1 = int(np.argmin(np.abs(q.omega - r[0])))
        i2 = int(np.argmin(np.abs(q.omega - r[1])))
        assert q.omega[i1] == pytest.approx(r[0], abs=1e-12)
        v = q.values[0, i1, i2, int(r[4]) - 1]
        assert v == pytest.approx(complex(r[7], -r[8]) * RHO * G, rel=1e-12)
        assert abs(v) == pytest.approx(r[5] * RHO * G, rel=2e-6, abs=1e-9)
        if abs(v) > 1e-6 * r[5] * RHO * G and r[5] > 1e-10:
            d = np.degrees(np.angle(v)) + r[6]               # conj: phase changes sign
            assert np.angle(np.exp(1j * np.radians(d))) == pytest.approx(0.0, abs=1e-4)
        mirror = q.values[0, i2, i1, int(r[4]) - 1]
        assert mirror == (np.conj(v) if kind == "difference" else v)


def test_qtf_normalisation_by_hand() -> None:
    """One row by hand: w1 = 0.30, w2 = 0.25 rad/s, surge."""
    line = next(ln for ln in (RES / "QTF" / "OUT_QTFM_N_0.dat").read_text().splitlines()[1:]
                if ln.split()[:2] == ["0.300", "0.250"] and ln.split()[4] == "1")
    re_, im = float(line.split()[7]), float(line.split()[8])
    q = read_qtf(CASE, "difference")
    i1, i2 = int(np.argmin(np.abs(q.omega - 0.30))), int(np.argmin(np.abs(q.omega - 0.25)))
    assert q.values[0, i1, i2, 0].real == pytest.approx(re_ * 1025.0 * 9.81, rel=1e-12)
    assert q.values[0, i1, i2, 0].imag == pytest.approx(-im * 1025.0 * 9.81, rel=1e-12)


def test_mean_drift_is_the_diagonal() -> None:
    rows = _qtf_rows("OUT_QTFM_N_0.dat")
    diag = rows[rows[:, 0] == rows[:, 1]]
    assert np.all(diag[:, 8] == 0.0)                       # real on the diagonal
    md = read_nemoh_mean_drift(CASE)
    assert md.method == "qtf_diagonal" and md.values.shape == (26, 1, 6)
    for r in diag:
        iw = int(np.argmin(np.abs(md.omega - r[0])))
        assert md.values[iw, 0, int(r[4]) - 1] == pytest.approx(r[7] * RHO * G, rel=1e-12)
    np.testing.assert_array_equal(read_mean_drift(CASE).values, md.values)
    np.testing.assert_array_equal(
        read_mean_drift(RES / "QTF" / "OUT_QTFM_N_0.dat").values, md.values)
    with pytest.raises(HydroDataError, match="sum QTF"):
        read_nemoh_qtf(CASE, "sum").mean_drift()
