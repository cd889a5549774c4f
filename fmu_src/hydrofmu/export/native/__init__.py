"""The native FMU: the linear model assembled in Python, stepped by a small C runtime
(``hydrofmu/export/native/csrc``) with no Python at run time. Build time only."""

from .build import build_native_fmu

__all__ = ["build_native_fmu"]
