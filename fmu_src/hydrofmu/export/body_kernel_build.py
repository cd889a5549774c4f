"""Build time: compile the rigid-body kernel (``runtime/bodies/body_kernel.c``).

The sibling of :mod:`.panel_kernel_build`, with the same two places (the run time only
looks, see :mod:`hydrofmu.runtime.bodies.body_files`): an FMU with a large-rotation body
gets the library beside its bundled ``bodies/`` modules (:func:`body_kernel_files`, called
by :func:`hydrofmu.export.fmu.build_fmu`); the installed package gets it once in the user's
cache folder (:func:`compiled_library`), compiled when a configuration with a
large-rotation body is resolved (:func:`prepare_body_kernel`). Nothing happens at import.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..runtime.bodies.body_files import SOURCE, bundled_library_name, cached_library
from ..runtime.errors import ExportError, OptionalDependencyError
from .python_binary import compile_shared_library

LOG = logging.getLogger("hydrofmu.bodies.kernel")

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
        LOG.info("bodies: compiling %s into %s failed: %s", SOURCE.name, out, exc)
        return None
    _tried[out] = None
    return out


def uses_body_kernel(config: Mapping[str, Any]) -> bool:
    """Whether a configuration (resolved or as read) has a body with large rotations."""
    bodies = config.get("bodies", [])
    return isinstance(bodies, list) and any(
        isinstance(b, Mapping) and b.get("rotations") == "large" for b in bodies)


def prepare_body_kernel(config: Mapping[str, Any]) -> None:
    """Compile the kernel into the cache when ``config`` has a large-rotation body."""
    if uses_body_kernel(config):
        compiled_library()


def body_kernel_files(config: Mapping[str, Any], work: Path) -> dict[str, bytes]:
    """The compiled kernel as a file of an FMU's run-time package,
    ``{"bodies/<library>": bytes}``, when a body has large rotations; ``{}`` otherwise.

    Raises
    ------
    ExportError
        A large-rotation body and no compiler (the kernel has no other implementation).
    """
    if not uses_body_kernel(config):
        return {}
    out = Path(work) / "body_kernel" / "bodies" / bundled_library_name()
    try:
        compile_shared_library(SOURCE, out)
    except (OptionalDependencyError, ExportError) as exc:
        raise ExportError(f"a body with rotations = \"large\" needs the compiled rigid-body "
                          f"kernel in the FMU: {exc}", value="rotations") from exc
    return {f"bodies/{out.name}": out.read_bytes()}
