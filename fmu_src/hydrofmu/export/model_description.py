"""Post-processing of the ``modelDescription.xml`` that pythonfmu writes.

pythonfmu 0.7.0 writes no units, no ``UnitDefinitions``, ``Outputs`` without
``dependencies`` (so importers assume that every output depends on every input) and no
``InitialUnknowns``; ``fmpy.validate.validate_fmu`` then reports problems. This module adds
them from what the FMU slave knows
(:meth:`hydrofmu.runtime.fmi.variables.VariableTable.interface_metadata`)
and rewrites the file inside the built ``.fmu``.

Build time only (uses nothing beyond the standard library).
"""

from __future__ import annotations

import math
import shutil
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..runtime.errors import ExportError

#: SI base-unit exponents (and factor) of every unit the FMUs may declare, keyed by the
#: unit name written in ``unit=``. Radians are kept as their own base unit, as FMI allows.
UNIT_DEFINITIONS: dict[str, dict[str, float]] = {
    "1": {},
    "m": {"m": 1},
    "m2": {"m": 2},
    "m3": {"m": 3},
    "s": {"s": 1},
    "Hz": {"s": -1},
    "kg": {"kg": 1},
    "rad": {"rad": 1},
    "deg": {"rad": 1, "factor": math.pi / 180.0},
    "m/s": {"m": 1, "s": -1},
    "m/s2": {"m": 1, "s": -2},
    "rad/s": {"rad": 1, "s": -1},
    "rad/s2": {"rad": 1, "s": -2},
    "N": {"kg": 1, "m": 1, "s": -2},
    "N.m": {"kg": 1, "m": 2, "s": -2},
    "N/m": {"kg": 1, "s": -2},
    "N.m/rad": {"kg": 1, "m": 2, "s": -2, "rad": -1},
    "N.s/m": {"kg": 1, "s": -1},
    "N.m.s/rad": {"kg": 1, "m": 2, "s": -1, "rad": -1},
    "kg.m": {"kg": 1, "m": 1},
    "kg.m2": {"kg": 1, "m": 2},
    "kg/m3": {"kg": 1, "m": -3},
    "Pa": {"kg": 1, "m": -1, "s": -2},
    "W": {"kg": 1, "m": 2, "s": -3},
    "J": {"kg": 1, "m": 2, "s": -2},
}

#: Order of the child elements of ``fmiModelDescription`` in the FMI 2.0 schema.
_ELEMENT_ORDER = (
    "ModelExchange",
    "CoSimulation",
    "UnitDefinitions",
    "TypeDefinitions",
    "LogCategories",
    "DefaultExperiment",
    "VendorAnnotations",
    "ModelVariables",
    "ModelStructure",
)

Dependencies = Mapping[str, Sequence[str] | Mapping[str, str]]


def _unit_element(name: str) -> ET.Element:
    exponents = dict(UNIT_DEFINITIONS[name])
    factor = exponents.pop("factor", 1.0)
    unit = ET.Element("Unit", name=name)
    base = ET.SubElement(unit, "BaseUnit")
    for key in ("kg", "m", "s", "A", "K", "mol", "cd", "rad"):
        if exponents.get(key):
            base.set(key, str(int(exponents[key])))
    if factor != 1.0:
        base.set("factor", repr(float(factor)))
    return unit


