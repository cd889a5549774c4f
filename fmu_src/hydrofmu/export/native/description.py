"""The native FMU's ``modelDescription.xml``, written from the model's own tables.

The variables are those of the Python FMU of the same configuration, in the same order
with the same value references (Real parameters, inputs, outputs, then the Integer and the
String parameters: the order of :func:`~hydrofmu.runtime.simulator.layout.parameter_table`
and :func:`~hydrofmu.runtime.simulator.layout.output_table`, as the Python FMU's slave
registers them), names, descriptions, start values (Real with 16 significant digits, as
pythonfmu writes them), causalities and variabilities. Units, bounds, output dependencies,
initial unknowns and the default experiment are added by the Python FMU's own rewrite
(:func:`~hydrofmu.export.model_description.finalize_model_description`); then the native
runtime's face (:func:`native_model_description`): its co-simulation capabilities, its
C sources, the tunable parameters it honours and the scheme it steps.

Build time only (the standard library; no pythonfmu).
"""

from __future__ import annotations

import datetime
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from ...runtime.hydrodata.model import HydroData
from ...runtime.parameters.choices import TWIN_SUFFIX
from ...runtime.parameters.table import ParameterSpec
from ...runtime.simulator.layout import Table
from ...runtime.version import __version__
from ..model_description import finalize_model_description
from .compile import C_SOURCES

#: The log categories of the C runtime (``CATEGORIES`` in ``csrc/fmi2Functions.c``).
LOG_CATEGORIES = {
    "logStatusWarning": "Log messages with fmi2Warning status.",
    "logStatusDiscard": "Log messages with fmi2Discard status.",
    "logStatusError": "Log messages with fmi2Error status.",
    "logStatusFatal": "Log messages with fmi2Fatal status.",
    "logAll": "Log all messages.",
}
#: The model description's ``author``.
AUTHOR = "hydrofmu"
#: Unit written for dimensionless Real variables.
DIMENSIONLESS = "1"


def _scalar(variables: ET.Element, name: str, vr: int, description: str, causality: str,
            variability: str, kind: str, start: str | None, initial: bool) -> None:
    attrib = {"name": name, "valueReference": str(vr), "description": description,
              "causality": causality, "variability": variability}
    if initial:
        attrib["initial"] = "exact"
    sv = ET.SubElement(variables, "ScalarVariable", attrib)
    ET.SubElement(sv, kind, {} if start is None else {"start": start})


def _with_choices(description: str, choices: Sequence[str] | None) -> str:
    return f"{description} (one of: {', '.join(choices)})" if choices else description


def variables_description(parameters: Sequence[ParameterSpec], table: Table,
                          model_name: str, description: str) -> bytes:
    """The description's skeleton: the header, the log categories and the variables
    (before :func:`~hydrofmu.export.model_description.finalize_model_description`).

    Parameters
    ----------
    parameters
        The model's parameters (:func:`~hydrofmu.runtime.simulator.layout.parameter_table`).
    table
        Its inputs and outputs (:func:`~hydrofmu.runtime.simulator.layout.output_table`).
    model_name, description
        The model identifier and the description.
    """
    from ...runtime.fmi.names import describe

    root = ET.Element("fmiModelDescription", {
        "fmiVersion": "2.0", "modelName": model_name, "guid": str(uuid.uuid1()),
        "generationTool": f"hydrofmu {__version__}",
        "generationDateAndTime": datetime.datetime.now(datetime.UTC).isoformat(
            timespec="seconds"),
        "variableNamingConvention": "structured", "description": description,
        "author": AUTHOR})
    ET.SubElement(root, "CoSimulation", {"modelIdentifier": model_name})
    categories = ET.SubElement(root, "LogCategories")
    for name, text in LOG_CATEGORIES.items():
        ET.SubElement(categories, "Category", {"name": name, "description": text})
    variables = ET.SubElement(root, "ModelVariables")
    vr = 0
    for p in (p for p in parameters if p.kind == "Real"):
        _scalar(variables, p.name, vr, p.description, "parameter",
                "tunable" if p.tunable else "fixed", "Real", f"{float(p.start):.16g}", True)
        vr += 1
    for port in table.inputs:
        _scalar(variables, port.name, vr, describe(port.name), "input", "continuous", "Real",
                f"{0.0:.16g}", False)
        vr += 1
    for port in table.outputs:
        _scalar(variables, port.name, vr, describe(port.name), "output", "continuous", "Real",
                None, False)
        vr += 1
    for p in (p for p in parameters if p.kind == "Integer"):
        _scalar(variables, p.name, vr, p.description, "parameter", "fixed", "Integer",
                str(int(p.start)), True)
        vr += 1
    for p in (p for p in parameters if p.kind == "String"):
        _scalar(variables, p.name, vr, _with_choices(p.description, p.choices), "parameter",
                "fixed", "String", str(p.start), True)
        vr += 1
    return ET.tostring(root, encoding="utf-8")


