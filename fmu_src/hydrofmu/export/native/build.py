"""``hydrofmu build --native``: an FMI 2.0 co-simulation FMU with no Python at run time.

The model is assembled by the same Python as the Python FMU of the same configuration: that
FMU is built first (in a temporary folder), its payload loaded into a
:class:`~hydrofmu.runtime.simulator.simulator.Simulator` with the default parameters, and the
linear model, its
exact discretisation and its output map written into ``resources/model.bin``
(:mod:`hydrofmu.export.native.assemble`, :mod:`hydrofmu.export.native.blob`). The model
description is the Python FMU's (same names, units, causalities, value references), with:

- the tunable parameters declared ``fixed`` (the native runtime steps matrices computed at
  build: a parameter other than its build value is refused with a message naming the
  rebuild), except ``wave.height``, which scales every sinusoid (as the Python FMU scales
  its wave by height / built height) when the wave was built at a height other than 0,
  and the linear PTOs' ``pto.<name>.damping`` and ``pto.<name>.stiffness``: ``F``, ``G``
  and the output map are affine in them (checked at build), their derivatives are stored
  and the runtime re-discretises and solves for the particular solutions again when one
  changes;
- ``time_scheme`` = ``exact`` (the only scheme of the native runtime);
- ``<SourceFiles>`` listing the C runtime, shipped in ``sources/``.

Binaries: linux64 with the C compiler the project finds
(:func:`~hydrofmu.export.python_binary.c_compiler`),
win64 and darwin64 (a universal x86_64 + arm64 library) cross-compiled with the ziglang
wheel when it is installed (:mod:`hydrofmu.export.native.compile`).

Build time only.
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...runtime.errors import ExportError
from ...runtime.version import __version__
from .assemble import native_model, refusal
from .blob import write_blob
from .compile import C_SOURCES, RUNTIME_DIR, SOURCES, compile_all

#: Model file of the native runtime inside ``resources``.
NATIVE_MODEL_FILE = "model.bin"


def _python_fmu(bodies: Sequence[Any], config: dict[str, Any], folder: Path,
                model_name: str, description: str | None) -> Path:
    from ..fmu import build_fmu

    # The standard Python FMU (with hydrofmu's shim where a compiler is found): it is also
    # the one handed back by build_native_fmu(python_fmu=...).
    return build_fmu(bodies, config, folder / f"{model_name}.fmu", model_name=model_name,
                     description=description, validate=False)


def _simulator(fmu: Path, folder: Path) -> Any:
    """The Simulator of a built Python FMU's payload with its default parameters."""
    from ...runtime.hydrodata.store import load_model
    from ...runtime.simulator.layout import parameter_table
    from ...runtime.simulator.simulator import Simulator
    from ..fmu import MODEL_FILE

    with zipfile.ZipFile(fmu) as z:
        path = folder / MODEL_FILE
        path.write_bytes(z.read(f"resources/{MODEL_FILE}"))
    payload = load_model(path)
    bodies, config = list(payload["bodies"]), dict(payload["config"])
    parameters = {p.name: p.start for p in parameter_table(bodies, config)}
    sim = Simulator.from_payload(bodies, config, parameters)
    sim.initialize(float(config.get("simulation", {}).get("start_time", 0.0)))
    return sim


def _variables(xml: bytes) -> tuple[list[ET.Element], ET.Element]:
    root = ET.fromstring(xml)
    return list(root.find("ModelVariables")), root


