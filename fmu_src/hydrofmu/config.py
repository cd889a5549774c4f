"""The TOML configuration: parsing, validation with clear messages, and resolution.

:func:`load_config` reads a file and returns ``(bodies, resolved)``: the hydrodynamic data
of each body and a JSON-able dictionary with everything the simulator needs (mass matrices,
corrected stiffness, free DOFs, defaults of the FMU parameters). Paths are relative to the
configuration file; ``hydro = "builtin:sphere"`` is the embedded default body.

Example::

    [simulation]
    time_scheme = "rk4"
    max_internal_step = 0.01
    [wave]
    type = "regular"
    height = 2.0
    period = 8.0
    [[bodies]]
    name = "body"
    hydro = "sphere_bemio.h5"
    mass = 261.8e3
    inertia = [2.0e7, 2.0e7, 3.0e7]
    dofs = ["heave"]
"""

from __future__ import annotations

import copy
import math
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .bodies import added_mass_matrix, frame_to_world, rotation_matrix, spatial_mass_matrix
from .errors import ConfigError, HydroDataError, did_you_mean
from .forces.hydrostatics import gravity_stiffness_correction, static_imbalance
from .hydrodata.model import DOF_NAMES, HydroData

BUILTIN_PREFIX = "builtin:"
BUILTIN_BODIES = {"sphere": "sphere_capytaine.nc"}

DEFAULTS: dict[str, dict[str, Any]] = {
    "simulation": {
        "time_scheme": "rk4",
        "max_internal_step": 0.01,
        "start_time": 0.0,
        "stop_time": 200.0,
        "output_interval": 0.1,
        "max_internal_steps_per_call": 10_000_000,
    },
    "wave": {
        "type": "regular",
        "height": 1.0,
        "period": 8.0,
        "direction": 0.0,
        "seed": 1,
        "ramp_time": 20.0,
        "spectrum": "jonswap",
        "gamma": 3.3,
        "n_components": 200,
        "discretization": "equal_energy",
    },
    # omega_max: cut of the IRF frequency integral (None: the data's last frequency);
    # taper: fraction of [0, omega_max] over which a half-cosine window brings the data to
    # zero at the cut (limits the ringing of a sharp cut).
    "excitation": {"preview_time": 0.0, "irf_duration": 30.0, "omega_max": None,
                   "taper": 0.0},
    # ss_tolerance, ss_max_order: the state-space realisation's relative L2 IRF error per
    # entry and largest order per entry (build time: hydrofmu.statespace_payload).
    "radiation": {"method": "convolution", "irf_duration": 30.0, "omega_max": None,
                  "taper": 0.0, "ss_tolerance": 0.01, "ss_max_order": 10},
    "added_mass": {"method": "implicit", "adj_mass_factor": 2.0},
    # b2b: keep the body-to-body radiation blocks of bodies read from one multi-body file
    # (false: only each body's own blocks, WEC-Sim's default).
    "multibody": {"b2b": True},
}
BODY_KEYS = (
    "name", "hydro", "hydro_body", "mass", "inertia", "cog", "dofs", "radiation",
    "initial_pose", "initial_velocity", "linear_damping", "quadratic_damping",
    "added_mass", "added_mass_frame", "orientation",
)
ADDED_MASS_FRAMES = ("body", "world")
_SECTIONS = (*DEFAULTS, "bodies", "moorings", "joints", "ptos")
JOINT_KINDS = ("fixed", "planar", "prismatic")


def _unknown(key: str, allowed: tuple[str, ...] | list[str], where: str) -> ConfigError:
    hint = did_you_mean(key, list(allowed))
    return ConfigError(
        f"unknown key '{key}' in {where}{hint}; allowed: {', '.join(allowed)}", value=key
    )


def _vector(value: Any, n: int, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what} must be a list of {n} numbers, got {value!r}",
                          value=value) from exc
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ConfigError(f"{what} must be a list of {n} finite numbers, got {value!r}",
                          value=value)
    return arr


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{what} must be a number, got {value!r}", value=value)
    if not math.isfinite(float(value)):
        raise ConfigError(f"{what} must be finite, got {value!r}", value=value)
    return float(value)


