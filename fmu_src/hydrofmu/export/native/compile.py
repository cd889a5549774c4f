"""Compile the native runtime for the FMI platforms (build time).

With the ziglang wheel (``python -m ziglang cc -target ...``, a base dependency) every
platform is cross-compiled for the oldest systems users run (:data:`TARGETS`): linux64
against glibc 2.17 (the manylinux2014 floor: RHEL/Rocky 7 and 8 clusters), darwin64 for
macOS 11 (a universal x86_64 + arm64 library, its fat header written here by
:func:`fat_macho`: zig ships no ``lipo``; the install name ``@rpath/<model>.dylib``, no
build-machine path), win64 as MinGW-w64 does. Without ziglang only linux64 can be built,
with the compiler the project finds (:func:`~hydrofmu.export.python_binary.c_compiler`),
against this machine's glibc: :func:`default_platforms` says so in a note. Strict IEEE
arithmetic: ``-O2 -ffp-contract=off``, no fast-math.
"""

from __future__ import annotations

import importlib.util
import struct
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from ...runtime.bodies.body_files import SOURCE as BODY_SOURCE
from ...runtime.errors import ExportError
from ...runtime.moorings.kernel_files import CATENARY_SOURCE, SOURCE
from ...runtime.panels.panel_files import SOURCE as PANEL_SOURCE
from .build_cache import cache_key, cached_library

#: The C runtime's folder (package data).
RUNTIME_DIR = Path(__file__).resolve().parent / "csrc"
#: The line kernel's folder: ``line_kernel.c``, the one source of the lines' physics that the
#: Python FMU loads by ctypes, is included by ``hfn_lines.c`` (its symbols hidden).
LINE_KERNEL_DIR = SOURCE.parent
#: The panel kernel's folder: ``panel_kernel.c``, included by ``hfn_panels.c`` likewise.
PANEL_KERNEL_DIR = PANEL_SOURCE.parent
#: The rigid-body kernel's folder: ``body_kernel.c``, included by ``hfn_bodies.c`` likewise.
BODY_KERNEL_DIR = BODY_SOURCE.parent
#: The ``-I`` folders of a compile: every ``.c`` and ``.h`` file in them is part of a cached
#: library's key (:mod:`.build_cache`).
INCLUDE_DIRS = (RUNTIME_DIR, LINE_KERNEL_DIR, PANEL_KERNEL_DIR, BODY_KERNEL_DIR)
#: The file name the linux64 library is compiled under (an ELF library without ``-soname``
#: does not hold it), so that one cached library serves every model; the FMU's member is
#: still ``<model>.so``.
LINUX_COMPILE_NAME = "hydrofmu_native.so"
#: The runtime's C files, by concern (each with its header): the FMI face, FMU states, the
#: blob reader, linear algebra, an instance, the waves, the tunables, the two steppers, the
#: convolution radiation, the outputs, the lines and the semi-implicit scheme.
C_SOURCES = ("fmi2Functions.c", "fmi2State.c", "hfn_model.c", "hfn_linalg.c", "hfn_instance.c",
             "hfn_waves.c", "hfn_tunables.c", "hfn_exact.c", "hfn_rk.c", "hfn_conv.c",
             "hfn_outputs.c", "hfn_lines.c", "hfn_semi.c", "hfn_drift.c", "hfn_catenary.c",
             "hfn_panels.c", "hfn_deriv.c", "hfn_load.c", "hfn_reader.c",
             "hfn_bodies.c")
#: The headers: the runtime's and the FMI 2.0 standard's.
HEADERS = ("hfn_internal.h", "hfn_model.h", "hfn_linalg.h", "hfn_instance.h", "hfn_waves.h",
           "hfn_tunables.h", "hfn_exact.h", "hfn_rk.h", "hfn_conv.h", "hfn_outputs.h",
           "hfn_lines.h", "hfn_semi.h", "hfn_uri.h", "hfn_drift.h", "hfn_reader.h",
           "hfn_catenary.h", "hfn_panels.h", "hfn_deriv.h", "hfn_load.h", "hfn_bodies.h",
           "fmi2Functions.h",
           "fmi2FunctionTypes.h",
           "fmi2TypesPlatform.h")
#: Files shipped in ``sources/`` (the C files first; ``line_kernel.c`` is included by
#: ``hfn_lines.c``, ``catenary_kernel.c`` by ``hfn_catenary.c``, ``panel_kernel.c`` by
#: ``hfn_panels.c``, none compiled on its own).
SOURCES = C_SOURCES + HEADERS + (SOURCE.name, CATENARY_SOURCE.name, PANEL_SOURCE.name,
                                 BODY_SOURCE.name)
