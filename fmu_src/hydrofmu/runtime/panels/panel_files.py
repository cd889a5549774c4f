"""Where the compiled panel kernel lives: its C source, the bundled and the cached library.

As the line kernel (:mod:`hydrofmu.runtime.moorings.kernel_files`, whose platform tag,
library suffix and cache folder this module shares): an FMU carries
``panel_kernel.<platform><ext>`` beside this module, compiled at export; the installed
package reads the one its build side compiled into the user's cache folder under the hash
of the source (:meth:`hydrofmu.export.kernel_build.KernelBuild.compiled_library`). Nothing here
compiles anything.

Run-time module: standard library only.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..moorings.kernel_files import cache_dir, library_suffix, platform_tag

__all__ = ["ABI_VERSION", "SOURCE", "bundled_library", "bundled_library_name",
           "cache_dir", "cached_library", "reads_cache"]

#: Version of the C interface (``struct hp_panels``, ``hp_panel_eval``); must equal
#: ``HP_PANEL_KERNEL_ABI`` of the compiled library.
ABI_VERSION = 3

#: The C source, beside this module.
SOURCE = Path(__file__).with_name("panel_kernel.c")

#: The installed package's name of this folder (an FMU's copy has another).
INSTALLED_PACKAGE = "hydrofmu.runtime.panels"


def bundled_library_name() -> str:
    """File name of the library placed beside this module in an FMU."""
    return f"panel_kernel.{platform_tag()}{library_suffix()}"


def bundled_library() -> Path:
    """Path of the library beside this module (it may not exist)."""
    return Path(__file__).with_name(bundled_library_name())


def source_hash() -> str:
    """Short hash of the C source and ABI version (the cached library's name)."""
    digest = hashlib.sha256(SOURCE.read_bytes() + str(ABI_VERSION).encode())
    return digest.hexdigest()[:12]


def cached_library() -> Path:
    """Path of the library compiled from this source into the cache (it may not exist)."""
    return cache_dir() / f"panel_kernel-{source_hash()}.{platform_tag()}{library_suffix()}"


def reads_cache() -> bool:
    """Whether this copy of the run time looks in the cache (the installed package does,
    an FMU's bundled copy does not)."""
    return __name__.rpartition(".")[0] == INSTALLED_PACKAGE
