"""Meshes of ``[[bem.bodies]]``: read, scaled, rotated, placed, refined; seabed panels.

Pure geometry on vertex and face arrays (Capytaine ``Mesh`` in and out): the Capytaine
bodies are made in :mod:`hydrofmu.bem.multi`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime.errors import HydroDataError, require
from .spec_bodies import BodySpec

SEABED_RTOL = 1e-6
"""A panel lies on the seabed when all its vertices are within ``SEABED_RTOL * depth`` (m)
of z = -depth (a mesh placed by a translation sits there to round-off, ~1e-14 m)."""


def read_mesh(body: BodySpec) -> Any:
    """The body's mesh file read by Capytaine (or meshio), scaled, not placed."""
    cpt = require("capytaine", "bem")
    try:
        mesh = cpt.load_mesh(str(body.mesh), file_format=body.format)
    except Exception as exc:  # Capytaine/meshio raise many kinds
        raise HydroDataError(
            f"[[bem.bodies]] '{body.name}': cannot read the mesh '{body.mesh}': {exc}; give "
            "its format with format = 'stl' | 'obj' | 'gdf' | 'nemoh' | 'gmsh' | ...",
            value=str(body.mesh),
        ) from exc
    return mesh


def triangles(mesh: Any) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (n, 3) and triangles (m, 3) of a Capytaine mesh (quads split in two)."""
    vertices = np.asarray(mesh.vertices, dtype=float)
    faces = np.asarray(mesh.faces, dtype=int)
    if faces.shape[1] == 3:
        return vertices, faces
    tri = faces[faces[:, 3] == faces[:, 2]][:, :3]
    quads = faces[faces[:, 3] != faces[:, 2]]
    out = np.concatenate([tri, quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])
    return vertices, out


def bisect(vertices: np.ndarray, faces: np.ndarray, max_edge: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """Split triangles at the middle of their longest edge until no edge exceeds
    ``max_edge`` (m).

    Longest-edge bisection keeps the angles bounded away from zero (a long thin triangle
    becomes near-isosceles ones). Triangles are split independently, so a split edge may
    leave a vertex in the middle of a neighbour's edge: a collocation BEM only needs the
    panels to cover the surface, not a conforming mesh.
    """
    verts = [tuple(v) for v in vertices]
    index = {v: k for k, v in enumerate(verts)}

    def vertex(p: np.ndarray) -> int:
        key = tuple(p)
        if key not in index:
            index[key] = len(verts)
            verts.append(key)
        return index[key]

    todo = [tuple(f) for f in faces]
    done: list[tuple[int, int, int]] = []
    while todo:
        a, b, c = todo.pop()
        pa, pb, pc = (np.asarray(verts[i]) for i in (a, b, c))
        edges = [np.linalg.norm(pb - pa), np.linalg.norm(pc - pb), np.linalg.norm(pa - pc)]
        k = int(np.argmax(edges))
        if edges[k] <= max_edge:
            done.append((a, b, c))
            continue
        a, b, c = ((a, b, c), (b, c, a), (c, a, b))[k]  # the longest edge is a-b
        m = vertex(0.5 * (np.asarray(verts[a]) + np.asarray(verts[b])))
        todo.extend([(a, m, c), (m, b, c)])
    return np.asarray(verts, dtype=float), np.asarray(done, dtype=int)


def placed_mesh(body: BodySpec) -> Any:
    """The body's closed mesh in the world: ``R (scale v) + position``, refined to
    ``panel_size`` when given (Capytaine ``Mesh``)."""
    cpt = require("capytaine", "bem")
    vertices, faces = triangles(read_mesh(body))
    vertices = (body.scale * vertices) @ body.rotation_matrix().T + np.asarray(body.position)
    if body.panel_size is not None:
        vertices, faces = bisect(vertices, faces, body.panel_size)
    return cpt.Mesh(vertices=vertices, faces=faces, name=body.name)


def seabed_faces(mesh: Any, water_depth: float) -> np.ndarray:
    """Mask of the panels lying on the seabed z = -water_depth (none in deep water)."""
    n = int(mesh.nb_faces)
    if not np.isfinite(water_depth) or n == 0:
        return np.zeros(n, dtype=bool)
    vertices, faces = np.asarray(mesh.vertices), np.asarray(mesh.faces)
    tol = SEABED_RTOL * water_depth
    return np.all(np.abs(vertices[faces][:, :, 2] + water_depth) <= tol, axis=1)


def without_faces(mesh: Any, drop: np.ndarray) -> Any:
    """``mesh`` without the panels where ``drop`` is True."""
    cpt = require("capytaine", "bem")
    if not np.any(drop):
        return mesh
    return cpt.Mesh(vertices=np.asarray(mesh.vertices),
                    faces=np.asarray(mesh.faces)[~drop], name=mesh.name)
