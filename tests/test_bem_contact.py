"""Bodies that touch (``hydrofmu.bem.contact``): contact panels, openings, each body's hull.

Small exact cases (boxes whose volumes and faces are known in closed form) and the F3OF's
published meshes (HydroChrono's OBJ, open where a flap meets the base; WAMIT's GDF, each
closed, with coincident faces), checked against the volumes and hydrostatic stiffness WAMIT
wrote for the same device (``tests/data/f3of/wamit_wec3.mmx``, ``.hst``).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import capytaine as cpt
import numpy as np
import pytest

from hydrofmu.bem import parse_bem
from hydrofmu.bem.contact import (
    contact_masks,
    face_geometry,
    openings,
    triangles_of,
    winding_numbers,
)
from hydrofmu.bem.multi import contact_notes, place_bodies
from hydrofmu.runtime.errors import HydroDataError
from paths import ROOT

F3OF = ROOT / "examples" / "f3of"
DATA = ROOT / "tests" / "data" / "f3of"
RHO, G = 1025.0, 9.81
# WAMIT's placement of the three bodies (wamit_wec3.pot, XBODY).
PLACES = {"base": (0.0, 0.0, -9.0), "flap1": (-12.5, 0.0, -5.5), "flap2": (12.5, 0.0, -5.5)}


def _box(center: tuple[float, float, float], size: tuple[float, float, float],
         resolution: tuple[int, int, int] = (2, 2, 2)) -> tuple[np.ndarray, np.ndarray]:
    mesh = cpt.mesh_parallelepiped(size=size, center=center, resolution=resolution)
    return np.asarray(mesh.vertices, dtype=float), np.asarray(mesh.faces, dtype=int)


def _volumes(tri: np.ndarray) -> np.ndarray:
    """The three divergence-theorem volumes of triangles (m, 3, 3), m^3."""
    n = 0.5 * np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    return np.sum(tri.mean(axis=1) * n, axis=0)


def test_winding_number_is_one_inside_and_zero_outside() -> None:
    tri = triangles_of(*_box((0.0, 0.0, -2.0), (2.0, 3.0, 1.0)))
    w = winding_numbers(np.array([[0.1, 0.2, -2.1], [3.0, 0.0, -2.0], [0.0, 0.0, 0.0]]), tri)
    # Round-off only: a sum of arctangents over 24 triangles.
    np.testing.assert_allclose(w, [1.0, 0.0, 0.0], atol=1e-12)


def test_boxes_face_to_face_lose_their_common_faces_in_pairs() -> None:
    # Two closed 2 x 2 x 2 m boxes meeting on x = 0, meshed 2 x 2 on each face (1 m^2
    # panels): the 4 panels of each on x = 0 carry no pressure.
    left = _box((-1.0, 0.0, -2.0), (2.0, 2.0, 2.0))
    right = _box((1.0, 0.0, -2.0), (2.0, 2.0, 2.0))
    far = _box((10.0, 0.0, -2.0), (2.0, 2.0, 2.0))
    masks = contact_masks([left, right, far])
    for (v, f), mask in zip((left, right), masks[:2], strict=True):
        centre, _, area = face_geometry(v, f)
        assert np.sum(mask) == 4
        np.testing.assert_allclose(centre[mask, 0], 0.0, atol=1e-12)
        assert np.sum(area[mask]) == pytest.approx(4.0, rel=1e-12)
    assert not np.any(masks[2])
    # What is left is the closed surface of the 4 x 2 x 2 m union.
    tri = np.concatenate([triangles_of(v, f[~m]) for (v, f), m in
                          zip((left, right), masks[:2], strict=True)])
    np.testing.assert_allclose(_volumes(tri), 16.0, rtol=1e-12)


def test_open_halves_are_capped_to_their_own_volumes() -> None:
    # One 4 x 2 x 2 m box cut in two at x = 0 with the cut faces left out (as the F3OF's
    # OBJ meshes leave out where a flap meets the base): each half is open, the union is
    # closed, and the cap restores each half's 8 m^3 and its centroid.
    # The cut at x = 1 m (off the origin, so that the x volume sees the missing face).
    v, f = _box((1.0, 0.0, -2.0), (4.0, 2.0, 2.0), resolution=(4, 2, 2))
    centre, _, _ = face_geometry(v, f)
    for side in (-1.0, 1.0):
        keep = side * (centre[:, 0] - 1.0) > 0
        found = openings(v, f[keep])
        assert len(found.loops) == 1
        np.testing.assert_allclose(found.loops[0][:, 0], 1.0, atol=1e-12)
        own = triangles_of(v, f[keep])
        assert np.ptp(_volumes(own)) > 1.0  # open: the three volumes disagree
        tri = np.concatenate([own, found.cap])
        np.testing.assert_allclose(_volumes(tri), 8.0, rtol=1e-12)


def test_waterline_is_not_an_opening() -> None:
    # A box meshed up to z = 0 without its top: the waterline is the free surface's.
    v, f = _box((0.0, 0.0, -1.0), (2.0, 2.0, 2.0))
    centre, _, _ = face_geometry(v, f)
    assert openings(v, f[centre[:, 2] < -1e-9]).loops == []


def _mmx_volumes() -> list[float]:
    text = (DATA / "wamit_wec3.mmx").read_text()
    return [float(m) for m in re.findall(r"Volumes \(VOLX,VOLY,VOLZ\):\s+(\S+)", text)]


def _hst() -> np.ndarray:
    """WAMIT's hydrostatic stiffness (18 x 18), normalised by rho g (m^2, m^3, m^4)."""
    out = np.zeros((18, 18))
    for line in (DATA / "wamit_wec3.hst").read_text().splitlines()[1:]:
        i, j, c = line.split()
        out[int(i) - 1, int(j) - 1] = float(c)
    return out


