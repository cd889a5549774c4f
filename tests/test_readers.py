"""Readers: dimensional values, conventions and bad input, on real files of examples/data.

Raw values are read here independently (h5py, netCDF4), never through the reader, so a
wrong transpose, scale or sign in the reader shows up as a mismatch.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import h5py
import netCDF4
import numpy as np
import pytest
import xarray as xr

from hydrofmu.io.hydro_checks import HydroDataWarning
from hydrofmu.io.readers import read_bemio, read_capytaine, read_hydro, read_hydro_bodies
from hydrofmu.runtime.errors import HydroDataError
from hydrofmu.runtime.hydrodata.model import HydroData

SPHERE_RADIUS = 5.0  # m, examples/data/README.md
CPT_DOFS = ["Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw"]

# Exact arithmetic checks (file value x rho x omega etc.) allow only float round-off of a
# few products: 1e-12 relative.
EXACT = 1e-12
# Against closed-form hemisphere values: the panel discretisation of the BEM mesh; the
# IEA sphere's waterplane, volume and buoyancy centre are within 0.03 % of the closed
# form, so 0.5 % is a tolerance a discretisation cannot explain away but a mistake in
# rho, g or r would exceed.
PANELS = 5e-3


def _quiet_read(path: Path, body: str | None = None) -> HydroData:
    """Read with the data's known, legitimate warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HydroDataWarning)
        return read_hydro(path, body)


@pytest.fixture(scope="module")
def sphere(data_dir: Path) -> HydroData:
    return _quiet_read(data_dir / "sphere_bemio.h5")


@pytest.fixture(scope="module")
def cylinder(data_dir: Path) -> HydroData:
    return _quiet_read(data_dir / "cylinder_capytaine.nc")


@pytest.fixture(scope="module")
def sphere_raw(data_dir: Path) -> dict[str, np.ndarray]:
    with h5py.File(data_dir / "sphere_bemio.h5", "r") as f:
        hc = f["body1/hydro_coeffs"]
        return {
            "w": f["simulation_parameters/w"][()].ravel(),
            "rho": float(f["simulation_parameters/rho"][()].ravel()[0]),
            "g": float(f["simulation_parameters/g"][()].ravel()[0]),
            "A": hc["added_mass/all"][()],
            "Ainf": hc["added_mass/inf_freq"][()],
            "B": hc["radiation_damping/all"][()],
            "Xre": hc["excitation/re"][()],
            "Xim": hc["excitation/im"][()],
            "K": hc["linear_restoring_stiffness"][()],
        }


# --------------------------------------------------------------------------- BEMIO sphere

def test_bemio_sphere_shapes_and_environment(sphere: HydroData) -> None:
    assert sphere.name == "sphere"
    assert sphere.nw == 240
    assert sphere.added_mass.shape == (240, 6, 6)
    assert sphere.excitation.shape == (240, 1, 6)
    assert sphere.excitation.dtype == np.complex128
    assert (sphere.rho, sphere.g) == (1000.0, 9.81)
    assert sphere.water_depth == 200.0  # as stated in the file, not turned into inf
    np.testing.assert_array_equal(sphere.wave_direction, [0.0])
    assert sphere.added_mass_inf_source == "file"
    # Coefficients about the centre of gravity (WEC-Sim convention): the sphere has no
    # rotational added mass about its centre, so about a point 2 m below it
    # A55 = A11 * 2^2 (to the panel discretisation).
    np.testing.assert_array_equal(sphere.reference_point, [0.0, 0.0, -2.0])
    a = sphere.added_mass_inf
    assert a[4, 4] == pytest.approx(4.0 * a[0, 0], rel=PANELS)


def test_bemio_sphere_added_mass_inf(sphere: HydroData, sphere_raw: dict) -> None:
    a33 = sphere.added_mass_inf[2, 2]
    assert a33 == pytest.approx(130.8768 * 1000.0, rel=EXACT)
    np.testing.assert_allclose(sphere.added_mass_inf, sphere_raw["Ainf"] * 1000.0, rtol=EXACT)
    # Floating hemisphere, infinite frequency: A33 = 0.5 rho (2/3 pi r^3) (Hulme 1982).
    hulme = 0.5 * 1000.0 * 2.0 / 3.0 * np.pi * SPHERE_RADIUS**3
    assert a33 == pytest.approx(hulme, rel=PANELS)


