"""Build time: compile the panel kernel (``runtime/panels/panel_kernel.c``).

The sibling of :mod:`.line_kernel_build`, with the same two places (the run time only
looks, see :mod:`hydrofmu.runtime.panels.panel_files`): an FMU with a nonlinear body gets
the library beside its bundled ``panels/`` modules (:func:`bundle_library`, called by
:func:`hydrofmu.export.fmu.build_fmu`); the installed package gets it once in the user's
cache folder (:func:`compiled_library`), compiled when a configuration with a nonlinear
body is resolved (:func:`prepare_panel_kernel`). Nothing happens at import.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..runtime.errors import ExportError, OptionalDependencyError
from ..runtime.panels.panel_files import SOURCE, bundled_library_name, cached_library
from .python_binary import compile_shared_library

LOG = logging.getLogger("hydrofmu.panels.kernel")

#: Per process: the cached library's path -> None (compiled or found) or why it failed.
_tried: dict[Path, str | None] = {}


def compiled_library() -> Path | None:
    """The kernel in the cache folder, compiled now when it is not there yet; None when it
    cannot be compiled (logged; not retried in the same process)."""
    out = cached_library()
    if out.is_file():
        return out
    if out in _tried:
        return None
    try:
        compile_shared_library(SOURCE, out)
    except (OptionalDependencyError, ExportError, OSError) as exc:
        _tried[out] = str(exc)
        LOG.info("panels: compiling %s into %s failed: %s", SOURCE.name, out, exc)
        return None
    _tried[out] = None
    return out


def uses_panel_kernel(config: Mapping[str, Any]) -> bool:
    """Whether a configuration (resolved or as read) has a body with ``nonlinear`` set."""
    bodies = config.get("bodies", [])
    return isinstance(bodies, list) and any(
        isinstance(b, Mapping) and b.get("nonlinear") for b in bodies)


def prepare_panel_kernel(config: Mapping[str, Any]) -> None:
    """Compile the kernel into the cache when ``config`` has a nonlinear body."""
    if uses_panel_kernel(config):
        compiled_library()


def bundle_library(package_dir: Path) -> Path:
    """Compile the kernel next to the bundled ``panels/`` modules of an FMU's staged
    run-time package ``package_dir``; returns the library's path.

    Raises
    ------
    OptionalDependencyError
        No C compiler.
    ExportError
        The compilation failed.
    """
    out = Path(package_dir) / "panels" / bundled_library_name()
    compile_shared_library(SOURCE, out)
    return out


def panel_kernel_files(config: Mapping[str, Any], work: Path) -> dict[str, bytes]:
    """The compiled panel kernel as a file of an FMU's run-time package,
    ``{"panels/<library>": bytes}``, when a body is nonlinear; ``{}`` otherwise.

    Raises
    ------
    ExportError
        A nonlinear body and no compiler (the part has no other implementation).
    """
    if not uses_panel_kernel(config):
        return {}
    try:
        library = bundle_library(Path(work) / "panel_kernel")
    except (OptionalDependencyError, ExportError) as exc:
        raise ExportError(f"a body with nonlinear hydrostatics needs the compiled panel "
                          f"kernel in the FMU: {exc}", value="nonlinear") from exc
    return {f"panels/{library.name}": library.read_bytes()}