def model_description(bodies: Sequence[HydroData], config: dict[str, Any], model_name: str,
                      description: str) -> bytes:
    """The description of the model's variables as the Python FMU declares them (before the
    native face): :func:`variables_description` completed with units, bounds, output
    dependencies, initial unknowns and the default experiment.

    Parameters
    ----------
    bodies, config
        The model (a resolved configuration, as the simulator takes it).
    model_name, description
        The model identifier and the description.
    """
    from ...runtime.simulator.layout import ModelInterface, output_table, parameter_table

    parameters = parameter_table(list(bodies), config)
    table = output_table(list(bodies), config)
    names = [p.name for p in parameters] + [p.name for p in table.inputs + table.outputs]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        from ...runtime.errors import ExportError

        raise ExportError(f"duplicated FMU variable names: {duplicated}", value=duplicated)
    # the Python FMU's dependencies with their kinds: one writer for both runtimes
    return described(parameters, table, config, model_name, description,
                     ModelInterface.output_dependencies(list(bodies), config))


def described(parameters: Sequence[ParameterSpec], table: Any, config: dict[str, Any],
              model_name: str, description: str, dependencies: dict[str, Any]) -> bytes:
    """The model description of ``parameters`` and the port ``table`` (a
    :class:`~hydrofmu.runtime.simulator.layout.Table` or the load FMU's table: ``inputs``
    and ``outputs``; the native motion and load FMUs' one writer): SI units,
    ``dependencies`` of each output, the parameters' ranges, the configuration's default
    experiment, the choice parameters' enumerations."""
    units = {p.name: (p.unit or DIMENSIONLESS) for p in parameters if p.kind == "Real"}
    units.update({port.name: port.unit for port in table.inputs + table.outputs})
    simulation = config.get("simulation", {})
    keys = {"startTime": "start_time", "stopTime": "stop_time", "stepSize": "output_interval"}
    return finalize_model_description(
        variables_description(parameters, table, model_name, description),
        units=units,
        dependencies=dependencies,
        ranges={p.name: (p.min, p.max) for p in parameters
                if p.min is not None or p.max is not None},
        default_experiment={attr: float(simulation[key]) for attr, key in keys.items()
                            if key in simulation},
        enumerations={p.name: p.choices for p in parameters
                      if p.kind == "Integer" and p.choices},
    )


def _item_number(root: ET.Element, type_name: str, item: str) -> int:
    """The value of ``item`` in the enumeration type ``type_name`` of the description."""
    for simple in root.iter("SimpleType"):
        if simple.get("name") == type_name:
            for it in simple.iter("Item"):
                if it.get("name") == item:
                    return int(it.get("value"))
    from ...runtime.errors import ExportError

    raise ExportError(f"the enumeration {type_name!r} has no item {item!r}", value=item)


#: The native runtime's co-simulation capabilities (``<CoSimulation>`` attributes).
CAPABILITIES = (("needsExecutionTool", "false"),
                ("canHandleVariableCommunicationStepSize", "true"),
                ("canInterpolateInputs", "false"),
                ("canBeInstantiatedOnlyOncePerProcess", "false"),
                ("canNotUseMemoryManagementFunctions", "true"),
                ("canGetAndSetFMUstate", "true"), ("canSerializeFMUstate", "true"))


def native_model_description(xml: bytes, model_name: str, tunable: tuple[str, ...] = (),
                             scheme: str = "exact") -> bytes:
    """A model description made the native FMU's (the parameters in ``tunable`` keep their
    variability; the other tunable ones become fixed; the time scheme the runtime steps,
    ``exact`` or ``rk4``, is the start of ``time_scheme``; the C sources listed)."""
    root = ET.fromstring(xml)
    root.set("generationTool", f"hydrofmu {__version__} (native runtime, no Python)")
    root.set("description", (root.get("description") or "")
             + " [native: assembled at build, stepped in C]")
    cs = root.find("CoSimulation")
    for key in list(cs.attrib):
        if key != "modelIdentifier":
            del cs.attrib[key]
    cs.set("modelIdentifier", model_name)
    for key, value in CAPABILITIES:
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
        if v.get("name") == f"time_scheme{TWIN_SUFFIX}":  # its enumeration twin agrees
            v[0].set("start", str(_item_number(root, "time_scheme", scheme)))
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")
