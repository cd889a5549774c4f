"""Hull meshes (parametric or from a file), their checks, and the Capytaine bodies."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import HydroDataError, require
from .spec import BEMSpec

SUFFIX_FORMATS = {".msh": "gmsh"}
"""Mesh-file formats given to Capytaine for a suffix it does not pass on correctly."""


def mesh_size(spec: BEMSpec) -> dict[str, Any]:
    """Capytaine's size argument for ``spec``'s parametric shape.

    ``body.resolution`` if given, else ``faces_max_radius = panel_size`` for a box. A
    sphere's resolution is computed as Capytaine would (n = ceil(2 pi r / (sqrt(2)
    panel_size)) panels along a meridian and around a parallel, or 10 and 10) and then the
    number along the meridian raised to the nearest that puts a ring of vertices on the
    waterline, when one within 2 n does (any even number for a centre on the free
    surface); a vertical cylinder's number of rows likewise (:func:`_cylinder_resolution`).
    A waterline that cuts a row of panels leaves thin panels along it: on the WAMIT
    sphere at 3 rad/s, B33 is 0.06 % off WAMIT with 112 panels along the meridian and
    0.64 % with 111 or 113.
    """
    body = spec.body
    if "resolution" in body:
        return {"resolution": body["resolution"]}
    if body["shape"] == "cylinder":
        return _cylinder_resolution(spec)
    if body["shape"] != "sphere":
        return {"faces_max_radius": spec.panel_size}
    radius, z_c = body["radius"], body["center"][2]
    perimeter = 2.0 * math.pi * radius
    n = 10
    if math.hypot(perimeter / n, perimeter / n) / 2.0 > spec.panel_size:
        n = math.ceil(perimeter / (math.sqrt(2.0) * spec.panel_size))
    n_theta = n
    if abs(z_c) < radius:
        # Vertices at theta_k = k pi / n_theta from the bottom pole; the waterline at
        # cos(theta) = z_c / r.
        n_theta = _ring_count(n, math.acos(z_c / radius) / math.pi)
    return {"resolution": (n_theta, n)}


def _ring_count(n: int, fraction: float) -> int:
    """The smallest m in [n, 2 n] with ``fraction * m`` an integer, else n."""
    for m in range(n, 2 * n + 1):
        if abs(fraction * m - round(fraction * m)) < 1e-9:
            return m
    return n


def _cylinder_resolution(spec: BEMSpec) -> dict[str, Any]:
    """A vertical cylinder's (nr, ntheta, nz) as Capytaine computes it from
    ``faces_max_radius``, with nz raised to put a ring of vertices on the waterline (as
    for the sphere, :func:`mesh_size`)."""
    radius, length, z_c = spec.body["radius"], spec.body["height"], spec.body["center"][2]
    h = spec.panel_size
    nr, ntheta, nz = 2, 8, 10
    dr, dtheta, dz = radius / nr, 2 * math.pi * radius / ntheta, length / nz
    if max(math.hypot(dr, dtheta), math.hypot(dtheta, dz)) / 2.0 > h:
        nr = math.ceil(radius / (math.sqrt(2.0) * h))
        ntheta = 2 * math.ceil(math.pi * radius / (math.sqrt(2.0) * h))
        nz = math.ceil(length / (math.sqrt(2.0) * h))
    if abs(z_c) < length / 2.0:
        # Rings at z_c - L/2 + k L / nz; the waterline at z = 0.
        nz = _ring_count(nz, (length / 2.0 - z_c) / length)
    return {"resolution": (nr, ntheta, nz)}


def make_mesh(spec: BEMSpec) -> Any:
    """The closed hull mesh of ``spec.body`` (Capytaine ``Mesh``), in m.

    Parametric shapes use Capytaine's mesh generators with ``faces_max_radius =
    panel_size`` (the largest distance from a panel's centre to its vertices) unless a
    ``resolution`` is given (a sphere: see :func:`mesh_size`); mesh files are read by
    ``capytaine.load_mesh`` (STL, GDF, NEMOH .dat, gmsh .msh and whatever meshio reads).
    """
    cpt = require("capytaine", "bem")
    body = spec.body
    if "mesh" in body:
        # Capytaine hands a ``.msh`` file to meshio as format "msh", which meshio calls "gmsh".
        fmt = body.get("format") or SUFFIX_FORMATS.get(Path(body["mesh"]).suffix.lower())
        try:
            mesh = cpt.load_mesh(str(body["mesh"]), file_format=fmt)
        except Exception as exc:  # Capytaine/meshio raise many kinds
            raise HydroDataError(
                f"cannot read the mesh '{body['mesh']}': {exc}; give its format with "
                "body = {mesh = '...', format = 'stl' | 'gdf' | 'nemoh' | 'gmsh' | ...}",
                value=str(body["mesh"]),
            ) from exc
        if body["scale"] != 1.0:
            mesh = cpt.Mesh(vertices=mesh.vertices * body["scale"], faces=mesh.faces,
                            name=mesh.name)
        return mesh
    size = mesh_size(spec)
    if body["shape"] == "sphere":
        return cpt.mesh_sphere(radius=body["radius"], center=body["center"], name=spec.name,
                               **size)
    if body["shape"] == "cylinder":
        return cpt.mesh_vertical_cylinder(radius=body["radius"], length=body["height"],
                                          center=body["center"], name=spec.name, **size)
    return cpt.mesh_parallelepiped(size=body["size"], center=body["center"], name=spec.name,
                                   **size)


def check_mesh(mesh: Any, *, where: str = "the mesh", rtol: float = 0.02) -> float:
    """Check that the hull is closed below the waterline with outward normals.

    The three divergence-theorem volumes ``V_i = sum_f x_i n_i A_f`` of the part below
    z = 0 agree when the hull is closed there (the waterplane adds nothing to any of
    them: n_x = n_y = 0 and z = 0 on it) and are positive when the normals point out
    of the body, into the water.

    Parameters
    ----------
    mesh
        Capytaine ``Mesh`` of the whole hull.
    where
        Name of the mesh in messages.
    rtol
        Largest relative spread of the three volumes.

    Returns
    -------
    float
        Displaced volume, m^3.

    Raises
    ------
    HydroDataError
        No panel below the waterline, inward normals, or a hull open below the waterline.
    """
    immersed = mesh.immersed_part()
    if immersed.nb_faces == 0:
        raise HydroDataError(f"{where} has no panel below the waterline z = 0; translate it "
                             "down (hydrofmu bem puts the free surface at z = 0)", value=None)
    volumes = np.asarray(immersed.volumes, dtype=float)
    mean = float(np.mean(volumes))
    if np.all(volumes < 0):
        raise HydroDataError(
            f"{where} has inward normals (displaced volume {mean:.6g} m^3 < 0); flip the "
            "orientation of its faces so that the normals point into the water", value=mean)
    spread = float(np.ptp(volumes)) / max(abs(mean), 1e-300)
    if np.any(volumes <= 0) or spread > rtol:
        raise HydroDataError(
            f"{where} is not closed (watertight) below the waterline: the volumes from the "
            f"x, y and z components of the normals are {volumes.round(6).tolist()} m^3 "
            f"(spread {100 * spread:.1f} % > {100 * rtol:g} %); close the hull below z = 0, "
            "merge duplicate vertices and orient every face outward", value=volumes.tolist())
    return mean


def build_bodies(spec: BEMSpec, *, with_lid: bool = True) -> tuple[Any, Any]:
    """The closed body (for the inertia) and its immersed part with the lid (for the BEM).

    Parameters
    ----------
    spec
        The validated table.
    with_lid
        Generate Capytaine's lid when ``spec.lid`` (False: the bodies serve only the
        inertia and the hydrostatics, the BEM solves another body).

    Returns
    -------
    closed, immersed : capytaine.FloatingBody
        Neither has a ``mass``: Capytaine 3.0 would divide a given mass by the closed
        volume and multiply by the displaced one; without it the mass is rho times the
        displaced volume, with the inertia distribution of the closed hull.
    """
    cpt = require("capytaine", "bem")
    mesh = make_mesh(spec)
    check_mesh(mesh, where=f"the mesh of [bem] body {spec.name!r}")
    lid = None
    # The waterline of the immersed part: a closed mesh whose panels straddle z = 0 (an odd
    # number of panels along a sphere's meridian) has no edge at z = 0 before clipping.
    if with_lid and spec.lid and mesh.immersed_part().nb_edges_waterline > 0:
        lid = mesh.generate_lid(z=0.0)
    closed = cpt.FloatingBody(
        mesh=mesh,
        lid_mesh=lid,
        dofs=cpt.rigid_body_dofs(rotation_center=spec.rotation_center),
        center_of_mass=spec.center_of_mass,
        name=spec.name,
    )
    return closed, closed.immersed_part()
