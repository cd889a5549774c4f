"""The embedded default body (a Capytaine sphere) against closed forms and Hulme (1982).

The committed NetCDF file is read with xarray directly, independently of hydrofmu's readers.
Tolerances are ~3x the errors measured on the committed file (784 hull panels, BEM method
``direct``); the measured figures are quoted next to each one.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import xarray as xr
from scipy.interpolate import CubicSpline

from hydrofmu.runtime.errors import OptionalDependencyError

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "build_scripts" / "make_default_body.py"
DATA_FILE = ROOT / "fmu_src" / "hydrofmu" / "data" / "sphere_capytaine.nc"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_default_body", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


mdb = _load_script()
A = mdb.RADIUS
RHO = mdb.RHO
G = mdb.G
V_EXACT = 2.0 / 3.0 * np.pi * A**3
DOFS = ["Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw"]


@pytest.fixture(scope="module")
def ds() -> xr.Dataset:
    with xr.open_dataset(DATA_FILE, engine="netcdf4") as opened:
        return opened.load()


def _heave(ds: xr.Dataset, name: str) -> np.ndarray:
    return ds[name].sel(influenced_dof="Heave", radiating_dof="Heave").values


def _complex(da: xr.DataArray) -> xr.DataArray:
    return da.sel(complex="re") + 1j * da.sel(complex="im")


def test_file_is_small_and_in_package_data() -> None:
    assert DATA_FILE == mdb.PACKAGE_DATA_FILE
    assert DATA_FILE.stat().st_size < 1_000_000


def test_layout_and_metadata(ds: xr.Dataset) -> None:
    assert list(ds["influenced_dof"].values) == DOFS
    assert list(ds["radiating_dof"].values) == DOFS
    assert list(ds["complex"].values) == ["re", "im"]
    assert float(ds["rho"]) == RHO and float(ds["g"]) == G
    assert np.isinf(float(ds["water_depth"]))
    np.testing.assert_array_equal(ds["rotation_center"].values, mdb.ROTATION_CENTER)
    np.testing.assert_array_equal(ds["center_of_mass"].values, mdb.CENTER_OF_MASS)
    omega = ds["omega"].values
    assert omega[0] == 0.0 and np.isinf(omega[-1])
    # The IRF needs a fine, wide grid: d omega = 0.05 rad/s up to 5 rad/s.
    np.testing.assert_allclose(np.diff(omega[1:-1]), 0.05, rtol=1e-9)
    assert omega[1:-1].max() >= 5.0 - 1e-12
    exc = ds["excitation_force"].values
    assert np.all(np.isnan(exc[:, [0, -1]])) and np.all(np.isfinite(exc[:, 1:-1]))
    assert "creation_of_dataset" not in ds.attrs  # no time stamp: the file is reproducible


def test_displaced_volume(ds: xr.Dataset) -> None:
    # An inscribed polyhedron is smaller than the sphere. A flat square panel of side h cuts
    # a cap of mean depth ~h^2/(8a) off the sphere, so V deficits ~ 3 h^2 / (8 a^2) = 0.47 %
    # for h = pi a / 28 (measured: -0.52 %); allow twice that estimate.
    volume = float(ds["displaced_volume"])
    h = np.pi * A / mdb.MESH_RESOLUTION[0]
    deficit = 3 * h**2 / (8 * A**2)
    assert V_EXACT * (1 - 2 * deficit) < volume < V_EXACT
    assert float(ds["disp_mass"]) == pytest.approx(RHO * volume, rel=1e-12)


def test_mass_matrix(ds: xr.Dataset) -> None:
    m = ds["inertia_matrix"].sel(influenced_dof=DOFS, radiating_dof=DOFS).values
    mass = RHO * float(ds["displaced_volume"])
    z_g = mdb.CENTER_OF_MASS[2]
    np.testing.assert_allclose(np.diag(m)[:3], mass, rtol=1e-12)
    # CoM offset terms of the spatial mass matrix about the rotation centre.
    assert m[1, 3] == pytest.approx(-mass * z_g, rel=1e-12)
    assert m[0, 4] == pytest.approx(mass * z_g, rel=1e-12)
    # Uniform solid sphere about its centre: 0.4 m a^2; the mesh is 0.5 % short (measured).
    np.testing.assert_allclose(np.diag(m)[3:], 0.4 * mass * A**2, rtol=0.015)
    np.testing.assert_allclose(m, m.T, atol=1e-9 * np.abs(m).max())
    assert np.all(np.linalg.eigvalsh(m) > 0)


def test_hydrostatic_stiffness(ds: xr.Dataset) -> None:
    k = ds["hydrostatic_stiffness"].sel(influenced_dof=DOFS, radiating_dof=DOFS).values
    # The waterline is a regular n-gon inscribed in the circle: its area is
    # (n/2) sin(2 pi/n) a^2 exactly (-0.21 % of pi a^2 for n = 56).
    n = mdb.MESH_RESOLUTION[1]
    area = 0.5 * n * np.sin(2 * np.pi / n) * A**2
    assert k[2, 2] == pytest.approx(RHO * G * area, rel=1e-9)
    assert k[2, 2] == pytest.approx(RHO * G * np.pi * A**2, rel=3 * (1 - area / (np.pi * A**2)))
    # Metacentre at the sphere centre: K44 = rho g V (0 - z_G); measured -0.42 %.
    k44 = RHO * G * V_EXACT * (0.0 - mdb.CENTER_OF_MASS[2])
    np.testing.assert_allclose([k[3, 3], k[4, 4]], k44, rtol=0.012)
    z_b = float(ds["center_of_buoyancy"].sel(space_coordinate="z"))
    assert z_b == pytest.approx(-3 * A / 8, rel=0.006)  # measured -0.21 %
    # Surge, sway, yaw: no restoring force (K46 ~ -rho g V x_B ~ 3e-10 is round-off).
    free = [0, 1, 5]
    np.testing.assert_allclose(k[free, :], 0, atol=1e-12 * np.abs(k).max())
    np.testing.assert_allclose(k[:, free], 0, atol=1e-12 * np.abs(k).max())


def test_heave_added_mass_limits(ds: xr.Dataset) -> None:
    omega = ds["omega"].values
    a33 = _heave(ds, "added_mass") / (RHO * V_EXACT)
    # omega -> inf: 0.5 exactly for the hemisphere; measured 0.49864 (-0.27 %).
    assert a33[np.isinf(omega)][0] == pytest.approx(0.5, rel=0.008)
    # omega -> 0: Hulme 0.8310 (Storti & D'Elia: 0.830951); measured 0.82925 (-0.21 %).
    assert a33[omega == 0][0] == pytest.approx(mdb.HULME_HEAVE[0, 1], rel=0.006)


@pytest.mark.parametrize("ka", [0.1, 0.5, 1.0])
def test_heave_against_hulme(ds: xr.Dataset, ka: float) -> None:
    # Measured errors at ka = 0.1, 0.5, 1.0: A -0.18/-0.11/-0.11 %, B -0.27/-0.11/+0.17 %;
    # the cubic spline through the d omega = 0.05 grid adds < 3e-5. Tolerance 0.8 %.
    # (Beyond ka ~ 1.5 the damping error grows, +1.1 % at ka = 2: short waves, see README.)
    omega = ds["omega"].values
    finite = np.isfinite(omega) & (omega > 0)
    kas = omega[finite] ** 2 / G * A
    a33 = _heave(ds, "added_mass")[finite] / (RHO * V_EXACT)
    b33 = _heave(ds, "radiation_damping")[finite] / (RHO * V_EXACT * omega[finite])
    row = mdb.HULME_HEAVE[np.isclose(mdb.HULME_HEAVE[:, 0], ka)][0]
    assert float(CubicSpline(kas, a33)(ka)) == pytest.approx(row[1], rel=0.008)
    assert float(CubicSpline(kas, b33)(ka)) == pytest.approx(row[2], rel=0.008)


def test_added_mass_and_damping_structure(ds: xr.Dataset) -> None:
    added = ds["added_mass"].sel(influenced_dof=DOFS, radiating_dof=DOFS).values
    damping = ds["radiation_damping"].sel(influenced_dof=DOFS, radiating_dof=DOFS).values
    for a_w, b_w in zip(added, damping, strict=True):
        # Measured max |A - A^T| / max |A| per frequency 8.9e-6, same for B 5.1e-5.
        np.testing.assert_allclose(a_w, a_w.T, rtol=0, atol=3e-5 * np.abs(a_w).max())
        np.testing.assert_allclose(b_w, b_w.T, rtol=0, atol=1.5e-4 * max(np.abs(b_w).max(), 1))
        # Non-negative damping; the rotational terms are zero up to noise (B66 ~ 1e-26).
        assert np.all(np.diag(b_w) >= -1e-9 * np.abs(b_w).max())
        assert np.all(np.diag(a_w) >= -1e-9 * np.abs(a_w).max())
    assert np.all(damping[[0, -1]] == 0)  # no radiated waves at omega = 0 and inf


def test_excitation_consistent_with_damping(ds: xr.Dataset) -> None:
    # Haskind in deep water for a vertical axis of symmetry:
    #   B33 = w^3 |X3|^2 / (2 rho g^3),  B11 = w^3 |X1|^2 / (4 rho g^3).
    # Measured within 0.12 % (heave) and 0.21 % (surge) for omega <= 1 rad/s.
    omega = ds["omega"].values
    sel = np.isfinite(omega) & (omega > 0) & (omega <= 1.0)
    w = omega[sel]
    exc = _complex(ds["excitation_force"]).sel(wave_direction=0.0).isel(omega=sel)
    x3 = np.abs(exc.sel(influenced_dof="Heave").values)
    x1 = np.abs(exc.sel(influenced_dof="Surge").values)
    b33 = _heave(ds, "radiation_damping")[sel]
    b11 = ds["radiation_damping"].sel(influenced_dof="Surge", radiating_dof="Surge").values[sel]
    np.testing.assert_allclose(w**3 * x3**2 / (2 * RHO * G**3), b33, rtol=0.004)
    np.testing.assert_allclose(w**3 * x1**2 / (4 * RHO * G**3), b11, rtol=0.006)
    # Axisymmetry: the sway force in waves to +y is the surge force in waves to +x.
    sway = _complex(ds["excitation_force"]).sel(wave_direction=np.pi / 2, influenced_dof="Sway")
    surge = _complex(ds["excitation_force"]).sel(wave_direction=0.0, influenced_dof="Surge")
    finite = np.isfinite(omega) & (omega > 0)
    np.testing.assert_allclose(
        sway.values[finite], surge.values[finite], rtol=0, atol=1e-9 * np.abs(surge).max()
    )
    # Long waves: the heave force tends to the hydrostatic K33 per metre of amplitude.
    k33 = float(ds["hydrostatic_stiffness"].sel(influenced_dof="Heave", radiating_dof="Heave"))
    x3_long = complex(
        _complex(ds["excitation_force"])
        .sel(wave_direction=0.0)
        .isel(omega=1)
        .sel(influenced_dof="Heave")
    )
    assert abs(x3_long) == pytest.approx(k33, rel=0.005)  # measured -0.16 % at 0.05 rad/s


# --- the script's argument handling (no BEM solve) -----------------------------------------
@pytest.fixture
def no_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("the BEM must not run")

    monkeypatch.setattr(mdb, "compute", fail)
    monkeypatch.setattr(mdb, "run_bem", fail)


@pytest.mark.usefixtures("no_solve")
def test_refuses_to_overwrite_user_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    target = tmp_path / "mine.nc"
    target.write_bytes(b"precious")
    assert mdb.main(["-o", str(target)]) == 2
    assert target.read_bytes() == b"precious"
    assert "--force" in capsys.readouterr().err


@pytest.mark.usefixtures("no_solve")
def test_refuses_missing_directory_and_directory(tmp_path: Path) -> None:
    assert mdb.main(["-o", str(tmp_path / "nope" / "x.nc")]) == 2
    assert mdb.main(["-o", str(tmp_path), "--force"]) == 2


@pytest.mark.usefixtures("no_solve")
def test_missing_capytaine_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    def missing(module: str, extra: str) -> None:
        raise OptionalDependencyError(f"install it with: pip install 'hydrofmu[{extra}]'")

    monkeypatch.setattr(mdb, "require", missing)
    assert mdb.main(["-o", str(tmp_path / "new.nc")]) == 1
    assert "pip install 'hydrofmu[bem]'" in capsys.readouterr().err
    assert not (tmp_path / "new.nc").exists()


def test_resolve_output(tmp_path: Path) -> None:
    existing = tmp_path / "x.nc"
    existing.write_bytes(b"")
    assert mdb.resolve_output(None, force=False) == mdb.PACKAGE_DATA_FILE
    assert mdb.resolve_output(mdb.PACKAGE_DATA_FILE, force=False) == mdb.PACKAGE_DATA_FILE
    assert mdb.resolve_output(existing, force=True) == existing.resolve()
    assert mdb.resolve_output(tmp_path / "new.nc", force=False) == (tmp_path / "new.nc").resolve()
    with pytest.raises(FileExistsError, match="--force"):
        mdb.resolve_output(existing, force=False)
