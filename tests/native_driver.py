"""Step an FMU (a .fmu file or an unpacked folder) with fmpy where hydrofmu is NOT importable.

``python -I native_driver.py <request.json>``: the request names the FMU, the input
variable, its value at every step, the communication step and how many steps; the result
(JSON beside it) holds every Real output after every step and every status. Used by
``tests/test_native_fmu.py`` for the Python FMU and the native FMU of the same model, so
that both run the same calls. Only fmpy, numpy and the standard library.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if not (Path(p or ".") / "hydrofmu").is_dir()]

import json  # noqa: E402

from fmpy import extract, read_model_description  # noqa: E402
from fmpy.fmi2 import FMU2Slave  # noqa: E402


def main(request_path: str) -> None:
    req = json.loads(Path(request_path).read_text())
    md = read_model_description(req["fmu"])
    outputs = [v for v in md.modelVariables if v.causality == "output"]
    vr_out = [v.valueReference for v in outputs]
    vr_in = {v.name: v.valueReference for v in md.modelVariables}[req["input"]]
    unzip = (req["fmu"] if Path(req["fmu"]).is_dir()
             else extract(req["fmu"], unzipdir=req["tempdir"]))
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzip,
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="a")
    fmu.instantiate()
    start = float(req.get("start", 0.0))
    fmu.setupExperiment(startTime=start)
    changes: dict[int, list[tuple[str, float]]] = {}
    for k, name, value in req.get("changes", []):  # step -1: in initialization mode
        changes.setdefault(int(k), []).append((name, value))
    vrs = {v.name: v.valueReference for v in md.modelVariables}
    fmu.enterInitializationMode()
    for name, value in changes.get(-1, []):
        fmu.setReal([vrs[name]], [value])
    fmu.exitInitializationMode()
    rows = [fmu.getReal(vr_out)]
    t, dt = start, float(req["dt"])
    for k, value in enumerate(req["values"]):
        for name, change in changes.get(k, []):  # tunable parameters changed before step k
            fmu.setReal([vrs[name]], [change])
        fmu.setReal([vr_in], [value])
        fmu.doStep(currentCommunicationPoint=t, communicationStepSize=dt)
        t = start + (k + 1) * dt
        rows.append(fmu.getReal(vr_out))
    fmu.terminate()
    fmu.freeInstance()
    Path(req["result"]).write_text(json.dumps({
        "names": [v.name for v in outputs], "rows": rows,
        "hydrofmu_imported": any(m.startswith("hydrofmu") for m in sys.modules)}))


if __name__ == "__main__":
    main(sys.argv[1])
