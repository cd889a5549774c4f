"""Rotation (axial) symmetry of a body of revolution: a block-circulant BEM solve.

A hull that is ``n`` copies of one wedge rotated by 2 pi / n about the z axis has BEM
influence matrices made of n x n blocks that depend only on the difference of the wedge
indices (block-circulant). Capytaine 3.0 builds only the first block column (n N_w x N_w
Green-function evaluations instead of (n N_w)^2) and solves the system by a discrete
Fourier transform over the blocks (n dense solves of size N_w): the cost per frequency
falls from ~N^2 (matrix) + N^3 (solve) to ~N^2 / n + N^3 / n^2, with N = n N_w panels.
The answer is the same linear system's solution, to round-off.

``[bem] symmetry``:

- ``"auto"`` (default): a parametric sphere or vertical cylinder whose centre is on the z
  axis is solved with its rotation symmetry; anything else without.
- ``"axial"``: the same, but a body that has no such symmetry is an error.
- ``"none"``: never (the whole mesh, Capytaine's rectangular-grid lid).

The lid (irregular-frequency removal) of a symmetric body is a polar mesh of the
waterplane disc cut into the same n sectors as the hull, each sector of radial rings of
about ``panel_size`` (a triangle at the centre, quadrilaterals beyond), its outer edge
half a panel inside the hull's waterline polygon. Capytaine's own lid generator, applied
to a thin wedge, fits too few of its rectangular cells inside it (none at 56 sectors).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..runtime.errors import ConfigError, HydroDataError, require
from .mesh import mesh_size
from .spec import SYMMETRIES, BEMSpec

__all__ = ["SYMMETRIES", "axial_reason", "sector_lid", "symmetric_body", "symmetric_engine",
           "symmetric_hull", "uses_axial"]
_ON_AXIS = 1e-12  # m: a centre this close to the z axis is on it (exact input, no arithmetic)


def axial_reason(spec: BEMSpec) -> str | None:
    """Why ``spec``'s body cannot be solved with its rotation symmetry, or None if it can."""
    body = spec.body
    if "mesh" in body:
        return "a mesh file carries no symmetry (only the parametric sphere and cylinder do)"
    if body["shape"] not in ("sphere", "cylinder"):
        return f"a {body['shape']} is not a body of revolution"
    x, y, _ = body["center"]
    if abs(x) > _ON_AXIS or abs(y) > _ON_AXIS:
        return (f"its centre {list(body['center'])} is off the z axis (the axis of the "
                "rotation symmetry); put the body at x = y = 0")
    return None


def uses_axial(spec: BEMSpec) -> bool:
    """Whether ``spec`` is solved with its rotation symmetry.

    Raises
    ------
    ConfigError
        ``symmetry = "axial"`` on a body that has no rotation symmetry about z.
    """
    if spec.symmetry == "none":
        return False
    reason = axial_reason(spec)
    if reason is not None and spec.symmetry == "axial":
        raise ConfigError(f"[bem] symmetry = 'axial' cannot be used: {reason}; use "
                          "symmetry = 'auto' or 'none'", value=spec.symmetry)
    return reason is None


def symmetric_hull(spec: BEMSpec) -> Any:
    """The closed hull as a Capytaine ``RotationSymmetricMesh`` (same panels as
    :func:`hydrofmu.bem.mesh.make_mesh`)."""
    cpt = require("capytaine", "bem")
    body = spec.body
    size = mesh_size(spec)
    if body["shape"] == "sphere":
        mesh = cpt.mesh_sphere(radius=body["radius"], center=(0.0, 0.0, 0.0),
                               axial_symmetry=True, name=spec.name, **size)
    else:
        mesh = cpt.mesh_vertical_cylinder(radius=body["radius"], length=body["height"],
                                          center=(0.0, 0.0, 0.0), axial_symmetry=True,
                                          name=spec.name, **size)
    # A vertical translation keeps the symmetry (Capytaine tests only x and y for that).
    return mesh.translated((0.0, 0.0, body["center"][2]), name=spec.name)