def _check_type(what: str, value: Any, default: Any) -> None:
    """A TOML value of the type of its default: a bool or a string is not a number."""
    if isinstance(default, bool):
        ok, kind = isinstance(value, bool), "true or false"
    elif isinstance(default, int):
        ok, kind = isinstance(value, int) and not isinstance(value, bool), "an integer"
    elif isinstance(default, float) or default is None:
        ok, kind = isinstance(value, int | float) and not isinstance(value, bool), "a number"
    elif isinstance(default, str):
        ok, kind = isinstance(value, str), "a string"
    else:
        return
    if not ok:
        shown = "true" if value is True else "false" if value is False else repr(value)
        example = "" if default is None else f"; e.g. {what.split()[-1]} = {default!r}"
        raise ConfigError(f"{what} = {shown} is not valid: it must be {kind}{example}",
                          value=value)


def builtin_path(name: str) -> Path:
    """Path of an embedded data file, e.g. ``builtin_path("sphere")``."""
    if name not in BUILTIN_BODIES:
        raise ConfigError(
            f"unknown builtin body {name!r}; available: {', '.join(BUILTIN_BODIES)}",
            value=name,
        )
    return Path(str(resources.files("hydrofmu") / "data" / BUILTIN_BODIES[name]))


def _resolve_hydro_path(value: Any, base: Path) -> Path:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"'hydro' must be a file path, got {value!r}", value=value)
    if value.startswith(BUILTIN_PREFIX):
        return builtin_path(value[len(BUILTIN_PREFIX):])
    p = Path(value).expanduser()
    if not p.is_absolute():
        p = base / p
    if not p.is_file():
        raise ConfigError(
            f"hydrodynamic data file not found: {p} (from hydro = {value!r}; relative paths "
            "are relative to the configuration file)",
            value=str(p),
        )
    return p


