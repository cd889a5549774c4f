"""``hydrofmu bem``: the [bem] table, mesh checks, and validation of the Capytaine solve.

References: WAMIT's floating sphere (r = 5 m, 200 m water, ``examples/data/sphere_bemio.h5``)
and Hulme (1982) for the heaving hemisphere in deep water. The spheres are solved with
their rotation symmetry (``[bem] symmetry = "auto"``); each panel size once per module.
The slow part is the 6272-panel sphere (~15 s idle, mostly Capytaine's mesh handling).
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from hydrofmu import bem
from hydrofmu.cli import main as cli_main
from hydrofmu.config.configuration import load_config
from hydrofmu.io.readers import read_hydro
from hydrofmu.runtime.errors import ConfigError, HydroDataError
from paths import BEMIO_SPHERE, ROOT

RADIUS = 5.0
G = 9.81
DATA_FILE = ROOT / "fmu_src" / "hydrofmu" / "data" / "sphere_capytaine.nc"


def _sphere(panel_size: float, omega: list[float], **extra: object) -> bem.BEMSpec:
    table = {"body": {"shape": "sphere", "radius": RADIUS}, "omega": omega,
             "panel_size": panel_size, "center_of_mass": [0.0, 0.0, -2.0], **extra}
    return bem.parse_bem(table)


# --- the [bem] table ------------------------------------------------------------------------
def test_unknown_key_has_did_you_mean() -> None:
    with pytest.raises(ConfigError, match=r"unknown key 'heading'.*did you mean 'headings'"):
        bem.parse_bem({"body": {"shape": "sphere", "radius": 1.0}, "omega": [1.0],
                       "heading": [0.0]})
    with pytest.raises(ConfigError, match=r"'radius'"):
        bem.parse_bem({"body": {"shape": "sphere", "radious": 1.0}, "omega": [1.0]})
    with pytest.raises(ConfigError, match=r"did you mean 'cylinder'"):
        bem.parse_bem({"body": {"shape": "cylindre", "radius": 1.0}, "omega": [1.0]})


@pytest.mark.parametrize(
    ("table", "match"),
    [
        ({"omega": [1.0]}, "exactly one of body"),
        ({"body": {"shape": "sphere", "radius": 1.0}}, "needs omega"),
        ({"body": {"shape": "sphere", "radius": 1.0}, "omega": [1.0, 0.5]}, "increasing"),
        ({"body": {"shape": "sphere", "radius": 1.0}, "omega": [0.0, 1.0]}, "> 0 rad/s"),
        ({"body": {"shape": "sphere", "radius": 1.0}, "omega": {"min": 1, "max": 2}}, "n"),
        ({"body": {"shape": "sphere", "radius": -1.0}, "omega": [1.0]}, "radius"),
        ({"body": {"shape": "sphere", "radius": 1.0}, "omega": [1.0], "water_depth": -5},
         "water_depth"),
        ({"body": {"shape": "sphere", "radius": 1.0}, "omega": [1.0], "method": "direkt"},
         "did you mean 'direct'"),
        ({"body": {"shape": "cylinder", "radius": 1.0}, "omega": [1.0]}, "height"),
        ({"body": {"mesh": "nope.stl"}, "omega": [1.0]}, "does not exist"),
    ],
)
def test_bad_tables_are_refused(table: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        bem.parse_bem(table)


def test_omega_range_and_defaults() -> None:
    spec = bem.parse_bem({"body": {"shape": "box", "size": [2, 2, 2]},
                          "omega": {"min": 0.1, "max": 3.0, "n": 30}, "water_depth": math.inf})
    np.testing.assert_allclose(spec.omega, np.linspace(0.1, 3.0, 30))
    assert spec.lid and spec.zero_and_infinite and math.isinf(spec.water_depth)
    assert bem.radiation_omegas(spec)[0] == 0.0 and math.isinf(bem.radiation_omegas(spec)[-1])
    # Finite depth: Capytaine 3.0 has no omega = 0 there (k h < 0.1), omega = inf it has.
    finite = bem.parse_bem({"body": {"shape": "box", "size": [2, 2, 2]}, "omega": [1.0],
                            "water_depth": 50.0})
    assert bem.radiation_omegas(finite) == [1.0, math.inf]


# --- meshes ---------------------------------------------------------------------------------
def _write_gdf(path: Path, vertices: np.ndarray, faces: np.ndarray) -> None:
    """A WAMIT GDF file (ULEN, GRAV; ISX ISY; NPAN; four vertices per panel)."""
    lines = ["hydrofmu test mesh", f"1.0 {G}", "0 0", str(len(faces))]
    for face in faces:
        lines += [" ".join(f"{c:.12g}" for c in vertices[v]) for v in face]
    path.write_text("\n".join(lines) + "\n")


def _write_ascii_stl(path: Path, vertices: np.ndarray, faces: np.ndarray) -> None:
    """An ASCII STL file: every quad split into two triangles."""
    lines = ["solid hull"]
    for a, b, c, d in faces:
        for tri in ((a, b, c), (a, c, d)) if c != d else ((a, b, c),):
            p = vertices[list(tri)]
            n = np.cross(p[1] - p[0], p[2] - p[0])
            n = n / np.linalg.norm(n)
            lines += [f"facet normal {n[0]:.9g} {n[1]:.9g} {n[2]:.9g}", "outer loop"]
            lines += [f"vertex {q[0]:.12g} {q[1]:.12g} {q[2]:.12g}" for q in p]
            lines += ["endloop", "endfacet"]
    path.write_text("\n".join([*lines, "endsolid hull"]) + "\n")


@pytest.fixture(scope="module")
def box_mesh() -> object:
    """A 4 x 2 x 2 m box, 1 m draught (centre 0.5 m below the waterline)."""
    import capytaine as cpt  # in the test extra; here, not at the top: a 6 s import

    return cpt.mesh_parallelepiped(size=(4.0, 2.0, 2.0), center=(0.0, 0.0, 0.0),
                                   faces_max_radius=0.5)


def test_mesh_files_gdf_and_stl_give_the_parametric_box(tmp_path: Path, box_mesh) -> None:
    _write_gdf(tmp_path / "box.gdf", box_mesh.vertices, box_mesh.faces)
    _write_ascii_stl(tmp_path / "box.stl", box_mesh.vertices, box_mesh.faces)
    # Exact: a 4 x 2 box with 1 m draught displaces 8 m^3 (flat panels, no discretisation
    # error); the three divergence-theorem volumes are sums of exact products.
    for name in ("box.gdf", "box.stl"):
        spec = bem.parse_bem({"mesh": name, "omega": [1.0]}, base=tmp_path)
        mesh = bem.make_mesh(spec)
        assert bem.check_mesh(mesh) == pytest.approx(8.0, rel=1e-9)
    parametric = bem.parse_bem({"body": {"shape": "box", "size": [4.0, 2.0, 2.0]},
                                "omega": [1.0], "panel_size": 0.5})
    assert bem.check_mesh(bem.make_mesh(parametric)) == pytest.approx(8.0, rel=1e-9)


def test_inward_normals_are_refused(tmp_path: Path, box_mesh) -> None:
    _write_gdf(tmp_path / "inward.gdf", box_mesh.vertices, box_mesh.faces[:, ::-1])
    spec = bem.parse_bem({"mesh": "inward.gdf", "omega": [1.0]}, base=tmp_path)
    with pytest.raises(HydroDataError, match="inward normals"):
        bem.build_bodies(spec)


def test_open_hull_below_waterline_is_refused(tmp_path: Path, box_mesh) -> None:
    centers = box_mesh.faces_centers
    # Remove the panels of the bottom (z = -1): the hull is open below the waterline.
    keep = ~np.isclose(centers[:, 2], -1.0)
    assert 0 < (~keep).sum() < keep.size
    _write_gdf(tmp_path / "open.gdf", box_mesh.vertices, box_mesh.faces[keep])
    spec = bem.parse_bem({"mesh": "open.gdf", "omega": [1.0]}, base=tmp_path)
    with pytest.raises(HydroDataError, match="not closed"):
        bem.build_bodies(spec)


def test_mesh_above_water_is_refused() -> None:
    spec = bem.parse_bem({"body": {"shape": "sphere", "radius": 1.0, "center": [0, 0, 5.0]},
                          "omega": [1.0], "panel_size": 0.5})
    with pytest.raises(HydroDataError, match="no panel below the waterline"):
        bem.build_bodies(spec)


# --- validation -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wamit() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """WAMIT's sphere at six of its own frequencies in 0.6-3 rad/s: (omega, A, B)."""
    with pytest.warns(Warning):  # the file's B33 dips below zero at 12 rad/s (its own note)
        hd = read_hydro(BEMIO_SPHERE)
    idx = [int(np.argmin(np.abs(hd.omega - w))) for w in np.linspace(0.6, 3.0, 6)]
    return hd.omega[idx], hd.added_mass[idx], hd.radiation_damping[idx]


