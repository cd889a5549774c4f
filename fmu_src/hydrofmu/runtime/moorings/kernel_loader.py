"""Choosing the lines' kernel: loading and checking the compiled library, or numpy.

:class:`~hydrofmu.runtime.moorings.lines.LineSystem` evaluates its derivative either in numpy
(always available) or in ``line_kernel.c``, a plain C99 transcription of the same physics
compiled into a shared library and called through :mod:`ctypes`
(:class:`~hydrofmu.runtime.moorings.line_kernel.LineKernel`). The choice (``kernel`` of a
``[[moorings]]`` moordyn entry, ``--kernel`` of the replay, :data:`KERNELS`): ``"auto"``
(default) uses the library when one loads and falls back to numpy otherwise, with one
logged note; ``"c"`` requires the library; ``"numpy"`` never loads it.

:func:`load_library` takes the first library that exists of the bundled one (an FMU's)
and the cached one (the installed package's, compiled by its build side), see
:mod:`.kernel_files`; the run time never compiles and nothing registers anything. A
library is used only when it loads and its ABI version (``hf_line_kernel_abi``) and the
size of its argument structure match this module's
(:data:`~.kernel_files.ABI_VERSION`). A library that loads is kept for the process; a
missing one is looked for again at the next call (the build side may have compiled it
since).

Run-time module: numpy, ctypes and the standard library only.
"""

from __future__ import annotations

import ctypes
import logging
from pathlib import Path

from ..errors import ConfigError
from .kernel_files import ABI_VERSION, bundled_library, cache_dir, cached_library, reads_cache
from .line_kernel import HfLines, LineKernel
from .line_layout import LineArrays

#: The kernels ``mooring.kernel`` accepts.
KERNELS = ("auto", "c", "numpy")

LOG = logging.getLogger("hydrofmu.moorings.kernel")

_loaded: dict[str, ctypes.CDLL] = {}
_noted: set[str] = set()
_last_error: list[str] = []


class KernelUnavailable(Exception):
    """No usable compiled line kernel; the message says why."""


def note_once(message: str) -> None:
    """Log ``message`` (level INFO) once per process."""
    if message not in _noted:
        _noted.add(message)
        LOG.info(message)


def unavailable_reason() -> str | None:
    """Why the last :func:`load_library` found no usable library (None: it did, or it was
    not called)."""
    return _last_error[-1] if _last_error else None


def forget() -> None:
    """Forget the library loaded in this process and the notes given (a new process, as
    far as this module knows; for tests)."""
    _loaded.clear()
    _noted.clear()
    _last_error.clear()


def check_library(path: Path) -> ctypes.CDLL:
    """Load the library at ``path`` and check its ABI.

    Raises
    ------
    KernelUnavailable
        It does not load, lacks the entry points, or has another ABI.
    """
    try:
        lib = ctypes.CDLL(str(path))
        abi = lib.hf_line_kernel_abi
        size = lib.hf_line_kernel_struct_size
        evaluate = lib.hf_line_eval
        lib.hf_line_advance_rk  # noqa: B018 - the replay's steppers must be there too
        lib.hf_line_advance_si  # noqa: B018
    except (OSError, AttributeError) as exc:
        raise KernelUnavailable(f"{path} does not load as the line kernel: {exc}") from exc
    abi.restype = size.restype = ctypes.c_int64
    abi.argtypes = size.argtypes = []
    if abi() != ABI_VERSION or size() != ctypes.sizeof(HfLines):
        raise KernelUnavailable(
            f"{path} has ABI {abi()} (struct of {size()} bytes); this hydrofmu needs ABI "
            f"{ABI_VERSION} ({ctypes.sizeof(HfLines)} bytes): delete it to rebuild")
    evaluate.restype = ctypes.c_int
    evaluate.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_double, ctypes.c_int64,
                                                ctypes.c_int64, ctypes.c_void_p]
    return lib


def load_library(path: str | Path | None = None) -> ctypes.CDLL:
    """The compiled kernel: ``path``, else the bundled one, else (installed package only)
    the cached one. A library that loads is kept for the process.

    Raises
    ------
    KernelUnavailable
        None is found or usable; the message says which were tried and the fix.
    """
    if path is not None:
        return check_library(Path(path))
    if "lib" in _loaded:
        return _loaded["lib"]
    try:
        bundled = bundled_library()
        if bundled.is_file():
            _loaded["lib"] = check_library(bundled)
            return _loaded["lib"]
        tried = [f"no {bundled.name} beside {bundled.parent}"]
        if not reads_cache():
            tried.append("an FMU compiles nothing at run time (rebuild it on this platform)")
            raise KernelUnavailable("; ".join(tried))
        cached = cached_library()
        if not cached.is_file():
            tried.append(f"no {cached.name} in {cache_dir()} (hydrofmu compiles it there when "
                         "it builds a model with MoorDyn lines or replays lines, with a C "
                         "compiler)")
            raise KernelUnavailable("; ".join(tried))
        _loaded["lib"] = check_library(cached)
        _last_error.clear()
        return _loaded["lib"]
    except KernelUnavailable as exc:
        _last_error[:] = [str(exc)]
        raise


def select_kernel(arrays: LineArrays, mode: str) -> LineKernel | None:
    """The compiled kernel for the lines of ``arrays`` under ``mooring.kernel = mode``, or
    None (numpy).

    ``"auto"`` falls back to numpy with one logged note (:func:`note_once`) when no library
    is usable; ``"numpy"`` notes its choice once too.

    Raises
    ------
    ConfigError
        ``mode`` is not one of :data:`KERNELS`, or ``"c"`` and no library is usable.
    """
    if mode not in KERNELS:
        raise ConfigError(f"mooring kernel {mode!r} is not one of "
                          f"{', '.join(map(repr, KERNELS))}", value=mode)
    if mode == "numpy":
        note_once("mooring lines: the numpy kernel runs (kernel = 'numpy')")
        return None
    try:
        return LineKernel(arrays=arrays, lib=load_library())
    except KernelUnavailable as exc:
        if mode == "c":
            raise ConfigError(
                f"mooring kernel 'c' requested but the compiled line kernel is not available: "
                f"{exc}; fix: install a C compiler (or pip install 'hydrofmu[native]'), or "
                f"use kernel = 'auto' (numpy fallback)", value=mode) from exc
        note_once(f"mooring lines: the numpy kernel runs (the compiled one is not available: "
                  f"{exc})")
        return None
