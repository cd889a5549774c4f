"""fmpy's native logger proxy after a run with a logger (:mod:`hydrofmu.cosim.fmpy_logger`).

fmpy keeps ONE process-wide pointer to the Python logger its C proxy forwards to;
``fmpy.simulate_fmu(logger=...)``, which ``hydrofmu run`` and ``sweep`` use, points it at a
callback freed when the call returns. An FMU instantiated afterwards in the same process
with fmpy's default callbacks then logged through a dangling pointer: the process crashed on
the FMU's first message (this suite's worker did, at a refused ``fmi2DeSerializeFMUstate``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hydrofmu.config.configuration import default_config
from hydrofmu.cosim.fmpy_run import simulate
from hydrofmu.export.native.build import build_native_fmu

SCRIPT = r"""
import gc, sys
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave, fmi2CallbackLoggerTYPE
from hydrofmu.config.configuration import default_config
from hydrofmu.cosim.fmpy_run import simulate

fmu = sys.argv[1]
simulate(fmu, start_time=0.0, stop_time=0.2, output_interval=0.1)  # fmpy with a logger
gc.collect()
spies = []  # new callbacks: a dangling pointer would now land on one of them
spies += [fmi2CallbackLoggerTYPE(lambda *a: print("SPY", flush=True)) for _ in range(50)]
md = read_model_description(fmu)
slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(fmu),
                  modelIdentifier=md.coSimulation.modelIdentifier, instanceName="after")
slave.instantiate()  # fmpy's default callbacks: the proxy
try:
    slave.setReal([987654], [1.0])  # no such variable: the FMU logs why and refuses
except Exception as exc:
    print("refused:", exc, flush=True)
slave.freeInstance()
print("alive", flush=True)
"""


def test_an_fmu_logs_through_fmpy_after_a_run_with_a_logger(tmp_path: Path) -> None:
    """After :func:`hydrofmu.cosim.fmpy_run.simulate` (fmpy with a logger), an FMU with
    fmpy's default callbacks logs through fmpy's default printer: the refusal's reason
    printed as ``[ERROR] ...``, no spy called, no crash (run in a child process, so a crash
    fails this test instead of the test run)."""
    bodies, config = default_config(radiation={"method": "state_space"})
    config["simulation"]["time_scheme"] = "exact"
    fmu = build_native_fmu(bodies, config, tmp_path / "Logged.fmu", model_name="Logged",
                           platforms=("linux64",))
    assert simulate(fmu, start_time=0.0, stop_time=0.2, output_interval=0.1).size
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(fmu)], capture_output=True,
                          text=True, timeout=300, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "alive" in proc.stdout and "SPY" not in proc.stdout, out[-3000:]
    assert "[ERROR]" in proc.stdout and "987654" in proc.stdout, out[-3000:]
