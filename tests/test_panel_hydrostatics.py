"""The panel kernel's hydrostatics against closed forms and Capytaine.

The kernel (runtime/panels/panel_kernel.c) cuts a closed triangle mesh at z = 0 and
integrates over the wetted part. On flat-faced meshes (a box) the cut and the integrals
are exact, so the kernel must equal an independent exact computation to round-off; on
curved hulls (sphere, cylinder) it integrates the polyhedron, whose volume, centre and
waterplane differ from the smooth body's by O(h^2) (h the panel size), which the
convergence test fits.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from hydrofmu.io.panel_mesh import BodyMesh
from hydrofmu.runtime.panels.kernel import AWP, COB, CWP, STATIC_LOAD, VOLUME
from panel_meshes import RHO, G, box, cap, cylinder, kernel, pose, sphere

ANGLES = np.radians([0.0, 10.0, 25.0, 40.0, 60.0, 80.0])


def polygon_tolerance(n: int) -> float:
    """Relative discretisation error allowed for a UV sphere or polygonal cylinder of n
    panels around 2 pi: a chord of angle 2 pi / n cuts the radius by 1 - cos(pi / n) ~
    (pi / n)^2 / 2, the area and volume by about twice that; allowed: 2 (pi / n)^2."""
    return 2.0 * (math.pi / n) ** 2


@pytest.mark.parametrize("depth", [-0.6, 0.0, 0.35, 0.8])
def test_sphere_cap_at_drafts_and_heel(depth: float) -> None:
    """A sphere (r = 1 m, 40 x 80 panels) with its centre ``depth`` below the surface,
    turned about its centre by 0-80 degrees of heel and some yaw: the immersed volume,
    centre of buoyancy and waterplane area are the spherical cap's; the static pressure's
    force is rho g V upwards through the centre of buoyancy (Archimedes)."""
    n = 40
    k = kernel(sphere(1.0, n))
    volume, zb, awp = cap(1.0, depth)
    tol = polygon_tolerance(n)
    centre = np.array([0.3, -0.2, -depth])
    for heel in ANGLES:
        out = k.evaluate(pose(heel, 0.3 * heel, 0.7), centre)
        assert out[VOLUME] == pytest.approx(volume, rel=tol)
        assert out[AWP] == pytest.approx(awp, rel=tol, abs=1e-12)
        # the centre: below the sphere's centre by the cap's centroid distance (r tol)
        np.testing.assert_allclose(out[COB], centre + np.array([0.0, 0.0, zb]), atol=tol)
        load = out[STATIC_LOAD]
        np.testing.assert_allclose(load[:3], [0, 0, RHO * G * out[VOLUME]],
                                   atol=1e-9 * RHO * G * volume)
        arm = out[COB] - centre  # moment of the buoyancy about the reference point
        np.testing.assert_allclose(load[3:], np.cross(arm, load[:3]),
                                   atol=1e-9 * RHO * G * volume)
        if depth:
            np.testing.assert_allclose(out[CWP], centre[:2], atol=tol)


def test_sphere_turned_about_an_off_centre_point() -> None:
    """Heeling about a point 0.4 m above the centre moves the centre: the cap follows the
    centre's new depth at every angle (0-80 degrees)."""
    n = 40
    mesh = sphere(1.0, n)
    k = kernel(BodyMesh(mesh.vertices - [0, 0, 0.4], mesh.triangles))
    ref = np.array([0.0, 0.0, 0.1])
    tol = polygon_tolerance(n)
    for heel in ANGLES:
        rot = pose(heel)
        centre = ref + rot @ [0, 0, -0.4]
        volume, zb, awp = cap(1.0, -centre[2])
        out = k.evaluate(rot, ref)
        assert out[VOLUME] == pytest.approx(volume, rel=tol)
        assert out[AWP] == pytest.approx(awp, rel=tol)
        np.testing.assert_allclose(out[COB], centre + np.array([0.0, 0.0, zb]), atol=tol)


def clipped_box(size, rot, trans):
    """Independent exact volume and centroid of a box below z = 0 (world): the convex
    hull of its corners below the surface and its edges' crossings, split into
    tetrahedra from an interior point."""
    from itertools import product

    from scipy.spatial import ConvexHull

    half = np.asarray(size) / 2
    corners = np.array([half * s for s in product((-1, 1), repeat=3)])
    world = trans + corners @ rot.T
    points = [p for p in world if p[2] <= 0]
    for i in range(8):
        for j in range(i + 1, 8):
            if np.count_nonzero(corners[i] != corners[j]) == 1:  # an edge
                a, b = world[i], world[j]
                if (a[2] < 0) != (b[2] < 0):
                    s = a[2] / (a[2] - b[2])
                    points.append(a + s * (b - a))
    pts = np.array(points)
    hull = ConvexHull(pts)
    inner = pts.mean(axis=0)
    vol, mom = 0.0, np.zeros(3)
    for simplex in hull.simplices:
        tet = np.vstack([pts[simplex], inner])
        v = abs(np.linalg.det(tet[:3] - tet[3])) / 6
        vol += v
        mom += v * tet.mean(axis=0)
    return vol, mom / vol


