"""Simulink's FMU import checklist, where it can be tested without MATLAB, for the native
and the Python FMU of the default body (convolution radiation, rk4 on a 0.01 s grid):

- ``needsExecutionTool="false"``, ``canBeInstantiatedOnlyOncePerProcess="false"``;
- ``canHandleVariableCommunicationStepSize="true"`` and honoured: steps of varying length
  give, at the shared communication points, what constant steps give;
- two instantiate/free cycles in one process give the same run.

The resource locations are in ``tests/test_simulink_uri.py``; the choice parameters as
enumerations in ``tests/test_simulink_enums.py``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.fmi2 import FMU2Slave

import hydrofmu

#: Communication steps of varying length, s, each a whole number of the 0.01 s internal
#: grid (the internal steps then fall on the same grid as under constant steps).
VARYING = [0.05, 0.1, 0.25, 0.05, 0.15, 0.3, 0.1, 0.2, 0.05, 0.25]
#: The constant step of the reference, s (every varying step is a whole number of it).
H0 = 0.05


@pytest.fixture(scope="module")
def fmus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("simulink")
    model = hydrofmu.Model.default()
    built = {"native": model.build_fmu(folder / "N.fmu", model_name="Sphere", native=True,
                                       platforms=(fmpy.platform,)),
             "python": model.build_fmu(folder / "P.fmu", model_name="Sphere", native=False)}
    unpacked = {}
    for kind, fmu in built.items():
        unpacked[kind] = folder / kind
        with zipfile.ZipFile(fmu) as z:
            z.extractall(unpacked[kind])
    return unpacked


def force(t: float) -> float:
    """The PTO heave force held over a step that starts at ``t``, N."""
    return 2e5 * np.sin(2.0 * np.pi * t / 7.0)


def run(unzipdir: Path, steps: list[float], hold: list[float] | None = None
        ) -> dict[float, float]:
    """Step through ``steps`` (s); the force changes at the times of ``hold`` (default: at
    every communication point) and is held in between. Heave by communication time."""
    md = fmpy.read_model_description(str(unzipdir))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    slave = FMU2Slave(guid=md.guid, unzipDirectory=str(unzipdir),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="sl")
    slave.instantiate()
    try:
        slave.setupExperiment(startTime=0.0)
        slave.enterInitializationMode()
        slave.exitInitializationMode()
        t, out, changes = 0.0, {}, set(np.round(hold, 9)) if hold is not None else None
        for h in steps:
            if changes is None or round(t, 9) in changes:
                slave.setReal([vr["body.F_pto[3]"]], [force(t)])
            slave.doStep(t, h)
            t = round(t + h, 9)
            out[t] = slave.getReal([vr["body.pose[3]"]])[0]
        slave.terminate()
    finally:
        slave.freeInstance()
    return out


@pytest.mark.parametrize("kind", ["native", "python"])
def test_capabilities(fmus, kind: str) -> None:
    cs = fmpy.read_model_description(str(fmus[kind])).coSimulation
    assert cs.needsExecutionTool is False
    assert cs.canHandleVariableCommunicationStepSize is True
    assert cs.canBeInstantiatedOnlyOncePerProcess is False


@pytest.mark.parametrize("kind", ["native", "python"])
def test_varying_steps_equal_constant_steps(fmus, kind: str) -> None:
    """The same force (changed only where the varying steps start) stepped with the
    varying steps and with constant 0.05 s steps: equal at every shared point to 1e-12 of
    the heave's range. Both step the same rk4 on the same 0.01 s grid; only the order of
    the floating-point work differs (the grid's time is ``t0 + j dt`` in both)."""
    starts = list(np.cumsum([0.0, *VARYING[:-1]]))
    reference = run(fmus[kind], [H0] * round(sum(VARYING) / H0), hold=starts)
    varying = run(fmus[kind], VARYING, hold=starts)
    assert set(varying) <= set(reference)
    scale = np.ptp(list(reference.values()))
    assert scale > 1e-3  # the force moves the body
    worst = max(abs(varying[t] - reference[t]) for t in varying)
    assert worst <= 1e-12 * scale, worst / scale


@pytest.mark.parametrize("kind", ["native", "python"])
def test_varying_steps_are_honoured(fmus, kind: str) -> None:
    """The steps' lengths matter: the force changed at every communication point of the
    varying steps differs from the constant steps' (it is held over different intervals),
    so an FMU that stepped a fixed length regardless would not pass the test above."""
    varying = run(fmus[kind], VARYING)
    reference = run(fmus[kind], [H0] * round(sum(VARYING) / H0))
    t_end = max(varying)
    assert t_end == pytest.approx(sum(VARYING))
    # a 2e5 N force held up to 0.25 s longer or shorter moves the heave by a few percent
    # of its range (2 cm of 16 cm here); round-off would be 1e-16 of it
    scale = np.ptp(list(reference.values()))
    assert abs(varying[t_end] - reference[t_end]) > 1e-2 * scale


@pytest.mark.parametrize("kind", ["native", "python"])
def test_two_instantiate_free_cycles(fmus, kind: str) -> None:
    """Instantiate, run, free, and again in the same process: the same run, bit for bit
    (nothing of the first instance survives into the second)."""
    first = run(fmus[kind], VARYING)
    second = run(fmus[kind], VARYING)
    assert first == second
