"""Bodies that touch: contact panels, openings closed by another body, each body's own hull.

Meshes of bodies that touch are published two ways (the F3OF's, IEA OES Task 10):

- **open where they meet** (HydroChrono's OBJ): a flap's mesh leaves out the faces where it
  meets the base, so only the union of the bodies is closed;
- **closed, with coincident faces** (WAMIT's GDF): each body is closed and the faces where
  they meet lie on each other with opposite normals.

The BEM needs the wetted surface of the union: the panels on the outside of the union of
the bodies. A panel whose outer side lies inside the union (another body's solid, or the
same body's) carries no pressure: the water does not reach it. Such panels are found by
the generalised winding number (the solid angle of the union seen from a point, over 4 pi:
1 inside a closed surface, 0 outside) at a point just off the panel's centre on its outer
side, and left out of the BEM mesh; two closed bodies meeting face to face lose their two
faces there in pairs. The winding number is exact for a closed union whatever the
meshing, so a point off the centre of a panel of one body and inside the other needs no
matching of the two bodies' panels.

Each body's own closed hull (its hydrostatics and inertia) is its mesh with every opening
below the waterline closed by a planar cap spanning the opening's boundary loop (a fan of
triangles from the loop's centroid): the surface where the body meets the one that closes
it, which the union does not mesh. The divergence-theorem volumes of a fan over a planar
loop are exact whatever the loop's shape (the signed triangles add up to the polygon, as
in the shoelace formula), and :func:`~hydrofmu.bem.mesh.check_mesh` then checks the capped
hull as it checks any other.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

MERGE_RTOL = 1e-7
"""Vertices within ``MERGE_RTOL`` times the meshes' size are the same vertex (m)."""
OFFSET_RTOL = 1e-4
"""The winding number of a panel is taken ``OFFSET_RTOL`` times its size off its centre,
on its outer side: far from round-off, much closer than any other panel."""
CONTACT_WINDING = 0.5
"""A point whose winding number exceeds this lies inside the union (1 inside, 0 outside)."""


