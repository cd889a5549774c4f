"""Write examples/nonlinear/sphere_hull.stl: the closed hull of the embedded default body.

The default body's BEM data (fmu_src/hydrofmu/data/sphere_capytaine.nc) was computed on
``capytaine.mesh_sphere(radius=5, resolution=(28, 56))``; this writes the same sphere,
whole (above the waterline too), merged and triangulated as hydrofmu reads a hull, as a
binary STL (3,024 triangles). Needs the ``bem`` extra (Capytaine).

    python build_scripts/make_sphere_hull.py
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "examples" / "nonlinear" / "sphere_hull.stl"


def main() -> None:
    import capytaine as cpt

    from hydrofmu.io.panel_mesh import merged

    m = cpt.mesh_sphere(radius=5.0, center=(0.0, 0.0, 0.0), resolution=(28, 56))
    mesh = merged(m.vertices, m.faces, "sphere")
    tri = mesh.vertices[mesh.triangles]
    with open(OUT, "wb") as f:
        f.write(b"hydrofmu default sphere r = 5 m, Capytaine mesh_sphere (28, 56)".ljust(80))
        f.write(struct.pack("<I", len(tri)))
        for t in tri:
            normal = np.cross(t[1] - t[0], t[2] - t[0])
            normal /= np.linalg.norm(normal)
            f.write(struct.pack("<12fH", *normal, *t.ravel(), 0))
    print(f"wrote {OUT} ({len(tri)} triangles)")


if __name__ == "__main__":
    main()
