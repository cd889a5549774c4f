"""Build time: compile the line kernel (``line_kernel.c``) into a shared library.

The installed package registers :func:`build_library` with
:func:`hydrofmu.runtime.moorings.line_kernel.set_builder` (in ``hydrofmu/moorings/__init__.py``), so
that the source tree and ``hydrofmu mooring replay`` compile the kernel on first use into
the cache folder; the export compiles it into the FMU with :func:`bundle_library`.
Not a run-time module: an FMU never compiles.
"""

from __future__ import annotations

from pathlib import Path

from ..runtime.moorings.line_kernel import SOURCE, bundled_library_name
from .python_binary import compile_shared_library


def build_library(source: Path, output: Path) -> None:
    """Compile ``source`` (the kernel's C file) into the shared library ``output``."""
    compile_shared_library(source, output)


def bundle_library(package_dir: Path) -> Path:
    """Compile the kernel next to the bundled ``moorings/kernel.py`` of an FMU's staged
    run-time package ``package_dir``; returns the library's path.

    Raises
    ------
    OptionalDependencyError
        No C compiler.
    ExportError
        The compilation failed.
    """
    out = Path(package_dir) / "moorings" / bundled_library_name()
    compile_shared_library(SOURCE, out)
    return out
