"""Mass properties after the SDFormat added-mass proposal and AGX's added-mass interaction:
the 6x6 spatial mass, configured added mass (21 terms or 6x6) and the body-to-world
transform of added-mass blocks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from hydrofmu.config.rigid_body import (
    ADDED_MASS_TERMS,
    added_mass_matrix,
    frame_to_world,
    rotation_matrix,
    spatial_mass_matrix,
)
from hydrofmu.runtime.errors import ConfigError
from physics_helpers import bemio_sphere_body, make_simulator

# Sums and products of a few O(1e6) numbers: float round-off.
EXACT = 1e-12


def test_spatial_mass_matches_the_sdformat_proposal() -> None:
    """Entries of the proposal's M (translation-rotation blocks written out there), and
    the parallel-axis theorem for the rotational block."""
    m = 1234.5
    x, y, z = 0.3, -0.7, 1.9
    ig = np.array([[400.0, 12.0, -5.0], [12.0, 350.0, 8.0], [-5.0, 8.0, 300.0]])
    got = spatial_mass_matrix(m, ig, [x, y, z])
    sdf_upper_right = np.array([[0.0, m * z, -m * y],
                                [-m * z, 0.0, m * x],
                                [m * y, -m * x, 0.0]])
    np.testing.assert_allclose(got[:3, :3], m * np.eye(3), rtol=EXACT)
    np.testing.assert_allclose(got[:3, 3:], sdf_upper_right, rtol=EXACT)
    np.testing.assert_allclose(got[3:, :3], sdf_upper_right.T, rtol=EXACT)
    r = np.array([x, y, z])
    parallel_axis = ig + m * (r @ r * np.eye(3) - np.outer(r, r))
    np.testing.assert_allclose(got[3:, 3:], parallel_axis, rtol=EXACT)
    # Kinetic energy of the reference point's velocity (v, w): 1/2 m |v + w x r|^2 +
    # 1/2 w.Ig.w, for random velocities.
    rng = np.random.default_rng(7)
    for _ in range(5):
        v, w = rng.normal(size=3), rng.normal(size=3)
        vel = np.concatenate([v, w])
        vg = v + np.cross(w, r)
        assert 0.5 * vel @ got @ vel == pytest.approx(0.5 * m * vg @ vg + 0.5 * w @ ig @ w,
                                                      rel=1e-12)


def test_21_terms_fill_the_symmetric_matrix() -> None:
    assert len(ADDED_MASS_TERMS) == 21
    rng = np.random.default_rng(3)
    g = rng.normal(size=(6, 6))
    full = g @ g.T + 6 * np.eye(6)          # symmetric positive definite
    letters = "xyzpqr"
    terms = {t: float(full[letters.index(t[0]), letters.index(t[1])])
             for t in ADDED_MASS_TERMS}
    np.testing.assert_array_equal(added_mass_matrix(terms), full)
    np.testing.assert_array_equal(added_mass_matrix(full.tolist()), full)
    partial = added_mass_matrix({"zz": 5.0, "xq": 1.0, "xx": 2.0, "qq": 3.0})
    assert partial[4, 0] == partial[0, 4] == 1.0 and partial[2, 2] == 5.0
    assert np.count_nonzero(partial) == 5


@pytest.mark.parametrize(("value", "match"), [
    ({"zx": 1.0}, r"unknown term 'zx' \(the matrix is symmetric: write it as 'xz'\)"),
    ({"zzz": 1.0}, r"unknown term 'zzz'.*terms: xx, xy"),
    ({"zz": "big"}, r"added_mass.zz must be a finite number"),
    ({}, r"empty table"),
    ([[1.0] * 6] * 5, r"must be a 6x6 matrix .*got shape \(5, 6\)"),
    ((np.eye(6) + np.triu(np.ones((6, 6)), 1)).tolist(), r"not symmetric: \[0,1\] = 1"),
    ({"xx": 1.0, "yy": 1.0, "xy": 2.0}, r"not positive semi-definite \(smallest eigenvalue "
                                        r"-1"),
    ({"zz": -3.0}, r"not positive semi-definite"),
])
def test_bad_added_mass(value: object, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        added_mass_matrix(value)


def test_rotation_90_deg_about_z_swaps_surge_and_sway() -> None:
    """Body x along world y: world sway sees the body's surge added mass, world surge the
    body's sway one; roll and pitch swap likewise."""
    body = np.diag([1.0e5, 3.0e5, 5.0e5, 2.0e7, 4.0e7, 6.0e7])
    world = frame_to_world(body, [rotation_matrix(0.0, 0.0, np.pi / 2)])
    # cos(pi/2) = 6e-17, times 6e7: round-off of ~4e-9 kg m^2 off the diagonal.
    np.testing.assert_allclose(world, np.diag([3.0e5, 1.0e5, 5.0e5, 4.0e7, 2.0e7, 6.0e7]),
                               atol=1e-8)
    # A heave-pitch coupling (body zq) turns into a heave-roll one (world zp), with the
    # sign of the rotated axis: body y = world -x.
    coupled = body.copy()
    coupled[2, 4] = coupled[4, 2] = 7.0e5
    w = frame_to_world(coupled, [rotation_matrix(0.0, 0.0, np.pi / 2)])
    assert w[2, 3] == pytest.approx(-7.0e5, rel=EXACT) and abs(w[2, 4]) < 1e-6


