"""What the FMU's slave script runs first, so that non-Python hosts load and leave it cleanly.

This module is run time (bundled in every FMU, see the folder ``hydrofmu/runtime``)
and is imported by the generated slave script before anything else, so it uses nothing but
modules that are built into the interpreter or written in Python (no extension module may
load before :func:`promote_libpython` ran). It holds two measured workarounds for
pythonfmu 0.7.0's binary in a C/C++ host (OMSimulator, Simulink, ECOS, libcosim's C++ core
loading the FMU in a process that has no Python of its own):

- **libpython in the global scope.** The binary does not list libpython among its needed
  libraries. A host must either preload it (``LD_PRELOAD``) or the binary must be patched
  at build time to need it (:func:`hydrofmu.export` does this with ``patchelf`` when asked).
  In the patched case libpython is loaded in the binary's *local* scope, and the first
  extension module (``_ctypes``, numpy's ``_multiarray_umath``) then fails with
  ``undefined symbol: PyTuple_Type``. :func:`promote_libpython` reopens the already loaded
  libpython with ``RTLD_GLOBAL`` (``_imp.create_dynamic`` on a spec whose origin is its
  path; the ImportError for its missing ``PyInit`` function is expected), which makes its
  symbols visible to every extension module loaded afterwards.
- **The exit guard.** At a C host's ``exit()``, the binary's static ``std::shared_ptr``
  holding the interpreter is destroyed and then reset again by a destructor function; the
  interpreter is finalized in that disorder and the host aborts or crashes after a clean
  ``fmi2FreeInstance`` (SIGSEGV in ``Py_FinalizeEx``, ``free(): corrupted unsorted
  chunks``). :func:`guard_c_host_exit` registers the binary's exported
  ``finalizePythonInterpreter`` with the C library's ``__cxa_atexit``: it then runs first,
  finalizes the interpreter in order and leaves an empty pointer that the later
  destructors handle without harm. (In a Python host :func:`.workarounds.guard_interpreter_exit`
  does the corresponding thing through :mod:`atexit`.)
"""

from __future__ import annotations

import os
import sys

#: dlopen flags of the promotion: resolve now, symbols visible to later libraries.
_GLOBAL_FLAGS = getattr(os, "RTLD_NOW", 2) | getattr(os, "RTLD_GLOBAL", 0x100)

# Paths already promoted / guarded in this process (the module stays imported across
# instantiations; pythonfmu re-executes the slave script at each one).
_PROMOTED: set[str] = set()
_GUARDED: set[str] = set()


def mapped_libraries() -> list[str]:
    """Paths of the shared libraries mapped into this process (Linux ``/proc/self/maps``).

    Returns
    -------
    list of str
        Absolute paths, in order of first appearance, without duplicates; empty where
        ``/proc`` is unavailable.
    """
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="surrogateescape") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    seen: dict[str, None] = {}
    for line in lines:
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith("/") and ".so" in fields[5]:
            seen.setdefault(fields[5].removesuffix(" (deleted)"), None)
    return list(seen)


def loaded_libpython() -> str | None:
    """Path of the libpython mapped into this process, or None (a static interpreter)."""
    for path in mapped_libraries():
        if os.path.basename(path).startswith("libpython3"):
            return path
    return None


def promote_libpython() -> str | None:
    """Make the loaded libpython's symbols global, for the extension modules loaded next.

    Harmless where they are global already (a Python host, or ``LD_PRELOAD``): dlopen of
    a loaded library with ``RTLD_GLOBAL`` only widens its scope.

    Returns
    -------
    str or None
        The promoted library's path, or None when no libpython is mapped (an interpreter
        linked statically into its executable, whose symbols are global already) or on a
        platform other than Linux.
    """
    if sys.platform != "linux":
        return None
    path = loaded_libpython()
    if path is None or path in _PROMOTED:
        return path
    import _imp
    from importlib.machinery import ModuleSpec

    old = sys.getdlopenflags()
    sys.setdlopenflags(_GLOBAL_FLAGS)
    try:
        _imp.create_dynamic(ModuleSpec("_hydrofmu_libpython_global", None, origin=path))
    except ImportError:
        pass  # expected: libpython has no PyInit function; the dlopen is what we wanted
    finally:
        sys.setdlopenflags(old)
    _PROMOTED.add(path)
    return path


def started_by_binary() -> bool:
    """True when the FMU's binary started this interpreter (a C/C++ host).

    An interpreter started by a ``python`` executable records its command line in
    ``sys.orig_argv``; pythonfmu's binary calls ``Py_Initialize`` without one, so it is
    empty there. (The thread test ``threading.main_thread().native_id != getpid()`` does
    not tell them apart: :mod:`threading` takes as main thread the one that imports it,
    the host's thread calling ``fmi2Instantiate``.)
    """
    return not getattr(sys, "orig_argv", [""])


def guard_c_host_exit(model_identifier: str) -> list[str]:
    """Register ``finalizePythonInterpreter`` of every loaded copy of the binary with
    ``__cxa_atexit`` (C/C++ hosts on Linux only; see the module docstring).

    Parameters
    ----------
    model_identifier
        The FMU's model identifier: its binary is ``binaries/linux64/<id>.so``.

    Returns
    -------
    list of str
        The binaries guarded (now or earlier in this process); empty in a Python host or
        on another platform.
    """
    if sys.platform != "linux" or not started_by_binary():
        return []
    import ctypes

    suffix = f"/binaries/linux64/{model_identifier}.so"
    libc = ctypes.CDLL(None)
    register = libc.__cxa_atexit
    register.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    register.restype = ctypes.c_int
    for path in mapped_libraries():
        if not path.endswith(suffix) or path in _GUARDED:
            continue
        try:
            finalize = ctypes.CDLL(path).finalizePythonInterpreter  # the loaded library
        except (OSError, AttributeError):
            continue
        # The C function's own address (a ctypes callback would be freed at finalization).
        if register(ctypes.cast(finalize, ctypes.c_void_p), None, None) == 0:
            _GUARDED.add(path)
    return sorted(p for p in _GUARDED if p.endswith(suffix))


def prepare_host(model_identifier: str) -> None:
    """Everything the slave script runs before its first extension-module import."""
    promote_libpython()
    guard_c_host_exit(model_identifier)
