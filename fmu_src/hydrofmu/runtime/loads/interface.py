"""The interface of the hydrodynamic-load model (``[export] kind = "loads"``): its FMU inputs,
outputs, units and direct dependencies with their kinds, from the configuration alone.

Inputs: per body ``<body>.pose[1..6]``, ``<body>.velocity[1..6]``,
``<body>.acceleration[1..6]`` (the motion the importer's multibody solver computes), then
the parts' own inputs except the PTO force inputs (the importer applies its PTO itself),
e.g. ``wave.elevation_input``.

Outputs: per body ``<body>.F_hydro[1..6]`` (the hydrodynamic force WITHOUT ``-A_inf a``:
hydrostatics at the pose, radiation memory of the velocity history, excitation, drag,
moorings), ``<body>.F_added_mass[1..6]`` (``-A_inf a``, the part an importer moves to its
own left side), ``<body>.F_total[1..6]`` (their sum), the force channels of the motion
FMU under the same names (``<body>.F_radiation[1..6]``...), the parts' own outputs, and
``A_inf[i,j]`` (``i, j = 1..6N`` over the stacked body DOFs surge..yaw of each body, kg,
kg m, kg m^2), constant.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..hydrodata.model import HydroData
from ..parameters.table import body_names
from ..parts.part import ALL_INPUTS, FORCE_UNITS, Port
from ..simulator.dependency_kinds import widest
from ..simulator.layout import PartSpec, output_table, part_specs

__all__ = ["LINEAR_IN_MOTION", "LOAD_KIND", "MOTION_INPUTS", "LoadTable", "derivative_refusal",
           "load_table", "refused_parts"]

#: ``[export] kind`` of the load FMU (``"motion"``: the FMU that integrates the bodies).
LOAD_KIND = "loads"
#: The motion inputs of each body, in order, with their units (translation, rotation).
MOTION_INPUTS: tuple[tuple[str, tuple[str, str]], ...] = (
    ("pose", ("m", "rad")), ("velocity", ("m/s", "rad/s")),
    ("acceleration", ("m/s2", "rad/s2")))
#: The part whose inputs the load FMU drops (the importer applies the PTO force itself).
PTO_INPUTS = "pto_inputs"
#: ``dependenciesKind`` of ``F_added_mass`` on the accelerations: linear with a constant
#: factor (``A_inf``, fixed at export). A force channel's kind on the motion is the widest
#: its parts declare (:meth:`~hydrofmu.runtime.parts.part.Part.motion_kind`: ``constant``
#: for linear hydrostatics, linear moorings, linear damping and the wave's excitation; the
#: rest, the memories, drag and user parts, ``dependent``); ``F_hydro`` and ``F_total`` sum
#: every channel.
LINEAR_CONSTANT, DEPENDENT = "constant", "dependent"
#: The parts whose force is affine in the motion at a fixed memory (hydrostatics, radiation
#: by convolution or state space along the Hermite motion, linear moorings, linear viscous
#: damping) or does not read it (excitation, the elevation input's filter): the load model's
#: outputs are then affine in its inputs, and their central difference is exact.
LINEAR_IN_MOTION = frozenset({"hydrostatics", "radiation", "wave_excitation", "mooring.linear",
                              "viscous", "pto_inputs"})
#: The parts whose force reads the motion inside the last step (the radiation memory, the
#: MoorDyn line states); a part that is not hydrofmu's own (a user part) is counted too.
MEMORY_KINDS = frozenset({"radiation", "mooring.moordyn"})
#: Unit of an added-mass entry by the kinds of its row and column DOF (translation first).
_A_UNITS = (("kg", "kg.m"), ("kg.m", "kg.m2"))


@dataclass(frozen=True)
class LoadTable:
    """The load model's ports and where they come from.

    Attributes
    ----------
    inputs, outputs
        Scalar ports in value-reference order; an output's ``feedthrough`` holds its
        direct inputs (the kinds are in :attr:`kinds`).
    kinds
        Output name -> {input name: ``dependenciesKind``}.
    part_inputs
        For each of the simulator's inputs, the index in :attr:`inputs` it is read from,
        or -1 (a PTO force input, held at zero).
    channels
        The force channels, in output order.
    n_bodies
        Number of bodies.
    """

    inputs: list[Port]
    outputs: list[Port]
    kinds: dict[str, dict[str, str]]
    part_inputs: list[int]
    channels: tuple[str, ...]
    n_bodies: int


def refused_parts(config: dict[str, Any], parts: Sequence[PartSpec] = ()) -> None:
    """Refuse what belongs to the importer's multibody model (joints and PTOs) and large
    rotations: the load model's pose input is the small-rotation pose (rotations about the
    mean pose, the linear model's), while a body with ``rotations = "large"`` has its pose
    by a quaternion the load model does not take.

    Raises
    ------
    ConfigError
        Naming the entries and the fix.
    """
    large = [str(b.get("name")) for b in config.get("bodies") or []
             if b.get("rotations") == "large"]
    if large:
        raise ConfigError(
            f"[export] kind = 'loads' takes each body's pose as small rotations about its "
            f"mean pose, but {', '.join(repr(b) for b in large)} has rotations = 'large' (a "
            "quaternion pose the load FMU does not take): export kind = 'motion' (the motion "
            "FMU integrates large rotations), or set rotations = 'small' for the load FMU",
            value=large)
    kinds = [cls.kind for cls, _ in part_specs(config, parts)]
    bad = sorted({k for k in kinds if k.startswith(("joint.", "pto.linear"))})
    if bad:
        raise ConfigError(
            f"[export] kind = 'loads' exports the hydrodynamic loads only, but the model has "
            f"{bad}: joints and PTOs belong to the importer's multibody model (remove the "
            "[[joints]] and [[ptos]] entries, or export kind = 'motion')", value=bad)


def _built_in(cls: type) -> bool:
    """Whether a part class is hydrofmu's own (not a user part)."""
    return cls.__module__.split(".")[-2:-1] in (["forces"], ["parts"])