class _Solves(dict):
    """The r = 5 m sphere in 200 m of water at WAMIT's frequencies, solved on first use per
    panel size and kept for the module."""

    def __init__(self, omega: list[float]) -> None:
        super().__init__()
        self.omega = omega

    def __missing__(self, size: float) -> xr.Dataset:
        spec = _sphere(size, self.omega, water_depth=200.0, zero_and_infinite=False)
        self[size] = bem.run_bem(spec)
        return self[size]


@pytest.fixture(scope="module")
def sphere_200m(wamit) -> _Solves:
    return _Solves(wamit[0].tolist())


def _errors(ds: xr.Dataset, wamit) -> dict[str, np.ndarray]:
    """Relative error against WAMIT of A and B in surge and heave, per frequency."""
    out = {}
    for name, ref in (("added_mass", wamit[1]), ("radiation_damping", wamit[2])):
        for dof, i in (("Surge", 0), ("Heave", 2)):
            value = ds[name].sel(influenced_dof=dof, radiating_dof=dof).values
            out[f"{name}[{dof}]"] = value / ref[:, i, i] - 1.0
    return out


@pytest.mark.slow
def test_sphere_converges_below_panel_size_0_4(sphere_200m, wamit) -> None:
    """The second halving, 0.4 -> 0.2 m (6272 hull panels, 112 sectors of the rotation
    symmetry), at the ends of the band: 0.6 rad/s and 3 rad/s (where B33 is worst). The
    third, 0.1 m, is docs/validation/bem_convergence.py (its table is committed)."""
    pick = [0, 5]
    fine = bem.run_bem(_sphere(0.2, wamit[0][pick].tolist(), water_depth=200.0,
                               zero_and_infinite=False))
    assert fine.attrs["hull_panels"] == 6272 and fine.attrs["bem_symmetry"].startswith("axial")
    errors = _errors(fine, (wamit[0][pick], wamit[1][pick], wamit[2][pick]))
    coarse = _errors(sphere_200m[0.4], wamit)
    worst = {}
    for key, err in errors.items():
        worst[key] = (float(np.max(np.abs(coarse[key][pick]))), float(np.max(np.abs(err))))
        # Closer at the halving, at both frequencies' worst (measured worst errors 0.4 / 0.2:
        # A11 0.14 / 0.085 %, A33 0.30 / 0.056 %, B11 0.25 / 0.056 %, B33 0.95 / 0.063 %).
        assert worst[key][1] < worst[key][0], (key, worst[key])
    # ... and the worst of all four by at least the h^0.7 (a factor 2^0.7 = 1.62
    # per halving; measured 0.95 / 0.085 = 11). Per quantity A11's factor is 1.64 only,
    # too close to 1.62 to assert (Capytaine's finite-depth solve repeats to 1e-5 only).
    assert (max(c for c, _ in worst.values()) / max(f for _, f in worst.values())
            > 2**0.7), worst


