"""The FMU in a non-Python host: ``tests/c_host/host.c``, a minimal FMI 2.0 master in C.

The host is compiled here with the system compiler against fmpy's FMI 2.0 headers and run
in a subprocess (a crash fails a test, not the suite). It loads the binary with
``dlopen``, sets the heave PTO force, steps, reads the heave, terminates, frees and returns
0. Two ways of loading libpython are tested:

- the plain FMU with ``LD_PRELOAD`` of libpython (what ``hydrofmu doctor`` prints);
- the FMU built with ``link_libpython=True`` (binary patched to need libpython; the
  bundled loader promotes it to the global scope) and no preload at all.

Without either, ``dlopen`` refuses the binary (``undefined symbol``): tested too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import fmpy
import numpy as np
import pytest

from hydrofmu.config.configuration import default_config
from hydrofmu.export.fmu import build_fmu
from hydrofmu.export.python_binary import c_compiler, needed_libraries, shared_libpython
from test_fmu import drive

pytestmark = pytest.mark.fmu

HOST_SOURCE = Path(__file__).parent / "c_host" / "host.c"
FMPY_HEADERS = Path(fmpy.__file__).parent / "c-code"
COMPILER = c_compiler()  # cc, gcc, $CC or the ziglang wheel
DT, STEPS, F_PTO = 0.05, 200, 2.0e4  # s, -, N (a heave push well above round-off)


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if COMPILER is None:
        pytest.skip("no C compiler (cc, gcc, $CC or ziglang) to build tests/c_host/host.c")
    exe = tmp_path_factory.mktemp("c_host") / "host"
    subprocess.run(
        [
            *COMPILER,
            "-O1",
            "-Wall",
            "-Werror",
            f"-I{FMPY_HEADERS}",
            "-o",
            str(exe),
            str(HOST_SOURCE),
            "-ldl",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return exe


@pytest.fixture(scope="module")
def fmus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("c_host_fmus") / "built fmus"
    bodies, config = default_config()
    return {
        "plain": build_fmu(bodies, config, folder / "HydroFMU.fmu"),
        "linked": build_fmu(
            bodies, config, folder / "Linked.fmu", model_name="Linked", link_libpython=True
        ),
    }


def unpack(fmu: Path, destination: Path) -> dict[str, Any]:
    """Unzip ``fmu``; binary path, resource URI, GUID and value references by name."""
    import xml.etree.ElementTree as ET

    destination.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(fmu) as z:
        z.extractall(destination)
    root = ET.parse(destination / "modelDescription.xml").getroot()
    ident = root.find("CoSimulation").get("modelIdentifier")
    return {
        "binary": destination / "binaries" / "linux64" / f"{ident}.so",
        "uri": (destination / "resources").absolute().as_uri(),
        "guid": root.get("guid"),
        "vr": {v.get("name"): v.get("valueReference") for v in root.iter("ScalarVariable")},
    }


def run_host(
    host: Path, unpacked: dict[str, Any], *, preload: bool, string: tuple[str, str] | None = None
) -> dict[str, Any]:
    vr = unpacked["vr"]
    args = [
        str(host),
        str(unpacked["binary"]),
        unpacked["uri"],
        unpacked["guid"],
        vr["body.F_pto[3]"],
        vr["body.pose[3]"],
        repr(F_PTO),
        repr(DT),
        str(STEPS),
    ]
    if string:
        args += [vr[string[0]], string[1]]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "LD_PRELOAD"))}
    # The embedded interpreter takes its environment from the first python3 on PATH.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if preload:
        env["LD_PRELOAD"] = str(shared_libpython())
    proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, check=False)
    lines = proc.stdout.splitlines()
    return {
        "returncode": proc.returncode,
        "heave": [float(line.split()[2]) for line in lines if line.startswith("Y ")],
        "logs": [line for line in lines if line.startswith("LOG ")],
        "freed": "FREED" in lines,
        "output": proc.stdout[-3000:] + proc.stderr[-3000:],
    }


@pytest.fixture(scope="module")
def runs(host: Path, fmus: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("c_host_runs")
    plain = unpack(fmus["plain"], base / "plain unpacked")
    linked = unpack(fmus["linked"], base / "linked unpacked")
    return {
        "preload": run_host(host, plain, preload=True),
        "linked": run_host(host, linked, preload=False),
        "bare": run_host(host, plain, preload=False),
        "non-ascii": run_host(
            host, unpack(fmus["plain"], base / "tëst ü" / "unpacked"), preload=True
        ),
    }


def heave_series(fmu: Path, folder: Path) -> np.ndarray:
    """Heave of ``fmu`` driven by fmpy in a subprocess (unpacked under ``folder``), with
    ``F_PTO`` set in initialization mode and before every step."""
    result = drive(
        "series",
        {
            "fmu": str(fmu),
            "start": {"body.F_pto[3]": F_PTO},
            "inputs": {"body.F_pto[3]": F_PTO},
            "steps": STEPS,
            "dt": DT,
            "outputs": ["body.pose[3]"],
        },
        folder,
    )
    return np.array(result["outputs"]["body.pose[3]"])


@pytest.fixture(scope="module")
def fmpy_heave(fmus: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    """The same run (input set in initialization mode and before every step) in fmpy."""
    return heave_series(fmus["plain"], tmp_path_factory.mktemp("c_host_fmpy"))


@pytest.mark.parametrize("way", ["preload", "linked", "non-ascii"])
def test_c_host_heave_equals_fmpy(runs: dict, fmpy_heave: np.ndarray, way: str) -> None:
    run = runs[way]
    assert run["freed"], run["output"]
    heave = np.array(run["heave"])
    assert heave.shape == (STEPS,)
    assert np.ptp(heave) > 1e-3  # the push moves the body (m): a real comparison
    # Same bundled code, same arithmetic, same inputs and times: equal to round-off.
    np.testing.assert_allclose(heave, fmpy_heave, rtol=0, atol=1e-12)


@pytest.mark.parametrize("way", ["preload", "linked", "non-ascii"])
def test_c_host_exits_zero_after_free(runs: dict, way: str) -> None:
    run = runs[way]
    assert run["freed"], run["output"]
    assert run["returncode"] == 0, run["output"]


def test_plain_fmu_without_preload_is_refused_with_a_message(runs: dict) -> None:
    """What the user meets without either loader fix: pythonfmu's binary cannot be loaded
    (libpython missing); the URI shim says so through the logger, and the host lives."""
    run = runs["bare"]
    assert run["returncode"] == 3, run["output"]  # the host's "fmi2Instantiate NULL" exit
    fatal = [line for line in run["logs"] if line.startswith("LOG 4 ")]
    assert len(fatal) == 1, run["logs"]
    assert "undefined symbol: _Py_NoneStruct" in fatal[0]
    assert "preload libpython" in fatal[0] and "hydrofmu doctor" in fatal[0]
    assert "the native FMU needs no Python" in fatal[0] and "--native" in fatal[0]  # way out


def test_linked_binary_needs_libpython(fmus: dict[str, Path], tmp_path: Path) -> None:
    linked = unpack(fmus["linked"], tmp_path / "linked")
    plain = unpack(fmus["plain"], tmp_path / "plain")
    assert shared_libpython().name in needed_libraries(linked["binary"])
    assert not any(n.startswith("libpython") for n in needed_libraries(plain["binary"]))


def test_linked_fmu_runs_in_fmpy(
    fmus: dict[str, Path], fmpy_heave: np.ndarray, tmp_path: Path
) -> None:
    """The patched binary still runs in a Python host (libpython is the host's own)."""
    # Same model and code as the plain FMU: identical to round-off.
    np.testing.assert_allclose(heave_series(fmus["linked"], tmp_path), fmpy_heave,
                               rtol=0, atol=1e-12)


def test_percent_in_log_message_reaches_a_printf_host_intact(
    host: Path, fmus: dict[str, Path], tmp_path: Path
) -> None:
    """The elevation-input report carries ``heave 0.31 %``: a C logger that formats the
    message with vprintf must print it as sent, and fmpy receive the escaped ``%%``."""
    unpacked = unpack(fmus["plain"], tmp_path / "unpacked")
    run = run_host(host, unpacked, preload=True, string=("wave.type", "input"))
    assert run["freed"], run["output"]
    reports = [line for line in run["logs"] if "excitation from the elevation input" in line]
    assert len(reports) == 1, run["logs"]
    printed = reports[0].split(": ", 1)[1]
    assert re.search(r"heave [0-9.e+-]+ %", printed), printed
    assert "%%" not in printed

    ref = drive(
        "series",
        {
            "fmu": str(fmus["plain"]),
            "start": {"wave.type": "input"},
            "steps": 1,
            "dt": DT,
            "outputs": ["body.pose[3]"],
        },
        tmp_path,
    )
    raw = [m for _, _, m in ref["messages"] if "excitation from the elevation input" in m]
    assert len(raw) == 1
    assert "%%" in raw[0]  # the format string as sent: every '%' escaped
    assert printed == raw[0].replace("%%", "%")


def test_fmu_runs_in_fmpy_under_a_non_ascii_path(
    fmus: dict[str, Path], fmpy_heave: np.ndarray, tmp_path: Path
) -> None:
    """pythonfmu's binary alone crashes fmpy in fmi2Instantiate there (it decodes only %20
    of the resource URI); the URI shim that hydrofmu puts in front of it decodes all."""
    with zipfile.ZipFile(fmus["plain"]) as z:
        assert "binaries/linux64/HydroFMU_pythonfmu.so" in z.namelist()  # the shim is in
    folder = tmp_path / "tëst ü"
    folder.mkdir()
    # The same model as the reference run (unpacked under an ASCII path): same floats.
    np.testing.assert_allclose(heave_series(fmus["plain"], folder), fmpy_heave,
                               rtol=0, atol=1e-12)


def run_careless(host: Path, unpacked: dict[str, Any], *, preload: bool, steps: int) -> dict:
    """``host ... ignore VR_STR``: a host that ignores a NULL instance and every status
    (ECOS); every read is preset (0.0, "unwritten") so that an unwritten value shows."""
    vr = unpacked["vr"]
    args = [str(host), str(unpacked["binary"]), unpacked["uri"], unpacked["guid"],
            vr["body.F_pto[3]"], vr["body.pose[3]"], repr(F_PTO), repr(DT), str(steps),
            "ignore", vr["wave.type"]]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "LD_PRELOAD"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if preload:
        env["LD_PRELOAD"] = str(shared_libpython())
    proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    lines = proc.stdout.splitlines()
    reals = {}
    for line in lines:
        if line.startswith("Y "):
            _, label, value = line.split(" ")
            reals.setdefault(label, []).append(float(value))
    strings = {}
    for line in lines:
        if line.startswith("S "):
            label, _, text = line[2:].partition(" ")
            strings.setdefault(label, []).append(text)
    statuses = [line.split() for line in lines if line.startswith("STATUS ")]
    return {"returncode": proc.returncode, "lines": lines, "reals": reals,
            "strings": strings, "statuses": statuses,
            "output": proc.stdout[-3000:] + proc.stderr[-3000:]}


def test_a_host_that_ignores_a_failed_instantiation_reads_nan(
    host: Path, fmus: dict[str, Path], tmp_path: Path
) -> None:
    """The plain FMU in a C host without libpython: fmi2Instantiate returns NULL (the shim
    says why); a host that goes on anyway (as ECOS does) gets fmi2Error from every call,
    NaN from every fmi2GetReal and "" from every fmi2GetString, not 0.0 and a crash."""
    run = run_careless(host, unpack(fmus["plain"], tmp_path / "plain"), preload=False, steps=5)
    assert run["returncode"] == 0, run["output"]
    assert "INSTANCE NULL" in run["lines"], run["output"]
    assert {s[2] for s in run["statuses"]} == {"3"}, run["statuses"]  # fmi2Error, all
    assert len(run["statuses"]) == 3 + 5 * 4 + 1 + 2 * 2  # every call was made
    values = [v for label in run["reals"] for v in run["reals"][label]]
    assert len(values) == 5 + 2 and all(np.isnan(values)), run["reals"]
    texts = [t for label in run["strings"] for t in run["strings"][label]]
    assert texts == [""] * 7, run["strings"]


def test_a_freed_or_unknown_instance_reads_nan(
    host: Path, fmus: dict[str, Path], tmp_path: Path
) -> None:
    """A live instance reads real values; after fmi2FreeInstance, and on a pointer that was
    never an instance, fmi2GetReal gives NaN and fmi2GetString "" with fmi2Error."""
    run = run_careless(host, unpack(fmus["plain"], tmp_path / "plain"), preload=True, steps=3)
    assert run["returncode"] == 0, run["output"]
    assert "INSTANCE live" in run["lines"], run["output"]
    live = [v for label, vs in run["reals"].items() if label not in ("freed", "unknown")
            for v in vs]
    assert len(live) == 3 and all(np.isfinite(live)) and live[-1] != 0.0, run["reals"]
    assert set(run["strings"]["0.050000000000000003"]) == {"regular"}, run["strings"]
    for label in ("freed", "unknown"):
        assert np.isnan(run["reals"][label][0]), run["reals"]
        assert run["strings"][label] == [""], run["strings"]
    after = run["statuses"][-4:]  # GetReal, GetString on the freed then the unknown one
    assert [s[2] for s in after] == ["3"] * 4, after
