"""``hydrofmu bem`` with several bodies from mesh files (``[[bem.bodies]]``).

Small problems only: a vertical cylinder (radius 1 m, draft 1 m, 84 hull panels) written to
an OBJ file and a box written to an ASCII STL, 2 frequencies, deep water unless stated.
Each BEM case is solved once per module (fixtures) and runs in a few seconds.
"""

from __future__ import annotations

import math
from pathlib import Path

import capytaine as cpt
import numpy as np
import pytest
from scipy.special import j0

from hydrofmu import bem
from hydrofmu.bem.multi import place_bodies, rigid_inertia
from hydrofmu.bem.placement import triangles
from hydrofmu.bem.spec_bodies import rotation_matrix
from hydrofmu.io.readers import read_hydro, read_hydro_bodies
from hydrofmu.runtime.errors import ConfigError
from paths import ROOT

G = 9.81
OMEGA = [1.5, 2.5]  # rad/s; deep-water k = 0.23, 0.64 1/m
FAR = 5000.0  # m between the two cylinders of the far-apart case (k r = 1150 .. 3190)
OSWEC = ROOT / "examples" / "oswec"


def _write_obj(mesh: object, path: Path) -> Path:
    v, f = triangles(mesh)
    with path.open("w") as fh:
        fh.writelines(f"v {x:.15g} {y:.15g} {z:.15g}\n" for x, y, z in v)
        fh.writelines(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in f)
    return path


def _write_stl(mesh: object, path: Path) -> Path:
    v, f = triangles(mesh)
    lines = ["solid box"]
    for tri in f:
        p = v[tri]
        n = np.cross(p[1] - p[0], p[2] - p[0])
        n /= np.linalg.norm(n)
        lines += [f"facet normal {n[0]:.15g} {n[1]:.15g} {n[2]:.15g}", "outer loop"]
        lines += [f"vertex {x:.15g} {y:.15g} {z:.15g}" for x, y, z in p]
        lines += ["endloop", "endfacet"]
    path.write_text("\n".join([*lines, "endsolid box", ""]))
    return path


@pytest.fixture(scope="module")
def meshes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("meshes")
    cyl = cpt.mesh_vertical_cylinder(radius=1.0, length=2.0, center=(0.0, 0.0, 0.0),
                                     resolution=(2, 12, 4))
    box = cpt.mesh_parallelepiped(size=(2.0, 1.0, 1.0), center=(0.0, 0.0, -0.25),
                                  resolution=(4, 2, 2))
    return {"cyl": _write_obj(cyl, folder / "cyl.obj"), "box": _write_stl(box, folder / "box.stl")}


def _spec(meshes: dict[str, Path], bodies: list[dict], **extra: object) -> bem.BEMSpec:
    return bem.parse_bem({"omega": OMEGA, "bodies": bodies, **extra}, base=meshes["cyl"].parent)


def _matrices(ds: object, var: str, omega: float, labels: list[str]) -> np.ndarray:
    da = ds[var].sel(omega=omega, influenced_dof=labels, radiating_dof=labels)
    return np.asarray(da.values, dtype=float)


def _labels(name: str) -> list[str]:
    return [f"{name}__{d}" for d in ("Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw")]


@pytest.fixture(scope="module")
def single(meshes: dict[str, Path]) -> object:
    return bem.run_bem(_spec(meshes, [{"name": "a", "mesh": "cyl.obj"}]))


@pytest.fixture(scope="module")
def far_pair(meshes: dict[str, Path]) -> object:
    return bem.run_bem(_spec(meshes, [{"name": "a", "mesh": "cyl.obj"},
                                      {"name": "b", "mesh": "cyl.obj",
                                       "position": [FAR, 0.0, 0.0]}]))