def triangles_of(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """The triangles (m, 3, 3) of quads and triangles (a quad's 4th index repeating its
    3rd marks a triangle), m."""
    faces = np.asarray(faces, dtype=int)
    if faces.shape[1] == 3:
        return np.asarray(vertices)[faces]
    tri = np.concatenate([faces[:, [0, 1, 2]], faces[:, [0, 2, 3]]])
    tri = tri[(tri[:, 0] != tri[:, 2]) & (tri[:, 1] != tri[:, 2]) & (tri[:, 0] != tri[:, 1])]
    return np.asarray(vertices)[tri]


def winding_numbers(points: np.ndarray, triangles: np.ndarray, chunk: int = 64) -> np.ndarray:
    """Generalised winding numbers of ``points`` (p, 3) with respect to ``triangles``
    (m, 3, 3): the sum of the triangles' signed solid angles over 4 pi (Van Oosterom and
    Strackee's formula). 1 inside a closed, outward-oriented surface, 0 outside."""
    out = np.zeros(len(points))
    for k in range(0, len(points), chunk):
        r = triangles[None, :, :, :] - points[k:k + chunk, None, None, :]
        a, b, c = r[..., 0, :], r[..., 1, :], r[..., 2, :]
        la, lb, lc = (np.linalg.norm(x, axis=-1) for x in (a, b, c))
        num = np.einsum("ptk,ptk->pt", a, np.cross(b, c))
        den = (la * lb * lc + np.einsum("ptk,ptk->pt", a, b) * lc
               + np.einsum("ptk,ptk->pt", b, c) * la + np.einsum("ptk,ptk->pt", c, a) * lb)
        out[k:k + chunk] = np.arctan2(num, den).sum(axis=1) / (2.0 * np.pi)
    return out


def face_geometry(vertices: np.ndarray, faces: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centres (m), unit normals and areas (m^2) of quads and triangles."""
    v = np.asarray(vertices)[np.asarray(faces, dtype=int)]
    n = 0.5 * (np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
               + np.cross(v[:, 2] - v[:, 0], v[:, 3] - v[:, 0])) if v.shape[1] == 4 else \
        0.5 * np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    area = np.linalg.norm(n, axis=1)
    # Centre of a quad (possibly degenerate, 4th = 3rd vertex): the mean of its distinct
    # vertices; exact for triangles and parallelograms, inside any convex panel.
    unique = [np.unique(f, axis=0) for f in v]
    centre = np.array([u.mean(axis=0) for u in unique])
    return centre, n / np.where(area > 0, area, 1.0)[:, None], area


def contact_masks(meshes: list[tuple[np.ndarray, np.ndarray]],
                  hulls: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """Per body, the panels whose outer side lies inside the union of the bodies.

    Parameters
    ----------
    meshes
        ``(vertices (n, 3) m, faces (m, 3 or 4))`` of every body, placed in the world.
    hulls
        Triangles (m, 3, 3) of the closed surfaces whose winding numbers are added up
        (default: the meshes themselves, closed or closing each other), m.

    Returns
    -------
    list of numpy.ndarray
        Boolean masks over each body's faces: True where the water cannot reach the panel
        (its point :data:`OFFSET_RTOL` times its size off the centre, outward, has a
        winding number above :data:`CONTACT_WINDING` with respect to all the bodies).
    """
    tris = np.concatenate(hulls if hulls is not None
                          else [triangles_of(v, f) for v, f in meshes])
    masks = []
    for v, f in meshes:
        centre, normal, area = face_geometry(v, f)
        size = np.sqrt(np.maximum(area, 0.0))
        w = winding_numbers(centre + OFFSET_RTOL * size[:, None] * normal, tris)
        masks.append((w > CONTACT_WINDING) & (area > 0))
    return masks


def merged(vertices: np.ndarray, faces: np.ndarray, tol: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """Vertices within ``tol`` (m) of each other made one; faces renumbered."""
    key = np.round(np.asarray(vertices) / tol).astype(np.int64)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    return np.asarray(vertices)[first], inverse.ravel()[np.asarray(faces, dtype=int)]


def free_edges(vertices: np.ndarray, faces: np.ndarray, tol: float
               ) -> list[tuple[int, int]]:
    """Directed edges (a, b) of the faces that no face crosses as (b, a): the boundary of an
    open mesh, oriented as its faces run.

    A face's edge is first split at the vertices lying on it (within ``tol``, m): a mesh
    whose panels meet a neighbour's edge in its middle (a T-junction) is closed there.
    """
    v = np.asarray(vertices)
    count: dict[tuple[int, int], int] = {}
    for f in np.asarray(faces, dtype=int):
        ring = [int(i) for k, i in enumerate(f) if k == 0 or i != f[k - 1]]
        if len(ring) > 1 and ring[-1] == ring[0]:
            ring = ring[:-1]
        for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
            if a == b:
                continue
            d = v[b] - v[a]
            length2 = float(d @ d)
            t = (v - v[a]) @ d / length2
            off = np.linalg.norm(v - v[a] - t[:, None] * d[None, :], axis=1)
            inner = np.flatnonzero((off <= tol) & (t > 1e-9) & (t < 1 - 1e-9))
            chain = [a] + [int(i) for i in inner[np.argsort(t[inner])]] + [b]
            for p, q in itertools.pairwise(chain):
                count[(p, q)] = count.get((p, q), 0) + 1
    return [e for e in count if (e[1], e[0]) not in count]


def boundary_loops(edges: list[tuple[int, int]]) -> list[list[int]]:
    """Chain directed edges into closed loops of vertex indices (each loop once)."""
    nxt: dict[int, list[int]] = {}
    for a, b in edges:
        nxt.setdefault(a, []).append(b)
    loops: list[list[int]] = []
    while nxt:
        start = next(iter(nxt))
        loop = [start]
        while True:
            b = nxt[loop[-1]].pop()
            if not nxt[loop[-1]]:
                del nxt[loop[-1]]
            if b == start:
                break
            loop.append(b)
            if b not in nxt:  # an open chain (not a loop): give up on it
                loop = []
                break
        if loop:
            loops.append(loop)
    return loops


@dataclass(frozen=True)
class Openings:
    """The openings of a body's mesh below the waterline, and their caps.

    Attributes
    ----------
    loops
        Each opening's boundary, vertex coordinates (k, 3), m, in the order the body's
        faces run along it.
    cap
        Triangles (m, 3, 3) closing the openings, oriented outward from the body, m.
    """

    loops: list[np.ndarray]
    cap: np.ndarray


def openings(vertices: np.ndarray, faces: np.ndarray, *, z_waterline: float = 0.0
             ) -> Openings:
    """The boundary loops of a mesh off the waterline and the fans that close them.

    Edges lying on z = ``z_waterline`` (the waterline of a hull meshed up to the free
    surface) are not openings. A cap runs each loop backwards (its faces then face out of
    the body, as the body's own faces along the loop do).
    """
    size = float(np.ptp(np.asarray(vertices), axis=0).max())
    tol = MERGE_RTOL * max(size, 1.0)
    v, f = merged(vertices, faces, tol)
    edges = [(a, b) for a, b in free_edges(v, f, 10 * tol)
             if not (abs(v[a, 2] - z_waterline) <= 1e3 * tol
                     and abs(v[b, 2] - z_waterline) <= 1e3 * tol)]
    loops = [v[loop] for loop in boundary_loops(edges)]
    caps = []
    for loop in loops:
        centre = loop.mean(axis=0)
        back = loop[::-1]
        for a, b in zip(back, np.roll(back, -1, axis=0), strict=True):
            caps.append([centre, a, b])
    cap = np.asarray(caps, dtype=float).reshape(-1, 3, 3)
    return Openings(loops=loops, cap=cap)


def loop_touches(loop: np.ndarray, vertices: np.ndarray, tol: float) -> bool:
    """Whether every vertex of ``loop`` is within ``tol`` (m) of the surface of the mesh
    with ``vertices`` (checked against its vertices: a shared boundary)."""
    d = np.linalg.norm(loop[:, None, :] - np.asarray(vertices)[None, :, :], axis=-1)
    return bool(np.all(d.min(axis=1) <= tol))
