"""The registry of built-in parts and the list of parts a configuration asks for.

Every body gets hydrostatics, radiation, the wave excitation, viscous damping and the PTO
force inputs; each ``[[moorings]]`` entry adds the part registered as ``mooring.<type>``,
each ``[[ptos]]`` entry a ``pto.linear``; a body with ``drift`` adds the ``drift`` part
(one for all such bodies, output channel ``F_drift``); a body with ``nonlinear`` adds
``hydrostatics.nonlinear`` and ``froude_krylov.nonlinear`` (one each for all such bodies).
A new kind is one :class:`~hydrofmu.runtime.parts.part.Part` subclass and one :func:`register_part`
line here (or in the user's code, before the simulator is built).
"""

from __future__ import annotations

from typing import Any

from ..parts.part import Part, part_class, register_part
from .catenary_mooring import CatenaryPart
from .current_drag import CurrentDragPart, current_drag_needed
from .drift import DriftPart
from .hydrostatics import HydrostaticsPart
from .joints import JOINTS
from .large_rotation import LargeRotationPart, large_bodies
from .linear_mooring import LinearMooring
from .moordyn_mooring import MoorDynPart
from .nonlinear_hydro import NonlinearFroudeKrylov, NonlinearHydrostatics, nonlinear_bodies
from .pto import LinearPto
from .pto_input import PtoInputs
from .radiation import RadiationPart
from .revolute import RevoluteJoint
from .static_loads import StaticLoads
from .viscous import ViscousPart
from .wave_excitation import WaveExcitation

register_part("hydrostatics", HydrostaticsPart)
register_part("radiation", RadiationPart)
register_part("wave_excitation", WaveExcitation)
register_part("viscous", ViscousPart)
register_part("current_drag", CurrentDragPart)
register_part("drift", DriftPart)
register_part("hydrostatics.nonlinear", NonlinearHydrostatics)
register_part("froude_krylov.nonlinear", NonlinearFroudeKrylov)
register_part("pto_inputs", PtoInputs)
register_part("mooring.linear", LinearMooring)
register_part("mooring.catenary", CatenaryPart)
register_part("mooring.moordyn", MoorDynPart)
for _kind, _cls in JOINTS.items():
    register_part(f"joint.{_kind}", _cls)
register_part("joint.revolute", RevoluteJoint)
register_part("joint.static_load", StaticLoads)
register_part("pto.linear", LinearPto)
register_part("rigid_body.large_rotation", LargeRotationPart)

#: Body force output channels every model has, in output order (zero when no part adds
#: to them); a part with a new channel appends it.
BODY_CHANNELS: tuple[str, ...] = (
    "F_radiation", "F_excitation", "F_hydrostatic", "F_mooring", "F_viscous",
)

#: Parts every model has, in the order their forces are summed and their inputs listed
#: (``<body>.F_pto[1..6]`` per body, then ``wave.elevation_input``).
BODY_PARTS: tuple[str, ...] = (
    "pto_inputs", "hydrostatics", "radiation", "wave_excitation", "viscous",
)


def configured_parts(config: dict[str, Any]) -> list[tuple[type[Part], dict[str, Any]]]:
    """The part classes of a configuration with their options, in evaluation order."""
    parts: list[tuple[type[Part], dict[str, Any]]] = [
        (part_class(name, "parts"), {}) for name in BODY_PARTS
    ]
    if current_drag_needed(config):  # the quadratic drag on the velocity in the current
        parts.append((part_class("current_drag", "parts"), {}))
    if any(b.get("drift") for b in config.get("bodies") or []):  # second-order loads
        parts.append((part_class("drift", "parts"), {}))
    if nonlinear_bodies(config):  # [[bodies]] nonlinear = ...: the wetted-mesh pressure
        shared: dict[str, Any] = {}  # one kernel call per stage for both parts
        parts.append((part_class("hydrostatics.nonlinear", "parts"), {"panel_cache": shared}))
        parts.append((part_class("froude_krylov.nonlinear", "parts"), {"panel_cache": shared}))
    for k, m in enumerate(config.get("moorings") or []):
        parts.append((part_class(f"mooring.{m['type']}", f"moorings[{k}]"), dict(m)))
    for k, j in enumerate(config.get("joints") or []):
        parts.append((part_class(f"joint.{j['kind']}", f"joints[{k}]"), dict(j)))
    if config.get("joints"):  # the joints' static reactions as a stiffness
        parts.append((part_class("joint.static_load", "joints"), {}))
    for p in config.get("ptos") or []:  # checked by config.parse_config
        parts.append((part_class("pto.linear", "ptos"), dict(p)))
    if large_bodies(config):  # [[bodies]] rotations = "large" (bodies/dynamics.py)
        parts.append((part_class("rigid_body.large_rotation", "bodies"), {}))
    return parts
