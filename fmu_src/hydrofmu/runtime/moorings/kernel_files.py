"""Where the compiled line kernel lives: its C source, the bundled and the cached library.

Two places hold a compiled ``line_kernel.c`` (:mod:`.kernel_loader` tries them in order):

1. beside this module, ``line_kernel.<platform><ext>`` (:func:`bundled_library`): in an
   FMU, compiled at export for the build platform (an FMU run on another platform finds
   none of its platform and runs numpy); the source tree and the installed package have
   none there;
2. the user's cache folder (:func:`cache_dir`: ``$HYDROFMU_CACHE_DIR``, else
   ``$XDG_CACHE_HOME/hydrofmu``, else ``~/.cache/hydrofmu``), under a name that holds the
   hash of the C source and ABI version (:func:`cached_library`). The build side fills it
   (:meth:`hydrofmu.export.kernel_build.KernelBuild.compiled_library`, called when the API builds a
   model with MoorDyn lines and when a replay starts); it is read only by the installed
   package (:func:`reads_cache`): an FMU uses its bundled library or none, never a file
   of the machine it runs on.

Nothing here compiles or registers anything: the run time only looks (numpy-free,
standard library only).
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
from pathlib import Path

#: Version of the C interface (``struct hf_lines``, ``hf_line_eval``, ``struct hf_motion``,
#: ``hf_line_advance_rk`` and ``hf_line_advance_si``); must equal
#: ``HF_LINE_KERNEL_ABI`` of the compiled library.
ABI_VERSION = 3

#: The C source, beside this module in the installed package (and in an FMU).
SOURCE = Path(__file__).with_name("line_kernel.c")

#: The catenary solve's C source, compiled into the same library (``catenary_kernel.c``).
CATENARY_SOURCE = Path(__file__).with_name("catenary_kernel.c")

#: The installed package's name of this folder; an FMU's bundled copy has another
#: (``_hydrofmu_<hash>.moorings``).
INSTALLED_PACKAGE = "hydrofmu.runtime.moorings"


def platform_tag() -> str:
    """``<os>-<machine>`` of this process, e.g. ``linux-x86_64``."""
    return f"{sys.platform}-{platform.machine().lower() or 'unknown'}"


def library_suffix() -> str:
    """Extension of a shared library here (``.so``, ``.dylib``, ``.dll``)."""
    if sys.platform.startswith("win"):
        return ".dll"
    return ".dylib" if sys.platform == "darwin" else ".so"


def bundled_library_name() -> str:
    """File name of the library placed beside this module (in an FMU, at export)."""
    return f"line_kernel.{platform_tag()}{library_suffix()}"


def bundled_library() -> Path:
    """Path of the library beside this module (it may not exist)."""
    return Path(__file__).with_name(bundled_library_name())


def cache_dir() -> Path:
    """Folder of the libraries the build side compiles on first use."""
    env = os.environ.get("HYDROFMU_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "hydrofmu"


def source_hash() -> str:
    """Short hash of the C sources and ABI version (the cached library's name)."""
    digest = hashlib.sha256(SOURCE.read_bytes() + CATENARY_SOURCE.read_bytes()
                            + str(ABI_VERSION).encode())
    return digest.hexdigest()[:12]


def cached_library() -> Path:
    """Path of the library compiled from this source into the cache (it may not exist)."""
    return cache_dir() / f"line_kernel-{source_hash()}.{platform_tag()}{library_suffix()}"


def reads_cache() -> bool:
    """Whether this copy of the run time looks in the cache: the installed package does
    (its build side fills the cache); an FMU's bundled copy does not."""
    return __name__.rpartition(".")[0] == INSTALLED_PACKAGE
