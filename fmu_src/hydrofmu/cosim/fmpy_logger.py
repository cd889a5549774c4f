"""A guard for fmpy's native logger proxy.

fmpy formats an FMU's variadic log messages in a small C library (``fmpy/logging``) that
keeps ONE process-wide pointer to the Python logger it forwards to. ``fmpy.simulate_fmu(...,
logger=f)`` points it at a ctypes callback made for that call, which is freed when the call
returns; an FMU instantiated later in the same process with fmpy's default callbacks (e.g.
``fmpy.fmi2.FMU2Slave.instantiate()``) then logs through a dangling pointer, and the host
process crashes on the FMU's first message (seen in this project's test suite: a refused
``fmi2DeSerializeFMUstate`` after an earlier ``hydrofmu run`` in the same process).

:func:`restore_default_logger`, called after each such run, points the proxy back at a
callback that lives as long as the process and prints as fmpy's default logger does.

Build and run side (fmpy), not the run time.
"""

from __future__ import annotations

from ctypes import byref
from typing import Any

_KEEP: list[Any] = []  # the logger callback the proxy forwards to: alive for the process


def _print(component: Any, instance_name: bytes, status: int, category: bytes,
           message: bytes) -> None:
    """fmpy's default: the message on the command line (``fmpy.fmi1.printLogMessage``)."""
    from fmpy.fmi1 import printLogMessage

    printLogMessage(component, instance_name, status, category, message)


def restore_default_logger() -> bool:
    """Point fmpy's logger proxy at a process-lifetime callback that prints as fmpy does.

    Returns
    -------
    bool
        False when fmpy has no native logger proxy on this platform (nothing to restore).
    """
    try:
        from fmpy.fmi2 import fmi2CallbackFunctions, fmi2CallbackLoggerTYPE
        from fmpy.logging import addLoggerProxy
    except Exception:
        return False
    if not _KEEP:
        _KEEP.append(fmi2CallbackLoggerTYPE(_print))
    holder = fmi2CallbackFunctions()
    holder.logger = _KEEP[0]
    addLoggerProxy(byref(holder))  # the proxy keeps holder.logger's function: _KEEP[0]
    return True
