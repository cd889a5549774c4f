"""The data model of a MoorDyn v2 input file: line types, points, bodies, lines, options.

Plain dataclasses filled by :mod:`.moordyn_input` and read by the line model (numpy-free,
standard library only). Units as in the file except the bodies' angles (rad).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["BodySpec", "LineSpec", "LineType", "MoorDynModel", "Options", "PointSpec"]


@dataclass(frozen=True)
class LineType:
    """One LINE TYPES row. SI units: m, kg/m, N, N s (or -zeta), N m^2."""

    name: str
    diameter: float
    mass_per_length: float
    ea: float
    ba: float
    ei: float
    cd: float
    ca: float
    cdax: float
    caax: float


@dataclass(frozen=True)
class PointSpec:
    """One POINTS row. ``kind`` is ``fixed``, ``coupled``, ``free`` or ``body``.

    ``position`` is global (m), or relative to body ``body`` when ``kind == "body"``.
    """

    id: int
    kind: str
    position: tuple[float, float, float]
    mass: float = 0.0
    volume: float = 0.0
    cda: float = 0.0
    ca: float = 0.0
    body: int | None = None


@dataclass(frozen=True)
class BodySpec:
    """One BODIES row (``kind`` ``coupled`` or ``fixed``); pose in m and rad."""

    id: int
    kind: str
    pose: tuple[float, float, float, float, float, float]


@dataclass(frozen=True)
class LineSpec:
    """One LINES row: ends A (anchor) and B (fairlead) are point ids."""

    id: int
    line_type: str
    point_a: int
    point_b: int
    length: float
    n_segments: int


@dataclass(frozen=True)
class Options:
    """The OPTIONS the line model uses, with MoorDyn-C's defaults."""

    dtM: float = math.nan
    tScheme: str = "rk2"
    g: float = 9.80665
    rho: float = 1025.0
    WtrDpth: float = 0.0
    kBot: float = 3.0e6
    cBot: float = 3.0e5
    dtIC: float = 1.0
    TmaxIC: float = 120.0
    CdScaleIC: float = 5.0
    threshIC: float = 0.001
    dtOut: float = 0.0


@dataclass
class MoorDynModel:
    """A MoorDyn v2 input file, as read."""

    path: Path | None
    line_types: dict[str, LineType] = field(default_factory=dict)
    points: list[PointSpec] = field(default_factory=list)
    bodies: list[BodySpec] = field(default_factory=list)
    lines: list[LineSpec] = field(default_factory=list)
    options: Options = field(default_factory=Options)
    outputs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: A steady current, rows ``(z, ux, uy, uz)`` (m, m/s) as MoorDyn-C's ``Currents = 1``
    #: table (hydrofmu's ``[current]`` section sets it); empty: still water.
    current: list[tuple[float, float, float, float]] = field(default_factory=list)
