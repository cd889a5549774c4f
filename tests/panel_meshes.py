"""Closed meshes for the panel-kernel tests (Capytaine's generators, merged and
triangulated as hydrofmu reads a hull), a binary STL writer and the kernel at a pose."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import numpy as np

from hydrofmu.export.panel_kernel_build import compiled_library
from hydrofmu.io.panel_mesh import BodyMesh, merged
from hydrofmu.runtime.panels.kernel import PanelKernel, WaveComponents, load_library
from hydrofmu.runtime.panels.pose import rotation_matrix

RHO, G = 1000.0, 9.81


def kernel_library():
    """The compiled kernel (compiled into the cache first when needed)."""
    compiled_library()
    return load_library()


def sphere(radius: float, n: int) -> BodyMesh:
    """UV sphere about the origin, n panels along a meridian, 2 n around."""
    import capytaine as cpt

    m = cpt.mesh_sphere(radius=radius, center=(0, 0, 0), resolution=(n, 2 * n))
    return merged(m.vertices, m.faces, f"sphere r={radius} n={n}")


def box(size: tuple[float, float, float], n: int = 4,
        center: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> BodyMesh:
    """Rectangular box, n panels along each edge."""
    import capytaine as cpt

    m = cpt.mesh_parallelepiped(size=size, center=center, resolution=(n, n, n))
    return merged(m.vertices, m.faces, f"box {size}")


def cylinder(radius: float, length: float, n: int,
             center: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> BodyMesh:
    """Vertical cylinder with its end discs, n panels around, n // 4 along and across."""
    import capytaine as cpt

    m = cpt.mesh_vertical_cylinder(radius=radius, length=length, center=center,
                                   resolution=(max(n // 8, 1), n, max(n // 4, 1)))
    return merged(m.vertices, m.faces, f"cylinder r={radius} n={n}")


def kernel(mesh: BodyMesh, wave: WaveComponents | None = None) -> PanelKernel:
    """The kernel bound to ``mesh`` (vertices about the origin)."""
    return PanelKernel(mesh.vertices, mesh.triangles, rho=RHO, g=G, wave=wave,
                       lib=kernel_library())


def pose(roll: float = 0.0, pitch: float = 0.0, yaw: float = 0.0):
    """Rotation matrix of the angles (rad)."""
    return rotation_matrix(roll, pitch, yaw)


def write_stl(path: Path, mesh: BodyMesh, *, flip: bool = False) -> Path:
    """Write ``mesh`` as a binary STL (``flip``: reversed faces, inward normals)."""
    tri = mesh.vertices[mesh.triangles[:, ::-1] if flip else mesh.triangles]
    with open(path, "wb") as f:
        f.write(b"\0" * 80)
        f.write(struct.pack("<I", len(tri)))
        for t in tri:
            normal = np.cross(t[1] - t[0], t[2] - t[0])
            normal /= np.linalg.norm(normal)
            f.write(struct.pack("<12fH", *normal, *t.ravel(), 0))
    return path


def cap(radius: float, depth_of_centre: float) -> tuple[float, float, float]:
    """Closed form of a sphere whose centre is ``depth_of_centre`` below z = 0 (negative:
    above): immersed volume, height of its centre of buoyancy above the sphere's centre,
    waterplane area (the spherical cap of height h = r + d)."""
    r, d = radius, depth_of_centre
    h = r + d
    volume = math.pi * h * h * (3 * r - h) / 3
    # centroid of a cap of height h, measured from the sphere's centre towards the cap
    zc = 3 * (2 * r - h) ** 2 / (4 * (3 * r - h))
    awp = math.pi * (r * r - d * d)
    return volume, -zc, awp