@pytest.fixture(scope="module")
def near_pair(meshes: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
              ) -> tuple[object, Path]:
    """A cylinder and a box 3 m apart, the box yawed 30 deg, in 5 m of water, written."""
    spec = _spec(meshes, [{"name": "float", "mesh": "cyl.obj"},
                          {"name": "barge", "mesh": "box.stl", "position": [3.0, 0.5, 0.0],
                           "rotation": [0.0, 0.0, 30.0]}], water_depth=5.0)
    path = tmp_path_factory.mktemp("nc") / "pair.nc"
    out, summary = bem.bem_to_file(spec, path)
    assert "float: 84, barge: " in summary  # the panel counts per body are reported
    return _open(out), out


def _open(path: Path) -> object:
    import xarray as xr

    with xr.open_dataset(path, engine="netcdf4") as ds:
        return ds.load()


# --- far apart: the single-body coefficients, vanishing coupling ------------------------------
def test_far_apart_bodies_keep_their_single_body_coefficients(single: object,
                                                              far_pair: object) -> None:
    """Body a with b 5 km away: the waves b scatters back reach a with an amplitude
    ~ (b's scattering) / sqrt(k r) ~ 1e-3 of a's own: 1 % is far above it.
    Observed: largest relative change of a diagonal entry 1.4e-5 (A), 2.1e-4 (B, 2.5 rad/s)."""
    labels = _labels("a")
    for var in ("added_mass", "radiation_damping"):
        for omega in OMEGA:
            alone = _matrices(single, var, omega, labels)
            paired = _matrices(far_pair, var, omega, labels)
            scale = np.abs(np.diag(alone)).max()
            big = np.abs(np.diag(alone)) > 1e-3 * scale  # roll/pitch/heave/surge, not yaw ~ 0
            rel = np.abs(np.diag(paired) - np.diag(alone))[big] / np.abs(np.diag(alone))[big]
            assert rel.max() < 0.01, (var, omega, rel)
            # and every entry of the block, on the scale of the largest one
            assert np.abs(paired - alone).max() < 0.01 * scale, (var, omega)


def test_far_apart_cross_terms_vanish_and_heave_damping_follows_j0(far_pair: object) -> None:
    """Two small cylinders r apart couple only through their far fields, which decay as
    sqrt(2 / (pi k r)): the coupling impedance |B_ab + i w A_ab| of DOFs i, j is at most
    c sqrt(B_ii B_jj) sqrt(2 / (pi k r)) with c = 1 for an isotropic (heave) pattern and
    c = 2 for a dipole (surge along the line of centres), the largest of a rigid body's;
    2.2 leaves 10 %. Observed: c = 2.017 (1.5 rad/s), 2.018 (2.5 rad/s); the cross terms
    are then 0.3-0.5 % (A) and 1.7-2.4 % (B) of the largest diagonal entry.
    Heave radiates axisymmetrically: B_ab = B_aa J0(k r) for point sources; a body of
    radius a differs from one in the far-field phase by O(k a), so the tolerance is
    k a sqrt(2 / (pi k r)) B_aa. Observed: 0.31 and 0.74 of that tolerance."""
    a, b = _labels("a"), _labels("b")
    for omega in OMEGA:
        k = omega**2 / G
        decay = math.sqrt(2.0 / (math.pi * k * FAR))
        full_a = far_pair["added_mass"].sel(omega=omega)
        full_b = far_pair["radiation_damping"].sel(omega=omega)
        b_aa = np.asarray(full_b.sel(influenced_dof=a, radiating_dof=a).values)
        z_ab = np.abs(np.asarray(full_b.sel(influenced_dof=a, radiating_dof=b).values)
                      + 1j * omega * np.asarray(full_a.sel(influenced_dof=a,
                                                           radiating_dof=b).values))
        d = np.sqrt(np.abs(np.diag(b_aa)))
        assert np.all(z_ab <= 2.2 * decay * np.outer(d, d)), (omega, z_ab / np.outer(d, d))
        b33 = b_aa[2, 2]
        b33_ab = float(full_b.sel(influenced_dof="a__Heave", radiating_dof="b__Heave"))
        radius = 1.0
        assert b33_ab == pytest.approx(b33 * j0(k * FAR), abs=k * radius * decay * b33)


