"""A small box barge solved by ``hydrofmu bem`` for the validation tests that need a body
without rotation symmetry: 4 x 2 m, 1 m draught, turned 25 deg about z and set off the
origin, so that every DOF is coupled to the others (sway-roll-yaw included) and waves from
30 and 60 deg excite all six. 72 hull panels, a few frequencies: seconds to solve."""

from __future__ import annotations

import atexit
import functools
import math
import shutil
import tempfile
from pathlib import Path

import numpy as np

from hydrofmu import bem
from hydrofmu.io.readers import read_hydro
from hydrofmu.runtime.hydrodata.model import HydroData

#: Wave headings of the diffraction problems, rad (direction of travel).
HEADINGS = (math.radians(30.0), math.radians(60.0))
#: Finite frequencies solved, rad/s.
OMEGA = (0.8, 1.0, 1.3, 1.6, 2.0)
YAW = math.radians(25.0)  # the box's turn about z, rad
CENTRE = (0.6, 0.4)  # m, the box's centre in the horizontal plane
G = 9.81


def write_gdf(path: Path, vertices: np.ndarray, faces: np.ndarray) -> None:
    """WAMIT GDF: four vertices per panel."""
    lines = ["hydrofmu test mesh", f"1.0 {G}", "0 0", str(len(faces))]
    for face in faces:
        lines += [" ".join(f"{c:.12g}" for c in vertices[v]) for v in face]
    path.write_text("\n".join(lines) + "\n")


@functools.cache
def box_file() -> Path:
    """The solved box as a Capytaine NetCDF file (solved once per test process)."""
    import capytaine as cpt

    folder = Path(tempfile.mkdtemp(prefix="hydrofmu_box_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    mesh = (cpt.mesh_parallelepiped(size=(4.0, 2.0, 2.0), center=(0.0, 0.0, 0.0),
                                    faces_max_radius=0.5)
            .rotated_z(YAW).translated((CENTRE[0], CENTRE[1], 0.0)))
    write_gdf(folder / "box.gdf", np.asarray(mesh.vertices), np.asarray(mesh.faces))
    spec = bem.parse_bem({"mesh": "box.gdf", "omega": list(OMEGA), "headings": list(HEADINGS),
                          "center_of_mass": [CENTRE[0], CENTRE[1], -0.3]}, base=folder)
    return bem.write_netcdf(bem.run_bem(spec), folder / "box.nc")


def box_data() -> HydroData:
    """The box's hydrodynamic data as hydrofmu reads it."""
    return read_hydro(box_file())


def box_body(**extra: object) -> dict[str, object]:
    """The box as a ``[[bodies]]`` entry: m = rho V, cog above the centre of buoyancy
    (no static heel), inertia of a solid box about the cog (kg m^2, body axes turned to
    the world by the 25 deg yaw)."""
    hd = box_data()
    mass = hd.rho * hd.displaced_volume
    c, s = math.cos(YAW), math.sin(YAW)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    # 4 x 2 m and 1.4 m tall (the mass sits low in a barge): I = m (b^2 + c^2) / 12.
    principal = mass / 12.0 * np.array([2.0**2 + 1.4**2, 4.0**2 + 1.4**2, 4.0**2 + 2.0**2])
    inertia = rot @ np.diag(principal) @ rot.T
    cob = hd.center_of_buoyancy
    body: dict[str, object] = {"name": "body", "hydro": str(box_file()), "mass": mass,
                               "cog": [float(cob[0]), float(cob[1]), -0.3],
                               "inertia": inertia.tolist()}
    body.update(extra)
    return body