#: Strict IEEE arithmetic, every warning; only the fmi2* functions exported; no debug
#: information (``-g0``: it held the build machine's folders, so a library depended on where
#: the sources and the compiler were; without it one cached library serves every checkout).
FLAGS = ("-std=c99", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-fvisibility=hidden",
         "-g0")

#: win64's extra flag: stripped (``-s``), so no PDB is written, whose signature (a hash of
#: the build's folders) the DLL would hold even with ``-g0``; its exports stay.
WIN64_EXTRA = ("-s",)

#: Mach-O CPU types of the universal library's slices.
_CPU = {"x86_64": (0x01000007, 3), "aarch64": (0x0100000C, 0)}

#: The zig targets of each FMI platform (darwin64: one per slice of the universal library):
#: the oldest glibc and macOS the binaries load on.
TARGETS = {"linux64": ("x86_64-linux-gnu.2.17",), "win64": ("x86_64-windows-gnu",),
           "darwin64": ("x86_64-macos.11.0", "aarch64-macos.11.0")}
#: The glibc and macOS floors of :data:`TARGETS` (checked by the tests on the files).
GLIBC_FLOOR, MACOS_FLOOR = (2, 17), (11, 0)
#: What to install for the platforms that need the cross-compiler.
CROSS_COMPILER_FIX = "pip install ziglang (or pip install 'hydrofmu[native]')"


def source_file(name: str) -> Path:
    """The file of a name in :data:`SOURCES`."""
    kernels = {SOURCE.name: SOURCE, CATENARY_SOURCE.name: CATENARY_SOURCE,
               PANEL_SOURCE.name: PANEL_SOURCE, BODY_SOURCE.name: BODY_SOURCE}
    return kernels.get(name, RUNTIME_DIR / name)


def has_ziglang() -> bool:
    """The ziglang wheel is installed (cross-compilation available)."""
    return importlib.util.find_spec("ziglang") is not None


def zig_cc(target: str) -> list[str]:
    """``python -m ziglang cc -target <target>``."""
    return [sys.executable, "-m", "ziglang", "cc", "-target", target]


def _run(command: list[str]) -> None:
    # in the runtime's folder: the working folder is written into the debug information
    proc = subprocess.run(command, capture_output=True, text=True, check=False,
                          cwd=RUNTIME_DIR)
    if proc.returncode != 0 or "warning:" in proc.stderr:
        raise ExportError(f"compiling the native runtime failed ({' '.join(command)}): "
                          f"{proc.stderr.strip()}", value=proc.stderr)


def compile_command(compiler: Sequence[str], output: Path, extra: Sequence[str]) -> list[str]:
    """The command line that compiles the runtime into ``output`` (the ``-I`` folders:
    :data:`INCLUDE_DIRS`, the first the runtime's, which holds :data:`C_SOURCES`)."""
    return [*compiler, "-shared", "-fPIC", *FLAGS, *extra,
            *(f"-I{folder}" for folder in INCLUDE_DIRS), "-o", str(output),
            *(str(INCLUDE_DIRS[0] / name) for name in C_SOURCES), "-lm"]


def key_command(compiler: Sequence[str], name: str, extra: Sequence[str]) -> list[str]:
    """:func:`compile_command` as a cache key holds it: the output's file ``name`` alone,
    each ``-I`` folder (and the sources in it) by its place in :data:`INCLUDE_DIRS`, this
    interpreter as ``<python>``; the library (without debug information, :data:`FLAGS`)
    does not depend on these folders, so two checkouts share their libraries."""
    labels = {str(folder): f"<include {n}>" for n, folder in enumerate(INCLUDE_DIRS)}
    labels[sys.executable] = "<python>"
    out = []
    for arg in compile_command(compiler, Path(name), extra):
        for path, label in labels.items():
            if arg == path or arg.startswith((path + "/", path + "\\")):
                arg = label + arg[len(path):]
            elif arg == f"-I{path}":
                arg = f"-I{label}"
        out.append(arg)
    return out


def compile_library(compiler: Sequence[str], output: Path, *, extra: Sequence[str] = ()
                    ) -> Path:
    """Compile the runtime's C files (:data:`C_SOURCES`) into the shared library ``output``."""
    output.parent.mkdir(parents=True, exist_ok=True)
    _run(compile_command(compiler, output, extra))
    return output


