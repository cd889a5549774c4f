"""Where the compiled rigid-body kernel lives: its C source, the bundled and the cached
library.

As the panel kernel (:mod:`hydrofmu.runtime.panels.panel_files`), sharing the line
kernel's platform tag, library suffix and cache folder: an FMU carries
``body_kernel.<platform><ext>`` beside this module, compiled at export; the installed
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

#: Version of the C interface (``struct hb_model`` and the ``hb_*`` functions); must equal
#: ``HB_BODY_KERNEL_ABI`` of the compiled library.
ABI_VERSION = 1

#: The C source, beside this module.
SOURCE = Path(__file__).with_name("body_kernel.c")

#: The installed package's name of this folder (an FMU's copy has another).
INSTALLED_PACKAGE = "hydrofmu.runtime.bodies"


def bundled_library_name() -> str:
    """File name of the library placed beside this module in an FMU."""
    return f"body_kernel.{platform_tag()}{library_suffix()}"


def bundled_library() -> Path:
    """Path of the library beside this module (it may not exist)."""
    return Path(__file__).with_name(bundled_library_name())


def cached_library() -> Path:
    """Path of the library compiled from this source into the cache (it may not exist)."""
    digest = hashlib.sha256(SOURCE.read_bytes() + str(ABI_VERSION).encode()).hexdigest()
    return cache_dir() / f"body_kernel-{digest[:12]}.{platform_tag()}{library_suffix()}"


def reads_cache() -> bool:
    """Whether this copy of the run time looks in the cache (the installed package does,
    an FMU's bundled copy does not)."""
    return __name__.rpartition(".")[0] == INSTALLED_PACKAGE
