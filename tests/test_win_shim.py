"""The Python FMU's shim on Windows (issue 29): ``export/uri_shim.c`` cross-compiled for
win64 (the ziglang wheel, ``x86_64-windows-gnu``) is a 64-bit DLL that exports every FMI 2.0
co-simulation function and pythonfmu's ``finalizePythonInterpreter``, names the binary it
wraps, and imports only the Windows system and universal C runtime DLLs (as pythonfmu's own
binary does); a built Python FMU carries it in front of pythonfmu's win64 binary.

Running it needs Wine and a Windows Python; the tests do not. By hand,
``build_scripts/wine_shim_check.py`` runs it under ``wine64`` in front of a stub of
pythonfmu's binary (resource locations of every form, refusals, derivatives, a second
``fmi2FreeInstance``): 13 of 13 checks hold.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from binary_symbols import pe_exports, pe_imports, pe_machine
from hydrofmu.export.python_binary import (
    compile_uri_shim,
    windows_c_compiler,
    wrapped_platforms,
)
from test_native_fmu import FMI2_CS_FUNCTIONS


def pe_tables(data: bytes) -> tuple[int, set[str], list[str]]:
    """(COFF machine, exported names, imported DLL names) of a PE32+ file."""
    return pe_machine(data), pe_exports(data), pe_imports(data)


@pytest.fixture(scope="module")
def dll(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    if windows_c_compiler() is None:  # ziglang is a base dependency
        pytest.fail("no Windows compiler: install the ziglang wheel")
    out = tmp_path_factory.mktemp("win_shim") / "Model.dll"
    return compile_uri_shim(out, "Model_pythonfmu.dll", windows=True).read_bytes()


def test_the_win64_shim_exports_the_fmi_api(dll: bytes) -> None:
    machine, exports, imports = pe_tables(dll)
    assert machine == 0x8664  # x86-64
    missing = sorted(set(FMI2_CS_FUNCTIONS) - set(exports))
    assert not missing, missing
    assert "finalizePythonInterpreter" in exports  # pythonfmu's binary exports it too
    # nothing of the shim's own beyond them (its helpers stay static)
    assert exports == {*FMI2_CS_FUNCTIONS, "finalizePythonInterpreter"}
    # Windows itself and the universal C runtime only: no MinGW or POSIX runtime to ship
    assert all(re.fullmatch(r"(KERNEL32|api-ms-win-crt-[a-z]+-l1-1-0)\.dll", name, re.I)
               for name in imports), imports
    assert b"Model_pythonfmu.dll" in dll  # the binary it loads beside itself


def test_the_pe_reader_reads_pythonfmus_own_binary() -> None:
    """The reader of the test, on pythonfmu's win64 binary (MSVC): it finds the same FMI
    API there, and that binary's python3.dll import (so an empty answer is not a pass)."""
    import pythonfmu

    binary = (Path(pythonfmu.__file__).parent / "resources" / "binaries" / "win64"
              / "pythonfmu-export.dll").read_bytes()
    machine, exports, imports = pe_tables(binary)
    assert machine == 0x8664
    assert set(FMI2_CS_FUNCTIONS) <= set(exports)
    assert "python3.dll" in imports


def test_a_built_python_fmu_wraps_both_binaries(tmp_path: Path) -> None:
    """The default sphere's Python FMU: linux64 and win64 each hold the shim and
    pythonfmu's binary behind it, and it declares the directional derivative (every
    binary answers it)."""
    from hydrofmu.config.configuration import default_config
    from hydrofmu.export.fmu import build_fmu

    bodies, config = default_config()
    fmu = build_fmu(bodies, config, tmp_path / "Wrapped.fmu", model_name="Wrapped")
    assert wrapped_platforms(fmu) == {"linux64": True, "win64": True}
    with zipfile.ZipFile(fmu) as z:
        shim = z.read("binaries/win64/Wrapped.dll")
        original = z.read("binaries/win64/Wrapped_pythonfmu.dll")
        xml = z.read("modelDescription.xml").decode()
    assert b"Wrapped_pythonfmu.dll" in shim
    assert "python3.dll" in pe_tables(original)[2]  # pythonfmu's, kept as it was
    assert 'providesDirectionalDerivative="true"' in xml
