"""The tunable parameters of a model (the FMU's parameters) and their validation.

Names, FMI types, SI units, defaults from the resolved configuration, FMI ``min``/``max``,
choices and checks that turn a bad value into a :class:`~hydrofmu.runtime.errors.ConfigError` naming
it and the fix. :func:`validate_parameters` is the one place where parameter values are
checked (each entry's check, then the cross-conditions :data:`CROSS_CHECKS`); the simulator
receives validated values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError, did_you_mean
from ..hydrodata.model import HydroData
from ..schemes.registry import make_scheme, scheme_names
from .validators import check_bounds, check_choice, check_finite, check_positive

WAVE_TYPES = ("none", "regular", "irregular", "input")
RADIATION_METHODS = ("convolution", "constant", "state_space")
ADDED_MASS_METHODS = ("implicit", "split", "lagged")
SPECTRA = ("jonswap", "pm")
DISCRETIZATIONS = ("equal_energy", "equal_width")

#: Largest value of an FMI Integer (fmi2Integer is a 32-bit int).
INT_MAX = 2**31 - 1
#: Upper bound of wave.n_components (a 1e5-component sea costs ~10 MB per body and
#: 1e5 cos/sin per internal step: far beyond any converged spectrum discretization).
MAX_WAVE_COMPONENTS = 100_000
#: Default of the max_internal_steps_per_call parameter: 1e7 internal steps (~1e3 s of
#: work for one doStep); a real communication step takes 1 to 1e3.
MAX_INTERNAL_STEPS_PER_CALL = 10_000_000
#: Length of the radiation and excitation impulse-response functions kept, s (``[radiation]``
#: and ``[excitation] irf_duration``).
IRF_DURATION = 30.0

#: The configuration's sections and their defaults: the one default of every setting (the
#: configuration is merged with it when resolved,
# :func:`~hydrofmu.config.configuration.parse_config`; the
#: run time reads a setting through :func:`config_value`).
CONFIG_DEFAULTS: dict[str, dict[str, Any]] = {
    "simulation": {
        "time_scheme": "rk4",
        "max_internal_step": 0.01,
        "start_time": 0.0,
        "stop_time": 200.0,
        "output_interval": 0.1,
        "max_internal_steps_per_call": MAX_INTERNAL_STEPS_PER_CALL,
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
        # directional spreading (runtime/waves/spreading.py): none | cos2s | table; the
        # cos-2s exponent; the table's directions (offsets from wave.direction, rad) and
        # weights
        "spreading": "none",
        "spreading_s": 10.0,
        "spreading_directions": [],
        "spreading_weights": [],
    },
    # omega_max: cut of the IRF frequency integral (None: the data's last frequency);
    # taper: fraction of [0, omega_max] over which a half-cosine window brings the data to
    # zero at the cut (limits the ringing of a sharp cut).
    "excitation": {"preview_time": 0.0, "irf_duration": IRF_DURATION, "omega_max": None,
                   "taper": 0.0},
    # ss_tolerance, ss_max_order: the state-space realisation's relative L2 IRF error per
    # entry and largest order per entry (build time: hydrofmu.statespace.payload); ss_fit:
    # what it is fitted to, "kernel" (the IRF of B) or "impedance" (B and A together).
    "radiation": {"method": "convolution", "irf_duration": IRF_DURATION, "omega_max": None,
                  "taper": 0.0, "ss_tolerance": 0.01, "ss_max_order": 10,
                  "ss_fit": "kernel"},
    "added_mass": {"method": "implicit", "adj_mass_factor": 2.0},
    # b2b: keep the body-to-body radiation blocks of bodies read from one multi-body file
    # (false: only each body's own blocks, WEC-Sim's default).
    "multibody": {"b2b": True},
    # a steady current (runtime/waves/current.py): profile none | uniform | power, speed at
    # the surface (m/s; 0: none), direction it flows to (rad), the power law's exponent
    "current": {"profile": "none", "speed": 0.0, "direction": 0.0, "exponent": 1.0 / 7.0},
    # runtime: "auto" (the native FMU whenever the model allows, else the Python FMU),
    # "native" (the model stepped in C, no Python at run time: hydrofmu.export.native; as
    # `hydrofmu build --native`) or "python" (the pythonfmu FMU; as `--python`).
    # kind: "motion" (the FMU integrates the bodies) or "loads" (the forces at the
    # importer's motion with A_inf handed out: hydrofmu.runtime.loads; the Python FMU).
    "export": {"runtime": "auto", "kind": "motion"},
}


def config_value(config: dict[str, Any], section: str, key: str) -> Any:
    """``config[section][key]``, or its default (:data:`CONFIG_DEFAULTS`) when the section
    or the key is missing or ``None``. Not checked: the part that uses a value checks it
    (an explicit ``0`` stays ``0``)."""
    value = config.get(section, {}).get(key)
    return CONFIG_DEFAULTS[section][key] if value is None else value


def irf_duration(config: dict[str, Any], section: str) -> float:
    """``[section] irf_duration`` (s), checked: a finite number > 0 (an explicit 0 is
    refused with a :class:`ConfigError` naming it), :data:`IRF_DURATION` when not given."""
    return check_positive(f"{section}.irf_duration",
                          config_value(config, section, "irf_duration"))


@dataclass(frozen=True)
class ParameterSpec:
    """One FMU parameter.

    Attributes
    ----------
    name, kind, start, unit, description
        FMU variable name, FMI type (``Real``, ``Integer``, ``String``), default, SI unit
        (``None`` for none), description.
    choices
        Allowed values of a String parameter, or ``None``.
    min, max
        FMI bounds of a Real or Integer parameter (inclusive), ``None`` when unbounded.
    check
        Turns a given value into the validated one or raises :class:`ConfigError` naming
        the parameter and the fix; ``None``: the type, bounds and choices only.
    tunable
        The model honours a change between steps (FMI ``variability="tunable"``; the part
        that owns it takes it through :meth:`~hydrofmu.runtime.parts.part.Part.set_parameter`);
        ``False``: ``fixed``, refused after initialization.
    """

    name: str
    kind: str
    start: float | int | str
    unit: str | None
    description: str
    choices: tuple[str, ...] | None = None
    min: float | int | None = None
    max: float | int | None = None
    check: Callable[[str, Any], Any] | None = None
    tunable: bool = False

    def validate(self, value: Any) -> Any:
        """The validated value (see the class docstring): the entry's own check (its
        message) first, then the FMI bounds ``min``/``max`` for numbers."""
        numeric = self.kind in ("Real", "Integer")
        if numeric and isinstance(value, bool | np.bool_):
            raise ConfigError(f"{self.name} = {value!r} is not a number", value=value)
        if self.check is not None:
            v = self.check(self.name, value)
            return check_bounds(self.name, v, self.min, self.max) if numeric else v
        if self.choices is not None:
            return check_choice(self.name, value, self.choices)
        if self.kind == "String":
            return str(value)
        v = check_finite(self.name, value)
        if self.kind == "Integer":
            if v != int(v):
                raise ConfigError(f"{self.name} must be an integer, got {value!r}", value=value)
            v = int(v)
        return check_bounds(self.name, v, self.min, self.max)


def body_names(config: dict[str, Any]) -> list[str]:
    return [b["name"] for b in config["bodies"]]


def _positive(name: str, value: Any) -> float:
    return check_positive(name, value)


def _non_negative(name: str, value: Any) -> float:
    return check_positive(name, value, allow_zero=True)


def _scheme(name: str, value: Any) -> Any:
    make_scheme(value)  # raises the ConfigError that lists the schemes
    return value if isinstance(value, type) else str(value).strip().lower()


def _n_components(name: str, value: Any) -> int:
    if int(value) < 1:
        raise ConfigError(f"{name} must be >= 1, got {value!r}", value=value)
    return int(value)


def _gamma(name: str, value: Any) -> float:
    v = check_finite(name, value)
    if v < 1.0:
        raise ConfigError(f"{name} = {value!r} must be >= 1 (1 gives Pierson-Moskowitz)",
                          value=value)
    return v


def model_parameter_specs(bodies: list[HydroData],
                          config: dict[str, Any]) -> list[ParameterSpec]:
    """The model's own FMU parameters with their defaults from the configuration (the
    parts' follow them in :func:`hydrofmu.runtime.simulator.layout.parameter_table`).

    Parameters
    ----------
    bodies
        Hydrodynamic data, one per body, in the order of ``config["bodies"]``.
    config
        Resolved configuration (see :mod:`hydrofmu.config`).
    """
    w = config["wave"]
    sim = config["simulation"]
    rad = config["radiation"]
    am = config["added_mass"]
    p = [
        ParameterSpec("wave.type", "String", w["type"], None,
                      "Wave model: none, regular, irregular, input", WAVE_TYPES),
        ParameterSpec("wave.height", "Real", float(w["height"]), "m",
                      "Regular: wave height H; irregular: significant wave height Hs",
                      min=0.0, check=_non_negative, tunable=True),
        ParameterSpec("wave.period", "Real", float(w["period"]), "s",
                      "Regular: wave period T; irregular: peak period Tp", min=1e-3,
                      check=_positive),
        ParameterSpec("wave.direction", "Real", float(w["direction"]), "rad",
                      "Direction the waves travel to (0 = +x)"),
        ParameterSpec("wave.seed", "Integer", int(w["seed"]), None,
                      "Seed of the irregular wave's random phases", min=0, max=INT_MAX),
        ParameterSpec("wave.ramp_time", "Real", float(w["ramp_time"]), "s",
                      "Duration of the half-cosine ramp of the excitation", min=0.0,
                      check=_non_negative, tunable=True),
        ParameterSpec("wave.spectrum", "String", w["spectrum"], None,
                      "Irregular wave spectrum: jonswap or pm", SPECTRA),
        ParameterSpec("wave.gamma", "Real", float(w["gamma"]), "1",
                      "JONSWAP peak enhancement factor", min=1.0, max=20.0,
                      check=_gamma),
        ParameterSpec("wave.n_components", "Integer", int(w["n_components"]), None,
                      "Number of regular components of the irregular wave", min=1,
                      max=MAX_WAVE_COMPONENTS,
                      check=_n_components),
        ParameterSpec("excitation.preview_time", "Real",
                      float(config["excitation"]["preview_time"]), "s",
                      "wave.type = input: the elevation input is this far ahead of time",
                      min=0.0, check=_non_negative),
        ParameterSpec("radiation.method", "String", rad["method"], None,
                      "convolution (IRF memory), constant (A, B at the wave frequency) or "
                      "state_space (realisation made at export)",
                      RADIATION_METHODS),
        ParameterSpec("added_mass.method", "String", am["method"], None,
                      "Added-mass treatment: implicit (left side; the default), split "
                      "(WEC-Sim) or lagged (previous acceleration), for comparison",
                      ADDED_MASS_METHODS),
        ParameterSpec("added_mass.adj_mass_factor", "Real", float(am["adj_mass_factor"]),
                      "1", "WEC-Sim split factor (only for added_mass.method = split)",
                      min=0.0, check=_non_negative),
        ParameterSpec("time_scheme", "String", sim["time_scheme"], None,
                      "Time integration scheme", tuple(scheme_names()), check=_scheme),
        ParameterSpec("max_internal_step", "Real", float(sim["max_internal_step"]), "s",
                      "Largest internal time step; also the radiation history spacing",
                      min=1e-6, check=_positive),
    ]
    p.append(ParameterSpec(
        "max_internal_steps_per_call", "Integer",
        int(config_value(config, "simulation", "max_internal_steps_per_call")), None,
        "Work limit: a doStep needing more internal steps than this is refused "
        "(fmi2Discard); raise it for longer communication steps", min=1, max=INT_MAX))
    from .choices import twin_specs

    p += twin_specs(p)  # every choice also an enumeration (Integer): parameters/choices.py
    for b in config["bodies"]:
        for i in range(6):
            u = ("m", "rad")[i // 3]
            p.append(ParameterSpec(f"{b['name']}.initial_pose[{i + 1}]", "Real",
                                   float(b["initial_pose"][i]), u,
                                   "Initial displacement from equilibrium"))
        for i in range(6):
            u = ("m/s", "rad/s")[i // 3]
            p.append(ParameterSpec(f"{b['name']}.initial_velocity[{i + 1}]", "Real",
                                   float(b["initial_velocity"][i]), u, "Initial velocity"))
    return p


def irf_options(config: dict[str, Any], section: str) -> dict[str, Any]:
    """Frequency cut and taper of an IRF transform, from the configuration."""
    c = config.get(section, {})
    omega_max = c.get("omega_max")
    taper = float(c.get("taper", 0.0) or 0.0)
    if omega_max is not None:
        omega_max = check_positive(f"{section}.omega_max", omega_max)
    if not 0.0 <= taper < 1.0:
        raise ConfigError(f"{section}.taper must be in [0, 1), got {taper!r}", value=taper)
    return {"omega_max": omega_max, "taper": taper}


def _check_configuration_choices(config: dict[str, Any], values: dict[str, Any]) -> None:
    """Configuration entries the parameters depend on (checked whatever the wave type)."""
    check_choice("wave.discretization", config["wave"]["discretization"], DISCRETIZATIONS)
    irf_options(config, "radiation")
    irf_options(config, "excitation")


def _check_initial_conditions(config: dict[str, Any], values: dict[str, Any]) -> None:
    """Fixed DOFs start (and stay) at equilibrium."""
    for b in config["bodies"]:
        name = b["name"]
        free = np.asarray(b["free_dofs"], dtype=bool)
        q0 = np.array([values[f"{name}.initial_pose[{i + 1}]"] for i in range(6)])
        v0 = np.array([values[f"{name}.initial_velocity[{i + 1}]"] for i in range(6)])
        moving = ~free & ((q0 != 0.0) | (v0 != 0.0))
        if np.any(moving):
            k = [b2["name"] for b2 in config["bodies"]].index(name)
            raise ConfigError(
                "initial_pose / initial_velocity is non-zero for fixed DOFs "
                f"{(6 * k + np.flatnonzero(moving)).tolist()}: a fixed DOF stays at "
                "equilibrium", value=q0.tolist(),
            )


def _check_wave_resolved(config: dict[str, Any], values: dict[str, Any]) -> None:
    """A wave period spans at least 4 internal steps (else the wave is not resolved)."""
    if values["wave.type"] in ("regular", "irregular"):
        period, dt = float(values["wave.period"]), float(values["max_internal_step"])
        if period < 4.0 * dt:
            raise ConfigError(
                f"wave.period = {period!r} s is shorter than 4 internal steps "
                f"(max_internal_step = {dt!r} s): reduce max_internal_step below "
                f"{period / 4.0:.3g} s", value=period,
            )


#: Conditions between parameters (and the configuration), checked after every entry's own.
CROSS_CHECKS: list[Callable[[dict[str, Any], dict[str, Any]], None]] = [
    _check_configuration_choices,
    _check_initial_conditions,
    _check_wave_resolved,
]


def merged_values(table: list[ParameterSpec], overrides: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    """The defaults of ``table`` updated by ``overrides`` (by name; not checked yet).

    Raises
    ------
    ConfigError
        An unknown name (with the closest match).
    """
    values: dict[str, Any] = {p.name: p.start for p in table}
    for name, value in (overrides or {}).items():
        if name not in values:
            hint = did_you_mean(name, list(values))
            raise ConfigError(f"unknown parameter {name!r}{hint}", value=name)
        values[name] = value
    return values


def validate_parameters(
    table: list[ParameterSpec], config: dict[str, Any],
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The validated values of every parameter of ``table`` (the model's parameter table,
    :func:`hydrofmu.runtime.simulator.layout.parameter_table`): defaults, then ``overrides`` by
    name.

    Raises
    ------
    ConfigError
        An unknown name (with the closest match), a value its entry refuses, or a failed
        cross-condition.
    """
    from .choices import resolve_choices

    values = merged_values(table, overrides)
    for p in table:
        values[p.name] = p.validate(values[p.name])
    resolve_choices(table, values)  # a choice set by its enumeration twin
    for cross in CROSS_CHECKS:
        cross(config, values)
    return values
