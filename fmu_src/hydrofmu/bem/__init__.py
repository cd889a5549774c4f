"""``hydrofmu bem``: a ``[bem]`` TOML table -> Capytaine solve -> Capytaine NetCDF.

Build time only (Capytaine is the extra ``bem``); never bundled in an FMU. The written file
is a standard Capytaine NetCDF (complex values on a leading ``complex`` dimension) with the
hydrostatics, the mass properties, omega = 0 and omega = inf, that ``hydrofmu info`` and
``hydro = "body.nc"`` read as they are.

Example::

    [bem]
    body = { shape = "sphere", radius = 5.0, center = [0.0, 0.0, 0.0] }  # or mesh = "hull.stl"
    omega = { min = 0.1, max = 3.0, n = 30 }     # rad/s, or a list
    headings = [0.0]                             # rad
    water_depth = inf                            # m
    lid = true                                   # irregular-frequency removal
    panel_size = 0.4                             # m, for parametric shapes
    rotation_center = [0.0, 0.0, 0.0]
    center_of_mass = [0.0, 0.0, -2.0]
    symmetry = "auto"                            # or "axial" | "none"

Several bodies from mesh files, each placed by a position and a rotation, are solved in one
problem with their interactions (``[[bem.bodies]]``, :mod:`hydrofmu.bem.spec_bodies`)::

    [bem]
    omega = { min = 0.15, max = 3.0, n = 39 }
    water_depth = 10.9
    [[bem.bodies]]
    name = "flap"
    mesh = "flap.stl"
    position = [0.0, 0.0, -3.9]       # m
    rotation = [0.0, 0.0, 0.0]        # deg, [roll, pitch, yaw]
    [[bem.bodies]]
    name = "base"
    mesh = "base.stl"
    position = [0.0, 0.0, -10.95]     # cut at the seabed: no bottom panels

A sphere or vertical cylinder on the z axis is solved with its rotation symmetry
(block-circulant matrices, :mod:`hydrofmu.bem.symmetry`): same panels, same answer to
round-off, a fraction of the cost.

Physics notes (measured with Capytaine 3.0): the inertia is computed on the *closed* mesh
(on the clipped mesh roll and yaw come out 10-13 % low), the stiffness on the immersed
part; no ``mass`` is handed to Capytaine, so the mass is rho times the displaced volume
(a freely floating body in equilibrium).
"""

from .mesh import build_bodies, check_mesh, make_mesh
from .multi import PlacedBody, place_bodies, rigid_inertia
from .solve import (
    assemble,
    bem_to_file,
    radiation_omegas,
    run_bem,
    run_bodies,
    solve,
    write_netcdf,
)
from .spec import BEM_KEYS, BEMSpec, load_bem, parse_bem
from .spec_bodies import BODY_KEYS, BodySpec, parse_bodies
from .symmetry import SYMMETRIES, symmetric_body, symmetric_engine, uses_axial

__all__ = [
    "BEM_KEYS",
    "BODY_KEYS",
    "SYMMETRIES",
    "BEMSpec",
    "BodySpec",
    "PlacedBody",
    "assemble",
    "bem_to_file",
    "build_bodies",
    "check_mesh",
    "load_bem",
    "make_mesh",
    "parse_bem",
    "parse_bodies",
    "place_bodies",
    "radiation_omegas",
    "rigid_inertia",
    "run_bem",
    "run_bodies",
    "solve",
    "symmetric_body",
    "symmetric_engine",
    "uses_axial",
    "write_netcdf",
]