def test_bemio_sphere_hydrostatics(sphere: HydroData) -> None:
    k33 = sphere.hydrostatic_stiffness[2, 2]
    assert k33 == pytest.approx(78.531 * 1000.0 * 9.81, rel=EXACT)
    assert k33 == pytest.approx(1000.0 * 9.81 * np.pi * SPHERE_RADIUS**2, rel=PANELS)
    assert sphere.displaced_volume == pytest.approx(2.0 / 3.0 * np.pi * SPHERE_RADIUS**3,
                                                    rel=PANELS)
    # Centre of buoyancy of a hemisphere: 3 r / 8 below the waterplane, i.e.
    # 2 - 3 r / 8 above the reference point (the centre of gravity, 2 m below the centre).
    assert sphere.center_of_buoyancy[2] == pytest.approx(2.0 - 3.0 / 8.0 * SPHERE_RADIUS,
                                                         rel=PANELS)
    np.testing.assert_array_equal(sphere.center_of_gravity, [0.0, 0.0, 0.0])


def test_bemio_sphere_radiation_scaling_and_orientation(sphere: HydroData,
                                                        sphere_raw: dict) -> None:
    rho, w = sphere_raw["rho"], sphere_raw["w"]
    iw = 100
    assert sphere.radiation_damping[iw, 2, 2] == pytest.approx(
        sphere_raw["B"][2, 2, iw] * rho * w[iw], rel=EXACT)
    # Whole arrays, [influenced, radiating] = BEMIO's [row, column].
    np.testing.assert_allclose(sphere.added_mass,
                               np.moveaxis(sphere_raw["A"], 2, 0) * rho, rtol=EXACT)
    np.testing.assert_allclose(sphere.radiation_damping,
                               np.moveaxis(sphere_raw["B"], 2, 0) * rho * w[:, None, None],
                               rtol=EXACT, atol=0.0)


def test_bemio_sphere_excitation_kept_in_plus_convention(sphere: HydroData,
                                                         sphere_raw: dict) -> None:
    scale = sphere_raw["rho"] * sphere_raw["g"]
    raw = (sphere_raw["Xre"] + 1j * sphere_raw["Xim"]) * scale  # (6, nb, nw)
    np.testing.assert_allclose(sphere.excitation, raw.transpose(2, 1, 0), rtol=EXACT)
    # Long-wave limit: heave excitation -> K33 (real): a phase check, not just amplitude.
    x33 = sphere.excitation[0, 0, 2]
    assert abs(x33) / sphere.hydrostatic_stiffness[2, 2] == pytest.approx(1.0, abs=0.01)
    assert abs(np.angle(x33)) < 0.01


def test_bemio_body_selection(data_dir: Path) -> None:
    path = data_dir / "sphere_bemio.h5"
    by_name = _quiet_read(path, "sphere")
    by_group = _quiet_read(path, "body1")
    np.testing.assert_array_equal(by_name.added_mass, by_group.added_mass)
    with pytest.raises(HydroDataError, match=r"no body 'hull'.*'sphere' \(body1\)"):
        read_bemio(path, body="hull")


