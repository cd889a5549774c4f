"""RM3 two-body point absorber through its FMU, with the PTO damper closed outside it.

Builds ``rm3.toml`` into an FMU and drives it with fmpy: at every communication step the
controller reads ``pto.velocity`` (float relative to spar, heave) and sets
``pto.F_pto = -c * pto.velocity`` (c = 1.2e6 N s/m, the reference damper). Prints, over
the last ``--window`` seconds, the heave amplitudes of the float, of the spar and of the
relative motion, their cycle-to-cycle change (periodicity) and the mean absorbed power
``c * velocity^2``, for each communication step given.

    python examples/rm3/rm3_pto.py [--out DIR] [--steps 0.05 0.025] [--stop 300]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import warnings
from pathlib import Path

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave

from hydrofmu.config.configuration import load_config
from hydrofmu.export.fmu import build_fmu

HERE = Path(__file__).resolve().parent
DAMPING = 1.2e6  # N s/m, the RM3 reference PTO damper
PERIOD = 8.0  # s, the wave period of rm3.toml


def run(fmu: Path, step: float, stop: float) -> dict[str, np.ndarray]:
    """Drive the FMU with the damper fed back each step; the recorded outputs."""
    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    unzip = extract(str(fmu))
    slave = FMU2Slave(guid=md.guid, unzipDirectory=unzip,
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="rm3")
    names = ["float.pose[3]", "spar.pose[3]", "pto.position", "pto.velocity"]
    refs = [vr[n] for n in names]
    try:
        slave.instantiate()
        slave.setupExperiment(startTime=0.0, stopTime=stop)
        slave.enterInitializationMode()
        slave.exitInitializationMode()
        n = round(stop / step)
        rec = np.zeros((n + 1, 1 + len(names)))
        force = 0.0
        for k in range(n + 1):
            t = k * step
            y = slave.getReal(refs)
            rec[k] = [t, *y]
            if k == n:
                break
            force = -DAMPING * y[3]
            slave.setReal([vr["pto.F_pto"]], [force])
            slave.doStep(currentCommunicationPoint=t, communicationStepSize=step)
        slave.terminate()
    finally:
        slave.freeInstance()
        shutil.rmtree(unzip, ignore_errors=True)
    return {"time": rec[:, 0], **{nm: rec[:, i + 1] for i, nm in enumerate(names)}}


def summary(res: dict[str, np.ndarray], window: float) -> dict[str, float]:
    """Amplitudes (half peak-to-peak), periodicity and mean power over the last window."""
    t = res["time"]
    last = t >= t[-1] - window
    prev = (t >= t[-1] - window - PERIOD) & (t < t[-1] - PERIOD)
    out = {}
    for key, name in (("float", "float.pose[3]"), ("spar", "spar.pose[3]"),
                      ("relative", "pto.position")):
        x = res[name]
        out[key] = 0.5 * float(np.ptp(x[last]))
        # Periodicity: the same window one period earlier, sample by sample.
        m = min(int(last.sum()), int(prev.sum()))
        out[f"{key}_period_change"] = float(np.max(np.abs(x[last][:m] - x[prev][:m]))
                                            / max(out[key], 1e-300))
    out["power"] = float(np.mean(DAMPING * res["pto.velocity"][last] ** 2))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None)
    parser.add_argument("--steps", type=float, nargs="+", default=[0.05, 0.025])
    parser.add_argument("--stop", type=float, default=300.0)
    parser.add_argument("--window", type=float, default=5 * PERIOD)
    args = parser.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="hydrofmu-rm3-"))
    out.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # WAMIT's 4-digit data: asymmetry notes
        bodies, cfg = load_config(HERE / "rm3.toml")
    fmu = build_fmu(bodies, cfg, out / "rm3.fmu", model_name="RM3", overwrite=True)
    print(f"{'step':>7s} {'float':>9s} {'spar':>9s} {'relative':>9s} {'periodic':>9s} "
          f"{'power_W':>11s}")
    for step in args.steps:
        s = summary(run(fmu, step, args.stop), args.window)
        periodic = max(s["float_period_change"], s["spar_period_change"],
                       s["relative_period_change"])
        print(f"{step:7.4f} {s['float']:9.5f} {s['spar']:9.5f} {s['relative']:9.5f} "
              f"{periodic:9.2e} {s['power']:11.1f}")
    print(f"FMU in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