def sector_lid(wedge: Any, *, n: int, panel_size: float) -> Any:
    """The waterplane lid of a body of revolution, as n rotated polar sectors.

    Parameters
    ----------
    wedge : capytaine Mesh
        One wedge of the immersed hull (its waterline is one edge at z = 0).
    n
        Number of sectors (the hull's rotation order).
    panel_size
        Radial size of the lid's rings, m.

    Returns
    -------
    capytaine RotationSymmetricMesh
        Normals down (into the body), n * m panels for m rings.

    Raises
    ------
    HydroDataError
        The wedge's waterline is not one edge from the axis's sector bounds (a waterplane
        that is not a disc: a moonpool or a hull that does not pierce the surface).
    """
    cpt = require("capytaine", "bem")
    vertices = np.asarray(wedge.vertices, dtype=float)
    scale = float(np.max(np.abs(vertices)))
    at_surface = vertices[np.abs(vertices[:, 2]) <= 1e-9 * scale]
    radius = np.hypot(at_surface[:, 0], at_surface[:, 1]) if at_surface.size else np.zeros(0)
    outer = at_surface[radius >= (radius.max() if radius.size else 0.0) * (1 - 1e-9)]
    _, first_seen = np.unique(np.round(outer, 9), axis=0, return_index=True)
    outer = outer[np.sort(first_seen)]  # duplicates removed, coordinates untouched
    if radius.size == 0 or radius.max() <= 0 or len(outer) != 2:
        raise HydroDataError("the symmetric hull's waterline is not one edge per sector; "
                             "solve it with [bem] symmetry = 'none'", value=len(outer))
    r_wl = float(radius.max())
    angles = np.arctan2(outer[:, 1], outer[:, 0])
    step = float(np.angle(np.exp(1j * (angles[1] - angles[0]))))
    if not math.isclose(abs(step), 2 * math.pi / n, rel_tol=1e-6):
        raise HydroDataError(f"the waterline edge of a wedge spans {abs(step):.6g} rad, not "
                             f"2 pi / {n}; solve it with [bem] symmetry = 'none'", value=step)
    first, second = (outer[0], outer[1]) if step > 0 else (outer[1], outer[0])
    # The lid stops half a panel short of the waterline (as Capytaine's own lid, whose
    # grid cells must lie inside the waterline): touching the hull's waterline panels, both
    # on z = 0 where the free-surface Green function is singular, it gave B33 1.55 % off
    # WAMIT at 3 rad/s on 1568 panels (0.97 % with the gap) and did not converge at 0.1 m.
    outer_radius = r_wl - 0.5 * min(panel_size, r_wl)
    rings = max(1, math.ceil(outer_radius / panel_size))
    frac = np.linspace(0.0, outer_radius / r_wl, rings + 1)
    # Vertex 0 is the centre; then ring k (k = 1..m) has vertices 2k - 1 (first ray) and
    # 2k (second ray). Clockwise seen from above: normals down, into the body (as
    # Capytaine wants a lid).
    points = [np.zeros(3)]
    for f in frac[1:]:
        points += [f * first, f * second]
    faces = [[0, 2, 1, 1]]
    faces += [[2 * k - 1, 2 * k, 2 * k + 2, 2 * k + 1] for k in range(1, rings)]
    sector = cpt.Mesh(vertices=np.array(points), faces=np.array(faces))
    return cpt.RotationSymmetricMesh(wedge=sector, n=n)


def symmetric_body(spec: BEMSpec) -> Any:
    """The immersed body to hand to the BEM solver, with its rotation symmetry and lid.

    Returns
    -------
    capytaine.FloatingBody
        Immersed part (hull and lid both ``RotationSymmetricMesh`` of the same order, so
        that Capytaine's engine builds block-circulant matrices).
    """
    cpt = require("capytaine", "bem")
    hull = symmetric_hull(spec)
    immersed_hull = hull.immersed_part()
    lid = None
    if spec.lid and immersed_hull.vertices[:, 2].max() > -1e-9 * spec.panel_size:
        lid = sector_lid(immersed_hull.wedge, n=immersed_hull.n, panel_size=spec.panel_size)
    body = cpt.FloatingBody(mesh=immersed_hull, lid_mesh=lid,
                            dofs=cpt.rigid_body_dofs(rotation_center=spec.rotation_center),
                            center_of_mass=spec.center_of_mass, name=spec.name)
    solved = body.immersed_part()
    kinds = {type(solved.mesh_including_lid).__name__}
    if kinds != {"RotationSymmetricMesh"}:  # pragma: no cover - Capytaine dropped it
        raise HydroDataError(f"Capytaine dropped the rotation symmetry ({kinds}); solve it "
                             "with [bem] symmetry = 'none'", value=None)
    return solved


def symmetric_engine() -> Any:
    """Capytaine's default matrix engine whose block-circulant matrices multiply vectors by
    FFT over the blocks.

    Capytaine 3.0 multiplies a block-circulant matrix by a vector block by block in a
    Python loop (n^2 block products: 30 s per problem at 112 sectors); the product is a
    circular convolution over the block index, ``y = ifft(fft(A) fft(x))`` over that
    index, n dense products of size N_w after one FFT of the blocks (cached per matrix).
    The linear solve (Capytaine's, by FFT and n LU decompositions) is unchanged.
    """
    engines = require("capytaine", "bem").bem.engines
    from capytaine.tools.block_circulant_matrices import BlockCirculantMatrix

    class _FFTBlockCirculant(BlockCirculantMatrix):
        """Block-circulant matrix (first block column ``blocks``, shape (n, p, p)) with an
        FFT matrix-vector product."""

        _fft: np.ndarray | None = None

        def __matmul__(self, other: Any) -> Any:
            blocks = self.blocks
            if not (isinstance(other, np.ndarray) and other.ndim == 1
                    and isinstance(blocks, np.ndarray) and blocks.ndim == 3):
                return super().__matmul__(other)
            if self._fft is None:
                self._fft = np.fft.fft(blocks, axis=0)
            n, p = blocks.shape[0], blocks.shape[2]
            x_hat = np.fft.fft(other.reshape(n, p), axis=0)
            y_hat = np.einsum("kij,kj->ki", self._fft, x_hat)
            y = np.fft.ifft(y_hat, axis=0).reshape(-1)
            if not (np.iscomplexobj(blocks) or np.iscomplexobj(other)):
                y = y.real
            return y

    class _SymmetricEngine(engines.DefaultMatrixEngine):
        def _build_matrices_with_symmetries(self, mesh1: Any, mesh2: Any,
                                            **gf_params: Any) -> tuple[Any, Any]:
            out = super()._build_matrices_with_symmetries(mesh1, mesh2, **gf_params)
            return tuple(
                _FFTBlockCirculant(m.blocks)
                if type(m) is BlockCirculantMatrix and isinstance(m.blocks, np.ndarray)
                else m for m in out)

    return _SymmetricEngine()