# --- symmetry ---------------------------------------------------------------------------------
def test_added_mass_and_damping_are_symmetric(near_pair: tuple[object, Path]) -> None:
    """Reciprocity: A and B of the 12 DOFs are symmetric; the collocation BEM makes them so
    only to discretisation accuracy (it falls as the panels shrink). Observed (84 + 76
    panels, 5 m depth): largest |A - A^T| 0.47 % (1.5 rad/s) and 0.96 % (2.5 rad/s),
    |B - B^T| 0.39 % and 1.6 % of the largest entry; 3 % allows twice the worst, and the
    coupling blocks (11-60 % of the largest entry) are far above it."""
    ds, _ = near_pair
    labels = _labels("float") + _labels("barge")
    for var in ("added_mass", "radiation_damping"):
        for omega in OMEGA:
            m = _matrices(ds, var, omega, labels)
            asym = np.abs(m - m.T).max() / np.abs(m).max()
            coupling = np.abs(m[:6, 6:]).max() / np.abs(m).max()
            assert asym < 0.03, (var, omega, asym)
            assert coupling > 5 * asym, (var, omega, coupling, asym)  # the test can see it


# --- the file and read_hydro_bodies -----------------------------------------------------------
def test_body_names_survive_the_netcdf_and_read_hydro_bodies(near_pair: tuple[object, Path]
                                                             ) -> None:
    ds, path = near_pair
    mb = read_hydro_bodies(path)
    assert mb.names == ("float", "barge")
    labels = _labels("float") + _labels("barge")
    for k, omega in enumerate(OMEGA):  # exact copies: the reader only relabels
        np.testing.assert_array_equal(mb.added_mass[k], _matrices(ds, "added_mass", omega,
                                                                  labels))
        np.testing.assert_array_equal(mb.radiation_damping[k],
                                      _matrices(ds, "radiation_damping", omega, labels))
    barge = mb.bodies[mb.index("barge")]
    np.testing.assert_allclose(barge.reference_point, [3.0, 0.5, 0.0], atol=1e-12)
    # the box is 2 x 1 m, draft 0.75 m (z -0.75..0.25): rho V = 1500 kg, its own inertia
    assert barge.displaced_volume == pytest.approx(1.5, rel=1e-9)
    assert barge.inertia_matrix[0, 0] == pytest.approx(1000.0 * 1.5, rel=1e-9)
    assert barge.hydrostatic_stiffness[2, 2] == pytest.approx(1000.0 * G * 2.0, rel=1e-9)
    assert read_hydro(path, body="float").name == "float"


# --- placement ----------------------------------------------------------------------------------
def test_yaw_rotates_the_coefficients(meshes: dict[str, Path]) -> None:
    """The same panels turned by a yaw psi about the vertical through the rotation centre:
    the Green function is invariant, so A' = T A T^T, T = diag(R, R) (no lid: Capytaine
    lays a lid's panels on axis-aligned rows). Capytaine's deep-water Green function is
    interpolated in a table of (r, z), invariant under a rotation to that accuracy:
    observed 3e-7 (A) and 9e-7 (B) of the largest entry; 1e-5 allows ten times that.
    90 deg swaps surge and sway."""
    table = [{"name": "box", "mesh": "box.stl", "lid": False}]
    ref = bem.run_bem(_spec(meshes, table))
    for yaw in (90.0, 30.0):
        turned = bem.run_bem(_spec(meshes, [{**table[0], "rotation": [0.0, 0.0, yaw]}]))
        r = rotation_matrix((0.0, 0.0, yaw))
        t = np.block([[r, np.zeros((3, 3))], [np.zeros((3, 3)), r]])
        for var in ("added_mass", "radiation_damping"):
            a = _matrices(ref, var, OMEGA[0], _labels("box"))
            b = _matrices(turned, var, OMEGA[0], _labels("box"))
            np.testing.assert_allclose(b, t @ a @ t.T, rtol=0, atol=1e-5 * np.abs(a).max())
            if yaw == 90.0:
                assert b[0, 0] == pytest.approx(a[1, 1], rel=1e-5)
                assert b[1, 1] == pytest.approx(a[0, 0], rel=1e-5)
                assert abs(a[0, 0] - a[1, 1]) > 0.1 * a[0, 0]  # the swap is visible


