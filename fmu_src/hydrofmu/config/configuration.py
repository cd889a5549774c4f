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
import dataclasses
import hashlib
import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import ConfigError, HydroDataError
from ..runtime.hydrodata.model import HydroData
from ..runtime.parameters.table import CONFIG_DEFAULTS, config_value
from .bodies import BODY_KEYS, parse_joints, resolve_body, resolve_coupling
from .drift import resolve_drift
from .key_checks import check_radiation_keys, moordyn_option_notes
from .nonlinear import resolve_nonlinear
from .values import check_type, unknown_key

BUILTIN_PREFIX = "builtin:"
BUILTIN_BODIES = {"sphere": "sphere_capytaine.nc"}

#: The sections of the configuration and their defaults (one table, run time).
DEFAULTS = CONFIG_DEFAULTS
#: The FMU runtimes of [export] runtime ("auto": native whenever the model allows).
RUNTIMES = ("auto", "native", "python")
#: ``[export] kind``: the FMU that integrates the bodies, or the hydrodynamic-load FMU.
EXPORT_KINDS = ("motion", "loads")
#: The top-level tables of a configuration.
SECTIONS = (*DEFAULTS, "bodies", "moorings", "joints", "ptos")


def builtin_path(name: str) -> Path:
    """Path of an embedded data file, e.g. ``builtin_path("sphere")``."""
    if name not in BUILTIN_BODIES:
        raise ConfigError(
            f"unknown builtin body {name!r}; available: {', '.join(BUILTIN_BODIES)}",
            value=name,
        )
    return Path(str(resources.files("hydrofmu") / "data" / BUILTIN_BODIES[name]))


def _resolve_hydro_path(value: Any, base: Path) -> Any:
    """The data of ``hydro = value``: a file's path (relative to ``base``), an embedded
    file, or a Capytaine ``xarray.Dataset`` given in memory (by :meth:`Model.from_bem
    <hydrofmu.api.model.Model.from_bem>`), returned as it is."""
    from ..io.capytaine import is_dataset

    if is_dataset(value):
        return value
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
        if key not in SECTIONS:
            raise unknown_key(key, SECTIONS, where)
    out: dict[str, Any] = {}
    for section, defaults in DEFAULTS.items():
        given = data.get(section, {})
        if not isinstance(given, dict):
            raise ConfigError(f"[{section}] must be a table, got {given!r}", value=given)
        for key, value in given.items():
            if key not in defaults:
                raise unknown_key(key, tuple(defaults), f"[{section}]")
            check_type(f"[{section}] {key}", value, defaults[key])
        merged = copy.deepcopy(defaults)
        merged.update(given)
        out[section] = merged
    from .run_settings import check_simulation

    check_simulation(out["simulation"])
    if out["export"]["runtime"] not in RUNTIMES:
        raise ConfigError(f"[export] runtime = {out['export']['runtime']!r}: choose one of "
                          f"{', '.join(RUNTIMES)}", value=out["export"]["runtime"])
    if out["export"]["kind"] not in EXPORT_KINDS:
        raise ConfigError(f"[export] kind = {out['export']['kind']!r}: choose one of "
                          f"{', '.join(EXPORT_KINDS)}", value=out["export"]["kind"])
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
                raise unknown_key(key, BODY_KEYS, f"[[bodies]] entry {i}")
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
    out["joints"] = parse_joints(data.get("joints", []), names)
    if "ptos" in data:
        from ..runtime.forces.pto import check_pto_entries

        out["ptos"] = check_pto_entries(data["ptos"], [b["name"] for b in out["bodies"]],
                                        out["joints"])
    return out