def test_box_against_an_exact_clipping() -> None:
    """A box (4 x 2 x 1.5 m, flat faces: no discretisation) at 60 seeded poses: drafts
    across its height, heel 0-80 degrees, pitch, yaw; the volume and centroid equal the
    convex-hull computation to round-off (1e-10: sums of ~1e3 terms of size 1)."""
    size = (4.0, 2.0, 1.5)
    k = kernel(box(size, n=3))
    rng = np.random.default_rng(20261127)
    for _ in range(60):
        rot = pose(rng.uniform(0, 1.4), rng.uniform(-0.5, 0.5), rng.uniform(-3, 3))
        trans = np.array([rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-0.7, 0.7)])
        out = k.evaluate(rot, trans)
        vol, centroid = clipped_box(size, rot, trans)
        assert out[VOLUME] == pytest.approx(vol, rel=1e-10)
        np.testing.assert_allclose(out[COB], centroid, atol=1e-10)


def wall_sided_gz(beam: float, draft: float, kg: float, heel: float) -> float:
    """GZ of a wall-sided box heeled at constant displacement (the wall-sided formula,
    exact until the deck edge or the bilge emerges): sin(phi) (GM + BM tan^2(phi) / 2)."""
    bm = beam ** 2 / (12.0 * draft)
    gm = draft / 2 + bm - kg
    return math.sin(heel) * (gm + 0.5 * bm * math.tan(heel) ** 2)


def test_wall_sided_box_gz_curve_until_deck_edge_immersion() -> None:
    """Box of beam 2 m, length 4 m, depth 1.5 m at a draft of 0.6 m, heeled about the
    waterplane's centre line (constant displacement for a wall-sided hull): the righting
    moment about G (buoyancy and weight) is rho g V GZ of the wall-sided formula at every
    heel until the deck edge immerses or the bilge emerges (tan phi = min(D - T, T) / (B /
    2)), to round-off (flat faces: the kernel is exact)."""
    beam, length, depth, draft, kg = 2.0, 4.0, 1.5, 0.6, 0.9
    mesh = box((length, beam, depth), n=3, center=(0.0, 0.0, depth / 2 - draft))
    k = kernel(mesh)
    limit = math.atan(min(depth - draft, draft) / (beam / 2))  # deck edge or bilge
    g_body = np.array([0.0, 0.0, kg - draft])
    for heel in np.linspace(0.0, 0.999 * limit, 9):
        rot = pose(heel)
        out = k.evaluate(rot, np.zeros(3), reference=rot @ g_body)
        volume = out[VOLUME]
        assert volume == pytest.approx(beam * length * draft, rel=1e-12)
        gz = -out[STATIC_LOAD][3] / (RHO * G * volume)  # roll moment -rho g V GZ
        assert gz == pytest.approx(wall_sided_gz(beam, draft, kg, heel), abs=1e-12)


def prism_closed_form(section_area: float, ixx: float, iyy: float, bottom: float,
                      rot: np.ndarray, trans: np.ndarray):
    """Wall-sided prism (vertical axis in the body frame, section symmetric about x' and
    y', ``bottom`` below the body origin) cut by z = 0 while the plane crosses its walls
    only: volume, centre of buoyancy (world) and waterplane area. In body coordinates the
    surface is z' = h0 + a x' + b y'; the volume is A (h0 + bottom), the centroid
    (a I_yy, b I_xx, [A (h0^2 - bottom^2) + a^2 I_yy + b^2 I_xx] / 2) / V with I_yy =
    int x'^2 dA, I_xx = int y'^2 dA, the waterplane A / |cos(tilt)|."""
    h0, a, b = -trans[2] / rot[2, 2], -rot[2, 0] / rot[2, 2], -rot[2, 1] / rot[2, 2]
    volume = section_area * (h0 + bottom)
    c = np.array([a * iyy, b * ixx,
                  0.5 * (section_area * (h0 ** 2 - bottom ** 2) + a * a * iyy + b * b * ixx)])
    return volume, trans + rot @ (c / volume), section_area / abs(rot[2, 2])


