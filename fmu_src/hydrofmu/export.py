"""Build time: hydrodynamic data + configuration -> an FMI 2.0 co-simulation ``.fmu``.

:func:`build_fmu` writes the payload (``resources/model.npz``), bundles the run-time
modules as a package with a unique name ``_hydrofmu_<hash>`` (the hash of the copied
code), generates the slave script, calls pythonfmu's builder without external tool, and
completes the ``modelDescription.xml`` (units, output dependencies, initial unknowns; see
:mod:`hydrofmu.model_description`) so that ``fmpy.validate.validate_fmu`` finds nothing.

Why a uniquely named package: a module already imported by the host shadows a bundled
module of the same name, so an FMU bundling ``hydrofmu`` would run whatever ``hydrofmu``
the host has imported, and two FMUs built from different code would share one. The slave
script gets a unique module name for the same reason; the FMU's model identifier (the
class name and binary name) is ``model_name``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import keyword
import os
import re
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from . import __version__
from .errors import ExportError
from .model_description import finalize_model_description, rewrite_model_description

#: Root of the package whose run-time modules are bundled.
PACKAGE_ROOT = Path(__file__).resolve().parent

#: Run-time modules copied into every FMU, relative to :data:`PACKAGE_ROOT` (globs
#: allowed). ``__init__.py`` files are generated, not copied: run-time modules import
#: from modules, never from a package's ``__init__``.
RUNTIME_MODULES: list[str] = [
    "loader.py",
    "errors.py",
    "hydrodata/model.py",
    "hydrodata/checks.py",
    "hydrodata/multibody.py",
    "hydrodata/store.py",
    "kernels.py",
    "irf_duration.py",
    "irf_checks.py",
    "waves.py",
    "bodies.py",
    "forces/*.py",
    "parameters.py",
    "parts.py",
    "layout.py",
    "constraints.py",
    "system.py",
    "timeschemes.py",
    "schemes/*.py",
    "fmi_names.py",
    "fmi_state.py",
    "fmi_workarounds.py",
    "fmi_slave.py",
    "fmi_states.py",
    "parameter_checks.py",
    "state_schema.py",
    "work_limits.py",
    "local_steps.py",
    "moorings/catenary.py",
    "moorings/quasistatic.py",
    "moorings/frames.py",
    "moorings/lines.py",
    "moorings/equilibrium.py",
    "moorings/moordyn_input.py",
    "tunable.py",
]

#: Third-party packages the run-time modules may import (besides the standard library).
#: No scipy: a C host crashes at exit when scipy was imported in the FMU (issue 7).
RUNTIME_DEPENDENCIES: frozenset[str] = frozenset({"numpy", "pythonfmu"})

#: Payload file name inside ``resources`` (must match ``fmi_slave.MODEL_FILE``).
MODEL_FILE = "model.npz"

#: Prefix of the bundled package's name.
PACKAGE_PREFIX = "_hydrofmu_"

_MODEL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_MAX_MODEL_NAME = 64


# ---------------------------------------------------------------------------- names
def model_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a model name, or None if it can.

    A model name is the FMU's model identifier: the slave class name and the file name
    of its binaries. It must be an ASCII identifier starting with a letter, at most 64
    characters, not a Python keyword.
    """
    if not isinstance(name, str):
        return f"a model name must be a string, got {type(name).__name__}"
    if not _MODEL_NAME.fullmatch(name):
        return "it must start with an ASCII letter and contain only letters, digits and '_'"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return "it is a Python keyword"
    if len(name) > _MAX_MODEL_NAME:
        return f"it is longer than {_MAX_MODEL_NAME} characters"
    return None


def sanitize_model_name(name: str) -> str:
    """A valid model name close to ``name`` (invalid characters become ``_``).

    Examples
    --------
    >>> sanitize_model_name("my wec-2")
    'my_wec_2'
    >>> sanitize_model_name("2body")
    'M2body'
    """
    text = re.sub(r"[^A-Za-z0-9_]", "_", str(name).strip())[:_MAX_MODEL_NAME]
    text = re.sub(r"__+", "_", text).strip("_") or "HydroFMU"
    if not text[0].isalpha():
        text = "M" + text
    if keyword.iskeyword(text) or keyword.issoftkeyword(text):
        text += "_"
    return text[:_MAX_MODEL_NAME]


def resource_path_problem(directory: str | Path) -> str | None:
    """Why an FMU unpacked in ``directory`` would not find its resources, or None.

    pythonfmu's binary turns the resource URI back into a path by decoding only ``%20``.
    Importers build the URI with percent-encoding (fmpy: ``Path.as_uri()``), so any
    character other than ASCII letters, digits, ``_.-~/`` and space breaks the path, and
    the host crashes while instantiating.
    """
    path = Path(directory).absolute()
    text = str(path)
    encoded = quote(text, safe="/").replace("%20", " ")
    if encoded == text:
        return None
    bad = sorted({c for c in text if c != " " and quote(c, safe="/") != c})
    return (
        f"the path '{text}' contains {''.join(bad)!r}: pythonfmu's binary decodes only '%20' "
        "in the resource URI, so an FMU unpacked there cannot find its resources and the "
        "importer crashes; use a path of ASCII letters, digits, spaces and _.-~"
    )


