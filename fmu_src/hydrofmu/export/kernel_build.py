"""Build time: compile a C kernel of the run time into a shared library, in the two places
the run time looks.

Each kernel (the mooring lines', the panels', the rigid bodies') declares one
:class:`KernelBuild` in its own module (:mod:`.line_kernel_build`,
:mod:`.panel_kernel_build`, :mod:`.body_kernel_build`): its C source, where the run time
looks for the library (its ``*_files`` module) and which configurations need it. This
class does the rest, once for all of them:

- the installed package: :meth:`KernelBuild.compiled_library` compiles the kernel once
  into the user's cache folder, under the hash of the source, when the build side is about
  to run it in this process (:meth:`KernelBuild.prepare`); the run time's loader finds it
  there;
- an FMU: :meth:`KernelBuild.files` compiles it beside the bundled run-time modules.

Nothing happens at import. Not a run-time module: an FMU never compiles.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..runtime.errors import ExportError, OptionalDependencyError
from .python_binary import compile_shared_library

__all__ = ["KernelBuild"]

#: Per process: a cached library's path -> None (compiled or found) or why it failed.
_tried: dict[Path, str | None] = {}


@dataclass(frozen=True)
class KernelBuild:
    """One C kernel of the run time, as the build side compiles it.

    Parameters
    ----------
    label : str
        The run-time package's folder that holds the kernel's modules (``"moorings"``,
        ``"panels"``, ``"bodies"``); the library goes beside them in an FMU.
    source : Path
        The kernel's C file.
    cached_library : callable
        The path of the library compiled from ``source`` in the user's cache folder (the
        run time's ``*_files.cached_library``).
    bundled_library_name : callable
        The library's file name beside the modules in an FMU (``*_files``).
    uses : callable
        Whether a configuration (resolved or as read) needs the kernel.
    needs : str
        The message when it cannot be compiled into an FMU (``"a body with nonlinear
        hydrostatics needs the compiled panel kernel"``).
    option : str
        The configuration key the message names.
    extra_sources : tuple of Path
        Further C files compiled into the same library (the catenary solve in the line
        kernel's).
    """

    label: str
    source: Path
    cached_library: Callable[[], Path]
    bundled_library_name: Callable[[], str]
    uses: Callable[[Mapping[str, Any]], bool]
    needs: str
    option: str
    extra_sources: tuple[Path, ...] = ()

    def compile(self, output: Path) -> None:
        """Compile the kernel (and :attr:`extra_sources`) into the shared library ``output``.

        Raises
        ------
        OptionalDependencyError
            No C compiler.
        ExportError
            The compilation failed.
        """
        compile_shared_library(self.source, output,
                               flags=tuple(str(p) for p in self.extra_sources))

    def compiled_library(self) -> Path | None:
        """The kernel in the cache folder, compiled now when it is not there yet; None when
        it cannot be compiled (logged once; not retried in the same process)."""
        out = self.cached_library()
        if out.is_file():
            return out
        if out in _tried:
            return None
        try:
            self.compile(out)
        except (OptionalDependencyError, ExportError, OSError) as exc:
            _tried[out] = str(exc)
            logging.getLogger(f"hydrofmu.{self.label}.kernel").info(
                "%s: compiling %s into %s failed: %s", self.label, self.source.name, out, exc)
            return None
        _tried[out] = None
        return out

    def prepare(self, config: Mapping[str, Any]) -> None:
        """Compile the kernel into the cache when ``config`` needs it."""
        if self.uses(config):
            self.compiled_library()

    def bundle_library(self, package_dir: Path) -> Path:
        """Compile the kernel beside the bundled modules (``<package_dir>/<label>/``) of an
        FMU's staged run-time package; returns the library's path.

        Raises
        ------
        OptionalDependencyError
            No C compiler.
        ExportError
            The compilation failed.
        """
        out = Path(package_dir) / self.label / self.bundled_library_name()
        self.compile(out)
        return out

    def files(self, config: Mapping[str, Any], work: Path) -> dict[str, bytes]:
        """The compiled kernel as a file of an FMU's run-time package,
        ``{"<label>/<library>": bytes}``, when ``config`` needs it; ``{}`` otherwise.

        Raises
        ------
        ExportError
            The kernel is needed and cannot be compiled (it has no other implementation).
        """
        if not self.uses(config):
            return {}
        try:
            library = self.bundle_library(Path(work) / f"{self.label}_kernel")
        except (OptionalDependencyError, ExportError) as exc:
            raise ExportError(f"{self.needs} in the FMU: {exc}", value=self.option) from exc
        return {f"{self.label}/{library.name}": library.read_bytes()}
