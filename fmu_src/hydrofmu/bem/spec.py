"""The ``[bem]`` table: keys, validation, :class:`BEMSpec`."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import ConfigError, did_you_mean
from .spec_bodies import BodySpec, parse_bodies
from .values import positive as _positive
from .values import unknown_key as _unknown
from .values import vec3 as _vec3

BEM_KEYS = (
    "body", "mesh", "omega", "headings", "water_depth", "lid", "panel_size",
    "rotation_center", "center_of_mass", "rho", "g", "method", "n_jobs", "name",
    "zero_and_infinite", "symmetry", "bodies",
)
"""Keys of the ``[bem]`` table."""
SHAPE_KEYS = {
    "sphere": ("shape", "radius", "center", "resolution"),
    "cylinder": ("shape", "radius", "draft", "height", "center", "resolution"),
    "box": ("shape", "size", "center", "resolution"),
}
"""Keys of ``body = {shape = ...}`` per parametric shape."""
MESH_KEYS = ("mesh", "format", "scale")
"""Keys of ``body = {mesh = ...}``."""
METHODS = ("direct", "indirect")
SYMMETRIES = ("auto", "axial", "none")
"""Values of ``[bem] symmetry`` (see :mod:`hydrofmu.bem.symmetry`)."""


@dataclass(frozen=True, kw_only=True)
class BEMSpec:
    """A validated ``[bem]`` table.

    Attributes
    ----------
    body
        Parametric shape (``{"shape": ..., ...}``) or mesh file (``{"mesh": Path, ...}``);
        empty when ``bodies`` is given.
    bodies
        Several bodies from mesh files, solved together (``[[bem.bodies]]``,
        :mod:`hydrofmu.bem.spec_bodies`); empty for the single-body form.
    omega
        Finite frequencies, rad/s, shape (nw,), strictly increasing, > 0.
    headings
        Wave headings of the diffraction problems, rad (direction the waves travel to).
    water_depth
        m, ``inf`` for deep water.
    lid
        Add a lid on the waterplane (irregular-frequency removal).
    panel_size
        Target panel size of parametric shapes, m.
    rotation_center, center_of_mass
        m.
    rho, g
        kg/m^3, m/s^2.
    method
        Capytaine's boundary integral equation: ``direct`` or ``indirect``.
    n_jobs
        Capytaine's ``n_jobs`` (-1: all cores).
    name
        Body name in the file.
    zero_and_infinite
        Also solve radiation at omega = 0 and omega = inf.
    symmetry
        ``auto`` (rotation symmetry of a sphere or vertical cylinder on the z axis),
        ``axial`` (the same, required) or ``none``; see :mod:`hydrofmu.bem.symmetry`.
    """

    body: dict[str, Any]
    omega: np.ndarray
    bodies: tuple[BodySpec, ...] = ()
    headings: tuple[float, ...] = (0.0,)
    water_depth: float = math.inf
    lid: bool = True
    panel_size: float = 0.5
    rotation_center: tuple[float, float, float] = (0.0, 0.0, 0.0)
    center_of_mass: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rho: float = 1000.0
    g: float = 9.81
    method: str = "direct"
    n_jobs: int = 1
    name: str = "body"
    zero_and_infinite: bool = True
    symmetry: str = "auto"
    notes: list[str] = field(default_factory=list)


def _parse_omega(value: Any) -> np.ndarray:
    if isinstance(value, dict):
        for key in value:
            if key not in ("min", "max", "n"):
                raise _unknown(key, ("min", "max", "n"), "[bem] omega")
        try:
            lo, hi, n = float(value["min"]), float(value["max"]), value["n"]
        except KeyError as exc:
            raise ConfigError(f"[bem] omega needs min, max and n; {exc.args[0]} is missing",
                              value=value) from exc
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ConfigError(f"[bem] omega.n = {n!r} must be a positive integer", value=n)
        omega = np.linspace(lo, hi, n)
    else:
        try:
            omega = np.asarray(value, dtype=float).ravel()
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"[bem] omega = {value!r} must be a list of rad/s or "
                              "{min, max, n}", value=value) from exc
    if omega.size == 0 or not np.all(np.isfinite(omega)) or np.any(omega <= 0):
        raise ConfigError(f"[bem] omega = {value!r}: the finite frequencies must be finite and "
                          "> 0 rad/s (omega = 0 and inf are added with zero_and_infinite)",
                          value=value)
    if np.any(np.diff(omega) <= 0):
        raise ConfigError(f"[bem] omega = {value!r} must be strictly increasing", value=value)
    return omega


def _parse_body(value: Any, base: Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"[bem] body = {value!r} must be a table: "
                          "{shape = 'sphere', ...} or {mesh = 'hull.stl'}", value=value)
    if "mesh" in value:
        for key in value:
            if key not in MESH_KEYS:
                raise _unknown(key, MESH_KEYS, "[bem] body (mesh file)")
        path = Path(str(value["mesh"])).expanduser()
        path = path if path.is_absolute() else base / path
        if not path.is_file():
            raise ConfigError(f"[bem] mesh file '{path}' does not exist", value=str(path))
        scale = _positive(value.get("scale", 1.0), "[bem] body.scale")
        return {"mesh": path, "format": value.get("format"), "scale": scale}
    shape = value.get("shape")
    if shape not in SHAPE_KEYS:
        raise ConfigError(
            f"[bem] body.shape = {shape!r} is not known{did_you_mean(shape, SHAPE_KEYS)}; "
            f"choose one of: {', '.join(SHAPE_KEYS)}, or give mesh = 'file'", value=shape)
    for key in value:
        if key not in SHAPE_KEYS[shape]:
            raise _unknown(key, SHAPE_KEYS[shape], f"[bem] body ({shape})")
    out: dict[str, Any] = {"shape": shape, "center": _vec3(value.get("center", [0, 0, 0]),
                                                           "[bem] body.center")}
    if shape in ("sphere", "cylinder"):
        if "radius" not in value:
            raise ConfigError(f"[bem] body ({shape}) needs radius (m)", value=value)
        out["radius"] = _positive(value["radius"], "[bem] body.radius")
    if shape == "cylinder":
        length = value.get("height", value.get("draft"))
        if length is None or ("height" in value and "draft" in value):
            raise ConfigError("[bem] body (cylinder) needs one of height (m, the whole "
                              "cylinder, centred on center) or draft (m, from z = 0 down; "
                              "a surface-piercing cylinder with the same length above)",
                              value=value)
        out["height"] = _positive(length, "[bem] body.height") * (2.0 if "draft" in value
                                                                 else 1.0)
    if shape == "box":
        out["size"] = _vec3(value.get("size"), "[bem] body.size")
        if min(out["size"]) <= 0:
            raise ConfigError(f"[bem] body.size = {value.get('size')!r} must be > 0",
                              value=value.get("size"))
    if "resolution" in value:
        res = value["resolution"]
        n = 3 if shape == "box" else 2
        if (not isinstance(res, list) or len(res) != n
                or not all(isinstance(r, int) and r > 0 for r in res)):
            raise ConfigError(f"[bem] body.resolution = {res!r} must be {n} positive integers",
                              value=res)
        out["resolution"] = tuple(res)
    return out


KH_MIN = 0.15
"""Smallest k h solved in finite depth: Capytaine 3.0's finite-depth Green function (its
Prony decomposition) fails at k h = 0.106 and 0.127 and works from 0.159 (measured)."""


def _check_low_frequency(omega: np.ndarray, depth: float, g: float) -> None:
    """Refuse finite frequencies below the finite-depth solver's reach (:data:`KH_MIN`)."""
    if math.isinf(depth):
        return
    from scipy.optimize import brentq  # build time only

    w2 = float(omega[0]) ** 2  # omega^2 = g k tanh(k h): k between the deep and shallow ones
    k = brentq(lambda k: g * k * math.tanh(k * depth) - w2, w2 / g,
               w2 / g + float(omega[0]) / math.sqrt(g * depth))
    if k * depth < KH_MIN:
        lowest = math.sqrt(g * (KH_MIN / depth) * math.tanh(KH_MIN)) * 1.001
        raise ConfigError(
            f"[bem] omega: the lowest frequency {float(omega[0]):g} rad/s gives k h = "
            f"{k * depth:.3f} at water_depth = {depth:g} m; Capytaine's finite-depth Green "
            f"function fails below k h = {KH_MIN}: start omega at {lowest:.3f} rad/s or more",
            value=float(omega[0]))


