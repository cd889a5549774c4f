"""The tunable parameters of a model (the FMU's parameters) and their validation.

Names, FMI types, SI units, defaults from the resolved configuration, and the checks that
turn a bad value into a :class:`~hydrofmu.errors.ConfigError` naming it and the choices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError, did_you_mean
from .hydrodata.model import HydroData
from .timeschemes import SCHEMES

WAVE_TYPES = ("none", "regular", "irregular", "input")
RADIATION_METHODS = ("convolution", "constant")
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


@dataclass(frozen=True)
class ParameterSpec:
    """One FMU parameter: name, FMI type, start value, SI unit, description, choices.

    ``min`` and ``max`` are the inclusive bounds written as the FMI attributes of the
    ``<Real>``/``<Integer>`` element (``None`` when unbounded); see
    :mod:`hydrofmu.parameter_checks` for the checks that use them.
    """

    name: str
    kind: str
    start: float | int | str
    unit: str | None
    description: str
    choices: tuple[str, ...] | None = None
    min: float | int | None = None
    max: float | int | None = None


def body_names(config: dict[str, Any]) -> list[str]:
    return [b["name"] for b in config["bodies"]]


def parameter_table(bodies: list[HydroData], config: dict[str, Any]) -> list[ParameterSpec]:
    """The tunable parameters of a model with their defaults from the configuration.

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
                      min=0.0),
        ParameterSpec("wave.period", "Real", float(w["period"]), "s",
                      "Regular: wave period T; irregular: peak period Tp", min=1e-3),
        ParameterSpec("wave.direction", "Real", float(w["direction"]), "rad",
                      "Direction the waves travel to (0 = +x)"),
        ParameterSpec("wave.seed", "Integer", int(w["seed"]), None,
                      "Seed of the irregular wave's random phases", min=0, max=INT_MAX),
        ParameterSpec("wave.ramp_time", "Real", float(w["ramp_time"]), "s",
                      "Duration of the half-cosine ramp of the excitation", min=0.0),
        ParameterSpec("wave.spectrum", "String", w["spectrum"], None,
                      "Irregular wave spectrum: jonswap or pm", SPECTRA),
        ParameterSpec("wave.gamma", "Real", float(w["gamma"]), "1",
                      "JONSWAP peak enhancement factor", min=1.0, max=20.0),
        ParameterSpec("wave.n_components", "Integer", int(w["n_components"]), None,
                      "Number of regular components of the irregular wave",
                      min=1, max=MAX_WAVE_COMPONENTS),
        ParameterSpec("excitation.preview_time", "Real",
                      float(config["excitation"]["preview_time"]), "s",
                      "wave.type = input: the elevation input is this far ahead of time",
                      min=0.0),
        ParameterSpec("radiation.method", "String", rad["method"], None,
                      "convolution (IRF memory) or constant (A, B at the wave frequency)",
                      RADIATION_METHODS),
        ParameterSpec("added_mass.method", "String", am["method"], None,
                      "Added-mass treatment: implicit (left side; the default), split "
                      "(WEC-Sim) or lagged (previous acceleration), for comparison",
                      ADDED_MASS_METHODS),
        ParameterSpec("added_mass.adj_mass_factor", "Real", float(am["adj_mass_factor"]),
                      "1", "WEC-Sim split factor (only for added_mass.method = split)",
                      min=0.0),
        ParameterSpec("time_scheme", "String", sim["time_scheme"], None,
                      "Time integration scheme", tuple(sorted(SCHEMES))),
        ParameterSpec("max_internal_step", "Real", float(sim["max_internal_step"]), "s",
                      "Largest internal time step; also the radiation history spacing",
                      min=1e-6),
    ]
    p.append(ParameterSpec(
        "max_internal_steps_per_call", "Integer",
        int(sim.get("max_internal_steps_per_call", MAX_INTERNAL_STEPS_PER_CALL)), None,
        "Work limit: a doStep needing more internal steps than this is refused "
        "(fmi2Discard); raise it for longer communication steps", min=1, max=INT_MAX))
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


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    v = str(value).strip().lower()
    if v not in choices:
        hint = did_you_mean(v, choices)
        raise ConfigError(
            f"{name} = {value!r} is not valid{hint}; choose one of: {', '.join(choices)}",
            value=value,
        )
    return v


def check_positive(name: str, value: float, *, allow_zero: bool = False) -> float:
    v = float(value)
    if not math.isfinite(v) or v < 0.0 or (v == 0.0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ConfigError(f"{name} must be a finite number {bound}, got {value!r}", value=value)
    return v
