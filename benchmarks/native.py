"""Cost of a step of the native FMU in a C host, against a trivial C FMU of the same
variables and the Python FMU of the same model, in the same run.

Models: the BEMIO sphere (``examples/sphere_bemio_regular.toml``) in heave with state-space
radiation in an irregular sea of 200 components; the default sphere, six DOFs, state space,
regular wave; RM3 (``examples/rm3/rm3.toml``, two bodies and two joints, constant
radiation: its WAMIT data has no state-space realisation today). One step = set one input,
``fmi2DoStep`` of 0.1 s, get every output:

- native FMU in the C host ``tests/c_host/native_host.c`` (``bench`` mode, dlopen);
- the trivial C FMU of the same variables: the same runtime and host with a model of one
  state, no sinusoid and a zero output map (what the FMI calls cost alone);
- the Python FMU of the same model (time_scheme = exact; rk4 for the two models with
  quadratic drag or the elevation input, the native Runge-Kutta mode) in fmpy's
  ``FMU2Slave``.

Then the 3-hour sea state (108,000 steps of 0.1 s) of the native FMU in the C host: its
wall time and real-time factor.

    python benchmarks/native.py [--steps 20000] [--python-steps 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import os
import subprocess
import sys
import tempfile
import time
import tomllib
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hydrofmu.config.configuration import default_config, resolve  # noqa: E402
from hydrofmu.export.native import build_native_fmu  # noqa: E402
from hydrofmu.export.native.blob import NativeModel, read_header, write_blob  # noqa: E402
from hydrofmu.export.native.build import parameter_values  # noqa: E402

HOST = ROOT / "tests" / "c_host" / "native_host.c"
RUNTIME = ROOT / "fmu_src" / "hydrofmu" / "export" / "native" / "csrc"
DT = 0.1


def models() -> dict[str, tuple[list[Any], dict[str, Any], str]]:
    """name -> (bodies, config, the input stepped, the time scheme, the input's amplitude)."""
    toml = ROOT / "examples" / "sphere_bemio_regular.toml"
    data = tomllib.loads(toml.read_text())
    data["bodies"][0]["radiation"] = "state_space"
    data["wave"] = {"type": "irregular", "height": 3.0, "period": 9.0, "n_components": 200,
                    "ramp_time": 20.0}
    bemio = resolve(data, toml.parent, where=str(toml))
    sphere = default_config(radiation={"method": "state_space"})
    rm3_toml = ROOT / "examples" / "rm3" / "rm3.toml"
    rm3 = tomllib.loads(rm3_toml.read_text())
    for body in rm3["bodies"]:
        body["radiation"] = "constant"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rm3_model = resolve(rm3, rm3_toml.parent, where=str(rm3_toml))
    drag = default_config(radiation={"method": "state_space"},
                          wave={"type": "irregular", "height": 3.0, "period": 9.0,
                                "n_components": 200})
    drag[1]["bodies"][0]["quadratic_damping"] = [2e4, 2e4, 5e4, 1e6, 1e6, 1e5]
    elevation = default_config(radiation={"method": "state_space"}, wave={"type": "input"},
                               excitation={"preview_time": 2.0})
    elevation[1]["bodies"][0]["quadratic_damping"] = [0.0, 0.0, 5e4, 0.0, 0.0, 0.0]
    return {"BEMIO sphere heave, SS, 200 components": (*bemio, "body.F_pto[3]", "exact", 1e5),
            "default sphere 6 DOF, SS, regular": (*sphere, "body.F_pto[3]", "exact", 1e5),
            "RM3 (2 bodies, 2 joints)": (*rm3_model, "pto.F_pto", "exact", 1e5),
            "default sphere 6 DOF, SS, 200 components, quadratic drag (rk4, 0.01 s)":
                (*drag, "body.F_pto[3]", "rk4", 1e5),
            "default sphere 6 DOF, SS, elevation input, 2 s preview, heave drag (rk4, 0.01 s)":
                (*elevation, "wave.elevation_input", "rk4", 1.0)}


def compile_host(folder: Path) -> Path:
    exe = folder / "native_host"
    subprocess.run(["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", f"-I{RUNTIME}", "-o", str(exe),
                    str(HOST), "-lm", "-ldl"], check=True)
    return exe


def unpack(fmu: Path, folder: Path, name: str, input_name: str) -> dict[str, Any]:
    import xml.etree.ElementTree as ET

    target = folder / f"unpacked_{fmu.stem}"
    zipfile.ZipFile(fmu).extractall(target)
    root = ET.fromstring((target / "modelDescription.xml").read_bytes())
    variables = list(root.find("ModelVariables"))
    outs = [int(v.get("valueReference")) for v in variables if v.get("causality") == "output"]
    vr_in = next(int(v.get("valueReference")) for v in variables if v.get("name") == input_name)
    return {"dir": target, "binary": str(target / "binaries" / "linux64" / f"{name}.so"),
            "uri": (target / "resources").as_uri(), "guid": root.get("guid"),
            "vr_in": vr_in, "out0": outs[0], "n_out": len(outs)}


def trivial_copy(info: dict[str, Any], folder: Path, name: str) -> dict[str, Any]:
    """The same unpacked FMU with a trivial model: one state, no sinusoid, zero map."""
    import shutil

    target = folder / f"trivial_{name}"
    shutil.copytree(info["dir"], target)
    blob = (target / "resources" / "model.bin").read_bytes()
    head = read_header(blob)
    m, p = head["m"], head["outputs"]
    params = parameter_values((info["dir"] / "modelDescription.xml").read_bytes(), m, p)
    model = NativeModel(
        y0=np.zeros(1), u0=np.zeros(m), f=np.array([[-1.0]]), g=np.zeros((1, m + 1)), h0=DT,
        fused0=np.zeros((1, m + 2)), omega=np.zeros(0), steady=np.zeros((0, 1), complex),
        ramped=None, ramp_time=0.0, t0=0.0, divergence_limit=1e6, c=np.zeros((p, m + 2)),
        h_rows=np.zeros(0, dtype=np.intp), h=np.zeros((0, 0), complex),
        real_parameters=params["real"], int_parameters=params["int"],
        str_parameters=params["str"], parameter_names=params["names"], guid=params["guid"])
    (target / "resources" / "model.bin").write_bytes(write_blob(model))
    return {**info, "dir": target, "binary": str(Path(info["binary"].replace(
        str(info["dir"]), str(target)))), "uri": (target / "resources").as_uri()}


def host_us(host: Path, info: dict[str, Any], steps: int, repeat: int,
            amplitude: float = 1e5) -> float:
    best = float("inf")
    env = {**os.environ, "HFN_INPUT_AMPLITUDE": repr(amplitude)}
    for _ in range(repeat):
        out = subprocess.run([str(host), "bench", info["binary"], info["uri"], info["guid"],
                              str(info["vr_in"]), str(info["n_out"]), str(info["out0"]),
                              repr(DT), str(steps)], capture_output=True, text=True, check=True,
                             env=env)
        line = next(x for x in out.stdout.splitlines() if x.startswith("US_PER_STEP"))
        best = min(best, float(line.split()[1]))
    return best


def python_us(fmu: Path, input_name: str, steps: int, repeat: int,
              amplitude: float = 1e5) -> float:
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    outs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
    best = float("inf")
    for _ in range(repeat):
        s = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu)),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="py")
        s.instantiate()
        s.setupExperiment(startTime=0.0)
        s.enterInitializationMode()
        s.exitInitializationMode()
        t = 0.0
        start = time.perf_counter()
        for k in range(steps):
            s.setReal([vr[input_name]], [amplitude * np.sin(0.3 * t)])
            s.doStep(currentCommunicationPoint=t, communicationStepSize=DT)
            t = (k + 1) * DT
            s.getReal(outs)
        best = min(best, (time.perf_counter() - start) / steps * 1e6)
        s.terminate()
        s.freeInstance()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--python-steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="hydrofmu_native_bench_") as tmp:
        folder = Path(tmp)
        host = compile_host(folder)
        for k, (label, (bodies, config, input_name, scheme, amp)) in enumerate(
                models().items()):
            name = f"Bench{k}"
            cfg = copy.deepcopy(config)
            cfg["simulation"]["time_scheme"] = scheme
            py = folder / "py" / f"{name}.fmu"
            nat = build_native_fmu(bodies, cfg, folder / f"{name}.fmu", model_name=name,
                                   python_fmu=py, validate=False, platforms=["linux64"])
            info = unpack(nat, folder, name, input_name)
            trivial = trivial_copy(info, folder, name)
            slow = scheme != "exact"  # 10 internal steps of 4 stages per step
            native = host_us(host, info, args.steps // (10 if slow else 1), args.repeat, amp)
            empty = host_us(host, trivial, args.steps, args.repeat, amp)
            python = python_us(py, input_name, args.python_steps // (10 if slow else 1),
                               args.repeat, amp)
            sea = host_us(host, info, 108_000, 1, amp) * 108_000 * 1e-6
            rows.append((label, info["n_out"], native, empty, python, sea))
    print("| model | outputs | native, C host (µs/step) | trivial C FMU (µs/step) | ratio "
          "| Python FMU, fmpy (µs/step) | 3-hour sea, native (s wall) | real time x |\n"
          "|---|---|---|---|---|---|---|---|")
    for label, n_out, native, empty, python, sea in rows:
        print(f"| {label} | {n_out} | {native:.2f} | {empty:.2f} | {native / empty:.1f} | "
              f"{python:.1f} | {sea:.3f} | {10800 / sea:,.0f} |")


if __name__ == "__main__":
    main()
