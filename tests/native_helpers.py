"""Helpers of ``tests/test_native_fmu.py``: drive an FMU in an isolated interpreter
(``native_driver.py``, ``fuzz_driver.py``), build the pair of FMUs of one configuration,
compare outputs, compile and run the C host ``c_host/native_host.c``."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

import hydrofmu
from hydrofmu.export.native import build_native_fmu
from hydrofmu.export.native.compile import (
    BODY_KERNEL_DIR,
    C_SOURCES,
    LINE_KERNEL_DIR,
    PANEL_KERNEL_DIR,
    compile_library,
)

DRIVER = Path(__file__).parent / "native_driver.py"
FUZZ_DRIVER = Path(__file__).parent / "fuzz_driver.py"
HOST_SOURCE = Path(__file__).parent / "c_host" / "native_host.c"
RUNTIME = Path(hydrofmu.__file__).parent / "export" / "native" / "csrc"


def run(fmu: Path, input_name: str, values: list[float], dt: float, tmp: Path,
        changes: list[tuple[int, str, float]] = (), start: float = 0.0,
        timeout: float = 900.0) -> dict:
    """Drive ``fmu`` in an isolated interpreter; its outputs after every step (``changes``:
    ``(step, parameter, value)`` set before that step, several per step in their order;
    step -1: in initialization mode)."""
    tag = f"{fmu.stem}_{len(values)}_{dt:g}_{len(changes)}_{start:g}"
    unpack = tmp / f"unpack_{tag}"
    unpack.mkdir(exist_ok=True)
    req = tmp / f"{tag}.request.json"
    res = tmp / f"{tag}.result.json"
    req.write_text(json.dumps({"fmu": str(fmu), "input": input_name, "values": values,
                               "dt": dt, "tempdir": str(unpack), "result": str(res),
                               "changes": list(changes), "start": start}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([sys.executable, "-I", str(DRIVER), str(req)], env=env, cwd=tmp,
                          capture_output=True, text=True, timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    out = json.loads(res.read_text())
    assert out["hydrofmu_imported"] is False
    return out


def build_pair(bodies: list[Any], config: dict[str, Any], folder: Path, name: str,
               scheme: str = "exact", platforms: tuple[str, ...] | None = None
               ) -> tuple[Path, Path]:
    """(Python FMU with ``time_scheme = scheme``, native FMU) of one configuration (its
    binaries for ``platforms``, default: every one the build makes)."""
    cfg = copy.deepcopy(config)
    cfg["simulation"]["time_scheme"] = scheme
    native = build_native_fmu(bodies, cfg, folder / f"{name}.fmu", model_name=name,
                              python_fmu=folder / "python" / f"{name}.fmu",
                              platforms=platforms)
    return folder / "python" / f"{name}.fmu", native


def pto_series(n: int, amplitude: float) -> list[float]:
    """A PTO force that changes at every step (seeded), N."""
    rng = np.random.default_rng(2026)
    return [float(v) for v in amplitude * rng.standard_normal(n)]


def peak_error(a: dict, b: dict) -> tuple[float, str]:
    """The largest difference of an output relative to its peak, and its name."""
    assert a["names"] == b["names"]
    x, y = np.array(a["rows"]), np.array(b["rows"])
    peak = np.max(np.abs(x), axis=0)
    err = np.max(np.abs(x - y), axis=0) / np.where(peak > 0, peak, 1.0)
    i = int(np.argmax(err))
    return float(err[i]), a["names"][i]


def compare(pair: tuple[Path, Path], input_name: str, amplitude: float, dt: float,
            steps: int, tmp: Path, changes: list[tuple[int, str, float]] = (),
            start: float = 0.0) -> tuple[float, str]:
    values = pto_series(steps, amplitude)
    ref = run(pair[0], input_name, values, dt, tmp, changes, start)
    got = run(pair[1], input_name, values, dt, tmp, changes, start)
    assert np.all(np.isfinite(np.array(got["rows"])))
    return peak_error(ref, got)


def interface(fmu: Path, input_name: str) -> dict[str, Any]:
    """GUID, the input's value reference, the outputs' first reference and count."""
    root = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))
    variables = list(root.find("ModelVariables"))
    outs = [int(v.get("valueReference")) for v in variables if v.get("causality") == "output"]
    assert outs == list(range(outs[0], outs[0] + len(outs)))  # contiguous, as the host assumes
    vr_in = next(int(v.get("valueReference")) for v in variables if v.get("name") == input_name)
    return {"guid": root.get("guid"), "vr_in": vr_in, "out0": outs[0], "n_out": len(outs),
            "names": [v.get("name") for v in variables if v.get("causality") == "output"]}


def compile_host(out: Path, *flags: str, direct: bool = False) -> Path:
    """The C host, warnings as errors; ``direct`` links the runtime's sources in."""
    sources = [str(HOST_SOURCE)]
    if direct:
        sources.extend(str(RUNTIME / name) for name in C_SOURCES)
    cmd = ["gcc", "-std=c99", "-O1", "-g", "-Wall", "-Wextra", "-Werror", f"-I{RUNTIME}",
           f"-I{LINE_KERNEL_DIR}", f"-I{PANEL_KERNEL_DIR}", f"-I{BODY_KERNEL_DIR}",
           *flags, *(["-DDIRECT_LINK"] if direct else []), "-o", str(out), *sources, "-lm",
           "-ldl"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return out


def helpers_library(out: Path) -> Path:
    """The runtime compiled with its internal ``hfn_*`` helpers exported (``HFN_HIDDEN``
    defined empty, default visibility), for the tests that call them through ctypes; the
    shipped library exports the fmi2* functions only."""
    from hydrofmu.export.python_binary import c_compiler

    compiler = c_compiler()
    assert compiler is not None, "no C compiler"
    return compile_library(compiler, out, extra=("-DHFN_HIDDEN=", "-fvisibility=default"))


def host_run(host: Path, mode: str, info: dict[str, Any], dt: float, steps: int,
             *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(host), mode, info["binary"], info["uri"], info["guid"],
                           str(info["vr_in"]), str(info["n_out"]), str(info["out0"]), repr(dt),
                           str(steps), *extra], capture_output=True, text=True, timeout=600,
                          check=False, env=env)


def fuzz_in_fmpy(fmu: Path, calls: int, seed: int, tmp: Path) -> dict[str, Any]:
    """Run ``tests/fuzz_driver.py`` on ``fmu`` in an isolated interpreter."""
    result = tmp / f"fuzz_{fmu.stem}_{seed}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([sys.executable, "-I", str(FUZZ_DRIVER), str(fmu), str(calls),
                           str(seed), str(result)], env=env, cwd=tmp, capture_output=True,
                          text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(result.read_text())