# ---------------------------------------------------------------------------- bundle
def _runtime_sources(root: Path, patterns: Sequence[str]) -> dict[str, bytes]:
    """Relative POSIX path -> content of every run-time module."""
    files: dict[str, bytes] = {}
    for pattern in patterns:
        matches = sorted(p for p in root.glob(pattern) if p.is_file())
        if not matches:
            raise ExportError(
                f"run-time module '{pattern}' is missing from {root}; the FMU cannot be built",
                value=pattern,
            )
        for path in matches:
            rel = path.relative_to(root).as_posix()
            if path.name != "__init__.py":
                files[rel] = path.read_bytes()
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
    patterns: Sequence[str] | None = None,
) -> str:
    """Copy the run-time modules into ``destination/_hydrofmu_<hash>``; return its name."""
    root = PACKAGE_ROOT if root is None else Path(root)
    files = _runtime_sources(root, RUNTIME_MODULES if patterns is None else patterns)
    check_runtime_imports(files)
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


_SCRIPT = '''"""FMU slave '{model_name}' generated by hydrofmu {version} (do not edit)."""

# First, before any extension module loads: libpython in the global scope and the exit
# guard for C/C++ hosts (see the bundled loader module).
from {package}.loader import prepare_host

prepare_host({model_name!r})

import ctypes  # noqa: E402

from {package}.fmi_slave import HydroSlave  # noqa: E402

# pythonfmu 0.7.0's binary runs this file again in this module's namespace each time it
# instantiates the FMU and then releases a reference to the namespace that it never took:
# without this extra reference the namespace is freed after the first instance, and the
# second instance (or interpreter exit) fails or crashes. One reference per execution
# keeps the count balanced, plus the one of the import.
ctypes.pythonapi.Py_IncRef(ctypes.py_object(globals()))


if {model_name!r} in globals():
    # A re-execution (the class of the import lives in the module's namespace): reuse it.
    # pythonfmu never frees the namespace of a re-execution, so a new class each time
    # would stay in memory for every instantiate/free cycle.
    {model_name} = globals()[{model_name!r}]
else:

    class {model_name}(HydroSlave):
        """{description}"""

        description = {description!r}
'''


# ---------------------------------------------------------------------------- build
@contextmanager
def _build_imports(staging: Path, module_names: Sequence[str]) -> Iterator[None]:
    """Undo what pythonfmu's builder leaves in ``sys.path`` and ``sys.modules``."""
    path_before = list(sys.path)
    try:
        yield
    finally:
        sys.path[:] = [p for p in sys.path if p in path_before or Path(p) != staging]
        for name in list(sys.modules):
            if any(name == m or name.startswith(m + ".") for m in module_names):
                del sys.modules[name]


def _payload_config(config: dict[str, Any]) -> dict[str, Any]:
    try:
        return json.loads(json.dumps(config, allow_nan=True))
    except (TypeError, ValueError) as exc:
        raise ExportError(f"the configuration is not JSON-serializable: {exc}") from exc