def parameter_values(xml: bytes, n_inputs: int, n_outputs: int) -> dict[str, Any]:
    """Parameter values and names by value reference; checks the layout the runtime
    assumes (Real parameters, inputs, outputs, Integer, String, contiguous from 0)."""
    variables, root = _variables(xml)
    reals, ints, strs, names = [], [], [], {"Real": [], "Integer": [], "String": []}
    expected = 0
    order = []
    for v in variables:
        vr = int(v.get("valueReference"))
        if vr != expected:
            raise ExportError(f"value references are not contiguous at {v.get('name')!r} "
                              f"({vr}, expected {expected})", value=vr)
        expected += 1
        kind = v[0].tag
        causality = v.get("causality")
        order.append((kind, causality))
        if causality == "parameter":
            start = v[0].get("start")
            names[kind].append(v.get("name"))
            if kind == "Real":
                reals.append(float(start))
            elif kind == "Integer":
                ints.append(int(start))
            elif kind == "String":
                strs.append(start)
            else:
                raise ExportError(f"parameter {v.get('name')!r} of type {kind}", value=kind)
    want = ([("Real", "parameter")] * len(reals) + [("Real", "input")] * n_inputs
            + [("Real", "output")] * n_outputs + [("Integer", "parameter")] * len(ints)
            + [("String", "parameter")] * len(strs))
    if order != want:
        raise ExportError("the model description's variables are not in the order the "
                          "native runtime assumes (Real parameters, inputs, outputs, Integer, "
                          "String)", value=None)
    return {"real": reals, "int": ints, "str": strs, "guid": root.get("guid"),
            "names": names["Real"] + names["Integer"] + names["String"]}


#: The parameter the native runtime keeps tunable: every sinusoid is linear in it.
SCALE_PARAMETER = "wave.height"


def scalable(sim: Any) -> bool:
    """The wave height stays tunable in the native FMU: the sinusoids are the internal wave's
    alone (``Simulator.linear_model.sine_columns``), built at a height other than 0."""
    kinds = {sim.parts[i].kind for i in sim.linear_model.sine_columns}
    height = float(sim.parameters.get(SCALE_PARAMETER, 0.0))
    return kinds == {"wave_excitation"} and height != 0.0 and sim.linear_model.omega.size > 0


#: Tunable parameters the matrices are affine in, kept tunable when the check agrees
#: (:func:`~hydrofmu.export.native.assemble.native_model`): a linear PTO's coefficients.
MATRIX_PARAMETER_SUFFIXES = (".damping", ".stiffness")


def matrix_parameters(xml: bytes) -> tuple[str, ...]:
    """The tunable Real parameters of a Python FMU's model description that enter ``F``,
    ``G`` and ``C`` affinely: ``pto.<name>.damping`` and ``pto.<name>.stiffness``."""
    variables, _ = _variables(xml)
    return tuple(v.get("name") for v in variables
                 if v.get("causality") == "parameter" and v.get("variability") == "tunable"
                 and v[0].tag == "Real" and v.get("name").startswith("pto.")
                 and v.get("name").endswith(MATRIX_PARAMETER_SUFFIXES))


