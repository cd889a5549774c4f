"""Write examples/oswec/flap_hull.stl: the OSWEC flap's hull in the BEM data's frame.

``examples/oswec/flap.stl`` (WEC-Sim's mesh, copied unchanged) is in the flap's own frame,
origin at its centre of gravity; the BEM data and a nonlinear body's ``mesh`` are in the
world frame at rest (free surface z = 0), where that centre sits at (0, 0, -3.9) m. This
writes the same triangles moved down by 3.9 m, merged as hydrofmu reads a hull, as a
binary STL (no extra needed).

    python build_scripts/make_flap_hull.py
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from hydrofmu.io.panel_mesh import read_body_mesh

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "examples" / "oswec" / "flap.stl"
OUT = ROOT / "examples" / "oswec" / "flap_hull.stl"
COG = np.array([0.0, 0.0, -3.9])  # m, the flap's centre of gravity in the world (README)


def main() -> None:
    mesh = read_body_mesh(SOURCE)
    tri = mesh.vertices[mesh.triangles] + COG
    with open(OUT, "wb") as f:
        f.write(b"OSWEC flap (WEC-Sim flap.stl) moved to its CoG at z = -3.9 m".ljust(80))
        f.write(struct.pack("<I", len(tri)))
        for t in tri:
            normal = np.cross(t[1] - t[0], t[2] - t[0])
            normal /= np.linalg.norm(normal)
            f.write(struct.pack("<12fH", *normal, *t.ravel(), 0))
    print(f"wrote {OUT} ({len(tri)} triangles)")


if __name__ == "__main__":
    main()