@pytest.mark.slow
def test_sphere_against_wamit_and_convergence(sphere_200m, wamit) -> None:
    errors = {size: _errors(sphere_200m[size], wamit) for size in (1.6, 0.8, 0.4)}
    assert sphere_200m[0.4].attrs["hull_panels"] == 1568
    for key in errors[0.4]:
        worst = [float(np.max(np.abs(errors[size][key]))) for size in (1.6, 0.8, 0.4)]
        # The bound: within 5 % at panel_size = 0.4 (measured: at most 0.95 %, B33 at
        # 3 rad/s, with the rotation symmetry's polar lid; 1.02 % on the whole mesh with
        # Capytaine's lid; a panel method converges on WAMIT's result as h -> 0).
        assert worst[2] < 0.05, (key, worst)
        # Convergence: each halving of the panel size brings every quantity closer
        # (measured worst errors 1.6 / 0.8 / 0.4: B33 24 / 5.0 / 0.95 %, A33 5.7 / 1.4 / 0.3 %;
        # on the whole mesh: B33 22 / 5.4 / 1.0 %).
        assert worst[0] > worst[1] > worst[2], (key, worst)


def test_sphere_coarse_mesh_against_wamit(sphere_200m, wamit) -> None:
    """Hydrostatics and mass of the solved sphere against the closed forms."""
    ds = sphere_200m[0.8]
    err = _errors(ds, wamit)
    # 392 panels: these are the panel method's discretisation errors against WAMIT at this
    # mesh (hydrofmu's own mesh, solved by Capytaine 3.0, the version the test extra pins),
    # not round-off: a machine moves them by ~1e-12. Observed (worst over the frequencies):
    # A11 0.88 %, A33 1.38 %, B11 1.18 %, B33 4.998 % (at 3 rad/s, where B33 is small).
    # Bounds: 2 % and 6 %, one percentage point above the observed, the spread between two
    # valid discretisations of the same hull: Capytaine's own lid on the whole mesh instead
    # of the symmetric polar lid gives B33 5.4 %. A finer mesh is the real check
    # (test_sphere_converges_to_wamit: 0.95 % at 0.4 m); this one catches a coarse-mesh
    # regression of more than that spread.
    assert np.max(np.abs(err["added_mass[Surge]"])) < 0.02
    assert np.max(np.abs(err["added_mass[Heave]"])) < 0.02
    assert np.max(np.abs(err["radiation_damping[Surge]"])) < 0.02
    assert np.max(np.abs(err["radiation_damping[Heave]"])) < 0.06
    volume = float(ds["displaced_volume"])
    exact = 2.0 / 3.0 * np.pi * RADIUS**3
    # The polyhedral mesh is inscribed in the sphere: measured -1.15 % at 392 panels.
    assert volume == pytest.approx(exact, rel=0.02)
    k33 = float(ds["hydrostatic_stiffness"].sel(influenced_dof="Heave", radiating_dof="Heave"))
    assert k33 == pytest.approx(1000.0 * G * np.pi * RADIUS**2, rel=0.02)  # rho g pi a^2
    mass = float(ds["inertia_matrix"].sel(influenced_dof="Heave", radiating_dof="Heave"))
    assert mass == pytest.approx(1000.0 * volume, rel=1e-9)  # floating: m = rho V exactly