def test_translation_shifts_the_excitation_phase(meshes: dict[str, Path], single: object,
                                                  tmp_path: Path) -> None:
    """Moved dx downstream (waves to +x, deep water), the body meets the same wave later:
    X' = X exp(-i k dx) in the model's e^{+i w t} convention after the reader's conjugation;
    A and B unchanged. Observed: 2e-16 and 5e-16 relative (deep water: the same panels)."""
    dx = 7.0
    spec = _spec(meshes, [{"name": "a", "mesh": "cyl.obj", "position": [dx, 0.0, 0.0]}])
    moved = bem.bem_to_file(spec, tmp_path / "moved.nc")[0]
    ref = bem.write_netcdf(single, tmp_path / "ref.nc")
    a, b = read_hydro(ref), read_hydro(moved)
    k = b.omega**2 / G
    np.testing.assert_allclose(b.excitation[:, 0, :],
                               a.excitation[:, 0, :] * np.exp(-1j * k * dx)[:, None],
                               atol=1e-8 * np.abs(a.excitation).max())
    np.testing.assert_allclose(b.added_mass, a.added_mass, atol=1e-8 * np.abs(a.added_mass).max())
    np.testing.assert_allclose(b.reference_point, [dx, 0.0, 0.0])


def test_rigid_inertia_is_newton_and_euler_about_the_reference(meshes: dict[str, Path]) -> None:
    """The 6x6 mass matrix about a point r of a body with CoG c: for accelerations (a, alpha)
    of r, the force is m a_G, a_G = a + alpha x d (d = c - r, no velocity terms), and the
    moment about r is I_G alpha + d x m a_G (closed forms). Its coupling blocks equal
    Capytaine's for the same mass and CoG. Observed: 1e-16 relative."""
    rng = np.random.default_rng(21)
    mass, inertia = 1500.0, (330.0, 706.0, 597.0)
    cog, center = np.array([1.0, -2.0, -0.25]), np.array([0.3, 0.4, -1.0])
    m6 = rigid_inertia(mass, inertia, cog, center)
    d = cog - center
    for _ in range(3):
        acc, alpha = rng.normal(size=3), rng.normal(size=3)
        a_g = acc + np.cross(alpha, d)
        out = m6 @ np.concatenate([acc, alpha])
        np.testing.assert_allclose(out[:3], mass * a_g, rtol=1e-12)
        np.testing.assert_allclose(out[3:], np.diag(inertia) @ alpha + np.cross(d, mass * a_g),
                                   rtol=1e-12)
    np.testing.assert_allclose(m6, m6.T, rtol=0, atol=1e-9)
    spec = _spec(meshes, [{"name": "box", "mesh": "box.stl", "position": [1.0, -2.0, 0.0],
                           "rotation_center": center.tolist(), "center_of_mass": cog.tolist()}])
    body = place_bodies(spec)[0][0].closed
    order = ["Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw"]
    theirs = np.asarray(body.compute_rigid_body_inertia(rho=1000.0).sel(
        influenced_dof=order, radiating_dof=order).values)
    mine = rigid_inertia(float(theirs[0, 0]), inertia, cog, center)
    np.testing.assert_allclose(mine[:3, :], theirs[:3, :], rtol=0,
                               atol=1e-12 * np.abs(theirs).max())