def build_fmu(
    bodies: Sequence[Any],
    config: dict[str, Any],
    output_path: str | os.PathLike[str],
    *,
    model_name: str = "HydroFMU",
    description: str | None = None,
    overwrite: bool = False,
    validate: bool = True,
    link_libpython: bool = False,
    uri_shim: bool | None = None,
) -> Path:
    """Build an FMI 2.0 co-simulation FMU.

    Parameters
    ----------
    bodies
        :class:`~hydrofmu.hydrodata.HydroData` of each body, in the order of
        ``config["bodies"]``.
    config
        Resolved, JSON-able configuration (:func:`hydrofmu.config.resolve`).
    output_path
        Path of the ``.fmu`` to write; missing parent folders are created.
    model_name
        Model identifier: ASCII letters, digits and ``_``, starting with a letter (see
        :func:`sanitize_model_name`).
    description
        Model description written into the FMU.
    overwrite
        Replace an existing file at ``output_path``.
    validate
        Run ``fmpy.validate.validate_fmu`` on the result and fail on any problem.
    link_libpython
        Patch the Linux binary to need this interpreter's shared libpython, so that C/C++
        hosts load the FMU without ``LD_PRELOAD`` (see :mod:`hydrofmu.native` for what it
        ties the FMU to).
    uri_shim
        Wrap the Linux binary in a shim that decodes the whole resource URI, so that the
        FMU loads from a folder with non-ASCII characters (:func:`hydrofmu.native.add_uri_shim`,
        needs a C compiler). None (default): when a C compiler is found on Linux.

    Returns
    -------
    Path
        The absolute path of the FMU.

    Raises
    ------
    ExportError
        Invalid model name or output path, an existing file without ``overwrite``, a
        run-time module importing a build-time one, a model whose default parameters do
        not initialize, or a failed validation.

    Warns
    -----
    UserWarning
        When the output folder or the temporary folder has characters that pythonfmu's
        binary could not handle in an FMU unpacked there (see
        :func:`resource_path_problem`); on Linux the URI shim handles them, the Windows
        binary does not.
    """
    problem = model_name_problem(model_name)
    if problem:
        raise ExportError(
            f"invalid model name {model_name!r}: {problem}; e.g. "
            f"{sanitize_model_name(str(model_name))!r}",
            value=model_name,
        )
    out = Path(output_path).expanduser().absolute()
    if out.suffix.lower() != ".fmu":
        raise ExportError(f"the output path '{out}' must end with '.fmu'", value=str(out))
    if out.is_dir():
        raise ExportError(f"the output path '{out}' is a folder", value=str(out))
    if out.exists() and not overwrite:
        raise ExportError(f"'{out}' exists; pass overwrite=True to replace it", value=str(out))
    from . import native

    if uri_shim is None:
        uri_shim = sys.platform == "linux" and native.c_compiler() is not None
    for folder in (out.parent, Path(tempfile.gettempdir())):
        problem = resource_path_problem(folder)
        if problem:
            where = f"importers that unpack the FMU in '{folder}'"
            if uri_shim:
                where += "; on Linux this FMU's URI shim handles it, on Windows it does not"
            warnings.warn(f"{problem} ({where})", stacklevel=2)
    config = _payload_config(config)
    # The state-space radiation realisation, so that radiation.method = state_space can be
    # chosen at run time (the FMU cannot make it: build-time module).
    from .statespace_payload import add_realisation

    add_realisation(list(bodies), config,
                    required=config.get("radiation", {}).get("method") == "state_space")
    _check_default_parameters(bodies, config)
    description = description or f"{model_name}: floating bodies in waves (hydrofmu)"

    from pythonfmu.builder import FmuBuilder

    from .hydrodata.store import save_model

    with tempfile.TemporaryDirectory(prefix="hydrofmu_build_") as tmp:
        staging = Path(tmp) / "resources"
        staging.mkdir()
        package = stage_runtime_package(staging)
        save_model(staging / MODEL_FILE, {"bodies": list(bodies), "config": config})
        script_module = f"{model_name}_{package[len(PACKAGE_PREFIX) :]}"
        script = staging / f"{script_module}.py"
        script.write_text(
            _SCRIPT.format(
                model_name=model_name,
                version=__version__,
                package=package,
                description=description.replace('"""', "'''"),
            )
        )
        built = Path(tmp) / "out" / f"{model_name}.fmu"
        with _build_imports(staging, [script_module, package]):
            FmuBuilder.build_FMU(
                script,
                dest=built,
                project_files=[staging / package, staging / MODEL_FILE],
                needsExecutionTool=False,
                canHandleVariableCommunicationStepSize=True,
                canInterpolateInputs=False,
                canGetAndSetFMUstate=True,
                canSerializeFMUstate=True,
            )
            metadata = _inspect_slave(staging, package)
        # The binary patches first: the rewrite below also makes every member readable.
        if uri_shim:
            native.add_uri_shim(built, model_name)
        if link_libpython:
            native.link_libpython(built)
        rewrite_model_description(
            built,
            lambda xml: finalize_model_description(
                xml,
                units=metadata["units"],
                dependencies=metadata["dependencies"],
                generation_tool=f"hydrofmu {__version__} (pythonfmu builder)",
                ranges=metadata.get("ranges"),
                default_experiment=_default_experiment(config),
            ),
        )
        if validate:
            from fmpy.validation import validate_fmu

            problems = validate_fmu(str(built))
            if problems:
                raise ExportError(
                    "the built FMU does not validate:\n  " + "\n  ".join(problems),
                    value=problems,
                )
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(f".{out.name}.partial")
        shutil.copyfile(built, partial)
        os.replace(partial, out)
    return out


def _check_default_parameters(bodies: Sequence[Any], config: dict[str, Any]) -> None:
    """The checks of fmi2ExitInitializationMode, on the configuration's values."""
    from .parameter_checks import check_parameters
    from .parameters import parameter_table

    table = parameter_table(list(bodies), config)
    check_parameters(table, {p.name: p.start for p in table}, n_bodies=len(bodies))


def _default_experiment(config: dict[str, Any]) -> dict[str, float]:
    """``<DefaultExperiment>`` attributes from ``[simulation]``."""
    sim = config.get("simulation", {})
    keys = {"startTime": "start_time", "stopTime": "stop_time", "stepSize": "output_interval"}
    return {attr: float(sim[key]) for attr, key in keys.items() if key in sim}


def _inspect_slave(staging: Path, package: str) -> dict[str, Any]:
    """Interface metadata of the bundled slave, after checking that it initializes."""
    import importlib

    module = importlib.import_module(f"{package}.fmi_slave")
    slave = module.HydroSlave(instance_name="hydrofmu-export", resources=str(staging))
    slave.setup_experiment(0.0, None, None)
    slave.enter_initialization_mode()
    slave.exit_initialization_mode()
    if slave.initialization_error:
        raise ExportError(
            f"the model does not initialize with its default parameters: "
            f"{slave.initialization_error}",
            value=slave.initialization_error,
        )
    return slave.interface_metadata()