def built_library(compiler: Sequence[str], output: Path, *, extra: Sequence[str] = (),
                  compile_as: str | None = None) -> Path:
    """:func:`compile_library` through the build cache (:mod:`.build_cache`): the library
    is compiled under the file name ``compile_as`` (default ``output``'s), taken from the
    cache when an identical compile is stored there, and written to ``output``."""
    seen = compile_as or output.name
    key = cache_key(compiler, key_command(compiler, seen, extra), INCLUDE_DIRS)

    def compile_now() -> bytes:
        return compile_library(compiler, output.parent / ".compile" / seen,
                               extra=extra).read_bytes()

    library = cached_library(key, compile_now)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(library)
    return output


def fat_macho(slices: dict[str, bytes]) -> bytes:
    """A universal Mach-O file of thin ``slices`` (arch name -> bytes), 2^14-aligned."""
    align = 14
    header = struct.pack(">II", 0xCAFEBABE, len(slices))
    offset = 1 << align
    entries, bodies = [], []
    for arch, data in slices.items():
        cpu, sub = _CPU[arch]
        entries.append(struct.pack(">iiIII", cpu, sub, offset, len(data), align))
        bodies.append((offset, data))
        offset += -(-len(data) // (1 << align)) * (1 << align)
    out = bytearray(offset)
    head = header + b"".join(entries)
    out[: len(head)] = head
    for start, data in bodies:
        out[start : start + len(data)] = data
    return bytes(out)


def default_platforms() -> tuple[list[str], str]:
    """The platforms a native build compiles when none are asked for, and a note ("" when
    all three are built): every platform with ziglang; without it linux64 alone, with this
    machine's C compiler, on Linux only (the note names the missing platforms and the
    install that adds them); none elsewhere."""
    import platform as host

    if has_ziglang():
        return list(TARGETS), ""
    from ..python_binary import c_compiler

    if host.system() != "Linux" or host.machine() not in ("x86_64", "AMD64"):
        return [], (f"no cross-compiler: the native FMU needs the ziglang wheel on "
                    f"{host.system()} {host.machine()}; fix: {CROSS_COMPILER_FIX}")
    if c_compiler() is None:
        return [], f"no C compiler for the native FMU; fix: {CROSS_COMPILER_FIX}"
    return ["linux64"], ("the native FMU holds the linux64 library only, compiled against "
                         "this machine's glibc (no win64 or darwin64 library, no glibc 2.17 "
                         f"floor: the ziglang wheel is not installed); fix: {CROSS_COMPILER_FIX}")


def _darwin64(model_name: str, folder: Path) -> Path:
    """The universal macOS library of :data:`TARGETS`, install name without a path."""
    slices = {}
    for target in TARGETS["darwin64"]:
        arch = target.split("-")[0]
        thin = built_library(zig_cc(target), folder / f"darwin64-{arch}" / f"{model_name}.dylib",
                             extra=(f"-Wl,-install_name,@rpath/{model_name}.dylib",))
        slices[arch] = thin.read_bytes()
    path = folder / "darwin64" / f"{model_name}.dylib"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(fat_macho(slices))
    return path


def compile_all(model_name: str, folder: Path, platforms: Sequence[str] | None = None
                ) -> dict[str, Path]:
    """The binaries of every platform asked for (default: :func:`default_platforms`):
    ``{member in the FMU: file}``.

    Raises
    ------
    ExportError
        An unknown platform, no compiler for one asked for (naming the install), or a
        failed compilation.
    """
    from ..python_binary import c_compiler

    if platforms is None:
        platforms, note = default_platforms()
        if not platforms:
            raise ExportError(note, value=None)
    zig = has_ziglang()
    out: dict[str, Path] = {}
    for platform in platforms:
        if platform not in TARGETS:
            raise ExportError(f"unknown platform {platform!r}; choose linux64, win64 or "
                              "darwin64", value=platform)
        if platform == "linux64" and not zig:
            compiler = c_compiler()
            if compiler is None:
                raise ExportError(f"no C compiler for the native FMU; fix: "
                                  f"{CROSS_COMPILER_FIX}", value="cc")
            path = built_library(compiler, folder / platform / f"{model_name}.so",
                                 compile_as=LINUX_COMPILE_NAME)
        elif not zig:
            raise ExportError(f"the {platform} library of the native FMU needs the "
                              f"cross-compiler; fix: {CROSS_COMPILER_FIX}", value=platform)
        elif platform == "linux64":
            path = built_library(zig_cc(TARGETS[platform][0]),
                                 folder / platform / f"{model_name}.so",
                                 compile_as=LINUX_COMPILE_NAME)
        elif platform == "win64":
            path = built_library(zig_cc(TARGETS[platform][0]),
                                 folder / platform / f"{model_name}.dll", extra=WIN64_EXTRA)
        else:
            path = _darwin64(model_name, folder)
        out[f"binaries/{platform}/{path.name}"] = path
    return out