def _roundtrip_note(hd: HydroData, cfg: dict[str, Any]) -> str:
    """Report how well the radiation IRF used at run time reproduces the data."""
    from ..runtime.irf.checks import irf_roundtrip_error

    dt = float(cfg["simulation"]["max_internal_step"])
    duration = float(config_value(cfg, "radiation", "irf_duration"))
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
    from ..io.hydro_checks import check_hydrodata, check_mass_matrix
    from ..io.readers import read_hydro

    cfg = parse_config(data, where=where)
    from ..runtime.forces.moordyn_mooring import embed_moordyn_file

    for m in cfg["moorings"]:  # MoorDyn files are read now and embedded in the config
        if m.get("type") == "moordyn":
            embed_moordyn_file(m, base)
    bodies: list[HydroData] = []
    resolved_bodies = []
    notes: list[str] = moordyn_option_notes(cfg)
    for b in cfg["bodies"]:
        path = _resolve_hydro_path(b["hydro"], base)
        # Read unchecked and checked once here: the reader's own check would give every
        # warning of the data a second time.
        hd = read_hydro(path, body=b.get("hydro_body"), check=False)
        if isinstance(path, Path) and path.suffix.lower() == ".out":
            from ..io.wamit import WAMIT_SYMMETRY_RTOL

            # WAMIT's printed 4-digit values: the reader's own symmetry tolerance.
            check_hydrodata(hd, symmetry_rtol=WAMIT_SYMMETRY_RTOL)
        else:
            check_hydrodata(hd)
        rb, n = resolve_body(b, hd)
        drift, drift_notes = resolve_drift(b, hd, path, base)
        if drift is not None:  # second-order data, embedded (read no file at run time)
            rb["drift"] = drift
            n = [*n, *drift_notes]
        hd, nonlinear_notes = resolve_nonlinear(b, rb, hd, path, base)  # mesh, FK removed
        n = [*n, *nonlinear_notes]
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
    check_radiation_keys(data, cfg)
    methods = {rb["radiation"] for rb in resolved_bodies if rb["radiation"] is not None}
    if len(methods) > 1:
        raise ConfigError(
            f"all bodies must use the same radiation method, got {sorted(methods)}",
            value=sorted(methods),
        )
    if methods:
        cfg["radiation"]["method"] = methods.pop()
    from ..statespace.payload import add_realisation, check_settings

    check_settings(cfg)
    parsed = cfg["bodies"]
    cfg["bodies"] = resolved_bodies
    cfg["notes"] = notes
    cfg["coupling"] = resolve_coupling(resolved_bodies,
                                [_resolve_hydro_path(b["hydro"], base) for b in parsed],
                                [b.get("hydro_body") for b in parsed], bodies, notes)
    if cfg["radiation"]["method"] == "state_space":  # after the coupling: its blocks too
        add_realisation(bodies, cfg)
    # Validate the FMU-parameter defaults now rather than at FMU instantiation: the
    # simulator's constructor runs the one check of fmi2ExitInitializationMode
    # (parameters/checks.py) and the parts' own checks.
    from ..runtime.simulator.simulator import Simulator

    sim = Simulator(bodies, cfg)
    # What the model reports with its default parameters (IRF lengths, cut-offs), kept so
    # that callers print it without building the simulator again; and the proof that this
    # model initializes with them, so that build_fmu does not build it again.
    cfg["report"] = list(sim.report)
    cfg["warnings"] = list(sim.warnings)
    cfg[CHECKED_KEY] = model_digest(bodies, cfg)
    if cfg["radiation"]["method"] == "convolution":
        notes.extend(_roundtrip_note(hd, cfg) for hd in bodies)
    return bodies, cfg


def apply_overrides(data: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``data`` with whole sections updated: ``{"wave": {"height": 2.0}}``
    updates ``[wave]`` key by key; a list section (``bodies``, ``moorings``...) is
    replaced."""
    data = copy.deepcopy(data)
    for section, values in overrides.items():
        if isinstance(values, dict):
            current = data.setdefault(section, {})
            if not isinstance(current, dict):
                raise ConfigError(f"override {section}=...: [{section}] is not a table",
                                  value=section)
            current.update(values)
        else:
            data[section] = copy.deepcopy(values)
    return data


#: The key of a resolved configuration that holds :func:`model_digest` of the model that
#: :func:`resolve` built with the default parameters.
CHECKED_KEY = "checked"
#: What :func:`resolve` adds for the reader (not part of the model).
DERIVED_KEYS = ("report", "warnings", "notes", CHECKED_KEY)


def model_digest(bodies: list[HydroData], config: dict[str, Any]) -> str:
    """SHA-256 (hex) of a model: the configuration as JSON (without :data:`DERIVED_KEYS`)
    and every field of each body's data. Equal digests: the same model, so a check made
    on one (its default parameters initialize) holds for the other."""
    h = hashlib.sha256()
    model = {k: v for k, v in config.items() if k not in DERIVED_KEYS}
    h.update(json.dumps(model, sort_keys=True, allow_nan=True, default=repr).encode())
    for hd in bodies:
        for f in dataclasses.fields(hd):
            value = getattr(hd, f.name)
            h.update(f.name.encode())
            if isinstance(value, np.ndarray):
                h.update(f"{value.dtype}{value.shape}".encode())
                h.update(np.ascontiguousarray(value).tobytes())
            else:
                h.update(repr(value).encode())
    return h.hexdigest()


def load_config(path: str | Path, overrides: dict[str, Any] | None = None
                ) -> tuple[list[HydroData], dict[str, Any]]:
    """Read, validate and resolve a TOML configuration file.

    Parameters
    ----------
    path
        The ``.toml`` file; data paths in it are relative to its folder.
    overrides
        Sections changed before resolving (see :func:`apply_overrides`).

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
    return resolve(apply_overrides(data, overrides or {}), p.resolve().parent, where=str(p))


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
