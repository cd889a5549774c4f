"""WAMIT ``.out`` reader on the RM3 file of examples/data, and the multi-body data model.

The "printed" values below are copied from ``rm3_wamit.out`` (line numbers given) and
made dimensional by hand here, so a wrong index, scale or sign in the reader shows up.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.io.hydro_checks import HydroDataWarning
from hydrofmu.io.readers import read_hydro_bodies
from hydrofmu.io.wamit import read_wamit, read_wamit_bodies
from hydrofmu.runtime.errors import HydroDataError
from hydrofmu.runtime.hydrodata.multibody import MultiBodyData
from hydrofmu.runtime.hydrodata.store import load_model, save_model
from paths import WAMIT_RM3

RHO = 1000.0   # kg/m^3, the reader's default (WAMIT does not print it)
G = 9.81       # m/s^2, printed in the header (line 301)
# Products of a few printed numbers: float round-off only.
EXACT = 1e-12


def _quiet(path: Path = WAMIT_RM3, **kw: object) -> MultiBodyData:
    with warnings.catch_warnings():
        # The file's own small negative heave damping at 5.2 rad/s and its 1.02 % sway-roll
        # A_inf asymmetry are legitimate warnings of the checks.
        warnings.simplefilter("ignore", HydroDataWarning)
        return read_wamit_bodies(path, **kw)


@pytest.fixture(scope="module")
def rm3() -> MultiBodyData:
    return _quiet()


def _at(mb: MultiBodyData, period: float) -> int:
    w = 2.0 * np.pi / period
    i = int(np.argmin(np.abs(mb.omega - w)))
    assert abs(mb.omega[i] - w) < 1e-9 * w
    return i


# (period printed, I, J, A printed, B printed) -- 1-based WAMIT indices over both bodies.
AB_PRINTED = [
    (3.141593e02, 3, 3, 1.988329e03, 1.660938e00),     # line 693
    (7.662424e00, 3, 3, 1.399482e03, 7.381227e02),     # block at line 7746
    (7.662424e00, 1, 5, 1.751027e03, 4.509517e02),
    (7.662424e00, 5, 5, 2.630862e04, 3.372859e03),
    (7.662424e00, 3, 9, -1.311991e02, -3.268022e02),   # float heave from spar heave
    (7.662424e00, 9, 3, -1.315301e02, -3.277662e02),
    (7.662424e00, 9, 9, 8.893056e03, 1.449538e02),
    (3.878512e00, 3, 3, 9.828558e02, 2.458174e02),     # block at line 14826
    (3.878512e00, 5, 5, 1.767255e04, 4.289200e03),
    (3.878512e00, 3, 9, -6.264731e01, -2.988839e01),
]


@pytest.mark.parametrize(("period", "i", "j", "a_bar", "b_bar"), AB_PRINTED)
def test_added_mass_and_damping_printed(rm3: MultiBodyData, period: float, i: int, j: int,
                                        a_bar: float, b_bar: float) -> None:
    w = _at(rm3, period)
    omega = 2.0 * np.pi / period
    # ULEN = 1: A = rho * Abar, B = rho * omega * Bbar (any k).
    assert rm3.added_mass[w, i - 1, j - 1] == pytest.approx(RHO * a_bar, rel=EXACT)
    assert rm3.radiation_damping[w, i - 1, j - 1] == pytest.approx(RHO * omega * b_bar,
                                                                   rel=1e-6)
    # 1e-6: omega is 2 pi / T with T printed to 7 digits.


# (period, I, |Xbar|, phase deg) -- diffraction exciting forces, heading 0.
X_PRINTED = [
    (3.141593e02, 3, 2.854265e02, 0.0),       # line 828
    (3.141593e02, 1, 4.391506e-02, 90.0),
    (7.662424e00, 3, 1.467147e02, 20.0),
    (7.662424e00, 5, 4.409717e02, 87.0),
    (7.662424e00, 9, 6.514764e01, -160.0),
    (3.878512e00, 3, 4.280198e01, 122.0),
    (3.878512e00, 5, 2.515189e02, 138.0),
    (3.878512e00, 9, 5.214728e00, -58.0),
]


@pytest.mark.parametrize(("period", "i", "mod", "phase"), X_PRINTED)
def test_excitation_printed(rm3: MultiBodyData, period: float, i: int, mod: float,
                            phase: float) -> None:
    w = _at(rm3, period)
    x = rm3.excitation[w, 0, i - 1]
    # X = rho g L^m |Xbar| e^{i phase}, L = 1 (per metre of wave amplitude), e^{+iwt} kept.
    assert abs(x) == pytest.approx(RHO * G * mod, rel=EXACT)
    assert np.degrees(np.angle(x)) == pytest.approx(phase, abs=1e-9)
    body = rm3.bodies[(i - 1) // 6]
    assert body.excitation[w, 0, (i - 1) % 6] == x


def test_header_hydrostatics_and_volumes(rm3: MultiBodyData) -> None:
    flt, spar = rm3.bodies
    assert rm3.names == ("float", "spar")          # geometry files float.gdf, spar.gdf
    assert flt.g == G and flt.rho == RHO and flt.water_depth == np.inf
    assert rm3.omega.size == 260 and rm3.wave_direction.tolist() == [0.0]
    np.testing.assert_array_equal(flt.reference_point, [0.0, 0.0, -0.72])    # line 316
    np.testing.assert_array_equal(spar.reference_point, [0.0, 0.0, -21.29])  # line 332
    # Volumes (VOLX, VOLY, VOLZ), lines 317 and 333: the mean.
    assert flt.displaced_volume == pytest.approx((725.833 * 2 + 725.834) / 3, rel=EXACT)
    assert spar.displaced_volume == pytest.approx((886.687 * 2 + 886.691) / 3, rel=EXACT)
    np.testing.assert_array_equal(flt.center_of_buoyancy, [0.0, 3e-6, -0.572734])
    np.testing.assert_array_equal(spar.center_of_buoyancy, [0.0, -2e-6, 5.686012])
    np.testing.assert_array_equal(flt.center_of_gravity, [0.0, 3e-6, 0.0])
    # C = rho g L^k Cbar, lines 320-322 and 336-338.
    rg = RHO * G
    assert flt.hydrostatic_stiffness[2, 2] == pytest.approx(rg * 285.52, rel=EXACT)
    assert flt.hydrostatic_stiffness[3, 3] == pytest.approx(rg * 7347.0, rel=EXACT)
    assert flt.hydrostatic_stiffness[2, 3] == pytest.approx(rg * -0.31588e-3, rel=EXACT)
    assert flt.hydrostatic_stiffness[3, 2] == flt.hydrostatic_stiffness[2, 3]
    assert spar.hydrostatic_stiffness[2, 2] == pytest.approx(rg * 28.238, rel=EXACT)
    assert spar.hydrostatic_stiffness[4, 4] == pytest.approx(rg * 5104.0, rel=EXACT)
    # Physics: the heave stiffness is rho g times the waterplane area, and the long-wave
    # heave excitation tends to it (Froude-Krylov = hydrostatic at k -> 0): 0.04 % at
    # T = 314 s (k L = 4e-5), the panel solution's difference between the two integrals.
    assert abs(flt.excitation[0, 0, 2]) == pytest.approx(flt.hydrostatic_stiffness[2, 2],
                                                         rel=1e-3)
    # Buoyancy = weight for a freely floating body: rho V g equals C33 * draft-integral
    # only for a wall-sided body, so here only the order: float 726 m^3 ~ 725.8 t of water.
    assert flt.displaced_volume * RHO == pytest.approx(725833.0, rel=1e-5)


def test_infinite_and_zero_frequency_blocks(rm3: MultiBodyData) -> None:
    # "Wave period = zero" block (line 511ff): A(1,1) = 92.72929, A(5,1) = 468.6916,
    # A(1,11) = -107.2742 (float surge from spar pitch, cross-body, k = 4 with L = 1).
    assert rm3.added_mass_inf[0, 0] == pytest.approx(RHO * 92.72929, rel=EXACT)
    assert rm3.added_mass_inf[4, 0] == pytest.approx(RHO * 468.6916, rel=EXACT)
    assert rm3.added_mass_inf[0, 10] == pytest.approx(RHO * -107.2742, rel=EXACT)
    assert rm3.bodies[0].added_mass_inf_source == "file"
    assert rm3.bodies[1].added_mass_inf_source == "file"
    # "Wave period = infinite" block (line 356ff): A(1,1) = 229.2294, A(1,7) = 35.77414.
    assert rm3.added_mass_zero[0, 0] == pytest.approx(RHO * 229.2294, rel=EXACT)
    assert rm3.added_mass_zero[0, 6] == pytest.approx(RHO * 35.77414, rel=EXACT)
    # ... and A(omega) at the longest period (314 s, kL = 4e-5) is close to it: measured
    # 0.18 % in heave (surface-piercing heave added mass approaches its limit only
    # logarithmically in k), so 0.5 %; a wrong block or scale would be off by far more.
    assert rm3.added_mass[0, 2, 2] == pytest.approx(rm3.added_mass_zero[2, 2], rel=5e-3)


def test_coupled_blocks_reciprocal(rm3: MultiBodyData) -> None:
    """Body-to-body blocks are reciprocal (A_ij = A_ji): a physics check of the indexing.

    Below 3 rad/s (periods above 2.1 s, the wave band of the RM3) WAMIT's A(3,9) and
    A(9,3) differ by at most 0.62 % of max |A(3,9)| (measured); 1 % bounds that panel
    asymmetry. Near 5.2 rad/s (an irregular frequency of the mesh, where the heave damping
    also dips below zero) the difference reaches 4 %, so that band is left out. A
    transposed block (A(9,3) vs A(3,9) taken as A(9,9) or A(3,3)) would be off by 100 %+.
    """
    band = rm3.omega < 3.0
    a39 = rm3.block("float", "spar", field="added_mass")[band, 2, 2]
    a93 = rm3.block("spar", "float", field="added_mass")[band, 2, 2]
    assert np.abs(a39 - a93).max() < 0.01 * np.abs(a39).max()
    b = rm3.damping_matrix(b2b=True)
    assert np.abs(b[:, 2, 8]).max() > 1e4            # the coupling is there ...
    assert not rm3.damping_matrix(b2b=False)[:, 2, 8].any()   # ... and b2b=False drops it


def test_length_scale(tmp_path: Path, rm3: MultiBodyData) -> None:
    """ULEN = 2: A scales as L^3, L^4, L^5, X as L^2, L^3, C as L^2, L^3, L^4."""
    text = WAMIT_RM3.read_text(encoding="latin-1")
    scaled = tmp_path / "rm3_L2.out"
    old = "Length scale:        1.00000"
    assert old in text
    scaled.write_text(text.replace(old, "Length scale:        2.00000"), encoding="latin-1")
    mb = _quiet(scaled)
    r = mb.added_mass_inf / rm3.added_mass_inf
    assert r[2, 2] == pytest.approx(8.0, rel=EXACT)       # heave-heave k = 3
    assert r[0, 4] == pytest.approx(16.0, rel=EXACT)      # surge-pitch k = 4
    assert r[4, 4] == pytest.approx(32.0, rel=EXACT)      # pitch-pitch k = 5
    assert r[2, 10] == pytest.approx(16.0, rel=EXACT)     # float heave - spar pitch
    rb = mb.radiation_damping[10] / rm3.radiation_damping[10]
    assert rb[2, 2] == pytest.approx(8.0, rel=EXACT)
    assert rb[4, 4] == pytest.approx(32.0, rel=EXACT)
    rx = np.abs(mb.excitation[10, 0]) / np.abs(rm3.excitation[10, 0])
    assert rx[2] == pytest.approx(4.0, rel=EXACT) and rx[4] == pytest.approx(8.0, rel=EXACT)
    c1, c0 = mb.bodies[0].hydrostatic_stiffness, rm3.bodies[0].hydrostatic_stiffness
    assert c1[2, 2] / c0[2, 2] == pytest.approx(4.0, rel=EXACT)
    assert c1[2, 3] / c0[2, 3] == pytest.approx(8.0, rel=EXACT)
    assert c1[3, 3] / c0[3, 3] == pytest.approx(16.0, rel=EXACT)
    # Geometry is printed dimensional: not scaled.
    assert mb.bodies[0].displaced_volume == rm3.bodies[0].displaced_volume


def test_rho_parameter() -> None:
    mb = _quiet(rho=1025.0)
    assert mb.bodies[0].rho == 1025.0
    assert mb.added_mass_inf[0, 0] == pytest.approx(1025.0 * 92.72929, rel=EXACT)
    with pytest.raises(HydroDataError, match=r"rho must be a finite positive density"):
        read_wamit_bodies(WAMIT_RM3, rho=-1.0)


def test_body_selection() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HydroDataWarning)
        spar = read_wamit(WAMIT_RM3, "spar")
        also = read_wamit(WAMIT_RM3, "body2")
    np.testing.assert_array_equal(spar.added_mass, also.added_mass)
    with pytest.raises(HydroDataError, match=r"no body 'plate'.*'float' \(body1\)"):
        read_wamit(WAMIT_RM3, "plate", check=False)


def _lines() -> list[str]:
    return WAMIT_RM3.read_text(encoding="latin-1").splitlines(keepends=True)


def test_truncated_file(tmp_path: Path) -> None:
    lines = _lines()
    cut = tmp_path / "cut.out"
    cut.write_text("".join(lines[:7800]), encoding="latin-1")   # inside the 7.66 s block
    with pytest.raises(HydroDataError, match=r"line 7746: the added mass of the block "
                                             r"'Wave period' at line 7746 lacks \d+ of the "
                                             r"144 \(I, J\) pairs"):
        read_wamit_bodies(cut, check=False)
    head = tmp_path / "head.out"
    head.write_text("".join(lines[:200]), encoding="latin-1")
    with pytest.raises(HydroDataError, match=r"line 1: no 'Gravity"):
        read_wamit_bodies(head, check=False)


def test_malformed_number(tmp_path: Path) -> None:
    lines = _lines()
    n = next(k for k, t in enumerate(lines) if t.split()[:2] == ["3", "3"] and k > 670)
    lines[n] = lines[n].replace("E+03", "X+03", 1)
    bad = tmp_path / "bad.out"
    bad.write_text("".join(lines), encoding="latin-1")
    with pytest.raises(HydroDataError, match=rf"line {n + 1}: expected 4 numbers \(I, J, "
                                             r"A\(I,J\), B\(I,J\)\)"):
        read_wamit_bodies(bad, check=False)


def test_dispatch_through_read_hydro_bodies(rm3: MultiBodyData) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HydroDataWarning)
        mb = read_hydro_bodies(WAMIT_RM3)
    np.testing.assert_array_equal(mb.added_mass, rm3.added_mass)


# ------------------------------------------------------------------ the data model, store

def test_store_round_trip_is_exact(rm3: MultiBodyData, tmp_path: Path) -> None:
    path = save_model(tmp_path / "rm3.npz", {"multibody": rm3, "config": {"b2b": True}})
    back = load_model(path)
    mb = back["multibody"]
    assert back["bodies"][1] is mb.bodies[1] and back["config"] == {"b2b": True}
    for name in ("added_mass", "radiation_damping", "added_mass_inf", "added_mass_zero"):
        a, b = getattr(rm3, name), getattr(mb, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert mb.source == rm3.source and mb.notes == rm3.notes
    for x, y in zip(rm3.bodies, mb.bodies, strict=True):
        assert x.name == y.name and np.array_equal(x.excitation, y.excitation)
        assert np.array_equal(x.hydrostatic_stiffness, y.hydrostatic_stiffness)
        assert x.notes == y.notes and x.water_depth == y.water_depth
    with pytest.raises(HydroDataError, match=r"are not the bodies of payload\['multibody'\]"):
        save_model(tmp_path / "x.npz", {"multibody": rm3, "bodies": [rm3.bodies[1],
                                                                     rm3.bodies[0]]})
    # A single-body payload has no multibody entry, as before.
    assert "multibody" not in load_model(save_model(tmp_path / "one.npz",
                                                    {"bodies": [rm3.bodies[0]]}))


def test_model_consistency_and_subset(rm3: MultiBodyData) -> None:
    a = rm3.added_mass_inf.copy()
    a[2, 2] *= 1.0 + 1e-9
    with pytest.raises(HydroDataError, match=r"diagonal block of added_mass_inf for body "
                                             r"'float' differs"):
        MultiBodyData(bodies=rm3.bodies, added_mass=rm3.added_mass,
                      radiation_damping=rm3.radiation_damping, added_mass_inf=a)
    swapped = rm3.subset(["spar", "float"])
    np.testing.assert_array_equal(swapped.block(0, 1), rm3.block(1, 0))
    np.testing.assert_array_equal(swapped.added_mass_inf_matrix(b2b=True)[6:, 6:],
                                  rm3.bodies[0].added_mass_inf)
    un = MultiBodyData.uncoupled(rm3.bodies)
    np.testing.assert_array_equal(un.added_mass_inf, rm3.added_mass_inf_matrix(b2b=False))
    with pytest.raises(HydroDataError, match=r"no body 'plate'; available"):
        rm3.block("plate", 0)


def test_haskind_when_no_diffraction_and_rotated_body_refused(tmp_path: Path,
                                                              rm3: MultiBodyData) -> None:
    text = WAMIT_RM3.read_text(encoding="latin-1")
    haskind = tmp_path / "haskind.out"
    haskind.write_text(text.replace("DIFFRACTION EXCITING", "HASKIND EXCITING"),
                       encoding="latin-1")
    mb = _quiet(haskind)
    np.testing.assert_array_equal(mb.excitation, rm3.excitation)
    assert any("haskind exciting forces" in n for n in mb.notes)
    assert any("diffraction exciting forces" in n for n in rm3.notes)
    rotated = tmp_path / "rotated.out"
    rotated.write_text(text.replace("PHIBODY =   0.0", "PHIBODY =  90.0", 1),
                       encoding="latin-1")
    from hydrofmu.io.readers import UnsupportedFormatError

    with pytest.raises(UnsupportedFormatError, match=r"PHIBODY = 90.0 deg"):
        read_wamit_bodies(rotated, check=False)