def test_general_rotation_preserves_eigenvalues_and_energy() -> None:
    rng = np.random.default_rng(11)
    g = rng.normal(size=(6, 6))
    body = g @ g.T
    r = rotation_matrix(0.3, -1.1, 2.4)
    np.testing.assert_allclose(r @ r.T, np.eye(3), atol=1e-15)
    world = frame_to_world(body, [r])
    np.testing.assert_allclose(np.linalg.eigvalsh(world), np.linalg.eigvalsh(body),
                               rtol=1e-12, atol=1e-12 * np.abs(body).max())
    # Same fluid kinetic energy whichever frame the velocity is written in.
    v_world = rng.normal(size=6)
    t = np.kron(np.eye(2), r)
    v_body = t.T @ v_world
    assert v_world @ world @ v_world == pytest.approx(v_body @ body @ v_body, rel=1e-12)


def test_two_body_off_diagonal_block_uses_each_rotation() -> None:
    """AGX: block (i, j) -> R_i A'_ij R_j^T (column vectors); checked on the energy of a
    two-body motion and on a case with a known answer."""
    rng = np.random.default_rng(5)
    g = rng.normal(size=(12, 12))
    body = g @ g.T
    r1, r2 = rotation_matrix(0.2, 0.1, 0.5), rotation_matrix(-0.4, 0.3, -1.2)
    world = frame_to_world(body, [r1, r2])
    t1, t2 = np.kron(np.eye(2), r1), np.kron(np.eye(2), r2)
    np.testing.assert_allclose(world[:6, 6:], t1 @ body[:6, 6:] @ t2.T, rtol=1e-12)
    np.testing.assert_allclose(world[6:, :6], world[:6, 6:].T, rtol=1e-12)
    v = rng.normal(size=12)
    vb = np.concatenate([t1.T @ v[:6], t2.T @ v[6:]])
    assert v @ world @ v == pytest.approx(vb @ body @ vb, rel=1e-12)
    # Known answer: body 2 yawed 90 deg; coupling "body-1 surge from body-2 surge" in the
    # body frames becomes "world surge of 1 from world sway of 2" (body-2 x = world y).
    c = np.zeros((12, 12))
    c[0, 6] = c[6, 0] = 1.0
    w = frame_to_world(c, [np.eye(3), rotation_matrix(0.0, 0.0, np.pi / 2)])
    assert w[0, 7] == pytest.approx(1.0, rel=EXACT) and abs(w[0, 6]) < 1e-15
    with pytest.raises(ConfigError, match=r"not a proper rotation"):
        frame_to_world(np.eye(6), [np.diag([1.0, 1.0, -1.0])])


def _sim(**extra: object):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make_simulator(bemio_sphere_body(**extra), wave={"type": "none"})


def test_configured_added_mass_reaches_the_simulator() -> None:
    terms = {"xx": 1.0e5, "yy": 3.0e5, "zz": 2.0e5, "pp": 1.0e6, "qq": 2.0e6, "rr": 3.0e6,
             "xq": 1.0e4}
    sim = _sim(added_mass=terms, orientation=[0.0, 0.0, np.pi / 2])
    expected = frame_to_world(added_mass_matrix(terms), [rotation_matrix(0, 0, np.pi / 2)])
    np.testing.assert_allclose(sim.added[:6, :6], expected, rtol=EXACT)
    # Yawed 90 deg: world surge sees the body's sway term.
    assert sim.added[0, 0] == pytest.approx(3.0e5, rel=EXACT)
    assert sim.bodies[0].added_mass_inf_source == "config"
    world = _sim(added_mass=np.diag([1e5, 2e5, 3e5, 1e6, 1e6, 1e6]).tolist(),
                 added_mass_frame="world")
    assert world.added[2, 2] == 3e5
    assert any("A_inf from the configuration" in n for n in world.config["notes"])


@pytest.mark.parametrize(("extra", "match"), [
    ({"orientation": [0, 0, 1]}, r"'orientation' only serves to transform 'added_mass'"),
    ({"added_mass": {"zz": 1.0}, "added_mass_frame": "global"},
     r"added_mass_frame = 'global'; use one of 'body', 'world'"),
    ({"added_mass": {"zz": 1.0}, "added_mass_frame": "world", "orientation": [0, 0, 1]},
     r"orientation is given but added_mass_frame = 'world'"),
    ({"added_mass": {"zz": 1.0}, "orientation": [0, 1]}, r"orientation \(\[roll, pitch, "
                                                         r"yaw\] in rad\) must be a list of 3"),
    ({"added_mass": {"zx": 1.0}}, r"body 'body': added_mass: unknown term 'zx'"),
])
def test_configuration_errors(extra: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        _sim(**extra)
