"""Cost of a 0.1 s step of the moored models natively in a C host against their Python FMU
(issue 31): the shipped moored body (``examples/moored_body.toml``: three chains, 24
segments, midpoint5 at 0.01 s) and the RM3 with WEC-Sim's MoorDyn mooring
(``examples/rm3/rm3_moordyn.toml``: six chains, 60 segments, three free buoys, midpoint5 at
0.005 s). One step = set one input, ``fmi2DoStep`` of 0.1 s, get every output:

- the native FMU in the C host ``tests/c_host/native_host.c`` (``bench`` mode, dlopen);
- the Python FMU of the same model in fmpy's ``FMU2Slave``.

Prints the table and the real-time factors, and draws ``docs/benchmarks/native_lines.png``.

    python benchmarks/native_lines.py [--steps 2000] [--python-steps 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from native import DT, compile_host, host_us, unpack  # noqa: E402

from hydrofmu.api.model import Model  # noqa: E402
from hydrofmu.export.native import build_native_fmu  # noqa: E402

MODELS = {"moored body (3 chains, midpoint5, 0.01 s)":
          (ROOT / "examples" / "moored_body.toml", "body.F_pto[1]"),
          "RM3 + WEC-Sim MoorDyn mooring (6 chains, 3 buoys, midpoint5, 0.005 s)":
          (ROOT / "examples" / "rm3" / "rm3_moordyn.toml", "pto.F_pto")}


def python_us(fmu: Path, input_name: str, steps: int, folder: Path) -> float:
    """µs per step of the Python FMU in fmpy (set the input, step, get every output)."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu))
    outs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
    vr_in = next(v.valueReference for v in md.modelVariables if v.name == input_name)
    slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu), unzipdir=str(folder)),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="p")
    slave.instantiate()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.exitInitializationMode()
    t0 = time.perf_counter()
    for k in range(steps):
        slave.setReal([vr_in], [1e5 * (k % 7 - 3) / 3.0])
        slave.doStep(currentCommunicationPoint=k * DT, communicationStepSize=DT)
        slave.getReal(outs)
    us = (time.perf_counter() - t0) / steps * 1e6
    slave.terminate()
    slave.freeInstance()
    return us


def plot(rows: list[tuple[str, float, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    names = [r[0].split(" (")[0] for r in rows]
    y = range(len(rows))
    ax.barh([i + 0.2 for i in y], [r[1] for r in rows], height=0.4, label="native, C host")
    ax.barh([i - 0.2 for i in y], [r[2] for r in rows], height=0.4, label="Python FMU, fmpy")
    ax.axvline(DT * 1e6, color="k", lw=0.8, ls="--", label="real time (0.1 s)")
    ax.set_xscale("log")
    ax.set_yticks(list(y), names)
    ax.set_xlabel("µs per 0.1 s step")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--python-steps", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plot", default=str(ROOT / "docs" / "benchmarks" /
                                              "native_lines.png"))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="hydrofmu_bench_lines_") as tmp:
        folder = Path(tmp)
        host = compile_host(folder)
        for i, (label, (toml, input_name)) in enumerate(MODELS.items()):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = Model.from_toml(toml)
                name = f"M{i}"
                native = build_native_fmu(model.bodies, copy.deepcopy(model.config),
                                          folder / f"{name}.fmu", model_name=name,
                                          python_fmu=folder / "py" / f"{name}.fmu",
                                          platforms=("linux64",))
            info = unpack(native, folder, name, input_name)
            nat = host_us(host, info, args.steps, args.repeat)
            py = python_us(folder / "py" / f"{name}.fmu", input_name, args.python_steps,
                           folder / f"py_{name}")
            rows.append((label, nat, py))
    print("| model | native, C host (µs/step) | real time x | Python FMU (µs/step) | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for label, nat, py in rows:
        print(f"| {label} | {nat:.0f} | {DT * 1e6 / nat:.1f} | {py:.0f} | {py / nat:.1f} |")
    plot(rows, Path(args.plot))


if __name__ == "__main__":
    main()