def derivative_refusal(config: dict[str, Any], parts: Sequence[PartSpec] = ()) -> str:
    """Why the load model's outputs are not affine in its inputs ("" when they are): a part
    that is not linear in the motion (quadratic drag, moorings other than linear, second-order
    or nonlinear loads, user parts), named. Its exact directional derivative is then not
    provided (``providesDirectionalDerivative = false``)."""
    kinds = [cls.kind for cls, _ in part_specs(config, parts)]
    bad = sorted({k for k in kinds if k not in LINEAR_IN_MOTION})
    if parts:
        bad.append("user parts")
    if any(any(float(c) != 0.0 for c in b.get("quadratic_damping") or ())
           for b in config.get("bodies") or []):
        bad.append("viscous (quadratic_damping != 0)")
    if not bad:
        return ""
    return (f"the load model's forces are not affine in the motion: {', '.join(bad)}; their "
            "derivative is not provided (difference the outputs, or keep the linear parts "
            f"only: {', '.join(sorted(LINEAR_IN_MOTION - {'pto_inputs'}))})")


def load_table(bodies: list[HydroData], config: dict[str, Any],
               parts: Sequence[PartSpec] = ()) -> LoadTable:
    """The load model's inputs and outputs (see the module docstring)."""
    refused_parts(config, parts)
    sim_table = output_table(bodies, config, parts)
    names = body_names(config)
    n = 6 * len(names)
    inputs: list[Port] = [Port(f"{b}.{q}[{i + 1}]", units[i // 3])
                          for b in names for q, units in MOTION_INPUTS for i in range(6)]
    motion = [p.name for p in inputs]
    pose_velocity = [p for p in motion if ".acceleration[" not in p]
    acceleration = [p for p in motion if ".acceleration[" in p]
    pto_names = {p.name for cls, opt in part_specs(config, parts) if cls.kind == PTO_INPUTS
                 for p in cls.input_ports(bodies, config, opt)}
    part_inputs = []
    for p in sim_table.inputs:
        if p.name in pto_names:
            part_inputs.append(-1)
        else:
            part_inputs.append(len(inputs))
            inputs.append(p)
    direct = {}  # channel -> the parts' inputs it depends on directly
    for cls, opt in part_specs(config, parts):
        if cls.channel is not None and cls.feedthrough and cls.kind != PTO_INPUTS:
            direct.setdefault(cls.channel, []).extend(
                p.name for p in cls.input_ports(bodies, config, opt))
    # Parts with a memory or states read the motion inside the last step: the Hermite
    # motion between its two ends, which takes both ends' accelerations too.
    memory = {cls.channel for cls, _ in part_specs(config, parts)
              if cls.kind in MEMORY_KINDS or not _built_in(cls)}
    # each channel's kind on the motion: the widest its parts declare (Part.motion_kind)
    on_motion: dict[str, str] = {}
    for cls, opt in part_specs(config, parts):
        if cls.channel is not None and cls.kind != PTO_INPUTS:
            kind = cls.motion_kind(config, opt) if _built_in(cls) else DEPENDENT
            on_motion[cls.channel] = widest(on_motion.get(cls.channel, LINEAR_CONSTANT), kind)
    summed = widest(*on_motion.values())  # F_hydro, the channels' sum
    outputs: list[Port] = []
    kinds: dict[str, dict[str, str]] = {}

    def add(name: str, unit: str, deps: dict[str, str]) -> None:
        outputs.append(Port(name, unit, tuple(deps)))
        kinds[name] = deps

    every_force = sorted({d for ds in direct.values() for d in ds})
    read = motion if memory else pose_velocity  # what the parts' forces read of the motion
    for b in names:
        for i in range(6):
            add(f"{b}.F_hydro[{i + 1}]", FORCE_UNITS[i // 3],
                {**dict.fromkeys(read, summed), **dict.fromkeys(every_force, DEPENDENT)})
        for i in range(6):
            add(f"{b}.F_added_mass[{i + 1}]", FORCE_UNITS[i // 3],
                dict.fromkeys(acceleration, LINEAR_CONSTANT))
        for i in range(6):
            add(f"{b}.F_total[{i + 1}]", FORCE_UNITS[i // 3],
                {**dict.fromkeys(motion, summed), **dict.fromkeys(every_force, DEPENDENT)})
        for ch in sim_table.channels:
            deps = {**dict.fromkeys(motion if ch in memory else pose_velocity,
                                    on_motion.get(ch, LINEAR_CONSTANT)),
                    **dict.fromkeys(direct.get(ch, ()), DEPENDENT)}
            for i in range(6):
                add(f"{b}.{ch}[{i + 1}]", FORCE_UNITS[i // 3], deps)
    n_body_out = len(outputs)
    for p in sim_table.outputs[len(names) * 6 * (5 + len(sim_table.channels)):]:
        # the parts' own outputs at the importer's motion (its states advanced along it)
        own = every_force if p.feedthrough == ALL_INPUTS else [
            d for d in p.feedthrough if d not in pto_names]
        add(p.name, p.unit, dict.fromkeys([*read, *own], DEPENDENT))
    if len(outputs) - n_body_out != len(sim_table.outputs) - len(names) * 6 * (
            5 + len(sim_table.channels)):  # pragma: no cover - the layout's contract
        raise ConfigError("the part outputs of the load model do not match the simulator's")
    for i in range(n):
        for j in range(n):
            add(f"A_inf[{i + 1},{j + 1}]", _A_UNITS[(i % 6) // 3][(j % 6) // 3], {})
    return LoadTable(inputs=inputs, outputs=outputs, kinds=kinds, part_inputs=part_inputs,
                     channels=tuple(sim_table.channels), n_bodies=len(names))