def parse_bem(data: dict[str, Any], *, base: Path | None = None) -> BEMSpec:
    """Validate a ``[bem]`` table.

    Parameters
    ----------
    data
        The table (the ``bem`` entry of the TOML file).
    base
        Folder that relative mesh paths are relative to (the TOML file's folder).

    Returns
    -------
    BEMSpec

    Raises
    ------
    ConfigError
        Unknown keys (with a did-you-mean), missing or out-of-range values.
    """
    base = base or Path.cwd()
    if not isinstance(data, dict):
        raise ConfigError("[bem] must be a table", value=data)
    for key in data:
        if key not in BEM_KEYS:
            raise _unknown(key, BEM_KEYS, "[bem]")
    bodies: tuple[BodySpec, ...] = ()
    body: dict[str, Any] = {}
    if "bodies" in data:
        bodies = parse_bodies(data["bodies"], data, base)
    elif ("body" in data) == ("mesh" in data):
        raise ConfigError("[bem] needs exactly one of body = {shape = ...}, mesh = 'file' or "
                          "a list of [[bem.bodies]]", value=None)
    else:
        body = _parse_body(data["body"] if "body" in data else {"mesh": data["mesh"]}, base)
    if "omega" not in data:
        raise ConfigError("[bem] needs omega: a list of rad/s or {min, max, n}", value=None)
    headings = data.get("headings", [0.0])
    try:
        headings_arr = np.atleast_1d(np.asarray(headings, dtype=float))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"[bem] headings = {headings!r} must be a list of rad",
                          value=headings) from exc
    if headings_arr.size == 0 or not np.all(np.isfinite(headings_arr)):
        raise ConfigError(f"[bem] headings = {headings!r} must be finite numbers (rad)",
                          value=headings)
    method = data.get("method", "direct")
    if method not in METHODS:
        raise ConfigError(f"[bem] method = {method!r} is not known{did_you_mean(method, METHODS)}"
                          f"; choose one of: {', '.join(METHODS)}", value=method)
    symmetry = data.get("symmetry", "auto")
    if symmetry not in SYMMETRIES:
        raise ConfigError(f"[bem] symmetry = {symmetry!r} is not known"
                          f"{did_you_mean(str(symmetry), SYMMETRIES)}; choose one of: "
                          f"{', '.join(SYMMETRIES)}", value=symmetry)
    n_jobs = data.get("n_jobs", 1)
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs == 0 or n_jobs < -1:
        raise ConfigError(f"[bem] n_jobs = {n_jobs!r} must be a positive integer or -1 "
                          "(all cores)", value=n_jobs)
    for key in ("lid", "zero_and_infinite"):
        if not isinstance(data.get(key, True), bool):
            raise ConfigError(f"[bem] {key} = {data[key]!r} must be true or false",
                              value=data[key])
    name = str(data.get("name", "body"))
    if not name.isidentifier():
        raise ConfigError(f"[bem] name = {name!r} must be an identifier", value=name)
    if bodies and data.get("symmetry", "auto") == "axial":
        raise ConfigError("[bem] symmetry = 'axial' applies to one parametric body, not to "
                          "[[bem.bodies]]; remove it", value="axial")
    omega = _parse_omega(data["omega"])
    water_depth = _positive(data.get("water_depth", math.inf), "[bem] water_depth",
                            allow_inf=True)
    g = _positive(data.get("g", 9.81), "[bem] g")
    _check_low_frequency(omega, water_depth, g)
    return BEMSpec(
        body=body,
        bodies=bodies,
        omega=omega,
        headings=tuple(float(h) for h in headings_arr),
        water_depth=water_depth,
        lid=bool(data.get("lid", True)),
        panel_size=_positive(data.get("panel_size", 0.5), "[bem] panel_size"),
        rotation_center=_vec3(data.get("rotation_center", [0, 0, 0]), "[bem] rotation_center"),
        center_of_mass=_vec3(data.get("center_of_mass", [0, 0, 0]), "[bem] center_of_mass"),
        rho=_positive(data.get("rho", 1000.0), "[bem] rho"),
        g=g,
        method=method,
        n_jobs=n_jobs,
        name=name,
        zero_and_infinite=bool(data.get("zero_and_infinite", True)),
        symmetry=symmetry,
    )


def load_bem(path: str | Path) -> BEMSpec:
    """Read the ``[bem]`` table of a TOML file (see :func:`parse_bem`)."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError as exc:
        raise ConfigError(f"BEM configuration '{path}' does not exist", value=str(path)) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"'{path}' is not valid TOML: {exc}", value=str(path)) from exc
    if "bem" not in data:
        raise ConfigError(f"'{path}' has no [bem] table{did_you_mean('bem', list(data))}",
                          value=str(path))
    return parse_bem(data["bem"], base=path.parent)