@pytest.mark.parametrize("draft", [0.5, 1.0, 1.5])
def test_vertical_cylinder_at_drafts_and_heel(draft: float) -> None:
    """Vertical cylinder (r = 1 m, length 2 m, 64 panels around) at three drafts, heeled
    0-80 degrees as long as the surface crosses its wall only: the wall-sided prism's
    closed form with the circle's A = pi r^2, int x^2 dA = pi r^4 / 4 (discretisation
    tolerance of a 64-gon)."""
    r, length, n = 1.0, 2.0, 64
    k = kernel(cylinder(r, length, n))
    tol = polygon_tolerance(n)
    bottom = draft  # the reference point: the waterplane's centre at rest
    ref_to_centre = np.array([0.0, 0.0, length / 2 - draft])  # the mesh's origin
    for heel in ANGLES:
        rot = pose(heel, 0.0, 0.4)
        # the surface must stay on the wall: |tan| r below the top and above the bottom
        if math.tan(heel) * r >= min(draft, length - draft):
            continue
        world_centre = rot @ ref_to_centre  # turned about the waterplane's centre
        out = k.evaluate(rot, world_centre, reference=np.zeros(3))
        area, inertia = math.pi * r * r, math.pi * r ** 4 / 4
        volume, cob, awp = prism_closed_form(area, inertia, inertia, bottom, rot,
                                             np.zeros(3))
        assert out[VOLUME] == pytest.approx(volume, rel=tol)
        assert out[AWP] == pytest.approx(awp, rel=tol)
        np.testing.assert_allclose(out[COB], cob, atol=tol * length)


def fitted_order(sizes, errors) -> float:
    """Slope of log(error) against log(panel size)."""
    return float(np.polyfit(np.log(sizes), np.log(errors), 1)[0])


def test_second_order_convergence_under_refinement() -> None:
    """Sphere (r = 1 m, centre 0.3 m below the surface, heeled 30 degrees) and vertical
    cylinder (heeled 20 degrees) at 4 resolutions doubling each time: the errors of the
    volume, waterplane area and centre of buoyancy against the closed forms fall as h^2
    (fitted slope 1.8-2.2: the polyhedron's chords)."""
    volume, zb, awp = cap(1.0, 0.3)
    centre = np.array([0.0, 0.0, -0.3])
    ns = [10, 20, 40, 80]
    errs = {"volume": [], "awp": [], "cob": []}
    for n in ns:
        out = kernel(sphere(1.0, n)).evaluate(pose(math.radians(30)), centre)
        errs["volume"].append(abs(out[VOLUME] - volume))
        errs["awp"].append(abs(out[AWP] - awp))
        errs["cob"].append(abs(out[COB][2] - (centre[2] + zb)))
    for name, e in errs.items():
        order = fitted_order(1.0 / np.array(ns), e)
        assert 1.8 < order < 2.2, (name, order, e)
    cyl = {"volume": [], "awp": []}
    rot = pose(math.radians(20))
    area, inertia = math.pi, math.pi / 4
    v_exact, _, a_exact = prism_closed_form(area, inertia, inertia, 1.0, rot, np.zeros(3))
    for n in [16, 32, 64, 128]:
        out = kernel(cylinder(1.0, 2.0, n)).evaluate(rot, np.zeros(3))
        cyl["volume"].append(abs(out[VOLUME] - v_exact))
        cyl["awp"].append(abs(out[AWP] - a_exact))
    for name, e in cyl.items():
        order = fitted_order(1.0 / np.array([16, 32, 64, 128]), e)
        assert 1.8 < order < 2.2, ("cylinder", name, order, e)


def test_against_capytaine_hydrostatics_at_ten_poses() -> None:
    """Capytaine's own clipping (``Mesh.immersed_part``) and hydrostatics (volume, centre
    of buoyancy, waterplane area and centre) of the same cylinder mesh at ten seeded poses
    (heel up to 80 degrees, any yaw, drafts across the hull): equal to round-off (both
    integrate the same polyhedron exactly; 1e-9 relative of the mesh's size)."""
    import capytaine as cpt

    mesh = cpt.mesh_vertical_cylinder(radius=1.0, length=2.0, center=(0, 0, 0),
                                      resolution=(4, 32, 8))
    from hydrofmu.io.panel_mesh import merged

    k = kernel(merged(mesh.vertices, mesh.faces, "cylinder"))
    rng = np.random.default_rng(10)
    for _ in range(10):
        rot = pose(rng.uniform(0, 1.4), rng.uniform(-0.4, 0.4), rng.uniform(-3, 3))
        trans = np.array([rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-0.6, 0.6)])
        placed = mesh.rotated_with_matrix(rot).translated(trans)
        # Capytaine's default one-point quadrature gives the centre of buoyancy to O(h^2)
        # only (a quadratic integrand); its 2x2 Gauss-Legendre rule integrates it exactly.
        wet = placed.immersed_part().with_quadrature("Gauss-Legendre 2")
        out = k.evaluate(rot, trans)
        assert out[VOLUME] == pytest.approx(wet.disp_volume, rel=1e-9)
        np.testing.assert_allclose(out[COB], wet.center_of_buoyancy, atol=1e-9)
        assert out[AWP] == pytest.approx(wet.waterplane_area, rel=1e-9)
        np.testing.assert_allclose(out[CWP], wet.waterplane_center, atol=1e-9)
