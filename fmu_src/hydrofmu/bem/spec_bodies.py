"""The ``[[bem.bodies]]`` list: several bodies from mesh files, each placed in the world.

Example (two bodies solved in one problem, with their interactions)::

    [bem]
    omega = { min = 0.1, max = 3.0, n = 30 }
    water_depth = 10.9

    [[bem.bodies]]
    name = "flap"
    mesh = "flap.stl"            # STL, OBJ, GDF, NEMOH .dat, gmsh .msh, what meshio reads
    position = [0.0, 0.0, -3.9]  # m, where the mesh's origin goes
    rotation = [0.0, 0.0, 0.0]   # deg, [roll, pitch, yaw] of the mesh about its origin
    mass = 127000.0              # kg (optional, with inertia)
    inertia = [1.85e6, 1.85e6, 1.85e6]  # kg m^2 about the centre of mass, world axes
    panel_size = 1.0             # m (optional): split panels longer than this

    [[bem.bodies]]
    name = "base"
    mesh = "base.stl"
    position = [0.0, 0.0, -10.9]

A mesh vertex ``v`` (in the file's frame, times ``scale``) goes to ``R v + position`` with
``R = Rz(yaw) Ry(pitch) Rx(roll)`` (rotations about the fixed x, then y, then z axes).
``rotation_center`` and ``center_of_mass`` are world coordinates, by default ``position``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import ConfigError
from .values import positive, unknown_key, vec3

BODY_KEYS = (
    "name", "mesh", "format", "scale", "position", "rotation", "rotation_center",
    "center_of_mass", "mass", "inertia", "panel_size", "lid",
)
"""Keys of one ``[[bem.bodies]]`` entry."""
SINGLE_BODY_KEYS = ("body", "mesh", "name", "rotation_center", "center_of_mass")
"""Keys of the single-body ``[bem]`` form that belong to each body with ``bodies``."""


@dataclass(frozen=True, kw_only=True)
class BodySpec:
    """One validated ``[[bem.bodies]]`` entry.

    Attributes
    ----------
    name
        Body name in the file (DOFs ``<name>__Surge`` ...).
    mesh
        The mesh file.
    format
        Capytaine's ``file_format`` (None: from the suffix).
    scale
        Factor on the file's coordinates (e.g. 0.001 for a mesh in mm).
    position
        World position of the mesh's origin, m.
    rotation
        ``[roll, pitch, yaw]`` of the mesh about its origin, deg.
    rotation_center, center_of_mass
        World coordinates, m.
    mass
        kg, or None: rho times the displaced volume, distributed as the closed hull.
    inertia
        ``[Ixx, Iyy, Izz]`` about the centre of mass (world axes), kg m^2; with ``mass``.
    panel_size
        Largest panel edge, m: longer triangles are bisected (None: the file's panels).
    lid
        Lid on the waterplane when the body pierces the surface (None: the table's ``lid``).
    """

    name: str
    mesh: Path
    format: str | None = None
    scale: float = 1.0
    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation_center: tuple[float, float, float] = (0.0, 0.0, 0.0)
    center_of_mass: tuple[float, float, float] = (0.0, 0.0, 0.0)
    mass: float | None = None
    inertia: tuple[float, float, float] | None = None
    panel_size: float | None = None
    lid: bool | None = None

    def rotation_matrix(self) -> np.ndarray:
        """``R = Rz(yaw) Ry(pitch) Rx(roll)``, shape (3, 3)."""
        return rotation_matrix(self.rotation)


def rotation_matrix(angles_deg: tuple[float, float, float]) -> np.ndarray:
    """``Rz(c) Ry(b) Rx(a)`` for ``angles_deg = (a, b, c)`` in degrees, shape (3, 3)."""
    a, b, c = (math.radians(x) for x in angles_deg)
    rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    rz = np.array([[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]])
    return rz @ ry @ rx


def _rotation(value: Any, where: str) -> tuple[float, float, float]:
    angles = vec3(value, f"{where}.rotation", unit="deg ([roll, pitch, yaw])")
    if any(abs(x) > 360.0 for x in angles):
        raise ConfigError(f"{where}.rotation = {list(value)!r}: each angle must lie in "
                          "[-360, 360] deg ([roll, pitch, yaw] in degrees, not a matrix)",
                          value=value)
    return angles


def _parse_one(entry: Any, k: int, base: Path) -> BodySpec:
    where = f"[[bem.bodies]] #{k + 1}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table (name = ..., mesh = ...), got {entry!r}",
                          value=entry)
    for key in entry:
        if key not in BODY_KEYS:
            hint = (" (a fixed body is solved with its 6 DOFs like any other: its coupling "
                    "and diffraction matter; fix it in the model's configuration)"
                    if key == "fixed" else "")
            err = unknown_key(key, BODY_KEYS, where)
            raise ConfigError(str(err) + hint, value=key)
    for key in ("name", "mesh"):
        if key not in entry:
            raise ConfigError(f"{where} needs {key} (" + ("an identifier" if key == "name"
                              else "a mesh file, relative to the TOML file") + ")", value=entry)
    name = str(entry["name"])
    where = f"[[bem.bodies]] '{name}'"
    if not name.isidentifier() or "__" in name:
        raise ConfigError(f"{where}: name = {name!r} must be an identifier without '__' "
                          "(the file names the DOFs '<name>__Surge' ...)", value=name)
    path = Path(str(entry["mesh"])).expanduser()
    path = path if path.is_absolute() else base / path
    if not path.is_file():
        raise ConfigError(f"{where}: mesh file '{path}' does not exist (mesh = "
                          f"{entry['mesh']!r}, relative to the TOML file's folder)",
                          value=str(path))
    fmt = entry.get("format")
    if fmt is not None and not isinstance(fmt, str):
        raise ConfigError(f"{where}.format = {fmt!r} must be a string such as 'stl'", value=fmt)
    position = vec3(entry.get("position", [0.0, 0.0, 0.0]), f"{where}.position")
    center = vec3(entry.get("rotation_center", position), f"{where}.rotation_center")
    if ("mass" in entry) != ("inertia" in entry):
        raise ConfigError(f"{where}: give both mass (kg) and inertia ([Ixx, Iyy, Izz] kg m^2 "
                          "about the centre of mass) or neither (rho times the displaced "
                          "volume, distributed as the closed hull)", value=entry)
    mass = inertia = None
    if "mass" in entry:
        mass = positive(entry["mass"], f"{where}.mass")
        inertia = vec3(entry["inertia"], f"{where}.inertia", unit="kg m^2")
        if min(inertia) <= 0:
            raise ConfigError(f"{where}.inertia = {entry['inertia']!r} must be > 0 kg m^2",
                              value=entry["inertia"])
    lid = entry.get("lid")
    if lid is not None and not isinstance(lid, bool):
        raise ConfigError(f"{where}.lid = {lid!r} must be true or false", value=lid)
    return BodySpec(
        name=name, mesh=path, format=fmt,
        scale=positive(entry.get("scale", 1.0), f"{where}.scale"),
        position=position,
        rotation=_rotation(entry.get("rotation", [0.0, 0.0, 0.0]), where),
        rotation_center=center,
        center_of_mass=vec3(entry.get("center_of_mass", center), f"{where}.center_of_mass"),
        mass=mass, inertia=inertia,
        panel_size=(positive(entry["panel_size"], f"{where}.panel_size")
                    if "panel_size" in entry else None),
        lid=lid,
    )


def parse_bodies(value: Any, data: dict[str, Any], base: Path) -> tuple[BodySpec, ...]:
    """Validate ``[[bem.bodies]]``.

    Parameters
    ----------
    value
        The list of tables.
    data
        The whole ``[bem]`` table (its single-body keys are refused beside ``bodies``).
    base
        Folder that relative mesh paths are relative to.

    Raises
    ------
    ConfigError
        Not a list of tables, unknown keys, missing mesh files, bad rotations, duplicate
        names, single-body keys beside the list.
    """
    for key in SINGLE_BODY_KEYS:
        if key in data:
            raise ConfigError(f"[bem] {key} belongs to each [[bem.bodies]] entry when the "
                              "table has bodies; move it into the entries", value=key)
    if not isinstance(value, list) or not value:
        raise ConfigError("[bem] bodies must be a non-empty list of tables ([[bem.bodies]])",
                          value=value)
    bodies = tuple(_parse_one(entry, k, base) for k, entry in enumerate(value))
    names = [b.name for b in bodies]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"[[bem.bodies]]: the names {dupes} are used more than once",
                          value=dupes)
    return bodies
