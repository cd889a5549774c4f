"""A body's hull mesh for nonlinear hydrostatics: read, merged, triangulated and checked.

:func:`read_body_mesh` reads STL (ASCII or binary, here) and the formats ``hydrofmu bem``
reads through Capytaine (``capytaine.load_mesh``: WAMIT .gdf, NEMOH .dat, gmsh .msh and
whatever meshio reads), merges coincident vertices, splits quadrilaterals into triangles,
drops degenerate faces and checks (:func:`check_closed`) that the hull is closed
(every edge shared by exactly two faces, in opposite directions) with outward normals
(positive enclosed volume). The mesh is the WHOLE hull, above the waterline too: the
nonlinear force integrates over whatever part is wet at each instant, unlike a BEM mesh,
which stops at the waterline.

Build time only.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import ConfigError, require

#: Vertices closer than this fraction of the mesh's size are merged.
MERGE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class BodyMesh:
    """A closed triangle mesh.

    Attributes
    ----------
    vertices
        Shape (nv, 3), m, in the file's frame.
    triangles
        Shape (nt, 3), vertex indices, counter-clockwise seen from outside.
    source
        Where it was read from.
    """

    vertices: NDArray[np.float64]
    triangles: NDArray[np.int64]
    source: str = ""

    def volume(self) -> float:
        """Enclosed volume (divergence theorem), m^3; negative for inward normals."""
        p = self.vertices[self.triangles]
        return float(np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6.0)


def read_stl(path: Path) -> NDArray[np.float64]:
    """The triangles of an STL file (ASCII or binary), shape (nt, 3, 3), m."""
    data = path.read_bytes()
    if len(data) >= 84:
        (n,) = struct.unpack_from("<I", data, 80)
        if 84 + 50 * n == len(data):
            rec = np.frombuffer(data, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                                      ("a", "<u2")]), count=n, offset=84)
            return rec["v"].astype(np.float64)
    text = data.decode("ascii", errors="replace")
    if not text.lstrip().lower().startswith("solid"):
        raise ConfigError(f"{path} is neither a binary STL (size 84 + 50 n bytes) nor an "
                          "ASCII one (starting with 'solid')", value=str(path))
    coords = [line.split()[1:4] for line in text.splitlines()
              if line.strip().lower().startswith("vertex")]
    if not coords or len(coords) % 3:
        raise ConfigError(f"{path}: an ASCII STL whose vertex lines do not make triangles "
                          f"({len(coords)} vertex lines)", value=str(path))
    return np.asarray(coords, dtype=float).reshape(-1, 3, 3)


def merged(points: NDArray[np.float64], faces: list[list[int]] | NDArray[np.int64],
           source: str) -> BodyMesh:
    """Merge coincident vertices, split quadrilaterals, drop degenerate faces."""
    points = np.asarray(points, dtype=float)
    size = float(np.ptp(points, axis=0).max()) if len(points) else 1.0
    key = np.round(points / (MERGE_TOLERANCE * max(size, 1e-300))).astype(np.int64)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    vertices = points[first]
    tris: list[tuple[int, int, int]] = []
    for face in faces:
        idx = [int(inverse[i]) for i in face]
        ring = [v for k, v in enumerate(idx) if v != idx[k - 1]] if len(idx) > 1 else idx
        for k in range(1, len(ring) - 1):  # fan; a quadrilateral gives two triangles
            tri = (ring[0], ring[k], ring[k + 1])
            if len(set(tri)) == 3:
                tris.append(tri)
    triangles = np.asarray(tris, dtype=np.int64).reshape(-1, 3)
    p = vertices[triangles]
    area = np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
    return BodyMesh(vertices, triangles[area > 0.0], source)


def read_body_mesh(path: str | Path, *, scale: float = 1.0) -> BodyMesh:
    """Read a hull mesh file, checked (:func:`check_closed`).

    Raises
    ------
    ConfigError
        The file cannot be read, or the mesh is not closed or has inward normals (the
        message names the file and the fix).
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"mesh file {p} not found", value=str(p))
    if p.suffix.lower() == ".stl":
        tri = read_stl(p) * scale
        mesh = merged(tri.reshape(-1, 3), np.arange(len(tri) * 3).reshape(-1, 3), str(p))
    else:
        cpt = require("capytaine", "bem")
        fmt = {".msh": "gmsh"}.get(p.suffix.lower())
        try:
            m = cpt.load_mesh(str(p), file_format=fmt)
        except Exception as exc:  # Capytaine/meshio raise many kinds
            raise ConfigError(f"cannot read the mesh '{p}': {exc}; use an STL file or a "
                              "format capytaine.load_mesh reads", value=str(p)) from exc
        mesh = merged(np.asarray(m.vertices) * scale, np.asarray(m.faces), str(p))
    check_closed(mesh)
    return mesh


def check_closed(mesh: BodyMesh) -> float:
    """Check the mesh is closed with outward normals; returns its volume, m^3.

    Raises
    ------
    ConfigError
        No triangle, open or non-manifold edges, or inward normals (negative volume).
    """
    where = mesh.source or "the mesh"
    if len(mesh.triangles) == 0:
        raise ConfigError(f"{where} has no face", value=where)
    t = mesh.triangles
    directed = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
    undirected = np.sort(directed, axis=1)
    _, counts = np.unique(undirected, axis=0, return_counts=True)
    _, dcounts = np.unique(directed, axis=0, return_counts=True)
    open_edges = int(np.sum(counts == 1))
    if open_edges or np.any(counts != 2) or np.any(dcounts != 1):
        raise ConfigError(
            f"{where} is not a closed surface: {open_edges} open edge(s), "
            f"{int(np.sum(counts > 2))} edge(s) shared by more than two faces, "
            f"{int(np.sum(dcounts > 1))} edge(s) run twice the same way (faces oriented "
            "inconsistently). Nonlinear hydrostatics integrate over the whole hull, above "
            "the waterline too (a BEM mesh that stops at the waterline will not do); fix: "
            "close the hull (deck, lid), merge duplicate vertices and orient every face "
            "outward", value=where)
    volume = mesh.volume()
    if volume <= 0.0:
        raise ConfigError(
            f"{where} has inward normals (enclosed volume {volume:.6g} m^3 <= 0); fix: "
            "reverse the vertex order of every face so that the normals point into the "
            "water", value=volume)
    return volume
