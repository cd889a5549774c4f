"""The run-time package bundled in every FMU: which modules, which third-party imports they
may use, the check of their imports, and the staging under a content-hashed name.

Why a uniquely named package: a module already imported by the host shadows a bundled
module of the same name, so two FMUs built from different code must not share one name.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from pathlib import Path

from ..runtime.errors import ExportError
from ..runtime.version import __version__

#: The folder bundled into every FMU, whole: every file under it except ``__init__.py``
#: (regenerated) and caches. The folder is the rule; there is no list to keep.
RUNTIME_ROOT: Path = Path(__file__).resolve().parent.parent / "runtime"

#: File suffixes copied from :data:`RUNTIME_ROOT` (the C source of the line kernel travels
#: with its Python wrapper; the compiled library is added per FMU).
RUNTIME_SUFFIXES: frozenset[str] = frozenset({".py", ".c"})


#: Third-party packages the run-time modules may import (besides the standard library).
#: No scipy: a C host crashes at exit when scipy was imported in the FMU (issue 7).
RUNTIME_DEPENDENCIES: frozenset[str] = frozenset({"numpy", "pythonfmu"})

#: Prefix of the bundled package's name.
PACKAGE_PREFIX = "_hydrofmu_"


# ---------------------------------------------------------------------------- bundle
def runtime_sources(root: Path | None = None) -> dict[str, bytes]:
    """Relative POSIX path -> content of every file bundled from ``root`` (the run-time
    folder): ``.py`` and ``.c`` files, ``__init__.py`` and caches excluded."""
    root = RUNTIME_ROOT if root is None else Path(root)
    files: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        if (
            path.is_file()
            and path.suffix in RUNTIME_SUFFIXES
            and path.name != "__init__.py"
            and "__pycache__" not in path.parts
        ):
            files[path.relative_to(root).as_posix()] = path.read_bytes()
    if "loader.py" not in files:
        raise ExportError(f"{root} holds no run-time package; the FMU cannot be built",
                          value=str(root))
    return files


def check_runtime_imports(files: dict[str, bytes]) -> None:
    """Check that bundled modules import only each other (relatively), stdlib and numpy.

    Parameters
    ----------
    files
        Relative POSIX path (``"forces/radiation.py"``) -> source, the whole bundle.

    Raises
    ------
    ExportError
        Listing every offending import: an absolute import of ``hydrofmu`` or of a
        package that is not a run-time dependency, a relative import of a module that is
        not bundled (a build-time module), or a name imported from a package (the
        bundled ``__init__`` files are empty).
    """
    files = {rel: src for rel, src in files.items() if rel.endswith(".py")}
    modules = {tuple(rel[:-3].split("/")) for rel in files}
    packages = {m[:i] for m in modules for i in range(len(m))}
    allowed = set(sys.stdlib_module_names) | RUNTIME_DEPENDENCIES | {"__future__"}
    problems = []
    for rel, source in files.items():
        package = tuple(rel[:-3].split("/"))[:-1]
        try:
            tree = ast.parse(source, filename=rel)
        except SyntaxError as exc:
            problems.append(f"{rel}: syntax error: {exc}")
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    if top not in allowed:
                        problems.append(f"{rel}:{node.lineno}: 'import {alias.name}'")
            elif isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    top = (node.module or "").split(".")[0]
                    if top not in allowed:
                        problems.append(f"{rel}:{node.lineno}: 'from {node.module} import ...'")
                    continue
                if node.level - 1 > len(package):
                    problems.append(f"{rel}:{node.lineno}: relative import beyond the package")
                    continue
                base = package[: len(package) - (node.level - 1)]
                target = base + (tuple(node.module.split(".")) if node.module else ())
                dots = "." * node.level + (node.module or "")
                if target in modules:
                    continue
                if target in packages:
                    for alias in node.names:
                        if (*target, alias.name) not in modules:
                            problems.append(
                                f"{rel}:{node.lineno}: 'from {dots} import {alias.name}' "
                                "imports from a package __init__ (import from the module)"
                            )
                    continue
                problems.append(
                    f"{rel}:{node.lineno}: 'from {dots} import ...': "
                    f"'{'/'.join(target)}.py' is not a run-time module"
                )
    if problems:
        raise ExportError(
            "run-time modules must import only each other with relative imports, the "
            "standard library and numpy (docs/ARCHITECTURE.md); offending imports:\n  "
            + "\n  ".join(problems),
            value=problems,
        )


def bundle_hash(files: dict[str, bytes]) -> str:
    """Short content hash of the bundled code (10 hex digits)."""
    digest = hashlib.sha256(__version__.encode())
    for rel in sorted(files):
        digest.update(rel.encode() + b"\0" + files[rel] + b"\0")
    return digest.hexdigest()[:10]


def stage_runtime_package(
    destination: Path,
    *,
    root: Path | None = None,
    extra: dict[str, bytes] | None = None,
) -> str:
    """Copy the run-time modules, and the ``extra`` files (path in the package -> bytes,
    e.g. a compiled kernel), into ``destination/_hydrofmu_<hash>``; return its name.

    The hash covers every file: FMUs whose packages differ by an extra file get different
    package names, so that in one process each imports its own (an importer keeps the
    first package of a name it imported, with the files beside it).
    """
    files = runtime_sources(RUNTIME_ROOT if root is None else Path(root))
    check_runtime_imports(files)
    files = {**files, **(extra or {})}
    name = PACKAGE_PREFIX + bundle_hash(files)
    target = destination / name
    target.mkdir(parents=True)
    for rel, content in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    for package in sorted({p for p in target.rglob("*") if p.is_dir()} | {target}):
        init = package / "__init__.py"
        if package == target:
            init.write_text(
                f'"""hydrofmu {__version__} run-time package bundled in an FMU '
                f'(generated by hydrofmu.export; do not edit)."""\n'
            )
        else:
            init.write_text('"""Bundled run-time subpackage (generated)."""\n')
    return name
