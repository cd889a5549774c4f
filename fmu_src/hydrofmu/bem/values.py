"""Checks of single values of the ``[bem]`` table: unknown keys, 3-vectors, positive numbers.

Shared by :mod:`hydrofmu.bem.spec` (the table) and :mod:`hydrofmu.bem.spec_bodies` (its
``[[bem.bodies]]`` list); every message names the key and the fix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..runtime.errors import ConfigError, did_you_mean


def unknown_key(key: str, allowed: Sequence[str], where: str) -> ConfigError:
    """The error for ``key`` not among ``allowed`` in the table ``where``."""
    return ConfigError(
        f"unknown key '{key}' in {where}{did_you_mean(key, allowed)}; "
        f"allowed: {', '.join(allowed)}",
        value=key,
    )


def vec3(value: Any, what: str, unit: str = "m") -> tuple[float, float, float]:
    """Three finite numbers ``[x, y, z]`` (in ``unit``), or a ConfigError naming ``what``."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what} = {value!r} must be 3 numbers", value=value) from exc
    if arr.shape != (3,) or not np.all(np.isfinite(arr)):
        raise ConfigError(f"{what} = {value!r} must be 3 finite numbers [x, y, z] in {unit}",
                          value=value)
    return (float(arr[0]), float(arr[1]), float(arr[2]))


def positive(value: Any, what: str, *, allow_inf: bool = False) -> float:
    """A number > 0 (finite unless ``allow_inf``), or a ConfigError naming ``what``."""
    try:
        out = float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what} = {value!r} is not a number", value=value) from exc
    if not (out > 0) or (math.isinf(out) and not allow_inf) or math.isnan(out):
        extra = " (or inf)" if allow_inf else ""
        raise ConfigError(f"{what} = {value!r} must be a positive finite number{extra}",
                          value=value)
    return out
