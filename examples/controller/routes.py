"""The body FMU (heave) with the PTO controller FMU in the loop, four ways.

- ``loop``: the reference, one fmpy loop over the body FMU alone with the damping applied
  by hand: ``F_pto[3] = -c * velocity[3]`` set before every step;
- ``jacobi`` / ``gauss-seidel``: :class:`hydrofmu.cosim.master.FixedStepMaster`;
- ``libcosim``: libcosimpy from an OSP system structure file (``OspSystemStructure.xml``,
  written here; the body's ``<model>_OspModelDescription.xml`` beside it);
- ``ssp``: an SSP archive (``.ssp``, written here) run by ``fmpy.ssp``.

Each route prints nothing and writes ``{"time": [...], "heave": [...]}`` as JSON:

    python examples/controller/routes.py ROUTE BODY.fmu CONTROLLER.fmu OUT.json \
        [--dt 0.05] [--stop 120] [--damping 2e5] [--pi KP KI]

``--pi KP KI`` (N s/m, N/m) runs the controller in PI mode, set point 0; only the
``jacobi`` and ``gauss-seidel`` routes take it.

Run each route in its own process (as the tests do): two Python FMUs in one process are
fine, but a crash of one importer should not take the others with it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np

BODY_VELOCITY, BODY_FORCE, BODY_HEAVE = "body.velocity[3]", "body.F_pto[3]", "body.pose[3]"


def _md(path: Path):
    from fmpy import read_model_description

    return read_model_description(str(path))


def run_loop(body: Path, controller: Path, dt: float, stop: float, damping: float) -> dict:
    """Reference: the body FMU alone, F = -c v applied before every step (fmpy)."""
    from fmpy import extract
    from fmpy.fmi2 import FMU2Slave

    md = _md(body)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    unzipdir = extract(str(body))
    fmu = FMU2Slave(
        guid=md.guid,
        unzipDirectory=unzipdir,
        modelIdentifier=md.coSimulation.modelIdentifier,
        instanceName="body",
    )
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    n = round(stop / dt)
    heave = [fmu.getReal([vr[BODY_HEAVE]])[0]]
    for k in range(n):
        v = fmu.getReal([vr[BODY_VELOCITY]])[0]
        fmu.setReal([vr[BODY_FORCE]], [-damping * v])
        fmu.doStep(k * dt, dt)
        heave.append(fmu.getReal([vr[BODY_HEAVE]])[0])
    fmu.terminate()
    fmu.freeInstance()
    shutil.rmtree(unzipdir, ignore_errors=True)
    return {"time": (np.arange(n + 1) * dt).tolist(), "heave": heave}


def run_master(
    body: Path, controller: Path, dt: float, stop: float, damping: float, algorithm: str,
    pi_gains: tuple[float, float] | None = None,
) -> dict:
    """The project's master; ``pi_gains = (kp, ki)`` runs the controller in PI mode
    (velocity set point 0: ``F = -kp v - ki x`` with the integral from the start)."""
    from hydrofmu.cosim.master import FixedStepMaster

    values: dict[str, float] = {"damping": damping}
    if pi_gains is not None:
        values.update(mode=1, kp=pi_gains[0], ki=pi_gains[1])
    master = FixedStepMaster(
        fmus={"body": body, "pto": controller},
        connections=[
            (f"body.{BODY_VELOCITY}", "pto.velocity"),
            ("pto.force", f"body.{BODY_FORCE}"),
        ],
        step_size=dt,
        algorithm=algorithm,
        order=["pto", "body"],
        start_values={"pto": values},
    )
    result = master.run(stop, record=[f"body.{BODY_HEAVE}"])
    return {"time": result["time"].tolist(), "heave": result[f"body.{BODY_HEAVE}"].tolist()}


def write_osp_system(folder: Path, body: Path, controller: Path, dt: float, damping: float) -> Path:
    """Copy both FMUs (and the body's OSP model description) into ``folder`` and write
    ``OspSystemStructure.xml`` connecting velocity -> controller -> force."""
    from hydrofmu.export.osp import write_osp_model_description

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(body, folder / body.name)
    shutil.copyfile(controller, folder / controller.name)
    write_osp_model_description(folder / body.name)
    ns = "http://opensimulationplatform.com/MSMI/OSPSystemStructure"
    root = ET.Element("OspSystemStructure", {"xmlns": ns, "version": "0.1"})
    ET.SubElement(root, "StartTime").text = "0.0"
    ET.SubElement(root, "BaseStepSize").text = repr(dt)
    ET.SubElement(root, "Algorithm").text = "fixedStep"
    sims = ET.SubElement(root, "Simulators")
    ET.SubElement(sims, "Simulator", {"name": "body", "source": body.name})
    pto = ET.SubElement(sims, "Simulator", {"name": "pto", "source": controller.name})
    values = ET.SubElement(
        ET.SubElement(pto, "InitialValues"), "InitialValue", {"variable": "damping"}
    )
    ET.SubElement(values, "Real", {"value": repr(damping)})
    conns = ET.SubElement(root, "Connections")
    for (s1, v1), (s2, v2) in (
        (("body", BODY_VELOCITY), ("pto", "velocity")),
        (("pto", "force"), ("body", BODY_FORCE)),
    ):
        c = ET.SubElement(conns, "VariableConnection")
        ET.SubElement(c, "Variable", {"simulator": s1, "name": v1})
        ET.SubElement(c, "Variable", {"simulator": s2, "name": v2})
    ET.indent(root)
    path = folder / "OspSystemStructure.xml"
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode")
    )
    return path


def run_libcosim(body: Path, controller: Path, dt: float, stop: float, damping: float) -> dict:
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver

    log_output_level(CosimLogLevel.WARNING)
    with tempfile.TemporaryDirectory(prefix="osp_system_") as tmp:
        config = write_osp_system(Path(tmp), body, controller, dt, damping)
        execution = CosimExecution.from_osp_config_file(str(config.parent))
        slaves = {
            s.name.decode() if isinstance(s.name, bytes) else s.name: s.index
            for s in execution.slave_infos()
        }
        index = slaves["body"]
        heave_vr = next(
            v.reference
            for v in execution.slave_variables(index)
            if (v.name.decode() if isinstance(v.name, bytes) else v.name) == BODY_HEAVE
        )
        n = round(stop / dt)
        observer = CosimObserver.create_last_value()
        execution.add_observer(observer)
        heave = []
        execution.step(1)  # libcosim initializes at its first step
        heave.append(observer.last_real_values(index, [heave_vr])[0])
        for _ in range(n - 1):
            execution.step(1)
            heave.append(observer.last_real_values(index, [heave_vr])[0])
        status = execution.status()
        if status.error_code != 0:
            raise RuntimeError(f"libcosim error code {status.error_code}")
    return {"time": (np.arange(1, n + 1) * dt).tolist(), "heave": heave}


def write_ssp(path: Path, body: Path, controller: Path, damping: float) -> Path:
    """An SSP archive: both FMUs under ``resources/`` and ``SystemStructure.ssd``."""
    ssd_ns = "http://ssp-standard.org/SSP1/SystemStructureDescription"
    ssc_ns = "http://ssp-standard.org/SSP1/SystemStructureCommon"
    ET.register_namespace("ssd", ssd_ns)
    ET.register_namespace("ssc", ssc_ns)

    def q(tag: str) -> str:
        return f"{{{ssd_ns}}}{tag}"

    root = ET.Element(q("SystemStructureDescription"), {"version": "1.0", "name": "wec"})
    system = ET.SubElement(root, q("System"), {"name": "wec"})
    elements = ET.SubElement(system, q("Elements"))

    def component(name: str, fmu: Path, connectors: list[tuple[str, str]]) -> None:
        comp = ET.SubElement(
            elements,
            q("Component"),
            {
                "name": name,
                "type": "application/x-fmu-sharedlibrary",
                "source": f"resources/{fmu.name}",
            },
        )
        conns = ET.SubElement(comp, q("Connectors"))
        for cname, kind in connectors:
            c = ET.SubElement(conns, q("Connector"), {"name": cname, "kind": kind})
            ET.SubElement(c, f"{{{ssc_ns}}}Real")

    component(
        "body", body, [(BODY_FORCE, "input"), (BODY_VELOCITY, "output"), (BODY_HEAVE, "output")]
    )
    component("pto", controller, [("velocity", "input"), ("force", "output")])
    connections = ET.SubElement(system, q("Connections"))
    for s1, c1, s2, c2 in (
        ("body", BODY_VELOCITY, "pto", "velocity"),
        ("pto", "force", "body", BODY_FORCE),
    ):
        ET.SubElement(
            connections,
            q("Connection"),
            {"startElement": s1, "startConnector": c1, "endElement": s2, "endConnector": c2},
        )
    ET.indent(root)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("SystemStructure.ssd", ET.tostring(root, encoding="unicode"))
        z.write(body, f"resources/{body.name}")
        z.write(controller, f"resources/{controller.name}")
    return path


def run_ssp(body: Path, controller: Path, dt: float, stop: float, damping: float) -> dict:
    from fmpy.ssp.simulation import simulate_ssp

    default = next(float(v.start) for v in _md(controller).modelVariables if v.name == "damping")
    if damping != default:
        raise ValueError(
            f"the ssp route runs the controller's default damping {default} N s/m (fmpy's SSP "
            f"runner sets no parameter values); got {damping}"
        )
    with tempfile.TemporaryDirectory(prefix="ssp_") as tmp:
        ssp = write_ssp(Path(tmp) / "wec.ssp", body, controller, damping)
        result = simulate_ssp(str(ssp), stop_time=stop, step_size=dt)
    # fmpy records the connectors after each step, stamped with the step's start time.
    names = result.dtype.names
    heave_col = next(n for n in names if n.endswith(BODY_HEAVE))
    return {
        "time": (np.asarray(result["time"]) + dt).tolist(),
        "heave": np.asarray(result[heave_col]).tolist(),
    }


ROUTES = {
    "loop": run_loop,
    "jacobi": lambda *a: run_master(*a, algorithm="jacobi"),
    "gauss-seidel": lambda *a: run_master(*a, algorithm="gauss-seidel"),
    "libcosim": run_libcosim,
    "ssp": run_ssp,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("route", choices=sorted(ROUTES))
    parser.add_argument("body", type=Path)
    parser.add_argument("controller", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--dt", type=float, default=0.05, help="communication step, s")
    parser.add_argument("--stop", type=float, default=120.0, help="stop time, s")
    parser.add_argument("--damping", type=float, default=2.0e5, help="c, N s/m")
    parser.add_argument("--pi", type=float, nargs=2, metavar=("KP", "KI"),
                        help="PI mode with gains KP (N s/m) and KI (N/m), set point 0")
    args = parser.parse_args(argv)
    route = ROUTES[args.route]
    common = (args.body.absolute(), args.controller.absolute(), args.dt, args.stop, args.damping)
    if args.pi is not None:
        if args.route not in ("jacobi", "gauss-seidel"):
            parser.error(f"--pi needs the jacobi or gauss-seidel route, not {args.route!r}")
        result = run_master(*common, algorithm=args.route, pi_gains=tuple(args.pi))
    else:
        result = route(*common)
    args.out.write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
