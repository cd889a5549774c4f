"""Bodies without water for the large-rotation tests: no added mass, damping, excitation or
hydrostatic stiffness; the weight at the reference point is the data's only load (volume
0), or none (volume ``m / rho``: buoyancy balances weight at the reference point)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from hydrofmu.config.bodies import resolve_body
from hydrofmu.config.configuration import parse_config, resolve
from hydrofmu.runtime.parts.part import Context, ModelInfo, Part
from hydrofmu.runtime.simulator.simulator import Simulator
from physics_helpers import bemio_sphere_body

G = 9.81
RHO = 1025.0


def dry_model(entries: list[dict[str, Any]], joints: list[dict[str, Any]] | None = None,
              *, dt: float = 0.005, scheme: str = "rk4", parts: Any = (),
              moorings: list[dict[str, Any]] | None = None) -> Simulator:
    """A simulator of the bodies ``entries`` (``name``, ``reference`` (3,), ``weightless``,
    ``added`` (6, 6): an added mass at every frequency, and ``[[bodies]]`` keys: ``mass``,
    ``inertia``, ``cog``, ``dofs``, ``rotations``, ``radiation_frame``, ``initial_pose``,
    ``initial_velocity``) in still water that does not touch them otherwise."""
    data = {"bodies": [bemio_sphere_body(name=e["name"]) for e in entries],
            "wave": {"type": "none"}, "radiation": {"method": "constant"},
            "simulation": {"max_internal_step": dt, "time_scheme": scheme},
            **({"moorings": moorings} if moorings else {})}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sphere's BEM notes
        bodies, cfg = resolve(data, Path.cwd())
    out = []
    for k, e in enumerate(entries):
        hd = bodies[k]
        nw = hd.omega.size
        volume = e["mass"] / RHO if e.get("weightless") else 0.0
        added = np.asarray(e.get("added", np.zeros((6, 6))), dtype=float)
        hd = hd.with_changes(
            added_mass=np.broadcast_to(added, (nw, 6, 6)).copy(),
            radiation_damping=np.zeros((nw, 6, 6)), added_mass_inf=added,
            excitation=np.zeros_like(hd.excitation),
            hydrostatic_stiffness=np.zeros((6, 6)), displaced_volume=volume,
            center_of_buoyancy=np.zeros(3), center_of_gravity=np.zeros(3),
            reference_point=np.asarray(e["reference"], dtype=float), inertia_matrix=None,
            rho=RHO, g=G)
        spec = {key: v for key, v in e.items()
                if key not in ("reference", "weightless", "added")}
        cfg["bodies"][k], _ = resolve_body({"hydro": "-", **spec}, hd)
        out.append(hd)
    cfg["joints"] = parse_config({**data, "joints": joints or []})["joints"]
    return Simulator(out, cfg, parts=parts)


class Weight(Part):
    """The weight ``-m g e_z`` of body 0 at its centre of gravity ``R c`` (options:
    ``mass``, ``cog`` (3,) in body axes), exact at any rotation: the heavy top's load."""

    kind = "test.weight"
    channel = "F_mooring"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        self.mass = float(model.options["mass"])
        self.cog = np.asarray(model.options["cog"], dtype=float)

    def force(self, ctx: Context) -> np.ndarray:
        from hydrofmu.runtime.bodies.rotations import matrix_from_euler

        rot = matrix_from_euler(*ctx.q[3:6])
        f = np.zeros(self.n)
        w = np.array([0.0, 0.0, -self.mass * G])
        f[:3] = w
        f[3:6] = np.cross(rot @ self.cog, w)
        return f