# Hulme, A. (1982), "The wave forces acting on a floating hemisphere undergoing forced
# periodic oscillations", J. Fluid Mech. 121, 443-463, Table 1 (heave), as transcribed in
# LHEEA/Hulme_Heaving_Sphere (comparison/HulmeResult.dat); the same table as in
# build_scripts/make_default_body.py. Columns: ka, A33/(rho V), B33/(rho V omega), with
# V = 2/3 pi a^3 and k = omega^2 / g (deep water). The ka -> inf limit is 0.5 exactly.
HULME = np.array([
    [0.0, 0.8310, 0.0],
    [0.2, 0.7938, 0.2793],
    [0.5, 0.5861, 0.3391],
    [1.0, 0.4284, 0.2484],
    [2.0, 0.3884, 0.1031],
])


def test_heaving_hemisphere_against_hulme() -> None:
    ka = HULME[1:, 0]
    omega = np.sqrt(ka * G / RADIUS)
    ds = bem.run_bem(_sphere(0.8, omega.tolist(), water_depth=math.inf))
    rho_v = 1000.0 * 2.0 / 3.0 * np.pi * RADIUS**3
    a33 = ds["added_mass"].sel(influenced_dof="Heave", radiating_dof="Heave").values / rho_v
    b33 = ds["radiation_damping"].sel(influenced_dof="Heave", radiating_dof="Heave").values
    w = ds["omega"].values
    assert w[0] == 0.0 and np.isinf(w[-1])
    # 392 panels (Capytaine 3.0 measured here: +2 % in heave at 400 panels): 3 % on A33, B33 and
    # the limits;
    # measured below.
    assert a33[0] == pytest.approx(HULME[0, 1], rel=0.03)
    assert a33[-1] == pytest.approx(0.5, rel=0.03)
    np.testing.assert_allclose(a33[1:-1], HULME[1:, 1], rtol=0.03)
    np.testing.assert_allclose(b33[1:-1] / (rho_v * w[1:-1]), HULME[1:, 2], rtol=0.03)


