"""The kind of each direct dependency of the motion FMU's outputs on its inputs: FMI 2.0's
``dependenciesKind`` (section 2.2.8), generated from the parts' declarations.

FMI 2.0 orders the kinds from the most to the least informative: ``constant`` (the output
is a constant factor times the input), ``fixed`` (the factor depends on fixed parameters
only), ``tunable`` (on tunable ones too), ``discrete`` (on discrete-time variables), and
``dependent`` (no such linear form: the factor depends on the state or the time, or the
output is not linear in the input). A composition of two linear maps has the wider of the
two kinds (:func:`widest`).

The motion FMU's outputs (:func:`~hydrofmu.runtime.simulator.layout.output_table`) depend
directly on an input in two ways:

- **through a part's force channel or its own outputs** (``F_excitation`` on the elevation
  input...): the part declares that kind in
  :attr:`~hydrofmu.runtime.parts.part.Part.input_kind` (``constant`` for the PTO force
  inputs and the joints' PTO inputs: the force is the input times a row fixed by the
  geometry; ``dependent`` otherwise, e.g. the elevation input's filter, ramped in time, or a
  user part);
- **through the solve of the left side**, ``q'' = L_r^-1 T^T (F + ...)`` with
  ``L = M + A`` (acceleration, ``F_added_mass``, ``F_constraint`` and the parts' outputs
  declared on every input, e.g. a joint's reaction): the input's own kind widened by the
  left side's (:func:`left_side_kind`). The small-rotation left side is a constant matrix
  that the fixed parameters ``added_mass.method`` and ``added_mass.adj_mass_factor`` choose
  (how much of ``A_inf`` it holds): ``fixed``, e.g. the acceleration's response to a PTO
  force is ``(M + A_inf)^-1``. A body with ``rotations = "large"`` has a mass matrix that
  turns with it (Newton-Euler in world axes, or the reduced hinge coordinate): ``dependent``.

No tunable parameter enters a factor of the motion FMU (the tunable ones scale the wave,
its ramp and the linear PTOs' damping and stiffness, whose forces read the state, not an
input); the kinds are the same for the Python and the native FMU
(:func:`~hydrofmu.export.native.description.model_description` writes the same mapping).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..forces.large_rotation import large_bodies
from ..hydrodata.model import HydroData
from ..parameters.table import body_names
from ..parts.part import ALL_INPUTS, Part

__all__ = ["KINDS", "SOLVED", "left_side_kind", "output_kinds", "widest"]

#: FMI 2.0's ``dependenciesKind`` values, from the most to the least informative.
KINDS: tuple[str, ...] = ("constant", "fixed", "tunable", "discrete", "dependent")
#: The body outputs that come from the solve of the left side (every input reaches them).
SOLVED: tuple[str, ...] = ("acceleration", "F_added_mass", "F_constraint")


def widest(*kinds: str) -> str:
    """The least informative of ``kinds`` (that of a product of linear maps).

    Raises
    ------
    ValueError
        A kind that is not one of :data:`KINDS`.
    """
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ValueError(f"unknown dependenciesKind {bad}; one of {', '.join(KINDS)}")
    return max(kinds, key=KINDS.index, default=KINDS[0])


def left_side_kind(config: dict[str, Any]) -> str:
    """The kind of the left side's inverse ``L_r^-1`` as a factor (module docstring):
    ``dependent`` with a large-rotation body, else ``fixed`` (``added_mass.method`` and
    ``added_mass.adj_mass_factor`` are fixed parameters)."""
    return "dependent" if large_bodies(config) else "fixed"


def output_kinds(table: Any, specs: Sequence[tuple[type[Part], dict[str, Any]]],
                 bodies: list[HydroData], config: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Output name -> {input name: ``dependenciesKind``} of its direct inputs, for every
    output of the motion model (an empty mapping: no direct dependency).

    Parameters
    ----------
    table
        The model's ports (:func:`~hydrofmu.runtime.simulator.layout.output_table`), whose
        outputs' ``feedthrough`` names the direct inputs.
    specs
        Its parts as ``(class, options)`` (:func:`~hydrofmu.runtime.simulator.layout.part_specs`).
    bodies, config
        The model (hydrodynamic data per body, the resolved configuration).
    """
    source: dict[str, str] = {}  # input -> the kind its part declares
    owner: dict[str, str] = {}  # a part's own output -> its part's input kind
    solved = {f"{b}.{q}[{i + 1}]" for b in body_names(config) for q in SOLVED
              for i in range(6)}
    for cls, options in specs:
        source.update(dict.fromkeys(
            (p.name for p in cls.input_ports(bodies, config, options)), cls.input_kind))
        for p in cls.output_ports(bodies, config, options):
            owner[p.name] = cls.input_kind
            if p.feedthrough == ALL_INPUTS:
                solved.add(p.name)
    left = left_side_kind(config)
    return {p.name: {d: widest(source[d], left if p.name in solved
                               else owner.get(p.name, source[d]))
                     for d in p.feedthrough}
            for p in table.outputs}
