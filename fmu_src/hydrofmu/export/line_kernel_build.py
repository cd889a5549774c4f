"""Build time: compile the line kernel (``line_kernel.c``) into a shared library.

Two places receive it (the run time only looks, see
:mod:`hydrofmu.runtime.moorings.kernel_files`):

- an FMU: the export compiles it beside the bundled ``moorings/`` modules
  (:func:`bundle_library`);
- the installed package: :func:`compiled_library` compiles it once into the user's cache
  folder, under the hash of the source, when the build side is about to run lines in this
  process: :class:`hydrofmu.Model` (before it resolves a configuration with MoorDyn lines,
  and before it builds a simulator) and the replay (:mod:`hydrofmu.cosim.replay`). The run
  time's loader then finds it there.

Nothing happens at import. Not a run-time module: an FMU never compiles.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..runtime.errors import ExportError, OptionalDependencyError
from ..runtime.moorings.kernel_files import (
    CATENARY_SOURCE,
    SOURCE,
    bundled_library_name,
    cached_library,
)
from .python_binary import compile_shared_library

LOG = logging.getLogger("hydrofmu.moorings.kernel")

#: Per process: the cached library's path -> None (compiled or found) or why it failed.
_tried: dict[Path, str | None] = {}


def build_library(source: Path, output: Path) -> None:
    """Compile ``source`` (the kernel's C file) and the catenary solve
    (``catenary_kernel.c``) into the shared library ``output``."""
    compile_shared_library(source, output, flags=(str(CATENARY_SOURCE),))


def compiled_library() -> Path | None:
    """The kernel compiled into the cache folder
    (:func:`~hydrofmu.runtime.moorings.kernel_files.cached_library`), compiled now when it
    is not there yet.

    Returns its path, or None when it cannot be compiled (no C compiler, a failed
    compilation: logged once, and the lines run numpy). A failure is not retried in the
    same process.
    """
    out = cached_library()
    if out.is_file():
        return out
    if out in _tried:
        return None
    try:
        build_library(SOURCE, out)
    except (OptionalDependencyError, ExportError, OSError) as exc:
        _tried[out] = str(exc)
        LOG.info("mooring lines: compiling %s into %s failed: %s", SOURCE.name, out, exc)
        return None
    _tried[out] = None
    return out


def uses_line_kernel(config: Mapping[str, Any]) -> bool:
    """Whether a configuration (resolved, or as read) has MoorDyn lines that may run the
    compiled kernel (``kernel`` other than ``"numpy"``) or catenary lines (their solve is
    in the same library)."""
    moorings = config.get("moorings", [])
    if not isinstance(moorings, list):
        return False
    return any(isinstance(m, Mapping) and (m.get("type") == "catenary" or (
        m.get("type") == "moordyn" and m.get("kernel", "auto") != "numpy")) for m in moorings)


def prepare_line_kernel(config: Mapping[str, Any]) -> None:
    """Compile the kernel into the cache (:func:`compiled_library`) when ``config`` has
    MoorDyn lines that may use it, and the panel kernel when it has a nonlinear body
    (:func:`hydrofmu.export.panel_kernel_build.prepare_panel_kernel`); nothing otherwise."""
    from .body_kernel_build import prepare_body_kernel
    from .panel_kernel_build import prepare_panel_kernel

    prepare_panel_kernel(config)
    prepare_body_kernel(config)  # large rotations: the rigid-body kernel
    if uses_line_kernel(config):
        compiled_library()


def bundle_library(package_dir: Path) -> Path:
    """Compile the kernel next to the bundled ``moorings/`` modules of an FMU's staged
    run-time package ``package_dir``; returns the library's path.

    Raises
    ------
    OptionalDependencyError
        No C compiler.
    ExportError
        The compilation failed.
    """
    out = Path(package_dir) / "moorings" / bundled_library_name()
    build_library(SOURCE, out)
    return out


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
