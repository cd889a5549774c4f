"""Build time: the rigid-body kernel (``runtime/bodies/body_kernel.c``), declared for
:class:`~hydrofmu.export.kernel_build.KernelBuild`.

The run time only looks (:mod:`hydrofmu.runtime.bodies.body_files`): an FMU with a
large-rotation body gets the library beside its bundled ``bodies/`` modules
(:data:`BODY_KERNEL`'s ``files``, called by :func:`hydrofmu.export.fmu.build_fmu`); the
installed package gets it once in the user's cache folder (``compiled_library``), compiled
when a configuration with a large-rotation body is resolved (``prepare``). Nothing happens
at import.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..runtime.bodies.body_files import SOURCE, bundled_library_name, cached_library
from .kernel_build import KernelBuild


def uses_body_kernel(config: Mapping[str, Any]) -> bool:
    """Whether a configuration (resolved or as read) has a body with large rotations."""
    bodies = config.get("bodies", [])
    return isinstance(bodies, list) and any(
        isinstance(b, Mapping) and b.get("rotations") == "large" for b in bodies)


#: The rigid-body kernel: large rotations.
BODY_KERNEL = KernelBuild(
    label="bodies", source=SOURCE, cached_library=cached_library,
    bundled_library_name=bundled_library_name, uses=uses_body_kernel,
    needs="a body with rotations = \"large\" needs the compiled rigid-body kernel",
    option="rotations")

compiled_library = BODY_KERNEL.compiled_library