@pytest.fixture(scope="module")
def placed() -> list:
    with (F3OF / "f3of_bem.toml").open("rb") as fh:
        spec = parse_bem(tomllib.load(fh)["bem"], base=F3OF)
    return place_bodies(spec)[0]


def test_f3of_obj_meshes_each_body_from_its_own_capped_hull(placed: list) -> None:
    # WAMIT's volumes of the same bodies (base 672.918, flaps 368.870 m^3, printed to 6
    # digits); the OBJ and the GDF meshes are the same surfaces.
    wamit = _mmx_volumes()
    assert [p.spec.name for p in placed] == ["base", "flap1", "flap2"]
    assert [p.openings for p in placed] == [10, 4, 4]
    for p, volume in zip(placed, wamit, strict=True):
        np.testing.assert_allclose(p.immersed.mesh.volumes, volume, rtol=1e-5)
    # Only two panels of the base face into flap 1 (1 m^2); the flaps touch nothing.
    assert [p.contact_panels for p in placed] == [2, 0, 0]
    assert placed[0].contact_area == pytest.approx(1.0, rel=1e-9)
    notes = " ".join(contact_notes(placed))
    assert "the bodies base, flap1, flap2 close each other" in notes
    assert "base: 2 (1 m^2)" in notes


def test_f3of_hydrostatic_stiffness_against_wamit(placed: list) -> None:
    # About each body's origin (WAMIT's XBODY, VCG = 0: no gravity term; the bodies'
    # centres of mass are their reference points here). Heave: the waterplane areas agree
    # to WAMIT's 7 digits. Roll and pitch add the waterplane's second moment, which both
    # codes integrate with one point per panel: for a flap's two 2 x 9.5 m rectangles
    # (exact I_xx 4 (10.5^3 - 1) / 3 = 1543.2 m^4, C44 / rho g = 1780.5 m^4 with V z_b)
    # Capytaine gives 1775.6 (-0.28 %), WAMIT 1773.8 (-0.38 %): 0.2 % bounds the two.
    hst = _hst()
    for k, p in enumerate(placed):
        ours = np.asarray(p.immersed.compute_hydrostatic_stiffness(rho=RHO, g=G).values)
        theirs = hst[6 * k:6 * k + 6, 6 * k:6 * k + 6] * RHO * G
        assert ours[2, 2] == pytest.approx(theirs[2, 2], rel=1e-5), p.spec.name
        for i in (3, 4):
            assert ours[i, i] == pytest.approx(theirs[i, i], rel=2e-3), (p.spec.name, i)
        scale = np.max(np.abs(theirs))
        np.testing.assert_allclose(ours, theirs, atol=2e-3 * scale)
    flap = placed[1]
    exact = 4 * (10.5**3 - 1.0) / 3 + float(flap.immersed.volume) * (
        float(flap.immersed.center_of_buoyancy[2]) + 5.5)
    roll = flap.immersed.compute_hydrostatic_stiffness(rho=RHO, g=G).values[3, 3]
    assert roll / (RHO * G) == pytest.approx(exact, rel=5e-3)