def finalize_model_description(
    xml: bytes,
    *,
    units: Mapping[str, str],
    dependencies: Dependencies,
    generation_tool: str | None = None,
    ranges: Mapping[str, tuple[float | None, float | None]] | None = None,
    default_experiment: Mapping[str, float] | None = None,
    enumerations: Mapping[str, Sequence[str]] | None = None,
) -> bytes:
    """Add units, output dependencies and initial unknowns to a model description.

    Parameters
    ----------
    xml
        ``modelDescription.xml`` as written by pythonfmu (UTF-8 bytes).
    units
        Unit of every Real variable by name; names must be keys of
        :data:`UNIT_DEFINITIONS` (``"1"`` for dimensionless).
    dependencies
        For every output, the input names it depends on directly within a communication
        point: a sequence (kind ``"dependent"``) or a mapping name -> ``dependenciesKind``.
        An empty sequence declares no direct dependency.
    generation_tool
        Replaces the ``generationTool`` attribute when given.
    ranges
        Variable name -> ``(min, max)`` (``None`` when unbounded), written as the ``min``
        and ``max`` attributes of its ``<Real>`` or ``<Integer>`` element.
    default_experiment
        ``startTime``, ``stopTime``, ``stepSize`` (s) of the ``<DefaultExperiment>``
        element, which replaces any there is.
    enumerations
        Integer variable name -> its items: declared as FMI enumerations
        (:func:`hydrofmu.export.enumerations.declare_enumerations`).

    Returns
    -------
    bytes
        The new description, UTF-8 with an XML declaration.

    Raises
    ------
    ExportError
        A Real variable without unit, an unknown unit, an output without an entry in
        ``dependencies``, or a dependency that is not an input of the model.
    """
    root = ET.fromstring(xml)
    if root.tag != "fmiModelDescription" or root.get("fmiVersion") != "2.0":
        raise ExportError("not an FMI 2.0 model description", value=root.tag)
    if generation_tool:
        root.set("generationTool", generation_tool)
    variables = root.find("ModelVariables")
    if variables is None:
        raise ExportError("the model description has no ModelVariables")
    scalars = variables.findall("ScalarVariable")
    index = {sv.get("name"): i + 1 for i, sv in enumerate(scalars)}
    causality = {sv.get("name"): sv.get("causality", "local") for sv in scalars}

    used: set[str] = set()
    missing = []
    for sv in scalars:
        real = sv.find("Real")
        if real is None:
            continue
        name = sv.get("name")
        unit = units.get(name)
        if unit is None:
            missing.append(name)
            continue
        if unit not in UNIT_DEFINITIONS:
            raise ExportError(
                f"unit {unit!r} of '{name}' is not defined; known units: "
                f"{', '.join(UNIT_DEFINITIONS)} (extend model_description.UNIT_DEFINITIONS)",
                value=unit,
            )
        real.set("unit", unit)
        used.add(unit)
    if missing:
        raise ExportError(f"Real variables without a unit: {missing}", value=missing)
    for sv in scalars:
        lo, hi = (ranges or {}).get(sv.get("name"), (None, None))
        element = sv.find("Real")
        element = element if element is not None else sv.find("Integer")
        for key, bound in (("min", lo), ("max", hi)):
            if bound is not None and element is not None:
                element.set(key, repr(int(bound)) if element.tag == "Integer" else repr(bound))
    if default_experiment:
        for old in root.findall("DefaultExperiment"):
            root.remove(old)
        ET.SubElement(
            root, "DefaultExperiment",
            {k: repr(float(v)) for k, v in default_experiment.items()},
        )

    for old in root.findall("UnitDefinitions"):
        root.remove(old)
    unit_defs = ET.Element("UnitDefinitions")
    for name in sorted(used):
        unit_defs.append(_unit_element(name))

    outputs = [sv.get("name") for sv in scalars if sv.get("causality") == "output"]
    structure = ET.Element("ModelStructure")
    outputs_node = ET.SubElement(structure, "Outputs") if outputs else None
    initial_node = ET.SubElement(structure, "InitialUnknowns") if outputs else None
    for name in outputs:
        if name not in dependencies:
            raise ExportError(f"no dependencies given for output '{name}'", value=name)
        deps = dependencies[name]
        kinds = dict(deps) if isinstance(deps, Mapping) else dict.fromkeys(deps, "dependent")
        bad = [d for d in kinds if causality.get(d) != "input"]
        if bad:
            raise ExportError(
                f"output '{name}' is declared to depend on {bad}, which are not inputs",
                value=bad,
            )
        ordered = sorted(kinds, key=index.__getitem__)
        ET.SubElement(
            outputs_node,
            "Unknown",
            index=str(index[name]),
            dependencies=" ".join(str(index[d]) for d in ordered),
            dependenciesKind=" ".join(kinds[d] for d in ordered),
        )
        # In Initialization Mode an output depends on parameters and inputs alike;
        # without the attribute it is declared to depend on all of them (FMI 2.0, 2.2.8).
        ET.SubElement(initial_node, "Unknown", index=str(index[name]))
    for old in root.findall("ModelStructure"):
        root.remove(old)
    if enumerations:
        from .enumerations import declare_enumerations

        declare_enumerations(root, enumerations)

    children = [c for c in root if c.tag != "UnitDefinitions"] + [unit_defs, structure]
    for c in list(root):
        root.remove(c)
    rank = {tag: i for i, tag in enumerate(_ELEMENT_ORDER)}
    for c in sorted(children, key=lambda e: rank.get(e.tag, len(rank))):
        if c.tag == "UnitDefinitions" and len(c) == 0:
            continue
        root.append(c)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


def rewrite_model_description(fmu_path: str | Path, transform: Callable[[bytes], bytes]) -> None:
    """Replace ``modelDescription.xml`` inside an FMU by ``transform(old)``.

    The archive is rewritten to a temporary file beside it (members in the same order,
    deflated) and then moved over the original.
    """
    fmu_path = Path(fmu_path)
    with zipfile.ZipFile(fmu_path) as zin:
        try:
            new_xml = transform(zin.read("modelDescription.xml"))
        except KeyError as exc:
            raise ExportError(
                f"'{fmu_path}' has no modelDescription.xml", value=str(fmu_path)
            ) from exc
        with tempfile.NamedTemporaryFile(
            dir=fmu_path.parent, prefix=f".{fmu_path.stem}-", suffix=".fmu", delete=False
        ) as tmp:
            tmp_path = Path(tmp.name)
        try:
            with zipfile.ZipFile(tmp_path, "w", compression=zipfile.ZIP_DEFLATED) as zout:
                for info in zin.infolist():
                    data = new_xml if info.filename == "modelDescription.xml" else zin.read(info)
                    member = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                    # Readable by everyone: 0644 files, 0755 folders (pythonfmu: 0600).
                    mode = 0o40755 if info.is_dir() else 0o100644
                    member.external_attr = (mode << 16) | (info.external_attr & 0x10)
                    member.create_system = 3  # Unix, so that the mode is honoured
                    member.compress_type = zipfile.ZIP_DEFLATED
                    zout.writestr(member, data)
        except BaseException:
            tmp_path.unlink(missing_ok=True)
            raise
    shutil.move(tmp_path, fmu_path)
