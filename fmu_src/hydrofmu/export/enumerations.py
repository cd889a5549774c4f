"""The choice parameters' Integer twins declared as FMI enumerations in a model description.

Each twin ``<name>_enum`` (:mod:`hydrofmu.runtime.parameters.choices`) is written by
pythonfmu, or by the native description, as an ``<Integer>`` variable; here it becomes an
``<Enumeration declaredType="<name>">`` variable, and ``<TypeDefinitions>`` gets the
``<SimpleType name="<name>"><Enumeration>`` with one ``<Item>`` per choice (values from 1).
An importer shows the items by name (Simulink's mask: a drop-down) and sets the value with
``fmi2SetInteger``, as for an Integer.

Build time only (the standard library).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence

from ..runtime.errors import ExportError
from ..runtime.parameters.choices import TWIN_SUFFIX


def declare_enumerations(root: ET.Element, enumerations: Mapping[str, Sequence[str]]) -> None:
    """Turn the ``<Integer>`` of each variable named in ``enumerations`` (twin name ->
    items) into an ``<Enumeration>`` of a type declared in ``<TypeDefinitions>`` (made
    when missing), in place.

    Raises
    ------
    ExportError
        A named variable that is not an Integer of the description.
    """
    if not enumerations:
        return
    types = root.find("TypeDefinitions")
    if types is None:
        types = ET.SubElement(root, "TypeDefinitions")  # ordered by the caller
    by_name = {sv.get("name"): sv for sv in root.find("ModelVariables")}
    for name, listed in enumerations.items():
        sv = by_name.get(name)
        integer = sv.find("Integer") if sv is not None else None
        if integer is None:
            raise ExportError(f"{name!r} is not an Integer variable of the model description",
                              value=name)
        type_name = name[: -len(TWIN_SUFFIX)] if name.endswith(TWIN_SUFFIX) else name
        simple = ET.SubElement(types, "SimpleType", name=type_name,
                               description=f"the choices of {type_name}")
        enum = ET.SubElement(simple, "Enumeration")
        for i, item in enumerate(listed, 1):
            ET.SubElement(enum, "Item", name=str(item), value=str(i))
        attrib = {"declaredType": type_name}
        if integer.get("start") is not None:
            attrib["start"] = integer.get("start")
        index = list(sv).index(integer)
        sv.remove(integer)
        sv.insert(index, ET.Element("Enumeration", attrib))
