"""Build time: the OSP-IS model description (``<FMU>_OspModelDescription.xml``) of an FMU.

An OSP model description's variable groups let a system structure connect whole ports
(``VariableGroupConnection``) instead of scalar variables, and let the OSP
interface-specification validator check that a force meets a velocity.

Its name: ``<stem>_OspModelDescription.xml`` beside ``<stem>.fmu``, after the FMU's file
(:func:`osp_description_path`), so that two FMUs in one folder never share one file. The
OSP tools look for it by two names: the Java tools (the OSP configurator, ``kopl``) by the
FMU's file name; libcosim (``cosim``, libcosimpy) by the FMU's model name,
``<modelName>_OspModelDescription.xml`` beside the FMU, then beside the system structure
file. With the FMU file named after its model (``-o Case.fmu --name Case``) both find it;
:func:`libcosim_name_note` says what to do when they differ.

For every body ``<b>`` that has ``<b>.F_pto[1..6]`` (input) and ``<b>.velocity[1..6]``
(output), it declares:

- ``<b>.linear_mechanical_port``: ``Force`` ``<b>.F_pto[1..3]`` (N) with
  ``LinearVelocity`` ``<b>.velocity[1..3]`` (m/s);
- ``<b>.angular_mechanical_port``: ``Torque`` ``<b>.F_pto[4..6]`` (N m) with
  ``AngularVelocity`` ``<b>.velocity[4..6]`` (rad/s);
- ``Generic`` groups ``<b>.pose`` and ``<b>.acceleration`` (6 components each).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from ..runtime.errors import ExportError

#: XML namespace of OSP-IS model descriptions (version 1.0).
OSP_NAMESPACE = "http://opensimulationplatform.com/osp-is/OSPModelDescription"

_INDEXED = re.compile(r"(?P<owner>.+)\.(?P<quantity>[A-Za-z_]+)\[(?P<i>[1-6])\]")


def _variables(fmu: Path) -> tuple[str, dict[str, str]]:
    """Model name and variable name -> causality of ``fmu``'s model description."""
    try:
        with zipfile.ZipFile(fmu) as z:
            root = ET.fromstring(z.read("modelDescription.xml"))
    except (OSError, KeyError, zipfile.BadZipFile, ET.ParseError) as exc:
        raise ExportError(f"cannot read the model description of '{fmu}': {exc}") from exc
    return root.get("modelName", ""), {
        v.get("name"): v.get("causality", "local") for v in root.iter("ScalarVariable")
    }


def osp_model_description(fmu: str | Path) -> str:
    """The OSP-IS model description of ``fmu`` as XML text.

    Raises
    ------
    ExportError
        When the FMU has no body with 6 PTO-force inputs and 6 velocity outputs.
    """
    _, variables = _variables(Path(fmu))
    found: dict[str, dict[str, set[int]]] = {}
    for name, causality in variables.items():
        m = _INDEXED.fullmatch(name)
        if m:
            quantities = found.setdefault(m["owner"], {})
            quantities.setdefault(f"{m['quantity']}:{causality}", set()).add(int(m["i"]))
    full = set(range(1, 7))
    bodies = [
        b
        for b, q in found.items()
        if q.get("F_pto:input") == full and q.get("velocity:output") == full
    ]
    if not bodies:
        raise ExportError(
            f"'{fmu}' has no body with inputs <body>.F_pto[1..6] and outputs "
            "<body>.velocity[1..6]: no OSP mechanical port to declare",
            value=str(fmu),
        )
    root = ET.Element("OspModelDescription", {"xmlns": OSP_NAMESPACE, "version": "1.0"})
    groups = ET.SubElement(root, "VariableGroups")

    def group(parent: ET.Element, tag: str, name: str, quantity: str, dofs: range) -> None:
        element = ET.SubElement(parent, tag, {"name": name})
        for i in dofs:
            ET.SubElement(element, "Variable", {"ref": f"{quantity}[{i}]"})

    for b in bodies:
        port = ET.SubElement(
            groups, "LinearMechanicalPort", {"name": f"{b}.linear_mechanical_port"}
        )
        group(port, "Force", f"{b}.force", f"{b}.F_pto", range(1, 4))
        group(port, "LinearVelocity", f"{b}.linear_velocity", f"{b}.velocity", range(1, 4))
        port = ET.SubElement(
            groups, "AngularMechanicalPort", {"name": f"{b}.angular_mechanical_port"}
        )
        group(port, "Torque", f"{b}.torque", f"{b}.F_pto", range(4, 7))
        group(port, "AngularVelocity", f"{b}.angular_velocity", f"{b}.velocity", range(4, 7))
        for quantity in ("pose", "acceleration"):
            if found[b].get(f"{quantity}:output") == full:
                group(groups, "Generic", f"{b}.{quantity}", f"{b}.{quantity}", range(1, 7))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def osp_description_path(fmu: str | Path) -> Path:
    """Where the OSP model description of ``fmu`` goes: ``<stem>_OspModelDescription.xml``
    beside it (``out/Case.fmu`` -> ``out/Case_OspModelDescription.xml``)."""
    fmu = Path(fmu)
    return fmu.with_name(f"{fmu.stem}_OspModelDescription.xml")


def libcosim_name_note(fmu: str | Path) -> str | None:
    """What libcosim needs when ``fmu``'s file name differs from its model name, or None.

    libcosim looks for ``<modelName>_OspModelDescription.xml``; the file written by
    :func:`write_osp_model_description` is named after the FMU's file.
    """
    fmu = Path(fmu)
    model_name, _ = _variables(fmu)
    if not model_name or model_name == fmu.stem:
        return None
    return (f"libcosim looks for {model_name}_OspModelDescription.xml (the model name), not "
            f"{osp_description_path(fmu).name} (the file name): name the FMU file "
            f"{model_name}.fmu, or build with --name {fmu.stem}, for libcosim to find it")


def write_osp_model_description(fmu: str | Path, *, overwrite: bool = True) -> Path:
    """Write ``<stem>_OspModelDescription.xml`` beside ``fmu`` (:func:`osp_description_path`);
    return its path.

    Raises
    ------
    ExportError
        When the file exists and ``overwrite`` is false, or ``fmu`` has no OSP port.
    """
    fmu = Path(fmu)
    path = osp_description_path(fmu)
    if path.exists() and not overwrite:
        raise ExportError(f"'{path}' exists; pass overwrite=True to replace it", value=str(path))
    path.write_text(osp_model_description(fmu), encoding="utf-8")
    return path
