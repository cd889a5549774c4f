"""Build time: the mooring line kernel (``runtime/moorings/line_kernel.c``, with the
catenary solve ``catenary_kernel.c`` in the same library), declared for
:class:`~hydrofmu.export.kernel_build.KernelBuild`, and the preparation of every kernel a
configuration needs.

Two places receive it (the run time only looks, see
:mod:`hydrofmu.runtime.moorings.kernel_files`):

- an FMU: the export compiles it beside the bundled ``moorings/`` modules
  (:data:`LINE_KERNEL`'s ``bundle_library``);
- the installed package: ``compiled_library`` compiles it once into the user's cache
  folder, under the hash of the source, when the build side is about to run lines in this
  process: :class:`hydrofmu.Model` (before it resolves a configuration with MoorDyn lines,
  and before it builds a simulator) and the replay (:mod:`hydrofmu.cosim.replay`). The run
  time's loader then finds it there.

Nothing happens at import. Not a run-time module: an FMU never compiles.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..runtime.moorings.kernel_files import (
    CATENARY_SOURCE,
    SOURCE,
    bundled_library_name,
    cached_library,
)
from .body_kernel_build import BODY_KERNEL
from .kernel_build import KernelBuild
from .panel_kernel_build import PANEL_KERNEL


def uses_line_kernel(config: Mapping[str, Any]) -> bool:
    """Whether a configuration (resolved, or as read) has MoorDyn lines that may run the
    compiled kernel (``kernel`` other than ``"numpy"``) or catenary lines (their solve is
    in the same library)."""
    moorings = config.get("moorings", [])
    if not isinstance(moorings, list):
        return False
    return any(isinstance(m, Mapping) and (m.get("type") == "catenary" or (
        m.get("type") == "moordyn" and m.get("kernel", "auto") != "numpy")) for m in moorings)


#: The line kernel: MoorDyn-style lumped-mass lines and the catenary solve.
LINE_KERNEL = KernelBuild(
    label="moorings", source=SOURCE, cached_library=cached_library,
    bundled_library_name=bundled_library_name, uses=uses_line_kernel,
    needs="catenary moorings need the compiled mooring kernel", option="catenary",
    extra_sources=(CATENARY_SOURCE,))

compiled_library = LINE_KERNEL.compiled_library


def prepare_line_kernel(config: Mapping[str, Any]) -> None:
    """Compile into the cache every kernel ``config`` needs: the line kernel (MoorDyn lines
    that may use it, catenary lines), the panel kernel (a nonlinear body) and the
    rigid-body kernel (a large-rotation body); nothing otherwise."""
    for kernel in (PANEL_KERNEL, BODY_KERNEL, LINE_KERNEL):
        kernel.prepare(config)


def prepare_line_kernel_for_file(path: str | Path, overrides: Mapping[str, Any]) -> None:
    """:func:`prepare_line_kernel` for the TOML file ``path`` with ``overrides`` (sections
    replacing or updating the file's, as :func:`hydrofmu.config.configuration.load_config`
    applies them); a file that does not read is left to ``load_config`` to report."""
    import tomllib

    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return
    prepare_line_kernel({**data, **{k: v for k, v in overrides.items()
                                    if k in ("moorings", "bodies")}})
