"""The command line, a thin client of the Python API (build time)."""

from .commands import main

__all__ = ["main"]