def parse_config(data: dict[str, Any], *, where: str = "configuration") -> dict[str, Any]:
    """Check keys and merge defaults; returns a new dictionary (input unchanged)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a TOML table", value=data)
    for key in data:
        if key not in _SECTIONS:
            raise _unknown(key, _SECTIONS, where)
    out: dict[str, Any] = {}
    for section, defaults in DEFAULTS.items():
        given = data.get(section, {})
        if not isinstance(given, dict):
            raise ConfigError(f"[{section}] must be a table, got {given!r}", value=given)
        for key, value in given.items():
            if key not in defaults:
                raise _unknown(key, tuple(defaults), f"[{section}]")
            _check_type(f"[{section}] {key}", value, defaults[key])
        merged = copy.deepcopy(defaults)
        merged.update(given)
        out[section] = merged
    bodies = data.get("bodies")
    if not isinstance(bodies, list) or not bodies:
        raise ConfigError("at least one [[bodies]] entry is needed", value=bodies)
    out["bodies"] = []
    names: set[str] = set()
    for i, b in enumerate(bodies):
        if not isinstance(b, dict):
            raise ConfigError(f"[[bodies]] entry {i} must be a table", value=b)
        for key in b:
            if key not in BODY_KEYS:
                raise _unknown(key, BODY_KEYS, f"[[bodies]] entry {i}")
        if "hydro" not in b:
            raise ConfigError(f"[[bodies]] entry {i} needs 'hydro' (a .nc or .h5 file)",
                              value=b)
        name = b.get("name", "body" if len(bodies) == 1 else f"body{i + 1}")
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigError(
                f"body name {name!r} must be an identifier (letters, digits, _; it becomes "
                "part of the FMU variable names)",
                value=name,
            )
        if name in names or name == "wave":
            raise ConfigError(f"body name {name!r} is used twice or reserved", value=name)
        names.add(name)
        out["bodies"].append({**b, "name": name})
    moorings = data.get("moorings", [])
    if not isinstance(moorings, list) or not all(isinstance(m, dict) for m in moorings):
        raise ConfigError("[[moorings]] must be a list of tables", value=moorings)
    for i, m in enumerate(moorings):
        if "type" not in m:
            raise ConfigError(f"[[moorings]] entry {i} needs 'type' (e.g. \"linear\")", value=m)
    # Numbers are checked by the mooring's part when the model is built (see forces/).
    out["moorings"] = [dict(m) for m in moorings]
    out["joints"] = _parse_joints(data.get("joints", []), names)
    if "ptos" in data:
        from .forces.pto import check_pto_entries

        out["ptos"] = check_pto_entries(data["ptos"], [b["name"] for b in out["bodies"]])
    return out


def _parse_joints(joints: Any, bodies: set[str]) -> list[dict[str, Any]]:
    """Check the ``[[joints]]`` tables: name, kind and body names (the geometry is
    checked by the joint part, :mod:`hydrofmu.forces.joints`)."""
    if not isinstance(joints, list) or not all(isinstance(j, dict) for j in joints):
        raise ConfigError("[[joints]] must be a list of tables", value=joints)
    out = []
    seen: set[str] = set()
    for i, j in enumerate(joints):
        name = j.get("name", f"joint{i + 1}")
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigError(f"[[joints]] entry {i}: name {name!r} must be an identifier "
                              "(it becomes part of the FMU variable names)", value=name)
        if name in seen or name in bodies or name == "wave":
            raise ConfigError(f"joint name {name!r} is used twice or by a body", value=name)
        seen.add(name)
        kind = j.get("kind")
        if kind not in JOINT_KINDS:
            hint = did_you_mean(str(kind), JOINT_KINDS)
            raise ConfigError(f"joint '{name}': kind {kind!r} unknown{hint}; choose from "
                              f"{', '.join(JOINT_KINDS)}", value=kind)
        keys = ("name", "kind", "bodies", "body", "axis")
        for key in j:
            if key not in keys:
                raise _unknown(key, keys, f"joint '{name}'")
        listed = j.get("bodies", [j["body"]] if "body" in j else None)
        need = 2 if kind == "prismatic" else 1
        if (not isinstance(listed, list) or len(listed) != need
                or any(b not in bodies for b in listed)):
            want = "bodies = [first, second]" if need == 2 else "body = <name>"
            raise ConfigError(
                f"joint '{name}' ({kind}) needs {want} naming configured bodies "
                f"({', '.join(sorted(bodies))}), got {listed!r}",
                value=listed)
        if need == 2 and listed[0] == listed[1]:
            raise ConfigError(f"joint '{name}': the two bodies must differ", value=listed)
        out.append({**j, "name": name, "kind": kind, "bodies": list(listed)})
    return out


def _dofs(value: Any, name: str) -> list[bool]:
    if value is None or value == "all":
        return [True] * 6
    if not isinstance(value, list) or not value:
        raise ConfigError(f"body '{name}': dofs must be a list of DOF names or \"all\"",
                          value=value)
    free = [False] * 6
    for d in value:
        key = str(d).lower()
        if key not in DOF_NAMES:
            hint = did_you_mean(key, DOF_NAMES)
            raise ConfigError(
                f"body '{name}': unknown DOF {d!r}{hint}; choose from {', '.join(DOF_NAMES)}",
                value=d,
            )
        free[DOF_NAMES.index(key)] = True
    return free


def _damping(value: Any, name: str, what: str, *, matrix: bool) -> np.ndarray:
    if value is None:
        return np.zeros((6, 6)) if matrix else np.zeros(6)
    arr = np.asarray(value, dtype=float)
    if matrix and arr.shape == (6,):
        arr = np.diag(arr)
    expected = (6, 6) if matrix else (6,)
    if arr.shape != expected or not np.all(np.isfinite(arr)):
        raise ConfigError(
            f"body '{name}': {what} must be {'6 values or a 6x6 matrix' if matrix else '6 values'}"
            f" of finite numbers, got {value!r}",
            value=value,
        )
    if matrix and np.any(np.linalg.eigvalsh(0.5 * (arr + arr.T)) < -1e-12 * np.abs(arr).max()):
        raise ConfigError(f"body '{name}': {what} must not add energy (negative eigenvalue)",
                          value=value)
    if not matrix and np.any(arr < 0.0):
        raise ConfigError(f"body '{name}': {what} must be >= 0", value=value)
    return arr


def _resolve_mass(b: dict[str, Any], hd: HydroData, notes: list[str]) -> float:
    name = b["name"]
    mass_value = b.get("mass")
    vol = hd.displaced_volume
    if mass_value is None or mass_value == "equilibrium":
        if math.isfinite(vol):
            mass = hd.rho * vol
            notes.append(f"{name}: mass = rho V = {mass:.6g} kg (equilibrium)")
            return mass
        if hd.inertia_matrix is not None:
            mass = float(hd.inertia_matrix[0, 0])
            notes.append(f"{name}: mass = {mass:.6g} kg from the data file's inertia matrix")
            return mass
        raise ConfigError(
            f"body '{name}': the data gives no displaced volume; set mass = <kg>",
            value=mass_value,
        )
    if isinstance(mass_value, str):
        raise ConfigError(
            f"body '{name}': mass must be a number of kg or \"equilibrium\", got {mass_value!r}",
            value=mass_value,
        )
    mass = _number(mass_value, f"body '{name}': mass")
    if mass <= 0.0:
        raise ConfigError(f"body '{name}': mass must be > 0 kg, got {mass!r}", value=mass)
    return mass


def resolve_body(b: dict[str, Any], hd: HydroData) -> tuple[dict[str, Any], list[str]]:
    """Mass matrix, corrected stiffness and the other per-body settings (JSON-able).

    Returns the resolved body and the notes made on the way.
    """
    name = b["name"]
    notes: list[str] = []
    rho, g, vol = hd.rho, hd.g, hd.displaced_volume
    from_file = (hd.inertia_matrix is not None
                 and not any(k in b for k in ("mass", "cog", "inertia")))
    if from_file:
        # The data file's own 6x6 mass matrix about the reference point; cog from its
        # offset block m S(r_g).
        mass_matrix = np.asarray(hd.inertia_matrix, dtype=float)
        mass = float(mass_matrix[0, 0])
        s = mass_matrix[3:, :3] / mass
        cog = np.array([s[2, 1], s[0, 2], s[1, 0]])
        notes.append(f"{name}: mass matrix from the data file (m = {mass:.6g} kg, "
                     f"cog = {np.round(cog, 6).tolist()} m)")
    else:
        mass = _resolve_mass(b, hd, notes)
        if "cog" in b:
            cog = _vector(b["cog"], 3, f"body '{name}': cog")
        elif np.all(np.isfinite(hd.center_of_gravity)):
            cog = np.asarray(hd.center_of_gravity, dtype=float)
        else:
            raise ConfigError(
                f"body '{name}': the data file does not give the centre of gravity; set "
                "cog = [x, y, z] (m, relative to the body reference point)",
                value=None,
            )
        if "inertia" not in b:
            raise ConfigError(
                f"body '{name}': set inertia = [Ixx, Iyy, Izz] (kg m^2, about the centre "
                "of gravity) or a 3x3 list",
                value=None,
            )
        mass_matrix = spatial_mass_matrix(mass, b["inertia"], cog)
    # Hydrostatics: the BEM stiffness holds the gravity terms of the BEM's own mass and cog.
    stiffness = np.asarray(hd.hydrostatic_stiffness, dtype=float).copy()
    bem_cog = np.asarray(hd.center_of_gravity, dtype=float)
    if hd.inertia_matrix is not None:
        bem_mass = float(hd.inertia_matrix[0, 0])
    elif math.isfinite(vol):
        bem_mass = rho * vol
    else:
        bem_mass = float("nan")
    if np.all(np.isfinite(bem_cog)) and math.isfinite(bem_mass):
        dk = gravity_stiffness_correction(bem_mass, bem_cog, mass, cog, g)
        if np.any(dk):
            stiffness += dk
            notes.append(
                f"{name}: gravity terms of the stiffness corrected for m = {mass:.6g} kg, "
                f"cog = {cog.tolist()} m (BEM: {bem_mass:.6g} kg, {bem_cog.tolist()} m)"
            )
    elif "cog" in b or "mass" in b:
        notes.append(
            f"{name}: the data does not state the mass/cog its stiffness assumes; the "
            "stiffness is used as given"
        )
    if math.isfinite(vol) and np.all(np.isfinite(hd.center_of_buoyancy)):
        offset = static_imbalance(rho, g, vol, hd.center_of_buoyancy, mass, cog)
        if abs(offset[2]) > 1e-6 * mass * g:
            notes.append(
                f"{name}: buoyancy - weight = {offset[2]:.6g} N acts at equilibrium "
                "(mass != rho V)"
            )
    else:
        offset = np.zeros(6)
        notes.append(f"{name}: displaced volume unknown; buoyancy and weight taken as balanced")
    free = _dofs(b.get("dofs"), name)
    added_mass_inf = _configured_added_mass(b, hd, notes)
    resolved = {
        "name": name,
        "source": hd.source,
        "mass": mass,
        "cog": cog.tolist(),
        "mass_matrix": mass_matrix.tolist(),
        "hydrostatic_stiffness": stiffness.tolist(),
        "hydrostatic_offset": offset.tolist(),
        "free_dofs": free,
        "radiation": b.get("radiation"),
        "initial_pose": _vector(b.get("initial_pose", [0.0] * 6), 6,
                                f"body '{name}': initial_pose").tolist(),
        "initial_velocity": _vector(b.get("initial_velocity", [0.0] * 6), 6,
                                    f"body '{name}': initial_velocity").tolist(),
        "linear_damping": _damping(b.get("linear_damping"), name, "linear_damping",
                                   matrix=True).tolist(),
        "quadratic_damping": _damping(b.get("quadratic_damping"), name, "quadratic_damping",
                                      matrix=False).tolist(),
    }
    if added_mass_inf is not None:
        resolved["added_mass_inf"] = added_mass_inf.tolist()
    return resolved, notes


def _configured_added_mass(b: dict[str, Any], hd: HydroData, notes: list[str]
                           ) -> np.ndarray | None:
    """The body's ``added_mass`` (world frame, 6x6), or ``None`` when not configured.

    ``added_mass`` replaces the data file's A_inf on the left side of Cummins' equation
    (the radiation damping and memory still come from the file). Given in the body frame
    (``added_mass_frame = "body"``, the default) it is turned to the world frame with the
    body's ``orientation = [roll, pitch, yaw]`` (rad, z-y'-x'') as AGX does.
    """
    name = b["name"]
    for key in ("added_mass_frame", "orientation"):
        if key in b and "added_mass" not in b:
            raise ConfigError(f"body '{name}': '{key}' only serves to transform "
                              "'added_mass', which is not set", value=b[key])
    if "added_mass" not in b:
        return None
    body_frame = added_mass_matrix(b["added_mass"], what=f"body '{name}': added_mass")
    frame = b.get("added_mass_frame", "body")
    if frame not in ADDED_MASS_FRAMES:
        raise ConfigError(f"body '{name}': added_mass_frame = {frame!r}; use one of "
                          f"{', '.join(repr(f) for f in ADDED_MASS_FRAMES)}", value=frame)
    angles = _vector(b.get("orientation", [0.0, 0.0, 0.0]), 3,
                     f"body '{name}': orientation ([roll, pitch, yaw] in rad)")
    if frame == "world":
        if "orientation" in b:
            raise ConfigError(f"body '{name}': orientation is given but added_mass_frame = "
                              "'world' needs no transform; remove one of them",
                              value=b["orientation"])
        world = body_frame
    else:
        world = frame_to_world(body_frame, [rotation_matrix(*angles)])
    diag = np.diag(world)
    notes.append(
        f"{name}: A_inf from the configuration ({frame} frame"
        + (f", orientation {angles.tolist()} rad" if frame == "body" else "")
        + f") replaces the data file's; diagonal {np.round(diag, 6).tolist()} against the "
        f"file's {np.round(np.diag(hd.added_mass_inf), 6).tolist()}")
    return world


def _roundtrip_note(hd: HydroData, cfg: dict[str, Any]) -> str:
    """Report how well the radiation IRF used at run time reproduces the data."""
    from .irf_checks import irf_roundtrip_error

    dt = float(cfg["simulation"]["max_internal_step"])
    duration = float(cfg["radiation"]["irf_duration"])
    t = np.arange(round(duration / dt) + 1) * dt
    rad = cfg["radiation"]
    r = irf_roundtrip_error(hd, t, omega_max=rad["omega_max"], taper=float(rad["taper"]))
    lo, hi = r["band"]
    return (
        f"{hd.name}: radiation IRF ({duration:g} s at {dt:g} s) round trip over "
        f"{lo:.3g}..{hi:.3g} rad/s: A(w) rebuilt by Ogilvie with A_inf ({hd.added_mass_inf_source})"
        f" within {100 * r['added_mass_max']:.2g} % (worst: {r['worst_added_mass_dof']}), "
        f"B(w) within {100 * r['damping_max']:.2g} % (worst: {r['worst_damping_dof']})"
    )


def resolve(
    data: dict[str, Any], base: Path, *, where: str = "configuration"
) -> tuple[list[HydroData], dict[str, Any]]:
    """Validate a configuration dictionary and load its data (paths relative to ``base``)."""
    from .hydrodata.checks import check_hydrodata, check_mass_matrix
    from .hydrodata.readers import read_hydro

    cfg = parse_config(data, where=where)
    from .forces.moordyn_mooring import embed_moordyn_file

    for m in cfg["moorings"]:  # MoorDyn files are read now and embedded in the config
        if m.get("type") == "moordyn":
            embed_moordyn_file(m, base)
    bodies: list[HydroData] = []
    resolved_bodies = []
    notes: list[str] = []
    for b in cfg["bodies"]:
        path = _resolve_hydro_path(b["hydro"], base)
        hd = read_hydro(path, body=b.get("hydro_body"))
        if path.suffix.lower() == ".out":
            from .hydrodata.readers_wamit import WAMIT_SYMMETRY_RTOL

            # WAMIT's printed 4-digit values: the reader's own symmetry tolerance.
            check_hydrodata(hd, symmetry_rtol=WAMIT_SYMMETRY_RTOL)
        else:
            check_hydrodata(hd)
        rb, n = resolve_body(b, hd)
        if "added_mass_inf" in rb:
            hd = hd.with_changes(
                added_mass_inf=np.asarray(rb["added_mass_inf"], dtype=float),
                added_mass_inf_source="config",
                notes=(*hd.notes, "A_inf replaced by the configuration's added_mass"))
        free = np.asarray(rb["free_dofs"], dtype=bool)
        try:
            check_mass_matrix(np.asarray(rb["mass_matrix"]), hd.added_mass_inf, dofs=free)
        except HydroDataError as exc:
            raise ConfigError(f"body '{b['name']}': {exc}", value=exc.value) from exc
        bodies.append(hd)
        resolved_bodies.append(rb)
        notes.extend(n)
        notes.extend(hd.notes)
    methods = {rb["radiation"] for rb in resolved_bodies if rb["radiation"] is not None}
    if len(methods) > 1:
        raise ConfigError(
            f"all bodies must use the same radiation method, got {sorted(methods)}",
            value=sorted(methods),
        )
    if methods:
        cfg["radiation"]["method"] = methods.pop()
    from .statespace_payload import add_realisation, check_settings

    check_settings(cfg)
    if cfg["radiation"]["method"] == "state_space":
        add_realisation(bodies, cfg)
    parsed = cfg["bodies"]
    cfg["bodies"] = resolved_bodies
    cfg["notes"] = notes
    cfg["coupling"] = _coupling(resolved_bodies,
                                [_resolve_hydro_path(b["hydro"], base) for b in parsed],
                                [b.get("hydro_body") for b in parsed], bodies, notes)
    # Validate the FMU-parameter defaults now rather than at FMU instantiation.
    from .parameter_checks import check_allocations, check_parameters
    from .parameters import parameter_table
    from .system import Simulator

    # The checks of fmi2ExitInitializationMode: the sizes before the simulator allocates
    # anything, the simulator's own checks, then the ranges and cross-conditions.
    table = parameter_table(bodies, cfg)
    values = {p.name: p.start for p in table}
    check_allocations(table, values, n_bodies=len(bodies),
                      irf_duration=cfg["radiation"].get("irf_duration") or 30.0)
    sim = Simulator(bodies, cfg)
    check_parameters(table, values, n_bodies=len(bodies))
    # What the model reports with its default parameters (IRF lengths, cut-offs), kept so
    # that callers print it without building the simulator again.
    cfg["report"] = list(sim.report)
    cfg["warnings"] = list(sim.warnings)
    if cfg["radiation"]["method"] == "convolution":
        notes.extend(_roundtrip_note(hd, cfg) for hd in bodies)
    return bodies, cfg


def _coupling(resolved: list[dict[str, Any]], paths: list[Path], names: list[Any],
              bodies: list[HydroData], notes: list[str]) -> list[dict[str, Any]]:
    """Body-to-body radiation blocks of the bodies that share one multi-body file.

    Returns one entry per ordered pair ``(k, j)``, ``k != j``: ``added_mass_inf`` (6, 6),
    ``added_mass`` and ``radiation_damping`` (nw, 6, 6), the force on body ``k`` due to the
    motion of body ``j`` (JSON-able, so that they travel in the FMU payload).
    """
    from .hydrodata.readers import read_hydro_bodies

    groups: dict[Path, list[int]] = {}
    for k, (p, hb) in enumerate(zip(paths, names, strict=True)):
        if hb is not None:
            groups.setdefault(p, []).append(k)
    out: list[dict[str, Any]] = []
    for p, members in groups.items():
        if len(members) < 2:
            continue
        wanted = [str(names[k]) for k in members]
        if len(set(wanted)) != len(wanted):
            raise ConfigError(
                f"bodies {', '.join(resolved[k]['name'] for k in members)} read the same "
                f"body twice from {p.name} (hydro_body = {wanted}); two copies of one body "
                "are two files, or give each body its own hydro_body", value=wanted)
        mb = read_hydro_bodies(p).subset(wanted)
        for a, k in enumerate(members):
            for b, j in enumerate(members):
                if k == j:
                    continue
                if bodies[k].omega.size != mb.omega.size:
                    raise ConfigError(
                        f"bodies '{resolved[k]['name']}' and '{resolved[j]['name']}': the "
                        "coupling data has other frequencies than the bodies'", value=str(p))
                out.append({
                    "bodies": [k, j],
                    "added_mass_inf": mb.block(a, b).tolist(),
                    "added_mass": mb.block(a, b, field="added_mass").tolist(),
                    "radiation_damping": mb.block(a, b, field="radiation_damping").tolist(),
                })
        notes.append(f"bodies {', '.join(resolved[k]['name'] for k in members)}: body-to-body "
                     f"radiation blocks from {p.name}")
    return out


def load_config(path: str | Path) -> tuple[list[HydroData], dict[str, Any]]:
    """Read, validate and resolve a TOML configuration file.

    Returns
    -------
    bodies, config
        The bodies' hydrodynamic data and the resolved JSON-able configuration.
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"configuration file not found: {p}", value=str(p))
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p} is not valid TOML: {exc}", value=str(p)) from exc
    return resolve(data, p.resolve().parent, where=str(p))


def default_config_data(**overrides: dict[str, Any]) -> dict[str, Any]:
    """The configuration of the embedded default body (a floating sphere, r = 5 m).

    Keyword arguments update whole sections, e.g. ``wave={"type": "irregular"}``.
    """
    data: dict[str, Any] = {
        "simulation": {"time_scheme": "rk4", "max_internal_step": 0.01, "stop_time": 200.0,
                       "output_interval": 0.1},
        "wave": {"type": "regular", "height": 2.0, "period": 8.0, "ramp_time": 20.0},
        "bodies": [{"name": "body", "hydro": "builtin:sphere"}],
    }
    for section, values in overrides.items():
        if section == "bodies":
            data["bodies"] = values
        else:
            data.setdefault(section, {}).update(values)
    return data


def default_config(**overrides: dict[str, Any]) -> tuple[list[HydroData], dict[str, Any]]:
    """Resolved default body configuration (see :func:`default_config_data`)."""
    return resolve(default_config_data(**overrides), Path.cwd(), where="default configuration")
