"""The body-level sections of the configuration: each ``[[bodies]]`` entry resolved against its
hydrodynamic data (mass, inertia, added mass, stiffness, DOFs, damping), the ``[[joints]]``
tables, and the body-to-body coupling blocks of a multi-body file."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import ConfigError, did_you_mean
from ..runtime.forces.hydrostatics import gravity_stiffness_correction, static_imbalance
from ..runtime.forces.large_rotation import RADIATION_FRAMES, ROTATIONS
from ..runtime.hydrodata.model import DOF_NAMES, HydroData
from .rigid_body import (
    added_mass_matrix,
    frame_to_world,
    rotation_matrix,
    spatial_mass_matrix,
)
from .values import check_number, check_vector, unknown_key

BODY_KEYS = (
    "name", "hydro", "hydro_body", "mass", "inertia", "cog", "dofs", "radiation",
    "initial_pose", "initial_velocity", "linear_damping", "quadratic_damping",
    "added_mass", "added_mass_frame", "orientation", "position", "fixed",
    "drift", "drift_file", "drift_method", "drift_sum",
    "mesh", "nonlinear",  # config/nonlinear.py
    "rotations", "radiation_frame",  # runtime/forces/large_rotation.py
)


ADDED_MASS_FRAMES = ("body", "world")


JOINT_KINDS = ("fixed", "planar", "prismatic", "revolute")


def parse_joints(joints: Any, bodies: set[str]) -> list[dict[str, Any]]:
    """Check the ``[[joints]]`` tables: name, kind and body names (the geometry is
    checked by the joint part, :mod:`hydrofmu.runtime.forces.joints`)."""
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
        keys = ("name", "kind", "bodies", "body", "axis",
                *(("point", "initial_angle", "locked") if kind == "revolute" else ()))
        for key in j:
            if key not in keys:
                raise unknown_key(key, keys, f"joint '{name}'")
        listed = j.get("bodies", [j["body"]] if "body" in j else None)
        need = {"prismatic": (2,), "revolute": (1, 2)}.get(kind, (1,))
        if (not isinstance(listed, list) or len(listed) not in need
                or any(b not in bodies for b in listed)):
            want = " or ".join("bodies = [first, second]" if k == 2 else "body = <name>"
                               for k in need)
            raise ConfigError(
                f"joint '{name}' ({kind}) needs {want} naming configured bodies "
                f"({', '.join(sorted(bodies))}), got {listed!r}",
                value=listed)
        if len(listed) == 2 and listed[0] == listed[1]:
            raise ConfigError(f"joint '{name}': the two bodies must differ", value=listed)
        out.append({**j, "name": name, "kind": kind, "bodies": list(listed)})
    return out


def _is_fixed(b: dict[str, Any]) -> bool:
    """``fixed = true`` of a ``[[bodies]]`` entry (a bool, else a :class:`ConfigError`)."""
    value = b.get("fixed", False)
    if not isinstance(value, bool):
        raise ConfigError(f"body '{b['name']}': fixed must be true or false, got {value!r}",
                          value=value)
    return value


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
    mass = check_number(mass_value, f"body '{name}': mass")
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
            cog = check_vector(b["cog"], 3, f"body '{name}': cog")
        elif np.all(np.isfinite(hd.center_of_gravity)):
            cog = np.asarray(hd.center_of_gravity, dtype=float)
        else:
            raise ConfigError(
                f"body '{name}': the data file does not give the centre of gravity; set "
                "cog = [x, y, z] (m, relative to the body reference point)",
                value=None,
            )
        if "inertia" not in b and not _is_fixed(b):
            raise ConfigError(
                f"body '{name}': set inertia = [Ixx, Iyy, Izz] (kg m^2, about the centre "
                "of gravity) or a 3x3 list",
                value=None,
            )
        if "inertia" in b:
            mass_matrix = spatial_mass_matrix(mass, b["inertia"], cog)
        else:  # a fixed body: it never accelerates, its mass matrix is not used
            mass_matrix = np.zeros((6, 6))
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
    if _is_fixed(b):
        for key in ("dofs", "initial_pose", "initial_velocity"):
            if key in b:
                raise ConfigError(f"body '{name}': fixed = true and {key} contradict each "
                                  f"other (a fixed body does not move); remove {key}",
                                  value=b[key])
        free = [False] * 6
        notes.append(f"{name}: fixed (no degree of freedom; its hydrodynamic coupling with "
                     "the other bodies stays)")
    else:
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
        "initial_pose": check_vector(b.get("initial_pose", [0.0] * 6), 6,
                                f"body '{name}': initial_pose").tolist(),
        "initial_velocity": check_vector(b.get("initial_velocity", [0.0] * 6), 6,
                                    f"body '{name}': initial_velocity").tolist(),
        "linear_damping": _damping(b.get("linear_damping"), name, "linear_damping",
                                   matrix=True).tolist(),
        "quadratic_damping": _damping(b.get("quadratic_damping"), name, "quadratic_damping",
                                      matrix=False).tolist(),
    }
    if added_mass_inf is not None:
        resolved["added_mass_inf"] = added_mass_inf.tolist()
    if _rotations(b) == "large":  # absent: small (the linear model, unchanged)
        resolved["rotations"] = "large"
        if b.get("radiation_frame", "world") == "body":
            resolved["radiation_frame"] = "body"
    if "position" in b:  # horizontal place of the data's origin (the excitation's phase)
        resolved["position"] = check_vector(b["position"], 2, f"body '{name}': position").tolist()
    return resolved, notes


def _rotations(b: dict[str, Any]) -> str:
    """The body's ``rotations``: ``"small"`` (default, the linear model) or ``"large"``."""
    value = b.get("rotations", "small")
    if value not in ROTATIONS:
        raise ConfigError(f"body '{b['name']}': rotations = {value!r}; choose "
                          f"{' or '.join(repr(r) for r in ROTATIONS)} (\"large\": the pose "
                          "by a quaternion, the Newton-Euler equations; docs/guide/"
                          "large-rotations.md)", value=value)
    frame = b.get("radiation_frame", "world")
    if frame not in RADIATION_FRAMES or ("radiation_frame" in b and value != "large"):
        raise ConfigError(f"body '{b['name']}': radiation_frame = {frame!r}; choose "
                          f"{' or '.join(repr(r) for r in RADIATION_FRAMES)}, with rotations "
                          "= \"large\" only (a small-rotation body has one frame)",
                          value=frame)
    return str(value)


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
    angles = check_vector(b.get("orientation", [0.0, 0.0, 0.0]), 3,
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


def resolve_coupling(resolved: list[dict[str, Any]], paths: list[Any], names: list[Any],
              bodies: list[HydroData], notes: list[str]) -> list[dict[str, Any]]:
    """Body-to-body radiation blocks of the bodies that share one multi-body file.

    Returns one entry per ordered pair ``(k, j)``, ``k != j``: ``added_mass_inf`` (6, 6),
    ``added_mass`` and ``radiation_damping`` (nw, 6, 6), the force on body ``k`` due to the
    motion of body ``j`` (JSON-able, so that they travel in the FMU payload).
    """
    from ..io.hydro_checks import HydroDataWarning
    from ..io.readers import read_hydro_bodies

    groups: dict[Any, list[int]] = {}
    sources: dict[Any, Any] = {}
    for k, (p, hb) in enumerate(zip(paths, names, strict=True)):
        if hb is not None:
            key = p if isinstance(p, Path) else id(p)  # a dataset in memory: the object
            groups.setdefault(key, []).append(k)
            sources[key] = p
    out: list[dict[str, Any]] = []
    for key, members in groups.items():
        p = sources[key]
        label = p.name if isinstance(p, Path) else "the dataset"
        if len(members) < 2:
            continue
        wanted = [str(names[k]) for k in members]
        if len(set(wanted)) != len(wanted):
            raise ConfigError(
                f"bodies {', '.join(resolved[k]['name'] for k in members)} read the same "
                f"body twice from {label} (hydro_body = {wanted}); two copies of one body "
                "are two files, or give each body its own hydro_body", value=wanted)
        with warnings.catch_warnings():
            # The bodies were read and checked (and warned about) one by one already:
            # this second read is for the coupling blocks only.
            warnings.simplefilter("ignore", HydroDataWarning)
            mb = read_hydro_bodies(p, check=False).subset(wanted)
        for a, k in enumerate(members):
            for b, j in enumerate(members):
                if k == j:
                    continue
                if bodies[k].omega.size != mb.omega.size:
                    raise ConfigError(
                        f"bodies '{resolved[k]['name']}' and '{resolved[j]['name']}': the "
                        "coupling data has other frequencies than the bodies'", value=label)
                out.append({
                    "bodies": [k, j],
                    "added_mass_inf": mb.block(a, b).tolist(),
                    "added_mass": mb.block(a, b, field="added_mass").tolist(),
                    "radiation_damping": mb.block(a, b, field="radiation_damping").tolist(),
                })
        notes.append(f"bodies {', '.join(resolved[k]['name'] for k in members)}: body-to-body "
                     f"radiation blocks from {label}")
    return out
