"""Compile the native runtime for the FMI platforms (build time).

linux64 with the compiler the project finds (:func:`~hydrofmu.export.python_binary.c_compiler`);
win64 and
darwin64 with the ziglang wheel (``python -m ziglang cc -target ...``); the macOS library is
universal (x86_64 + arm64), its fat header written here (:func:`fat_macho`: zig ships no
``lipo``). Strict IEEE arithmetic: ``-O2 -ffp-contract=off``, no fast-math.
"""

from __future__ import annotations

import importlib.util
import struct
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from ...runtime.errors import ExportError
from ...runtime.moorings.kernel_files import SOURCE

#: The C runtime's folder (package data).
RUNTIME_DIR = Path(__file__).resolve().parent / "csrc"
#: The line kernel's folder: ``line_kernel.c``, the one source of the lines' physics that the
#: Python FMU loads by ctypes, is included by ``hfn_lines.c`` (its symbols hidden).
LINE_KERNEL_DIR = SOURCE.parent
#: The runtime's C files, by concern (each with its header): the FMI face, FMU states, the
#: blob reader, linear algebra, an instance, the waves, the tunables, the two steppers, the
#: convolution radiation, the outputs, the lines and the semi-implicit scheme.
C_SOURCES = ("fmi2Functions.c", "fmi2State.c", "hfn_model.c", "hfn_linalg.c", "hfn_instance.c",
             "hfn_waves.c", "hfn_tunables.c", "hfn_exact.c", "hfn_rk.c", "hfn_conv.c",
             "hfn_outputs.c", "hfn_lines.c", "hfn_semi.c")
#: The headers: the runtime's and the FMI 2.0 standard's.
HEADERS = ("hfn_internal.h", "hfn_model.h", "hfn_linalg.h", "hfn_instance.h", "hfn_waves.h",
           "hfn_tunables.h", "hfn_exact.h", "hfn_rk.h", "hfn_conv.h", "hfn_outputs.h",
           "hfn_lines.h", "hfn_semi.h", "fmi2Functions.h", "fmi2FunctionTypes.h",
           "fmi2TypesPlatform.h")
#: Files shipped in ``sources/`` (the C files first; ``line_kernel.c`` is included by
#: ``hfn_lines.c``, not compiled on its own).
SOURCES = C_SOURCES + HEADERS + (SOURCE.name,)
#: Strict IEEE arithmetic, every warning; only the fmi2* functions exported.
FLAGS = ("-std=c99", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-fvisibility=hidden")

#: Mach-O CPU types of the universal library's slices.
_CPU = {"x86_64": (0x01000007, 3), "aarch64": (0x0100000C, 0)}


def source_file(name: str) -> Path:
    """The file of a name in :data:`SOURCES`."""
    return SOURCE if name == SOURCE.name else RUNTIME_DIR / name


def has_ziglang() -> bool:
    """The ziglang wheel is installed (cross-compilation available)."""
    return importlib.util.find_spec("ziglang") is not None


def zig_cc(target: str) -> list[str]:
    """``python -m ziglang cc -target <target>``."""
    return [sys.executable, "-m", "ziglang", "cc", "-target", target]


def _run(command: list[str]) -> None:
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or "warning:" in proc.stderr:
        raise ExportError(f"compiling the native runtime failed ({' '.join(command)}): "
                          f"{proc.stderr.strip()}", value=proc.stderr)


def compile_library(compiler: Sequence[str], output: Path, *, extra: Sequence[str] = ()
                    ) -> Path:
    """Compile the runtime's C files (:data:`C_SOURCES`) into the shared library ``output``."""
    output.parent.mkdir(parents=True, exist_ok=True)
    _run([*compiler, "-shared", "-fPIC", *FLAGS, *extra, f"-I{RUNTIME_DIR}",
          f"-I{LINE_KERNEL_DIR}", "-o", str(output),
          *(str(RUNTIME_DIR / name) for name in C_SOURCES), "-lm"])
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


def compile_all(model_name: str, folder: Path, platforms: Sequence[str] | None = None
                ) -> dict[str, Path]:
    """The binaries of every platform asked for: ``{member in the FMU: file}``."""
    from ..python_binary import c_compiler

    if platforms is None:
        platforms = ["linux64", "win64", "darwin64"] if has_ziglang() else ["linux64"]
    out: dict[str, Path] = {}
    for platform in platforms:
        if platform == "linux64":
            compiler = c_compiler()
            if compiler is None:
                raise ExportError("no C compiler for the native FMU; fix: pip install "
                                  "'hydrofmu[native]' (the ziglang wheel)", value="cc")
            path = compile_library(compiler, folder / platform / f"{model_name}.so")
        elif platform == "win64":
            path = compile_library(zig_cc("x86_64-windows-gnu"),
                                   folder / platform / f"{model_name}.dll")
        elif platform == "darwin64":
            slices = {}
            for arch in ("x86_64", "aarch64"):
                thin = compile_library(zig_cc(f"{arch}-macos"),
                                       folder / f"{platform}-{arch}" / f"{model_name}.dylib")
                slices[arch] = thin.read_bytes()
            path = folder / platform / f"{model_name}.dylib"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(fat_macho(slices))
        else:
            raise ExportError(f"unknown platform {platform!r}; choose linux64, win64 or "
                              "darwin64", value=platform)
        out[f"binaries/{platform}/{path.name}"] = path
    return out
