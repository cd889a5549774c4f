"""User parts in an FMU: the user's module copied into the bundled run-time package.

A part class written in the user's own module (a subclass of
:class:`~hydrofmu.runtime.parts.part.Part`,
registered with :func:`~hydrofmu.runtime.parts.part.register_part`) is exported with
``build_fmu(..., parts=[MyPart])``: its module's source is copied to
``user_parts/<module>.py`` of the bundled package with its hydrofmu imports made relative
(``from hydrofmu import Part`` -> ``from ..parts.part import Part``), and the FMU's
configuration lists the classes (``config["user_parts"]``), which the FMU imports from
its own package (:mod:`hydrofmu.runtime.parts.user`). The module may import numpy, the
standard library and hydrofmu's run-time names only, as the rest of the bundle.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..runtime.errors import ExportError
from ..runtime.parts.part import Part
from ..runtime.parts.user import USER_FOLDER

#: Names of the top-level API that live in the run-time package, by run-time module.
RUNTIME_NAMES: dict[str, str] = {
    "Part": "parts.part", "Port": "parts.part", "Context": "parts.part",
    "ModelInfo": "parts.part", "register_part": "parts.part",
    "ParameterSpec": "parameters.table",
    "LinearSystem": "parts.linear", "LinearOutputs": "parts.linear",
    "HydroFMUError": "errors", "ConfigError": "errors", "HydroDataError": "errors",
    "IntegrationError": "errors", "InputError": "errors",
}


def _spec(item: Any) -> tuple[type[Part], dict[str, Any]]:
    cls, options = item if isinstance(item, tuple) else (item, {})
    if not (isinstance(cls, type) and issubclass(cls, Part)):
        raise ExportError(f"parts: {cls!r} is not a subclass of hydrofmu.Part", value=repr(cls))
    return cls, dict(options)


def _relative_imports(source: str, where: str) -> str:
    """``source`` with its hydrofmu imports made relative to ``user_parts/<module>.py``."""
    tree = ast.parse(source, filename=where)
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad = [a.name for a in node.names if a.name.split(".")[0] == "hydrofmu"]
            if bad:
                raise ExportError(
                    f"{where}:{node.lineno}: 'import {bad[0]}': a part bundled in an FMU "
                    "imports hydrofmu names with 'from hydrofmu import Part, ...'",
                    value=bad[0])
            continue
        if not isinstance(node, ast.ImportFrom) or node.level:
            continue
        module = node.module or ""
        if module.split(".")[0] != "hydrofmu":
            continue
        groups: dict[str, list[str]] = {}
        for alias in node.names:
            text = alias.name if alias.asname is None else f"{alias.name} as {alias.asname}"
            if module == "hydrofmu" and alias.name in RUNTIME_NAMES:
                target = RUNTIME_NAMES[alias.name]
            elif module.startswith("hydrofmu.runtime."):
                target = module[len("hydrofmu.runtime."):]
            else:
                raise ExportError(
                    f"{where}:{node.lineno}: 'from {module} import {alias.name}' is not in "
                    "the FMU's run time; a user part may import "
                    f"{', '.join(sorted(RUNTIME_NAMES))} from hydrofmu, or from "
                    "hydrofmu.runtime modules", value=f"{module}.{alias.name}")
            groups.setdefault(target, []).append(text)
        indent = " " * node.col_offset
        text = "".join(f"{indent}from ..{t} import {', '.join(n)}\n" for t, n in groups.items())
        edits.append((node.lineno, node.end_lineno or node.lineno, text))
    for lo, hi, text in sorted(edits, reverse=True):
        lines[lo - 1 : hi] = [text]
    return "".join(lines)


def bundle_user_parts(parts: Sequence[Any]) -> tuple[dict[str, bytes], list[dict[str, Any]]]:
    """The files and configuration entries that carry ``parts`` into an FMU.

    Parameters
    ----------
    parts
        Part classes, or ``(class, options)`` pairs, defined in module files.

    Returns
    -------
    files, entries
        ``{"user_parts/<module>.py": source}`` for the bundled package, and
        ``[{"module", "class", "options"}]`` for ``config["user_parts"]``.

    Raises
    ------
    ExportError
        A class that is not a part, defined where no source file exists (an interactive
        session), or whose module imports a hydrofmu name outside the run time.
    """
    files: dict[str, bytes] = {}
    entries: list[dict[str, Any]] = []
    for item in parts:
        cls, options = _spec(item)
        try:
            path = Path(inspect.getsourcefile(cls) or "")
        except TypeError:
            path = Path()
        if not path.is_file():
            raise ExportError(f"parts: {cls.__qualname__} has no source file; define it in a "
                              ".py module to bundle it in an FMU", value=cls.__qualname__)
        stem = path.stem
        if not stem.isidentifier():
            raise ExportError(f"parts: the module file name '{path.name}' is not a Python "
                              "identifier; rename it", value=path.name)
        rel = f"{USER_FOLDER}/{stem}.py"
        source = _relative_imports(path.read_text(encoding="utf-8"), str(path))
        if files.get(rel, source.encode()) != source.encode():
            raise ExportError(f"parts: two user modules named '{stem}'; rename one",
                              value=stem)
        files[rel] = source.encode()
        entries.append({"module": stem, "class": cls.__name__, "options": options})
    return files, entries