# --- the default body -------------------------------------------------------------------------
def _load_script():
    spec = importlib.util.spec_from_file_location(
        "make_default_body_bem", ROOT / "build_scripts" / "make_default_body.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _complex(da: xr.DataArray) -> np.ndarray:
    return (da.sel(complex="re") + 1j * da.sel(complex="im")).values


REGEN = 1e-9  # regenerated default body against the shipped file (see the test)


def test_default_body_regenerated_equals_package_file() -> None:
    """The build script (a thin call of hydrofmu.bem) reproduces the shipped file: the same
    mesh at three of its 100 frequencies, with omega = 0 and inf."""
    mdb = _load_script()
    omega = mdb.OMEGA_FINITE[[9, 39, 79]]  # 0.5, 2.0, 4.0 rad/s
    ds = mdb.compute(mdb.default_spec(omega))
    shipped = xr.open_dataset(DATA_FILE, engine="h5netcdf")
    pick = np.concatenate([[0.0], omega, [np.inf]])
    ref = shipped.sel(omega=pick)
    new = ds.sel(omega=pick)
    # The package file was written by the same code (Capytaine 3.0.0, its attribute
    # capytaine_version) on the same mesh: observed difference 0 (bit-identical here). On
    # another machine, another BLAS/LAPACK associates the LU and the sums differently:
    # round-off times the condition number of the BEM system (the symmetric and dense
    # solves of one system differ by 4e-16, test_symmetric_solve_equals_the_whole_mesh_
    # solve), ~1e-12 at most. REGEN = 1e-9 leaves 1000x for that; any change of mesh,
    # frequencies, centre of mass or settings moves the results by far more (one panel
    # size step: percents). Relative to the largest entry of each matrix at each frequency
    # (off-diagonal zeros).
    for name in ("added_mass", "radiation_damping"):
        a, b = new[name].values, ref[name].values
        # B = 0 at omega = 0 and inf: the whole array's largest entry scales those.
        scale = np.maximum(np.abs(b).max(axis=(-2, -1), keepdims=True), np.abs(b).max())
        assert np.max(np.abs(a - b) / scale) < REGEN, name
    dims = ("omega", "wave_direction", "influenced_dof")
    x_new = ds["excitation_force"].sel(omega=omega).transpose(*dims).values
    x_ref = _complex(shipped["excitation_force"].sel(omega=omega).transpose(*dims, ...))
    assert np.max(np.abs(x_new - x_ref)) / np.abs(x_ref).max() < REGEN
    for name in ("hydrostatic_stiffness", "inertia_matrix"):
        a, b = ds[name].values, shipped[name].values
        assert np.max(np.abs(a - b)) / np.abs(b).max() < REGEN, name
    assert ds.attrs["hull_panels"] == shipped.attrs["hull_panels"]


# --- the command line -------------------------------------------------------------------------
def test_cli_bem_writes_a_file_that_hydrofmu_reads(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    toml = tmp_path / "bem.toml"
    toml.write_text(
        "[bem]\n"
        'body = { shape = "cylinder", radius = 1.0, draft = 1.0 }\n'
        "omega = { min = 0.5, max = 3.0, n = 4 }\n"
        "headings = [0.0]\n"
        "water_depth = inf\n"
        "panel_size = 0.25\n"
        "center_of_mass = [0.0, 0.0, -0.5]\n"
    )
    out = tmp_path / "body.nc"
    assert cli_main(["bem", str(toml), "-o", str(out), "--quiet"]) == 0
    # The vertical cylinder on the z axis is solved with its rotation symmetry.
    assert "symmetry axial (" in capsys.readouterr().out
    hd = read_hydro(out)
    assert hd.nw == 4 and hd.added_mass_inf_source == "file"
    # Cylinder r = 1 m, draught 1 m: V = pi m^3 up to the polygonal section (Capytaine's
    # faces_max_radius = 0.25 m gives a 16-gon: area 8 sin(pi/8) cos(pi/8) r^2, -2.0 %);
    # K33 = rho g pi r^2 likewise.
    assert hd.displaced_volume == pytest.approx(np.pi, rel=0.03)
    assert hd.hydrostatic_stiffness[2, 2] == pytest.approx(1000.0 * G * np.pi, rel=0.03)
    # ... and a configuration uses it as it is.
    (tmp_path / "model.toml").write_text('[[bodies]]\nname = "body"\nhydro = "body.nc"\n')
    bodies, cfg = load_config(tmp_path / "model.toml")
    assert bodies[0].nw == 4 and cfg["bodies"][0]["name"] == "body"
    capsys.readouterr()
    assert cli_main(["info", str(out)]) == 0
    assert "4 frequencies" in capsys.readouterr().out
    # A second run refuses to overwrite without --force.
    assert cli_main(["bem", str(toml), "-o", str(out), "--quiet"]) == 2
    assert "--force" in capsys.readouterr().err
    toml.write_text("[bem]\nbody = { shape = 'sphere', radius = 1.0 }\nomega = [1.0]\nlid = 1\n")
    assert cli_main(["bem", str(toml), "-o", str(tmp_path / "x.nc")]) == 2
    assert "lid" in capsys.readouterr().err


def test_n_jobs_gives_the_same_result() -> None:
    """Capytaine's n_jobs = 2 (joblib processes) solves the same problems: same numbers."""
    serial = bem.run_bem(_sphere(1.6, [0.8, 1.6], water_depth=math.inf))
    parallel = bem.run_bem(_sphere(1.6, [0.8, 1.6], water_depth=math.inf, n_jobs=2))
    # The same solver on the same matrices in another process: equal to round-off.
    for name in ("added_mass", "radiation_damping", "excitation_force"):
        np.testing.assert_allclose(parallel[name].values, serial[name].values, rtol=1e-10,
                                   atol=1e-10 * float(np.nanmax(np.abs(serial[name].values))))


# --- rotation symmetry ----------------------------------------------------------------------
def test_symmetry_key_is_checked() -> None:
    with pytest.raises(ConfigError, match=r"symmetry = 'axail'.*did you mean 'axial'"):
        bem.parse_bem({"body": {"shape": "sphere", "radius": 1.0}, "omega": [1.0],
                       "symmetry": "axail"})
    box = bem.parse_bem({"body": {"shape": "box", "size": [2, 2, 2]}, "omega": [1.0],
                         "symmetry": "axial"})
    with pytest.raises(ConfigError, match="not a body of revolution"):
        bem.uses_axial(box)
    off = bem.parse_bem({"body": {"shape": "sphere", "radius": 1.0, "center": [0, -3.0, 0]},
                         "omega": [1.0], "symmetry": "axial"})
    with pytest.raises(ConfigError, match="off the z axis"):
        bem.uses_axial(off)
    # "auto" falls back to the whole mesh for those, and uses the symmetry where it exists.
    assert not bem.uses_axial(bem.parse_bem({"body": {"shape": "box", "size": [2, 2, 2]},
                                             "omega": [1.0]}))
    assert bem.uses_axial(bem.parse_bem({"body": {"shape": "cylinder", "radius": 1.0,
                                                  "draft": 1.0}, "omega": [1.0]}))
    assert not bem.uses_axial(bem.parse_bem({"body": {"shape": "sphere", "radius": 1.0},
                                             "omega": [1.0], "symmetry": "none"}))


@pytest.mark.parametrize("meridian", [23, 24])
def test_sector_lid_covers_the_waterplane(meridian: int) -> None:
    """The polar lid is the waterline polygon shrunk by half a panel, exactly: its n
    sectors are triangles of area r^2 sin(2 pi / n) / 2 cut into rings (23 panels along
    the meridian: the waterline cuts panels; 24: it runs along edges)."""
    panel_size = 0.25
    spec = bem.parse_bem({"body": {"shape": "sphere", "radius": 1.0,
                                   "resolution": [meridian, 24]},
                          "omega": [1.0], "panel_size": panel_size})
    body = bem.symmetric_body(spec)
    hull, lid = body.mesh, body.lid_mesh
    n = hull.n
    assert lid.n == n and type(body.mesh_including_lid).__name__ == "RotationSymmetricMesh"
    # The waterline radius of the hull polygon (vertices at z = 0 of the clipped hull).
    top = hull.merged().vertices
    r_wl = float(np.max(np.hypot(top[:, 0], top[:, 1])[np.abs(top[:, 2]) < 1e-12]))
    r_lid = r_wl - panel_size / 2
    polygon = 0.5 * n * r_lid**2 * np.sin(2 * np.pi / n)
    # Sums of exact triangle and trapezoid areas: round-off only.
    assert float(np.sum(lid.faces_areas)) == pytest.approx(polygon, rel=1e-12)
    assert np.allclose(lid.faces_normals, [0.0, 0.0, -1.0], atol=1e-12)  # into the body
    assert np.allclose(lid.vertices[:, 2], 0.0, atol=1e-12)
    assert np.max(np.hypot(lid.vertices[:, 0], lid.vertices[:, 1])) == pytest.approx(
        r_lid, rel=1e-12)
    assert lid.nb_faces == n * math.ceil(r_lid / panel_size)


def _solve_on(spec: bem.BEMSpec, body, engine=None) -> xr.Dataset:
    import capytaine as cpt

    return cpt.assemble_dataset(bem.solve(spec, body, engine=engine), hydrostatics=False)


def test_symmetric_solve_equals_the_whole_mesh_solve() -> None:
    """The block-circulant solve and Capytaine's dense solve of the same panels (hull and
    lid merged into plain meshes) at omega = 0, two frequencies and omega = inf, in deep
    water. (Not in 200 m: Capytaine 3.0's finite-depth solve of one mesh differs between
    two calls by up to 2e-4 relative at omega = inf, 1e-5 at finite omega.)"""
    import capytaine as cpt

    spec = _sphere(1.6, [0.6, 1.5], water_depth=math.inf)
    sym = bem.symmetric_body(spec)
    assert type(sym.mesh).__name__ == "RotationSymmetricMesh" and sym.mesh.n == 14
    whole = cpt.FloatingBody(mesh=sym.mesh.merged(), lid_mesh=sym.lid_mesh.merged(),
                             dofs=cpt.rigid_body_dofs(rotation_center=spec.rotation_center),
                             center_of_mass=spec.center_of_mass).immersed_part()
    assert type(whole.mesh_including_lid).__name__ == "Mesh"
    fast = _solve_on(spec, sym, engine=bem.symmetric_engine())
    slow = _solve_on(spec, whole)
    # The same linear system solved two ways (DFT over 14 blocks + 14 LU of 10 x 10, and
    # one LU of 140 x 140): round-off times the condition number, measured 4e-16 relative.
    for name in ("added_mass", "radiation_damping", "excitation_force"):  # NaN X at 0, inf
        ref = slow[name].values
        np.testing.assert_allclose(fast[name].values, ref, rtol=0,
                                   atol=1e-9 * float(np.nanmax(np.abs(ref))))


def test_symmetric_and_whole_mesh_files_agree() -> None:
    """``hydrofmu bem`` with symmetry = auto and = none: the same hull panels; the lids
    differ (polar sectors against Capytaine's rectangular grid), which only matters near
    the irregular frequencies (first at k r ~ 2.5 for the hemisphere): here k r <= 1.2."""
    omega = [0.6, 1.5]
    auto = bem.run_bem(_sphere(0.8, omega, water_depth=math.inf))
    none = bem.run_bem(_sphere(0.8, omega, water_depth=math.inf, symmetry="none"))
    assert auto.attrs["bem_symmetry"] == "axial (28 sectors)"
    assert none.attrs["bem_symmetry"] == "none"
    assert auto.attrs["hull_panels"] == none.attrs["hull_panels"] == 392
    for name in ("added_mass", "radiation_damping"):
        ref = none[name].values
        # B = 0 at omega = 0 and inf: the whole array's largest entry scales those.
        scale = np.maximum(np.max(np.abs(ref), axis=(-2, -1), keepdims=True),
                           np.max(np.abs(ref)))
        # Measured at most 0.065 % of each frequency's largest entry; the lid's effect
        # grows toward the irregular frequency (0.3 % at k r = 1.6 on 299 panels).
        assert np.max(np.abs(auto[name].values - ref) / scale) < 0.002, name
    for name in ("hydrostatic_stiffness", "inertia_matrix", "displaced_volume"):
        np.testing.assert_allclose(auto[name].values, none[name].values, rtol=1e-12)


def test_lid_is_made_when_the_waterline_cuts_panels() -> None:
    """23 panels along the meridian: no vertex at z = 0 before clipping (the lid used to
    be skipped silently there)."""
    spec = bem.parse_bem({"body": {"shape": "sphere", "radius": 1.0, "resolution": [23, 23]},
                          "omega": [1.0], "symmetry": "none"})
    _closed, immersed = bem.build_bodies(spec)
    assert immersed.lid_mesh is not None and immersed.lid_mesh.nb_faces > 0


@pytest.mark.parametrize(("z_c", "meridian"), [(0.0, 224), (-2.5, 225), (1.0, 223)])
def test_sphere_mesh_puts_a_ring_on_the_waterline(z_c: float, meridian: int) -> None:
    """panel_size = 0.1 m on r = 5 m: Capytaine would take 223 panels along the meridian;
    the centre on the surface needs an even number, 2.5 m below it a multiple of 3
    (cos(theta) = -1/2); 1 m above it, no number up to 446 fits: 223 stays."""
    spec = bem.parse_bem({"body": {"shape": "sphere", "radius": 5.0, "center": [0, 0, z_c]},
                          "omega": [1.0], "panel_size": 0.1})
    assert bem.mesh.mesh_size(spec) == {"resolution": (meridian, 223)}
    coarse = bem.parse_bem({"body": {"shape": "sphere", "radius": 1.0, "center": [0, 0, -0.5]},
                            "omega": [1.0], "panel_size": 0.2})
    mesh = bem.make_mesh(coarse)
    # A ring of vertices on z = 0 (to round-off of r cos(theta) + z_c).
    assert np.sum(np.abs(mesh.vertices[:, 2]) < 1e-12) == 23


def test_cylinder_mesh_puts_a_ring_on_the_waterline() -> None:
    """r = 1 m, draught 1 m, panel_size 0.3 m: Capytaine takes 5 rows over the 2 m height
    (waterline through the middle row); 6 put a ring on z = 0. At 0.25 m it takes 6."""
    for size, resolution in ((0.3, (3, 16, 6)), (0.25, (3, 18, 6))):
        spec = bem.parse_bem({"body": {"shape": "cylinder", "radius": 1.0, "draft": 1.0},
                              "omega": [1.0], "panel_size": size})
        assert bem.mesh.mesh_size(spec) == {"resolution": resolution}
        mesh = bem.make_mesh(spec)
        assert np.sum(np.abs(mesh.vertices[:, 2]) < 1e-12) == resolution[1]
