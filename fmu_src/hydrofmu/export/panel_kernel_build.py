"""Build time: the panel kernel (``runtime/panels/panel_kernel.c``), declared for
:class:`~hydrofmu.export.kernel_build.KernelBuild`.

The run time only looks (:mod:`hydrofmu.runtime.panels.panel_files`): an FMU with a
nonlinear body gets the library beside its bundled ``panels/`` modules
(:data:`PANEL_KERNEL`'s ``files``, called by :func:`hydrofmu.export.fmu.build_fmu`); the
installed package gets it once in the user's cache folder (``compiled_library``), compiled
when a configuration with a nonlinear body is resolved (``prepare``). Nothing happens at
import.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..runtime.panels.panel_files import SOURCE, bundled_library_name, cached_library
from .kernel_build import KernelBuild


def uses_panel_kernel(config: Mapping[str, Any]) -> bool:
    """Whether a configuration (resolved or as read) has a body with ``nonlinear`` set."""
    bodies = config.get("bodies", [])
    return isinstance(bodies, list) and any(
        isinstance(b, Mapping) and b.get("nonlinear") for b in bodies)


#: The panel kernel: nonlinear hydrostatics and Froude-Krylov.
PANEL_KERNEL = KernelBuild(
    label="panels", source=SOURCE, cached_library=cached_library,
    bundled_library_name=bundled_library_name, uses=uses_panel_kernel,
    needs="a body with nonlinear hydrostatics needs the compiled panel kernel",
    option="nonlinear")

compiled_library = PANEL_KERNEL.compiled_library
