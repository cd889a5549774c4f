"""The panel kernel as C: sanitizer-clean, allocation-free, its refusals.

``tests/c_host/panel_check.c`` drives ``runtime/panels/panel_kernel.c`` directly (no
Python): a UV sphere at 5,000 seeded random poses with both surfaces and a five-component
wave in finite depth (all outputs finite, the volume between 0 and the sphere's), a
non-finite pose, one whose sums overflow and a triangle index out of range (refused with
zeroed outputs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hydrofmu.runtime.panels.panel_files import SOURCE

HERE = Path(__file__).resolve().parent
CHECK = HERE / "c_host" / "panel_check.c"


def gcc_or_skip() -> str:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler with sanitizers")
    return compiler


def test_the_kernel_is_sanitizer_clean(tmp_path: Path) -> None:
    """AddressSanitizer, UndefinedBehaviorSanitizer and float-cast-overflow find nothing,
    and every check of panel_check.c passes."""
    cc = gcc_or_skip()
    exe = tmp_path / "panel_check"
    build = subprocess.run(
        [cc, "-std=c99", "-O1", "-g", "-fsanitize=address,undefined,float-cast-overflow",
         "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-Wall", "-Wextra",
         "-Werror", "-o", str(exe), str(CHECK), str(SOURCE), "-lm"],
        capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stderr
    env = {**os.environ, "ASAN_OPTIONS": "detect_leaks=1", "UBSAN_OPTIONS": "print_stacktrace=1"}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, check=False, env=env,
                          timeout=300)
    assert proc.returncode == 0, (proc.stdout, proc.stderr[-3000:])
    assert proc.stdout.strip().endswith("OK")
    assert "runtime error" not in proc.stderr and "Sanitizer" not in proc.stderr


def test_the_kernel_allocates_nothing(tmp_path: Path) -> None:
    """The compiled object calls no allocator (malloc, calloc, realloc, free): the work
    arrays are the caller's, allocated once by the Python marshalling."""
    cc = gcc_or_skip()
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm")
    obj = tmp_path / "panel_kernel.o"
    subprocess.run([cc, "-std=c99", "-O2", "-c", "-o", str(obj), str(SOURCE)], check=True)
    undefined = subprocess.run([nm, "-u", str(obj)], capture_output=True, text=True,
                               check=True).stdout.split()
    assert not {"malloc", "calloc", "realloc", "free"} & set(undefined), undefined
    assert {"cos", "exp"} & set(undefined)  # the scan sees the math calls it makes