def test_f3of_gdf_meshes_are_closed_and_lose_their_coincident_faces() -> None:
    meshes = []
    for name, gdf in (("base", "wamit_base.GDF"), ("flap1", "wamit_flap1.GDF"),
                      ("flap2", "wamit_flap2.GDF")):
        mesh = cpt.load_mesh(str(DATA / gdf), file_format="gdf")
        meshes.append((np.asarray(mesh.vertices) + PLACES[name], np.asarray(mesh.faces)))
    for (v, f), volume in zip(meshes, _mmx_volumes(), strict=True):
        assert openings(v, f).loops == []
        np.testing.assert_allclose(_volumes(triangles_of(v, f)), volume, rtol=1e-5)
    masks = contact_masks(meshes)
    areas = [float(np.sum(face_geometry(v, f)[2][m])) for (v, f), m in
             zip(meshes, masks, strict=True)]
    # Each flap's four hinge end caps (half an octagon on a 2 x 1 m rectangle, 3.414
    # m^2) lie on the base's 2 x 2 m faces, which are centred on them: the flaps lose
    # 4 x 3.414 m^2 each, the base its 8 faces of 4 m^2 (WAMIT's meshes do not resolve
    # the 0.586 m^2 corners of each square left wet around a cap).
    assert [int(np.sum(m)) for m in masks] == [8, 16, 16]
    np.testing.assert_allclose(areas, [32.0, 4 * (2 + 2**0.5), 4 * (2 + 2**0.5)], rtol=1e-5)
    # What is left is closed: the union of the three bodies.
    tri = np.concatenate([triangles_of(v, f[~m]) for (v, f), m in
                          zip(meshes, masks, strict=True)])
    vol = _volumes(tri)
    assert np.ptp(vol) / np.mean(vol) < 0.02


def test_body_open_in_two_places_is_capped_and_noted(tmp_path: Path) -> None:
    # A 2 x 2 x 2 m box without its bottom and without one panel of a side: two planar
    # openings, capped exactly; the note names the body.
    v, f = _box((0.0, 0.0, -2.0), (2.0, 2.0, 2.0))
    _, normal, _ = face_geometry(v, f)
    keep = ~(normal[:, 2] < -0.5)
    keep[np.flatnonzero(normal[:, 0] > 0.5)[0]] = False
    path = tmp_path / "holed.obj"
    tri = triangles_of(v, f[keep])
    with path.open("w") as fh:
        fh.writelines(f"v {x:.17g} {y:.17g} {z:.17g}\n" for x, y, z in tri.reshape(-1, 3))
        fh.writelines(f"f {3 * k + 1} {3 * k + 2} {3 * k + 3}\n" for k in range(len(tri)))
    spec = parse_bem({"omega": [1.0], "bodies": [{"name": "b", "mesh": str(path)}]},
                     base=tmp_path)
    with pytest.raises(HydroDataError, match="wetted surface of the bodies b together"):
        # Alone, nothing closes its openings: the union (the body itself) is open.
        place_bodies(spec)
    found = openings(tri.reshape(-1, 3), np.arange(3 * len(tri)).reshape(-1, 3))
    assert len(found.loops) == 2
    np.testing.assert_allclose(_volumes(np.concatenate([tri, found.cap])), 8.0, rtol=1e-12)


def test_f3of_gdf_input_as_published_is_placed_and_cut() -> None:
    # The WAMIT panels read as [[bem.bodies]] (the .GDF suffix is recognised), placed by
    # WAMIT's XBODY: each body is closed (no openings), the coincident faces leave (8 and
    # 16 quads, split in two when placed), and so do the files' panels on the waterplane
    # (the base's four columns' tops, the flaps' tops: 16 and 24 quads).
    bodies = [{"name": name, "mesh": f"wamit_{gdf}.GDF", "position": list(PLACES[name])}
              for name, gdf in (("base", "base"), ("flap1", "flap1"), ("flap2", "flap2"))]
    spec = parse_bem({"omega": [1.0], "lid": False, "bodies": bodies}, base=DATA)
    placed = place_bodies(spec)[0]
    assert [p.openings for p in placed] == [0, 0, 0]
    assert [p.contact_panels for p in placed] == [16, 32, 32]
    assert [p.surface_panels for p in placed] == [32, 48, 48]
    for p, volume in zip(placed, _mmx_volumes(), strict=True):
        np.testing.assert_allclose(p.immersed.mesh.volumes, volume, rtol=1e-5)