def native_model_description(xml: bytes, model_name: str, tunable: tuple[str, ...] = (),
                             scheme: str = "exact") -> bytes:
    """The Python FMU's model description made the native FMU's (the parameters in
    ``tunable`` keep their variability; the other tunable ones become fixed; the time
    scheme the runtime steps, ``exact`` or ``rk4``, is the start of ``time_scheme``)."""
    root = ET.fromstring(xml)
    root.set("generationTool", f"hydrofmu {__version__} (native runtime, no Python)")
    root.set("description", (root.get("description") or "")
             + " [native: assembled at build, stepped in C]")
    cs = root.find("CoSimulation")
    for key in list(cs.attrib):
        if key != "modelIdentifier":
            del cs.attrib[key]
    cs.set("modelIdentifier", model_name)
    for key, value in (("needsExecutionTool", "false"),
                       ("canHandleVariableCommunicationStepSize", "true"),
                       ("canInterpolateInputs", "false"), ("canBeInstantiatedOnlyOncePerProcess",
                                                           "false"),
                       ("canNotUseMemoryManagementFunctions", "true"),
                       ("canGetAndSetFMUstate", "true"), ("canSerializeFMUstate", "true")):
        cs.set(key, value)
    for child in list(cs):
        cs.remove(child)
    files = ET.SubElement(cs, "SourceFiles")
    for name in C_SOURCES:
        ET.SubElement(files, "File", name=name)
    for v in root.find("ModelVariables"):
        if v.get("variability") == "tunable" and v.get("name") not in tunable:
            v.set("variability", "fixed")
        if v.get("name") == "time_scheme":
            v[0].set("start", scheme)
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def build_native_fmu(
    bodies: Sequence[Any],
    config: dict[str, Any],
    output_path: str | os.PathLike[str],
    *,
    model_name: str = "HydroFMU",
    description: str | None = None,
    overwrite: bool = False,
    validate: bool = True,
    platforms: Sequence[str] | None = None,
    python_fmu: str | os.PathLike[str] | None = None,
) -> Path:
    """Build the native FMU of a configuration (see the module docstring).

    Parameters
    ----------
    bodies, config, model_name, description, overwrite, validate
        As :func:`~hydrofmu.export.fmu.build_fmu`.
    platforms
        FMI platform folders to compile (``linux64``, ``win64``, ``darwin64``); default:
        linux64, plus win64 and darwin64 when the ziglang wheel is installed.
    python_fmu
        Also keep the Python FMU of the same model (built on the way) at this path.

    Raises
    ------
    ExportError
        A part the native runtime cannot step (named, with the fix), a failed compilation
        or validation, an existing file without ``overwrite``.
    """
    out = Path(output_path).expanduser().absolute()
    if out.suffix.lower() != ".fmu":
        raise ExportError(f"the output path '{out}' must end with '.fmu'", value=str(out))
    if out.exists() and not overwrite:
        raise ExportError(f"'{out}' exists; pass overwrite=True to replace it", value=str(out))
    config = copy.deepcopy(dict(config))
    with tempfile.TemporaryDirectory(prefix="hydrofmu_native_") as tmp:
        work = Path(tmp)
        py_fmu = _python_fmu(bodies, config, work, model_name, description)
        if python_fmu is not None:
            Path(python_fmu).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(py_fmu, python_fmu)
        sim = _simulator(py_fmu, work)
        why = refusal(sim)
        if why:
            raise ExportError(why, value=[p.kind for p in sim.parts])
        with zipfile.ZipFile(py_fmu) as z:
            py_xml = z.read("modelDescription.xml")
        step = float(config.get("simulation", {}).get("output_interval", 0.1))
        model = native_model(sim, step, matrix_parameters(py_xml))
        tunable = ((SCALE_PARAMETER,) if scalable(sim) else ()) + tuple(
            t.name for t in model.tunables)
        xml = native_model_description(py_xml, model_name, tunable,
                                       "exact" if model.rk is None else "rk4")
        params = parameter_values(xml, sim.u.size, model.c.shape[0])
        model.real_parameters = params["real"]
        model.int_parameters = params["int"]
        model.str_parameters = params["str"]
        model.parameter_names = params["names"]
        model.guid = params["guid"]
        if SCALE_PARAMETER in tunable:
            model.scale_parameter = 1 + params["names"].index(SCALE_PARAMETER)
        for t in model.tunables:
            t.index = params["names"].index(t.name)
        binaries = compile_all(model_name, work / "bin", platforms)
        built = work / "native.fmu"
        with zipfile.ZipFile(built, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("modelDescription.xml", xml)
            z.writestr(f"resources/{NATIVE_MODEL_FILE}", write_blob(model))
            for member, path in binaries.items():
                z.write(path, member)
            for name in SOURCES:
                z.write(RUNTIME_DIR / name, f"sources/{name}")
        if validate:
            from fmpy.validation import validate_fmu

            problems = validate_fmu(str(built))
            if problems:
                raise ExportError("the native FMU does not validate:\n  "
                                  + "\n  ".join(problems), value=problems)
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(f".{out.name}.partial")
        shutil.copyfile(built, partial)
        os.replace(partial, out)
    return out