def test_seabed_panels_are_left_out_and_a_sunk_body_is_cut(meshes: dict[str, Path]) -> None:
    """A box standing on the seabed loses its bottom panels (the seabed is the finite-depth
    Green function's wall); sunk 5 cm into it, it is cut at the seabed."""
    box = {"name": "box", "mesh": "box.stl"}  # z -0.75..0.25, bottom 2 x 1 m: 16 triangles
    on = place_bodies(_spec(meshes, [{**box, "position": [0.0, 0.0, -1.25]}],
                            water_depth=2.0))[0][0]
    assert on.seabed_panels == 16
    assert on.solved.mesh.nb_faces == on.immersed.mesh.nb_faces - 16
    assert not on.below_seabed
    sunk = place_bodies(_spec(meshes, [{**box, "position": [0.0, 0.0, -1.30]}],
                              water_depth=2.0))[0][0]
    assert sunk.below_seabed and sunk.seabed_panels == 0
    assert float(np.min(sunk.solved.mesh.vertices[:, 2])) == pytest.approx(-2.0, abs=1e-9)
    assert sunk.immersed.volume == pytest.approx(2.0 * 1.0 * 1.0, rel=1e-9)  # as meshed


# --- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "extra", "match"),
    [
        ({"name": "a", "mesh": "nowhere.stl"}, {}, r"'a': mesh file .*nowhere\.stl' does not"),
        ({"name": "a", "mesh": "cyl.obj", "postion": [0, 0, 0]}, {},
         r"unknown key 'postion'.*did you mean 'position'"),
        ({"name": "a", "mesh": "cyl.obj", "fixed": True}, {}, r"unknown key 'fixed'.*6 DOFs"),
        ({"name": "a", "mesh": "cyl.obj", "rotation": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, {},
         r"'a'\.rotation .* 3 finite numbers"),
        ({"name": "a", "mesh": "cyl.obj", "rotation": [0, 400, 0]}, {},
         r"'a'\.rotation .*\[-360, 360\] deg"),
        ({"name": "a", "mesh": "cyl.obj", "mass": 1.0}, {}, r"both mass .* and inertia"),
        ({"name": "a b", "mesh": "cyl.obj"}, {}, r"must be an identifier"),
        ({"mesh": "cyl.obj"}, {}, r"needs name"),
        ({"name": "a", "mesh": "cyl.obj"}, {"center_of_mass": [0, 0, 0]},
         r"\[bem\] center_of_mass belongs to each \[\[bem.bodies\]\] entry"),
    ],
)
def test_bad_bodies_are_named(meshes: dict[str, Path], body: dict, extra: dict,
                              match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        _spec(meshes, [body], **extra)


def test_duplicate_names_and_low_frequencies_in_finite_depth(meshes: dict[str, Path]) -> None:
    cyl = {"name": "a", "mesh": "cyl.obj"}
    with pytest.raises(ConfigError, match=r"\['a'\] are used more than once"):
        _spec(meshes, [cyl, cyl])
    with pytest.raises(ConfigError, match=r"k h = 0\.106 .* start omega at 0\.142"):
        bem.parse_bem({"omega": [0.1, 1.0], "water_depth": 10.9, "bodies": [cyl]},
                      base=meshes["cyl"].parent)


def test_touching_bodies_are_solved_without_their_common_faces(
        meshes: dict[str, Path]) -> None:
    """Two boxes sharing a face (Capytaine's Green function gives NaN on coincident panels)
    are solved without the panels the water cannot reach: the 16 triangles (2 m^2) of each on
    the common face, and the note says so (``hydrofmu.bem.contact``,
    tests/test_bem_contact.py)."""
    box = {"name": "a", "mesh": "box.stl", "lid": False}
    spec = bem.parse_bem({"omega": [1.0], "zero_and_infinite": False,
                          "bodies": [box, {**box, "name": "b", "position": [0.0, 0.0, -1.0]}]},
                         base=meshes["box"].parent)
    ds = bem.run_bem(spec)
    assert np.all(np.isfinite(ds["added_mass"].values))
    assert np.all(np.isfinite(ds["radiation_damping"].values))
    assert "a: 16 (2 m^2), b: 16 (2 m^2)" in ds.attrs["bem_notes"]  # STL: triangles


# --- the shipped OSWEC data ---------------------------------------------------------------------
def test_oswec_input_places_the_meshes_as_its_readme_says() -> None:
    """No solve: the flap spans z -9.4..2.1 m and pierces the surface (a lid), the base is
    cut at the seabed 5 cm under its bottom, leaving a 5 cm gap under the flap."""
    spec = bem.load_bem(OSWEC / "oswec_bem.toml")
    placed, _ = place_bodies(spec)
    flap, base = placed
    z = np.asarray(flap.closed.mesh.vertices)[:, 2]
    assert (z.min(), z.max()) == (pytest.approx(-9.4, abs=1e-6), pytest.approx(2.1, abs=1e-6))
    assert flap.solved.lid_mesh is not None and base.solved.lid_mesh is None
    zb = np.asarray(base.solved.mesh.vertices)[:, 2]
    assert (zb.min(), zb.max()) == (pytest.approx(-10.9), pytest.approx(-9.45))
    assert base.below_seabed and spec.water_depth == 10.9


def test_shipped_oswec_netcdf_reads_back() -> None:
    """The shipped file: bodies flap and base, 12 x 12 coupled matrices, the flap's mass."""
    mb = read_hydro_bodies(OSWEC / "oswec.nc")
    assert mb.names == ("flap", "base")
    flap = mb.bodies[0]
    assert flap.inertia_matrix[0, 0] == pytest.approx(127000.0)
    assert flap.inertia_matrix[4, 4] == pytest.approx(1.85e6)
    assert mb.omega.min() == pytest.approx(0.15) and mb.omega.max() == pytest.approx(3.0)
    a = mb.added_mass_inf
    # the flap-base coupling is what the joint model needs: present, not negligible
    # (observed: 8.8 % of the flap's largest A_inf entry)
    assert np.abs(a[:6, 6:]).max() > 0.05 * np.abs(a[:6, :6]).max()
    # Symmetric to the solver's accuracy (1392 panels): observed max |A - A^T| 0.11 % and
    # max |B - B^T| 0.10 % of the largest entry over all frequencies (0.15 % of each
    # frequency's own largest A; B's 2.4 % of its own at 0.225 rad/s, where B is ~0);
    # 0.5 % is several times that and below the 8.8 % coupling.
    for m in (mb.added_mass, mb.radiation_damping):
        assert np.abs(m - m.transpose(0, 2, 1)).max() < 5e-3 * np.abs(m).max()


def test_build_reads_the_shipped_oswec_netcdf_with_its_coupling(tmp_path: Path) -> None:
    """The configuration (what ``hydrofmu build`` reads) finds both bodies by their names in
    the shipped file and carries their coupling blocks exactly as the file holds them."""
    from hydrofmu.config.configuration import load_config

    nc = (OSWEC / "oswec.nc").as_posix()
    body = ('[[bodies]]\nname = "{n}"\nhydro = "{nc}"\nhydro_body = "{n}"\nmass = {m}\n'
            'inertia = [1.0e6, 1.0e6, 1.0e6]\ncog = [0.0, 0.0, 0.0]\ndofs = ["surge", "pitch"]\n')
    toml = tmp_path / "oswec_min.toml"
    toml.write_text("[multibody]\nb2b = true\n\n" + body.format(n="flap", nc=nc, m=127000.0)
                    + "\n" + body.format(n="base", nc=nc, m=48708.0))
    bodies, config = load_config(toml)
    assert [b.name for b in bodies] == ["flap", "base"]
    mb = read_hydro_bodies(OSWEC / "oswec.nc")
    assert len(config["coupling"]) == 2
    assert sorted(tuple(e["bodies"]) for e in config["coupling"]) == [(0, 1), (1, 0)]
    for entry in config["coupling"]:  # the force on body k from the motion of body j
        k, j = entry["bodies"]
        np.testing.assert_array_equal(np.asarray(entry["added_mass_inf"]), mb.block(k, j))
