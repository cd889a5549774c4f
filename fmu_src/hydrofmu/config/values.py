"""Typed values of the TOML configuration: vectors, numbers, the type of a default, and the
unknown-key error with a did-you-mean. Shared by :mod:`hydrofmu.config` and
:mod:`hydrofmu.config.bodies`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..runtime.errors import ConfigError, did_you_mean


def unknown_key(key: str, allowed: tuple[str, ...] | list[str], where: str) -> ConfigError:
    hint = did_you_mean(key, list(allowed))
    return ConfigError(
        f"unknown key '{key}' in {where}{hint}; allowed: {', '.join(allowed)}", value=key
    )


def check_vector(value: Any, n: int, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what} must be a list of {n} numbers, got {value!r}",
                          value=value) from exc
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ConfigError(f"{what} must be a list of {n} finite numbers, got {value!r}",
                          value=value)
    return arr


def check_number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{what} must be a number, got {value!r}", value=value)
    if not math.isfinite(float(value)):
        raise ConfigError(f"{what} must be finite, got {value!r}", value=value)
    return float(value)


def check_type(what: str, value: Any, default: Any) -> None:
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
