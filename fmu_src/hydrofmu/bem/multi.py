"""Several bodies from mesh files solved in one Capytaine problem (``[[bem.bodies]]``).

Every body keeps its 6 rigid-body DOFs (``<name>__Surge`` ... in the file), so the file
holds the full 6N x 6N added mass and damping with the body-to-body blocks and each body's
excitation in the presence of the others; a body held fixed in the model is still solved:
its coupling and its diffraction of the waves reaching the others matter.

Per body: the closed mesh gives the inertia (unless ``mass`` and ``inertia`` are given)
and passes :func:`~hydrofmu.bem.mesh.check_mesh`; its immersed part gives the hydrostatics;
the BEM solves the immersed part without its panels on the seabed (in finite depth the
seabed is already a wall of the Green function: a panel lying on it carries no flow and
coincides with its own image), with a lid on the waterplane when it pierces the surface. A
body reaching below the seabed is cut at it (as at the free surface): sinking a body a
little into the seabed leaves it without bottom panels and with a gap above it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import xarray as xr

from ..runtime.errors import HydroDataError, require
from .contact import contact_masks, face_geometry, openings, triangles_of
from .mesh import check_mesh
from .placement import placed_mesh, seabed_faces, without_faces
from .spec import BEMSpec
from .spec_bodies import BodySpec


@dataclass(frozen=True)
class PlacedBody:
    """One body ready for the solve.

    Attributes
    ----------
    spec
        Its ``[[bem.bodies]]`` entry.
    closed
        Capytaine body of the closed, placed mesh (inertia), its openings capped when it
        is open where another body closes it (:mod:`hydrofmu.bem.contact`).
    immersed
        Its immersed part (hydrostatics), not cut at the seabed: the body as meshed.
    solved
        The immersed part without seabed panels and without the panels in contact with
        another body, with its lid (the BEM).
    seabed_panels
        Number of panels left out because they lie on the seabed.
    below_seabed
        Whether the closed mesh reaches below the seabed (then cut at it).
    openings
        Number of openings below the waterline capped for the body's own hull.
    contact_panels
        Number of panels left out because the water cannot reach them.
    contact_area
        Their area, m^2.
    surface_panels
        Number of panels left out because they lie on the free surface z = 0 (a
        waterplane meshed with the hull, as in some GDF files).
    """

    spec: BodySpec
    closed: Any
    immersed: Any
    solved: Any
    seabed_panels: int
    below_seabed: bool
    openings: int = 0
    contact_panels: int = 0
    contact_area: float = 0.0
    surface_panels: int = 0


def closed_mesh(body: BodySpec, mesh: Any, where: str) -> tuple[Any, int]:
    """The body's own closed hull and its number of capped openings.

    A mesh that passes :func:`~hydrofmu.bem.mesh.check_mesh` is returned as it is; an open
    one gets its openings below the waterline capped (:func:`~hydrofmu.bem.contact.openings`)
    and must pass the check then (whether another body closes them is checked on the union,
    :func:`place_bodies`).
    """
    cpt = require("capytaine", "bem")
    try:
        check_mesh(mesh, where=where)
        return mesh, 0
    except HydroDataError as exc:
        vertices, faces = np.asarray(mesh.vertices), np.asarray(mesh.faces)
        found = openings(vertices, faces)
        if not found.loops:
            raise
        tri = np.concatenate([triangles_of(vertices, faces), found.cap])
        capped = cpt.Mesh(vertices=tri.reshape(-1, 3),
                          faces=np.arange(3 * len(tri)).reshape(-1, 3), name=body.name)
        try:
            check_mesh(capped, where=where)
        except HydroDataError:
            raise HydroDataError(f"{exc} (its {len(found.loops)} openings below the "
                                 "waterline closed by flat caps do not close it either)",
                                 value=exc.value) from exc
        return capped, len(found.loops)


def place_body(spec: BEMSpec, body: BodySpec) -> PlacedBody:
    """Read, place, check and cut one body (see the module notes)."""
    cpt = require("capytaine", "bem")
    where = f"the mesh of [[bem.bodies]] '{body.name}' ({body.mesh.name})"
    mesh = placed_mesh(body)
    hull, n_openings = closed_mesh(body, mesh, where)
    dofs = cpt.rigid_body_dofs(rotation_center=body.rotation_center)
    # The given mass enters the hydrostatic stiffness's gravity terms (rho V when None).
    closed = cpt.FloatingBody(mesh=hull, dofs=dofs, center_of_mass=body.center_of_mass,
                              mass=body.mass, name=body.name)
    immersed = closed.immersed_part()  # closed below the waterline: the hydrostatics
    # The BEM's panels are the mesh's own (not the caps: the union closes the openings).
    own = closed if n_openings == 0 else cpt.FloatingBody(mesh=mesh, dofs=dofs,
                                                           name=body.name)
    wet = own.immersed_part().mesh
    if np.isfinite(spec.water_depth):
        wet = own.immersed_part(water_depth=spec.water_depth).mesh
    seabed = seabed_faces(wet, spec.water_depth)
    wet = without_faces(wet, seabed)
    use_lid = spec.lid if body.lid is None else body.lid
    lid = None
    if use_lid and own.immersed_part().mesh.nb_edges_waterline > 0:
        lid = mesh.generate_lid(z=0.0)
    solved = cpt.FloatingBody(mesh=wet, lid_mesh=lid, dofs=dofs,
                              center_of_mass=body.center_of_mass, name=body.name)
    return PlacedBody(spec=body, closed=closed, immersed=immersed, solved=solved,
                      seabed_panels=int(np.sum(seabed)),
                      below_seabed=bool(np.isfinite(spec.water_depth) and float(
                          np.min(mesh.vertices[:, 2])) < -spec.water_depth),
                      openings=n_openings)


def without_contacts(placed: list[PlacedBody]) -> list[PlacedBody]:
    """The bodies without their panels the water cannot reach.

    A panel of a body is in contact when its outer side lies inside one of the bodies'
    own closed hulls (:func:`~hydrofmu.bem.contact.contact_masks`, the hulls closed below
    the waterline by their mirror image above it). When a body was open, or panels were
    left out, the wetted surface of the union must be closed: checked, and a note names the
    bodies that close each other.
    """
    cpt = require("capytaine", "bem")
    hulls = []
    for p in placed:
        tri = triangles_of(np.asarray(p.immersed.mesh.vertices),
                           np.asarray(p.immersed.mesh.faces))
        mirror = tri[:, ::-1, :] * np.array([1.0, 1.0, -1.0])  # reflected, reoriented
        hulls.append(np.concatenate([tri, mirror]))
    masks = contact_masks([(np.asarray(p.solved.mesh.vertices), np.asarray(p.solved.mesh.faces))
                           for p in placed], hulls)
    if not any(np.any(m) for m in masks) and not any(p.openings for p in placed):
        return placed
    out = []
    for p, mask in zip(placed, masks, strict=True):
        vertices, faces = np.asarray(p.solved.mesh.vertices), np.asarray(p.solved.mesh.faces)
        _, _, area = face_geometry(vertices, faces)
        # A panel lying on z = 0 faces the mirror image: the free surface, not a contact.
        surface = np.all(np.abs(vertices[faces][:, :, 2]) <= 1e-9 * max(
            1.0, float(np.ptp(vertices))), axis=1)
        contact = mask & ~surface
        wet = without_faces(p.solved.mesh, mask | surface)
        solved = cpt.FloatingBody(mesh=wet, lid_mesh=p.solved.lid_mesh, dofs=p.solved.dofs,
                                  center_of_mass=p.spec.center_of_mass, name=p.spec.name)
        out.append(replace(p, solved=solved, contact_panels=int(np.sum(contact)),
                           contact_area=float(np.sum(area[contact])),
                           surface_panels=int(np.sum(surface))))
    union = out[0].solved.mesh
    for p in out[1:]:
        union = union + p.solved.mesh
    names = ", ".join(p.spec.name for p in out)
    if not any(p.seabed_panels for p in out):
        check_mesh(union, where=f"the wetted surface of the bodies {names} together")
    return out


def contact_notes(placed: list[PlacedBody]) -> list[str]:
    """What :func:`without_contacts` did, in words (the ``note:`` lines of ``hydrofmu
    bem`` and the file's ``bem_notes``)."""
    out = placed
    names = ", ".join(p.spec.name for p in out)
    notes = []
    open_ = [p.spec.name for p in out if p.openings]
    if open_:
        notes.append(
            f"{', '.join(open_)} open below the waterline ("
            + ", ".join(f"{p.spec.name}: {p.openings} openings" for p in out if p.openings)
            + f"): the bodies {names} close each other (their union is closed); each "
            "body's own hull, for its hydrostatics and inertia, is its mesh with the "
            "openings capped by flat faces")
    touching = [p for p in out if p.contact_panels]
    if touching:
        notes.append(
            "panels in contact with another body left out of the BEM (the water does not "
            "reach them, they carry no pressure): "
            + ", ".join(f"{p.spec.name}: {p.contact_panels} ({p.contact_area:.3g} m^2)"
                        for p in touching))
    lids = [p for p in out if p.surface_panels]
    if lids:
        notes.append("panels lying on the free surface z = 0 left out of the BEM (a "
                     "waterplane, not hull): " + ", ".join(
                         f"{p.spec.name}: {p.surface_panels}" for p in lids))
    return notes


def place_bodies(spec: BEMSpec) -> tuple[list[PlacedBody], Any]:
    """All bodies placed, and the Capytaine multibody of their solved parts."""
    cpt = require("capytaine", "bem")
    placed = [place_body(spec, body) for body in spec.bodies]
    placed = without_contacts(placed)
    joined = cpt.FloatingBody.join_bodies(*[p.solved for p in placed], name="bodies")
    return placed, joined


def skew(d: np.ndarray) -> np.ndarray:
    """The cross-product matrix: ``skew(d) @ x = d x x``."""
    return np.array([[0.0, -d[2], d[1]], [d[2], 0.0, -d[0]], [-d[1], d[0], 0.0]])


def rigid_inertia(mass: float, inertia: tuple[float, float, float], cog: np.ndarray,
                  center: np.ndarray) -> np.ndarray:
    """6x6 mass matrix about ``center`` of a body of ``mass`` (kg) with principal moments
    ``inertia`` (kg m^2, world axes) about its centre of mass ``cog`` (m).

    ``[[m I, -m S(d)], [m S(d), I_G - m S(d) S(d)]]``, ``d = cog - center``, S the
    cross-product matrix (the parallel-axis theorem: ``-S(d) S(d) = |d|^2 I - d d^T``).
    """
    d = np.asarray(cog, dtype=float) - np.asarray(center, dtype=float)
    s = skew(d)
    out = np.zeros((6, 6))
    out[:3, :3] = mass * np.eye(3)
    out[:3, 3:] = -mass * s
    out[3:, :3] = mass * s
    out[3:, 3:] = np.diag(inertia) - mass * s @ s
    return out


def body_matrices(spec: BEMSpec, body: PlacedBody) -> tuple[np.ndarray, np.ndarray]:
    """The body's 6x6 inertia (closed hull, or its mass and inertia) and hydrostatic
    stiffness (immersed part), DOF order surge..yaw."""
    order = ["Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw"]
    if body.spec.mass is not None and body.spec.inertia is not None:
        inertia = rigid_inertia(body.spec.mass, body.spec.inertia,
                                np.asarray(body.spec.center_of_mass),
                                np.asarray(body.spec.rotation_center))
    else:
        da = body.closed.compute_rigid_body_inertia(rho=spec.rho)
        inertia = np.asarray(da.sel(influenced_dof=order, radiating_dof=order).values)
    da = body.immersed.compute_hydrostatic_stiffness(rho=spec.rho, g=spec.g)
    stiffness = np.asarray(da.sel(influenced_dof=order, radiating_dof=order).values)
    return inertia, stiffness


def add_bodies_data(spec: BEMSpec, ds: Any, placed: list[PlacedBody]) -> Any:
    """The per-body variables of the file: block-diagonal ``inertia_matrix`` and
    ``hydrostatic_stiffness`` (6N x 6N on the file's DOF labels), and per body
    ``rotation_center``, ``center_of_mass``, ``center_of_buoyancy``, ``disp_mass``,
    ``displaced_volume`` (a ``body`` dimension, also for a single body)."""
    # Capytaine labels a one-body multibody with a scalar ``body``: one layout for all.
    ds = ds.drop_vars(["body", "rotation_center"], errors="ignore")
    labels = [str(v) for v in ds["radiating_dof"].values]
    n = len(labels)
    inertia = np.zeros((n, n))
    stiffness = np.zeros((n, n))
    for body in placed:
        k, c = body_matrices(spec, body)
        rows = [labels.index(f"{body.spec.name}__{d}")
                for d in ("Surge", "Sway", "Heave", "Roll", "Pitch", "Yaw")]
        inertia[np.ix_(rows, rows)] = k
        stiffness[np.ix_(rows, rows)] = c
    names = [b.spec.name for b in placed]
    dims = ("influenced_dof", "radiating_dof")
    order = {"influenced_dof": labels, "radiating_dof": labels}
    ds = ds.assign({
        "inertia_matrix": xr.DataArray(inertia, dims=dims, coords=order),
        "hydrostatic_stiffness": xr.DataArray(stiffness, dims=dims, coords=order),
    })
    ds = ds.assign({
        "center_of_mass": (("body", "space_coordinate"),
                           np.array([b.spec.center_of_mass for b in placed])),
        "center_of_buoyancy": (("body", "space_coordinate"),
                               np.array([np.asarray(b.immersed.center_of_buoyancy)
                                         for b in placed])),
        "displaced_volume": (("body",), np.array([float(b.immersed.volume) for b in placed])),
    })
    ds["disp_mass"] = (("body",), spec.rho * ds["displaced_volume"].values)
    return ds.assign_coords(body=names, rotation_center=(
        ("body", "space_coordinate"), np.array([b.spec.rotation_center for b in placed])))
