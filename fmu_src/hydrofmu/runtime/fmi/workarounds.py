"""Workarounds for pythonfmu 0.7.0's binary, kept out of the FMI face (``slave.py``).

Run-time module: the standard library only.
"""

from __future__ import annotations

import atexit
import ctypes
import sys
from pathlib import Path

from ..loader import started_by_binary

_EXIT_GUARDED: set[str] = set()


def guard_interpreter_exit(resources: str | Path, model_identifier: str) -> bool:
    """Work around a crash at the exit of a Python host in pythonfmu 0.7.0's binary.

    The binary keeps its interpreter guard in a static ``std::shared_ptr`` and also resets
    it from an ``__attribute__((destructor))`` function. The library is never unloaded
    (it has STB_GNU_UNIQUE symbols), so at process exit the static destructor runs first
    and the destructor function then assigns to the destroyed pointer: a double free that
    aborts the host intermittently ("corrupted double-linked list") after a successful
    run. Resetting the guard early, from a Python ``atexit`` handler through the exported
    ``finalizePythonInterpreter``, leaves an empty pointer behind that both later calls
    handle without harm.

    Only done on Linux and in a Python host: when the FMU's binary started the interpreter
    itself (a C/C++ host), ``atexit`` handlers run inside that very reset.

    Parameters
    ----------
    resources
        The FMU's unpacked ``resources`` folder.
    model_identifier
        Name of the FMU's binary, ``binaries/linux64/<model_identifier>.so``.

    Returns
    -------
    bool
        True if the handler is registered (now or before) for this binary.
    """
    if sys.platform != "linux" or started_by_binary():
        # a C/C++ host: loader.guard_c_host_exit registers the guard there
        return False
    library = Path(resources).parent / "binaries" / "linux64" / f"{model_identifier}.so"
    key = str(library)
    if key in _EXIT_GUARDED:
        return True
    if not library.is_file():
        return False
    try:
        # The host has loaded this file: dlopen returns the same library.
        finalize = ctypes.CDLL(key).finalizePythonInterpreter
    except (OSError, AttributeError):
        return False
    finalize.argtypes = []
    finalize.restype = None
    atexit.register(finalize)
    _EXIT_GUARDED.add(key)
    return True
