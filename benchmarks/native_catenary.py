"""Cost of a 0.1 s step of the catenary-moored body natively in a C host against its Python
FMU (issue 31): ``examples/catenary/catenary_moored.toml`` (the default sphere on three
quasi-static chains, rk4 at 0.02 s: 5 internal steps of 4 stages, three line solves at each
stage). One step = set one input, ``fmi2DoStep`` of 0.1 s, get every output:

- the native FMU in the C host ``tests/c_host/native_host.c`` (``bench`` mode, dlopen);
- the Python FMU of the same model in fmpy's ``FMU2Slave``.

Both call the same C solve (``runtime/moorings/catenary_kernel.c``). Also the cost of one
evaluation of the three lines from Python (``CatenaryBody.evaluate``: ctypes, the kinematics
and three solves in C), which the Python solve it replaced took about 92 µs per line for.

    python benchmarks/native_catenary.py [--steps 2000] [--python-steps 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from native import DT, compile_host, host_us, unpack  # noqa: E402
from native_lines import python_us  # noqa: E402

from hydrofmu.api.model import Model  # noqa: E402
from hydrofmu.export.native import build_native_fmu  # noqa: E402
from hydrofmu.export.native.build import build_simulator, payload_model  # noqa: E402
from hydrofmu.export.native.catenary_blob import catenary_parts  # noqa: E402

EXAMPLE = ROOT / "examples" / "catenary" / "catenary_moored.toml"
INPUT = "body.F_pto[1]"


def evaluate_us(model: Model, calls: int) -> float:
    """µs per evaluation of the example's three lines from Python (one C call)."""
    bodies, config = payload_model(model.bodies, copy.deepcopy(model.config))
    part = catenary_parts(build_simulator(bodies, config))[0]
    rng = np.random.default_rng(1)
    poses = np.concatenate([rng.uniform(-1, 1, (calls, 3)), rng.uniform(-0.05, 0.05,
                                                                         (calls, 3))], axis=1)
    t0 = time.perf_counter()
    for pose in poses:
        part.evaluate(pose)
    return (time.perf_counter() - t0) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--python-steps", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hydrofmu_bench_catenary_") as tmp:
        folder = Path(tmp)
        host = compile_host(folder)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = Model.from_toml(EXAMPLE)
            native = build_native_fmu(model.bodies, copy.deepcopy(model.config),
                                      folder / "Cat.fmu", model_name="Cat",
                                      python_fmu=folder / "py" / "Cat.fmu",
                                      platforms=("linux64",))
        info = unpack(native, folder, "Cat", INPUT)
        nat = host_us(host, info, args.steps, args.repeat)
        py = python_us(folder / "py" / "Cat.fmu", INPUT, args.python_steps, folder / "py_cat")
        ev = evaluate_us(model, 2000)
    print("| model | native, C host (µs/step) | real time x | Python FMU (µs/step) | ratio |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| catenary-moored body (3 lines, rk4, 0.02 s) | {nat:.0f} | {DT * 1e6 / nat:.0f} "
          f"| {py:.0f} | {py / nat:.0f} |")
    print(f"three lines evaluated from Python (ctypes, one C call): {ev:.1f} µs "
          f"({ev / 3:.1f} µs per line)")


if __name__ == "__main__":
    main()