def test_bemio_extrapolated_ainf_error(data_dir: Path, tmp_path: Path) -> None:
    """The Ogilvie estimate against the A_inf the WAMIT sphere states: +0.57 %."""
    copy = tmp_path / "sphere_no_ainf.h5"
    shutil.copyfile(data_dir / "sphere_bemio.h5", copy)
    with h5py.File(copy, "r+") as f:
        truth = f["body1/hydro_coeffs/added_mass/inf_freq"][()] * 1000.0
        del f["body1/hydro_coeffs/added_mass/inf_freq"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hd = read_bemio(copy)
    assert any(issubclass(w.category, HydroDataWarning)
               and "added_mass_inf was not in the file" in str(w.message) for w in caught)
    assert hd.added_mass_inf_source == "extrapolated"
    assert any("Ogilvie" in n and "0.57 %" in n for n in hd.notes)
    diag = slice(0, 5)  # yaw is ~1e-5 kg m^2 of round-off: no relative error to speak of
    err = np.diag(hd.added_mass_inf)[diag] / np.diag(truth)[diag] - 1.0
    last = np.diag(hd.added_mass[-1])[diag] / np.diag(truth)[diag] - 1.0
    # The figure quoted in the docstrings and notes (+0.57 %) must stay true: +-0.1 %.
    np.testing.assert_allclose(err, 0.0057, atol=1e-3)
    # ... and the reason for the choice: the last frequency's A is at least twice as far.
    assert np.max(np.abs(last)) > 2.0 * np.max(np.abs(err))


def _two_body_bemio(data_dir: Path, path: Path) -> None:
    """A BEMIO file with bodies 'float' and 'plate' built from the sphere's data.

    The plate's coefficients are the sphere's times 2, the coupling columns times 0.1, so
    that reading the wrong block gives wrong numbers.
    """
    with h5py.File(data_dir / "sphere_bemio.h5", "r") as src, h5py.File(path, "w") as dst:
        src.copy("simulation_parameters", dst)
        src.copy("bem_data", dst)
        for k, (name, factor) in enumerate((("float", 1.0), ("plate", 2.0))):
            grp = dst.create_group(f"body{k + 1}")
            src.copy("body1/properties", grp)
            props = grp["properties"]
            del props["name"], props["dof_start"], props["dof_end"]
            props["name"] = np.bytes_(name)
            props["dof_start"] = np.array([[6.0 * k + 1]])
            props["dof_end"] = np.array([[6.0 * k + 6]])
            hc = grp.create_group("hydro_coeffs")
            for key in ("added_mass/all", "radiation_damping/all"):
                own = src["body1/hydro_coeffs/" + key][()] * factor
                blocks = [own if j == k else 0.1 * own for j in range(2)]
                hc[key] = np.concatenate(blocks, axis=1)  # (6, 12, nw)
            own = src["body1/hydro_coeffs/added_mass/inf_freq"][()] * factor
            hc["added_mass/inf_freq"] = np.concatenate(
                [own if j == k else 0.1 * own for j in range(2)], axis=1)
            for key in ("excitation/re", "excitation/im", "linear_restoring_stiffness"):
                hc[key] = src["body1/hydro_coeffs/" + key][()] * factor


def test_bemio_multibody(data_dir: Path, tmp_path: Path, sphere: HydroData) -> None:
    path = tmp_path / "two.h5"
    _two_body_bemio(data_dir, path)
    with pytest.raises(HydroDataError, match=r"2 bodies \('float' \(body1\), 'plate' "
                                             r"\(body2\)\); choose one"):
        read_bemio(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HydroDataWarning)
        plate = read_bemio(path, body="plate")
        float_ = read_bemio(path, body="body1")
    assert plate.name == "plate"
    np.testing.assert_allclose(plate.added_mass, 2.0 * sphere.added_mass, rtol=EXACT)
    np.testing.assert_allclose(plate.added_mass_inf, 2.0 * sphere.added_mass_inf, rtol=EXACT)
    np.testing.assert_allclose(float_.radiation_damping, sphere.radiation_damping, rtol=EXACT)
    assert any("coupling with the other bodies comes back" in n for n in plate.notes)


def test_bemio_missing_dataset(data_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "no_k.h5"
    shutil.copyfile(data_dir / "sphere_bemio.h5", copy)
    with h5py.File(copy, "r+") as f:
        del f["body1/hydro_coeffs/linear_restoring_stiffness"]
    with pytest.raises(HydroDataError, match=r"'/body1/hydro_coeffs/linear_restoring_stiffness'"
                                             r" is missing"):
        read_bemio(copy)


def test_bemio_wrong_shape(data_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "short_b.h5"
    shutil.copyfile(data_dir / "sphere_bemio.h5", copy)
    with h5py.File(copy, "r+") as f:
        b = f["body1/hydro_coeffs/radiation_damping/all"][()]
        del f["body1/hydro_coeffs/radiation_damping/all"]
        f["body1/hydro_coeffs/radiation_damping/all"] = b[:, :, :-1]
    with pytest.raises(HydroDataError, match=r"radiation_damping/all has shape \(6, 6, 239\), "
                                             r"expected \(6, 6, 240\)"):
        read_bemio(copy)


def test_bemio_infinite_depth_text(data_dir: Path, tmp_path: Path) -> None:
    """BEMIO writes the text 'infinite' for deep water (writeBEMIOH5.m)."""
    copy = tmp_path / "deep.h5"
    shutil.copyfile(data_dir / "sphere_bemio.h5", copy)
    with h5py.File(copy, "r+") as f:
        del f["simulation_parameters/water_depth"]
        f["simulation_parameters/water_depth"] = np.bytes_("infinite")
    assert _quiet_read(copy).water_depth == np.inf


# --------------------------------------------------------------------- bad files, dispatch

def _garbage(path: Path) -> Path:
    path.write_bytes(np.random.default_rng(1234).bytes(4096))
    return path


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(HydroDataError, match="no such file"):
        read_hydro(tmp_path / "absent.nc")


def test_garbage_netcdf(tmp_path: Path) -> None:
    with pytest.raises(HydroDataError, match="not a NetCDF file"):
        read_hydro(_garbage(tmp_path / "garbage.nc"))


def test_garbage_hdf5(tmp_path: Path) -> None:
    with pytest.raises(HydroDataError, match="not an HDF5 file"):
        read_hydro(_garbage(tmp_path / "garbage.h5"))


def test_wamit_out_dispatch(data_dir: Path) -> None:
    """``.out`` goes to the WAMIT reader (tests/test_wamit.py checks its values)."""
    with pytest.raises(HydroDataError, match=r"2 bodies \('float' \(body1\), 'spar' "
                                             r"\(body2\)\); choose one"):
        read_hydro(data_dir / "rm3_wamit.out", check=False)
    spar = read_hydro(data_dir / "rm3_wamit.out", body="body2", check=False)
    assert spar.name == "spar" and spar.reference_point[2] == -21.29


def test_bemio_bodies_keep_the_coupling(data_dir: Path, tmp_path: Path,
                                        sphere: HydroData) -> None:
    """The two-body file's coupling columns are 0.1 x the row body's own block."""
    path = tmp_path / "two.h5"
    _two_body_bemio(data_dir, path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HydroDataWarning)
        mb = read_hydro_bodies(path)
        plate = read_bemio(path, body="plate")
    assert mb.names == ("float", "plate")
    np.testing.assert_array_equal(mb.bodies[1].added_mass, plate.added_mass)
    np.testing.assert_allclose(mb.block(0, 1), 0.1 * sphere.added_mass_inf, rtol=EXACT)
    np.testing.assert_allclose(mb.block(1, 0), 0.2 * sphere.added_mass_inf, rtol=EXACT)
    np.testing.assert_allclose(mb.block("plate", "float", field="radiation_damping"),
                               0.2 * sphere.radiation_damping, rtol=EXACT)
    np.testing.assert_allclose(mb.block(0, 1, field="added_mass"), 0.1 * sphere.added_mass,
                               rtol=EXACT)
    off = mb.added_mass_inf_matrix(b2b=False)
    assert not off[:6, 6:].any() and not off[6:, :6].any()
    np.testing.assert_array_equal(off[6:, 6:], plate.added_mass_inf)


def test_capytaine_bodies_keep_the_coupling(sphere: HydroData, tmp_path: Path) -> None:
    big = sphere.with_changes(name="big", added_mass=2.0 * sphere.added_mass,
                              added_mass_inf=2.0 * sphere.added_mass_inf)
    path = _write_capytaine(_capytaine3_dataset({"sphere": sphere, "big": big}),
                            tmp_path / "two.nc")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HydroDataWarning)
        mb = read_hydro_bodies(path)
    assert mb.names == ("sphere", "big")
    # Off-diagonal blocks: 0.1 x the first body's (the dataset helper's convention).
    for i, j in ((0, 1), (1, 0)):
        np.testing.assert_allclose(mb.block(i, j), 0.1 * sphere.added_mass_inf, rtol=EXACT)
        np.testing.assert_allclose(mb.block(i, j, field="added_mass"),
                                   0.1 * sphere.added_mass, rtol=EXACT)
        np.testing.assert_allclose(mb.block(i, j, field="radiation_damping"),
                                   0.1 * sphere.radiation_damping, rtol=EXACT)
    np.testing.assert_allclose(mb.block(1, 1), 2.0 * sphere.added_mass_inf, rtol=EXACT)
    np.testing.assert_allclose(mb.excitation[..., 6:], big.excitation, rtol=EXACT)


def test_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(HydroDataError, match=r"unknown .* format '\.csv'"):
        read_hydro(tmp_path / "data.csv")


# ------------------------------------------------------------------- Capytaine 2.3.1 file

@pytest.fixture(scope="module")
def cylinder_raw(data_dir: Path) -> dict[str, np.ndarray]:
    with netCDF4.Dataset(data_dir / "cylinder_capytaine.nc") as d:
        assert d["added_mass"].dimensions == ("omega", "radiating_dof", "influenced_dof")
        assert d["excitation_force"].dimensions == ("complex", "omega", "wave_direction",
                                                    "influenced_dof")
        assert list(d["radiating_dof"][:]) == CPT_DOFS
        assert list(d["influenced_dof"][:]) == CPT_DOFS
        exc = np.asarray(d["excitation_force"][:])
        return {
            "omega": np.asarray(d["omega"][:]),
            "A": np.asarray(d["added_mass"][:]),   # [w, radiating, influenced]
            "X": exc[0] + 1j * exc[1],              # [w, beta, influenced], e^{-iwt}
            "K": np.asarray(d["hydrostatic_stiffness"][:]),
        }


def test_capytaine_cylinder_values(data_dir: Path, cylinder: HydroData,
                                   cylinder_raw: dict) -> None:
    assert cylinder_raw["omega"].size == 525
    # The file's first frequency (0.04 rad/s) failed in Capytaine: NaN. It is dropped.
    assert np.isnan(cylinder_raw["A"][0]).all()
    assert cylinder.nw == 524
    np.testing.assert_array_equal(cylinder.omega, cylinder_raw["omega"][1:])
    assert any("[0.04] rad/s" in n for n in cylinder.notes)
    assert cylinder.name == "floating_cylinder"
    assert cylinder.water_depth == 50.0
    assert (cylinder.rho, cylinder.g) == (1000.0, 9.81)
    assert cylinder.hydrostatic_stiffness[2, 2] > 0.0
    np.testing.assert_array_equal(cylinder.hydrostatic_stiffness, cylinder_raw["K"])
    # Model [w, influenced, radiating] = file [w, radiating, influenced] transposed. The
    # surge-pitch coupling is asymmetric in this file (-34.54 vs -34.35 kg m at 21 rad/s),
    # so a missing transpose fails here.
    np.testing.assert_array_equal(cylinder.added_mass,
                                  cylinder_raw["A"][1:].transpose(0, 2, 1))
    assert cylinder.added_mass[-1, 0, 4] != cylinder.added_mass[-1, 4, 0]
    assert cylinder.added_mass_inf_source == "extrapolated"
    assert np.isnan(cylinder.displaced_volume)
    assert np.isnan(cylinder.center_of_gravity).all()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_capytaine(data_dir / "cylinder_capytaine.nc")
    assert any(issubclass(w.category, HydroDataWarning)
               and "dropped: [0.04] rad/s" in str(w.message) for w in caught)


def test_capytaine_excitation_is_conjugated(cylinder: HydroData, cylinder_raw: dict) -> None:
    np.testing.assert_array_equal(cylinder.excitation, np.conj(cylinder_raw["X"][1:]))
    # Non-trivial: the imaginary parts are not all zero, so conj is not the identity.
    assert np.max(np.abs(cylinder.excitation.imag)) > 1.0


def test_capytaine_heave_excitation_long_wave_limit(cylinder: HydroData) -> None:
    """X33 -> K33 (real, positive) as omega -> 0; holds in both conventions."""
    x33 = cylinder.excitation[0, 0, 2]          # omega = 0.08 rad/s, kh ~ 0.18
    k33 = cylinder.hydrostatic_stiffness[2, 2]
    # Tolerance 1 %: the O((k r)^2) long-wave correction at 0.08 rad/s is below 0.1 %.
    assert x33.real / k33 == pytest.approx(1.0, abs=0.01)
    assert abs(np.angle(x33)) < 0.01


def test_capytaine_missing_stiffness(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "no_k.nc"
    with xr.open_dataset(data_dir / "cylinder_capytaine.nc", engine="netcdf4") as ds:
        ds.drop_vars("hydrostatic_stiffness").to_netcdf(path, engine="netcdf4")
    with pytest.raises(HydroDataError, match=r"'hydrostatic_stiffness' is missing.*"
                                             r"compute_hydrostatics\(\)"):
        read_capytaine(path)


def test_capytaine_missing_dof(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "five_dofs.nc"
    with xr.open_dataset(data_dir / "cylinder_capytaine.nc", engine="netcdf4") as ds:
        ds.isel(radiating_dof=slice(0, 5)).to_netcdf(path, engine="netcdf4")
    with pytest.raises(HydroDataError, match=r"lacks the DOF\(s\) \['yaw'\]"):
        read_capytaine(path)


def test_capytaine_unknown_body(data_dir: Path) -> None:
    with pytest.raises(HydroDataError, match=r"no body 'hull'.*available: 'floating_cylinder'"):
        read_capytaine(data_dir / "cylinder_capytaine.nc", body="hull")


# --------------------------------------------------------- Capytaine 3.0 layout (synthetic)

def _capytaine3_dataset(bodies: dict[str, HydroData], *,
                        rotation_center: tuple[float, float, float] = (0.0, 0.0, 0.0)
                        ) -> xr.Dataset:
    """A dataset laid out as Capytaine 3.0's ``fill_dataset`` output, from known data.

    Layout copied from a real 3.0 solve (coarse sphere, omega = [0, 1, 2, 3, inf]):
    ``added_mass(omega, influenced_dof, radiating_dof)``, complex excitation
    ``(omega, wave_direction, influenced_dof)`` with NaN at omega = 0 and inf, scalar
    coordinates ``body``, ``g``, ``rho``, ``water_depth``, ``forward_speed``, and
    ``rotation_center`` / ``center_of_mass`` / ``center_of_buoyancy`` / ``disp_mass`` on
    ``space_coordinate`` (and ``body`` for a multibody). Several bodies get DOFs named
    ``<body>__<Dof>``, block-diagonal matrices plus a coupling of 0.1 x the first body's.
    """
    names = list(bodies)
    ref = next(iter(bodies.values()))
    multi = len(names) > 1
    dofs = [f"{b}__{d}" if multi else d for b in names for d in CPT_DOFS]
    n = len(dofs)
    omega = np.concatenate([[0.0], ref.omega, [np.inf]])
    nw = omega.size
    a = np.zeros((nw, n, n))
    b = np.zeros((nw, n, n))
    x = np.full((nw, ref.wave_direction.size, n), np.nan + 0j)
    k = np.zeros((n, n))
    for i in range(len(names)):
        for j in range(len(names)):
            hd = bodies[names[i]] if i == j else ref
            f = 1.0 if i == j else 0.1
            bi, bj = slice(6 * i, 6 * i + 6), slice(6 * j, 6 * j + 6)
            a[1:-1, bi, bj] = f * hd.added_mass
            a[0, bi, bj] = f * hd.added_mass[0]
            a[-1, bi, bj] = f * hd.added_mass_inf
            b[1:-1, bi, bj] = f * hd.radiation_damping
        hd = bodies[names[i]]
        x[1:-1, :, 6 * i:6 * i + 6] = np.conj(hd.excitation)   # Capytaine: e^{-iwt}
        k[6 * i:6 * i + 6, 6 * i:6 * i + 6] = hd.hydrostatic_stiffness
    with np.errstate(divide="ignore"):
        period = 2 * np.pi / omega
    rc = np.array(rotation_center, dtype=float)
    per_body = ("body", "space_coordinate") if multi else ("space_coordinate",)

    def stack(values: list[np.ndarray]) -> np.ndarray:
        return np.array(values) if multi else values[0]

    ds = xr.Dataset(
        {
            "added_mass": (("omega", "influenced_dof", "radiating_dof"), a),
            "radiation_damping": (("omega", "influenced_dof", "radiating_dof"), b),
            "diffraction_force": (("omega", "wave_direction", "influenced_dof"), 0.3 * x),
            "Froude_Krylov_force": (("omega", "wave_direction", "influenced_dof"), 0.7 * x),
            "excitation_force": (("omega", "wave_direction", "influenced_dof"), x),
            "hydrostatic_stiffness": (("influenced_dof", "radiating_dof"), k),
            "center_of_buoyancy": (per_body, stack(
                [bodies[m].center_of_buoyancy + rc for m in names])),
            "disp_mass": (("body",) if multi else (), stack(
                [np.float64(bodies[m].displaced_volume * ref.rho) for m in names])),
        },
        coords={
            "omega": omega,
            "freq": ("omega", omega / (2 * np.pi)),
            "period": ("omega", period),
            "influenced_dof": dofs,
            "radiating_dof": dofs,
            "wave_direction": ref.wave_direction,
            "space_coordinate": ["x", "y", "z"],
            "rotation_center": (per_body, stack([rc for _ in names])),
            "center_of_mass": (per_body, stack(
                [bodies[m].center_of_gravity + rc for m in names])),
            "body": ("body", names) if multi else names[0],
            "g": ref.g,
            "rho": ref.rho,
            "water_depth": ref.water_depth,
            "forward_speed": 0.0,
        },
        attrs={"capytaine_version": "3.0.0"},
    )
    return ds


def _write_capytaine(ds: xr.Dataset, path: Path) -> Path:
    """Write with Capytaine's own NetCDF writer (complex -> leading 'complex' dim)."""
    from capytaine.io.xarray import save_dataset_as_netcdf

    save_dataset_as_netcdf(path, ds)
    return path


def test_capytaine3_layout_matches_bemio(sphere: HydroData, tmp_path: Path) -> None:
    """Same data through both readers: 3.0 layout, inf/0 rows, conjugation."""
    ds = _capytaine3_dataset({"sphere": sphere}, rotation_center=tuple(sphere.reference_point))
    path = _write_capytaine(ds, tmp_path / "s3.nc")
    with netCDF4.Dataset(path) as d:  # the writer really produced the 3.0 on-disk layout
        assert d["excitation_force"].dimensions[0] == "complex"
        assert d["added_mass"].dimensions == ("omega", "influenced_dof", "radiating_dof")
    hd = _quiet_read(path)
    assert hd.added_mass_inf_source == "file"
    assert hd.name == "sphere"
    np.testing.assert_array_equal(hd.omega, sphere.omega)          # 0 and inf rows gone
    np.testing.assert_array_equal(hd.added_mass_inf, sphere.added_mass_inf)
    for field in ("added_mass", "radiation_damping", "excitation", "hydrostatic_stiffness",
                  "wave_direction", "center_of_buoyancy", "center_of_gravity",
                  "reference_point"):
        np.testing.assert_array_equal(getattr(hd, field), getattr(sphere, field), err_msg=field)
    # disp_mass / rho: one multiplication and one division of round-off.
    assert hd.displaced_volume == pytest.approx(sphere.displaced_volume, rel=EXACT)
    assert hd.water_depth == sphere.water_depth


def test_capytaine3_rotation_center(sphere: HydroData, tmp_path: Path) -> None:
    rc = (1.0, -2.0, -0.5)
    ds = _capytaine3_dataset({"sphere": sphere}, rotation_center=rc)
    hd = _quiet_read(_write_capytaine(ds, tmp_path / "rc.nc"))
    np.testing.assert_array_equal(hd.reference_point, rc)
    # Centres are stored relative to the reference point (file values are absolute).
    np.testing.assert_allclose(hd.center_of_gravity, sphere.center_of_gravity, atol=1e-15)
    np.testing.assert_allclose(hd.center_of_buoyancy, sphere.center_of_buoyancy, atol=1e-15)


def test_capytaine_sum_when_no_excitation_variable(sphere: HydroData, tmp_path: Path) -> None:
    ds = _capytaine3_dataset({"sphere": sphere}).drop_vars("excitation_force")
    hd = _quiet_read(_write_capytaine(ds, tmp_path / "fk_diff.nc"))
    np.testing.assert_allclose(hd.excitation, sphere.excitation, rtol=EXACT)
    assert any("Froude_Krylov_force + diffraction_force" in n for n in hd.notes)


def test_capytaine3_multibody(sphere: HydroData, tmp_path: Path) -> None:
    big = sphere.with_changes(name="big", added_mass=2.0 * sphere.added_mass,
                              added_mass_inf=2.0 * sphere.added_mass_inf,
                              center_of_buoyancy=sphere.center_of_buoyancy + 1.0)
    ds = _capytaine3_dataset({"sphere": sphere, "big": big})
    path = _write_capytaine(ds, tmp_path / "two.nc")
    with pytest.raises(HydroDataError, match=r"2 bodies \('sphere', 'big'\); choose one"):
        read_capytaine(path)
    with pytest.raises(HydroDataError,
                       match=r"no body 'small' in the file; available: 'sphere', 'big'"):
        read_capytaine(path, body="small")
    hd = _quiet_read(path, "big")
    np.testing.assert_array_equal(hd.added_mass, big.added_mass)
    np.testing.assert_array_equal(hd.added_mass_inf, big.added_mass_inf)
    np.testing.assert_array_equal(hd.center_of_buoyancy, big.center_of_buoyancy)
    assert any("coupling with the other bodies comes back" in n for n in hd.notes)


@pytest.mark.slow
def test_capytaine3_real_solver_output(tmp_path: Path) -> None:
    """A file from a real Capytaine 3.0 solve, read back (coarse sphere, ~1 s).

    A coarse Green-function table, not cached on disk: the default one takes 12-20 s to
    build on a fresh machine, and the accuracy of the numbers is not what is tested here.
    """
    import capytaine as cpt
    mesh = cpt.mesh_sphere(radius=1.0, center=(0.0, 0.0, 0.0), resolution=(6, 12))
    body = cpt.FloatingBody(mesh=mesh, lid_mesh=mesh.generate_lid(),
                            dofs=cpt.rigid_body_dofs(rotation_center=(0.0, 0.0, 0.0)),
                            center_of_mass=(0.0, 0.0, -0.2), name="ball").immersed_part()
    test_matrix = xr.Dataset(coords={"omega": [0.0, 1.0, 2.0, 3.0, np.inf],
                                     "wave_direction": [0.0, np.pi / 2],
                                     "radiating_dof": list(body.dofs), "rho": [1025.0]})
    green = cpt.Delhommeau(tabulation_nr=100, tabulation_nz=60,
                           tabulation_nb_integration_points=201, tabulation_cache_dir=None)
    solver = cpt.BEMSolver(green_function=green)
    ds = solver.fill_dataset(test_matrix, body, n_jobs=1, progress_bar=False)
    path = tmp_path / "ball.nc"
    cpt.export_dataset(path, ds)
    hd = _quiet_read(path)
    assert hd.name == "ball"
    np.testing.assert_array_equal(hd.omega, [1.0, 2.0, 3.0])
    assert hd.added_mass_inf_source == "file"
    a = ds["added_mass"].transpose("omega", "influenced_dof", "radiating_dof").values
    np.testing.assert_array_equal(hd.added_mass_inf, a[-1])
    np.testing.assert_array_equal(hd.added_mass, a[1:-1])
    x = ds["excitation_force"].transpose("omega", "wave_direction", "influenced_dof").values
    np.testing.assert_array_equal(hd.excitation, np.conj(x[1:-1]))
    np.testing.assert_array_equal(hd.wave_direction, [0.0, np.pi / 2])
    assert hd.rho == 1025.0
    np.testing.assert_allclose(hd.center_of_gravity, [0.0, 0.0, -0.2], atol=1e-15)
    assert hd.displaced_volume == pytest.approx(float(ds["disp_mass"]) / 1025.0, rel=EXACT)


def test_single_body_file_as_bodies(data_dir: Path) -> None:
    """One body through read_hydro_bodies: the same data as read_hydro, N = 1."""
    for name in ("cylinder_capytaine.nc", "sphere_bemio.h5"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HydroDataWarning)
            mb = read_hydro_bodies(data_dir / name)
            hd = read_hydro(data_dir / name)
        assert mb.n_bodies == 1
        np.testing.assert_array_equal(mb.added_mass, hd.added_mass)
        np.testing.assert_array_equal(mb.added_mass_inf_matrix(b2b=False), hd.added_mass_inf)
        np.testing.assert_array_equal(mb.excitation, hd.excitation)
