"""The project's exception hierarchy.

Every error raised on purpose by hydrofmu derives from :class:`HydroFMUError` and carries
the offending value, so that a caller (the CLI, the FMU face) can report it without a
traceback.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class HydroFMUError(Exception):
    """Base class of every error raised on purpose by hydrofmu.

    Parameters
    ----------
    message
        What is wrong and how to fix it.
    value
        The offending value, when there is one.
    """

    def __init__(self, message: str, *, value: Any = None) -> None:
        super().__init__(message)
        self.value = value


class HydroDataError(HydroFMUError, ValueError):
    """Hydrodynamic data that is missing, malformed or physically inconsistent."""


class ConfigError(HydroFMUError, ValueError):
    """A configuration file or option that is missing, unknown or out of range."""


class IntegrationError(HydroFMUError, ArithmeticError):
    """A time step that failed: a non-finite state, a diverging solution."""


class InputError(HydroFMUError, ValueError):
    """A run-time input (PTO force, wave elevation) that cannot be used, e.g. NaN."""


class ExportError(HydroFMUError, RuntimeError):
    """Building or post-processing the FMU failed."""


class CatenaryError(ConfigError):
    """A quasi-static mooring line that cannot be solved: it cannot reach, or bad data."""


class MoorDynInputError(ConfigError):
    """A MoorDyn input file that cannot be read or uses a feature that is not supported."""


class OptionalDependencyError(HydroFMUError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


def as_finite(value: Any, name: str) -> float:
    """``float(value)``, or a :class:`ConfigError` naming ``name`` if not a finite number."""
    import math

    try:
        out = float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{name}={value!r} is not a number", value=value) from exc
    if not math.isfinite(out):
        raise ConfigError(f"{name}={value!r} must be finite", value=value)
    return out


def did_you_mean(value: object, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``choices`` to ``value``, or ``""``."""
    import difflib

    close = difflib.get_close_matches(str(value), list(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def require(module: str, extra: str) -> Any:
    """Import an optional module or raise a message naming the extra that provides it.

    Parameters
    ----------
    module
        Importable module name, e.g. ``"capytaine"``.
    extra
        Name of the ``pip install hydrofmu[extra]`` that provides it.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise OptionalDependencyError(
            f"'{module}' is needed here but is not installed; "
            f"install it with: pip install 'hydrofmu[{extra}]'",
            value=module,
        ) from exc
