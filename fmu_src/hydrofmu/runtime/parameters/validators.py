"""The scalar checks of a setting's value (a choice, a positive or finite number, bounds),
each raising a :class:`~hydrofmu.runtime.errors.ConfigError` that names the setting.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import ConfigError, did_you_mean


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


def check_finite(name: str, value: Any) -> float:
    """``float(value)``, or a :class:`ConfigError` naming ``name`` if not a finite number."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not math.isfinite(v):
        raise ConfigError(f"{name} must be finite, got {value!r}", value=value)
    return v


def check_bounds(name: str, value: float, lo: float | None, hi: float | None) -> float:
    """``value`` if ``lo <= value <= hi`` (``None``: unbounded), else a :class:`ConfigError`."""
    if lo is not None and value < lo:
        raise ConfigError(f"{name} = {value!r} is below its minimum {lo!r}", value=value)
    if hi is not None and value > hi:
        raise ConfigError(f"{name} = {value!r} is above its maximum {hi!r}", value=value)
    return value
