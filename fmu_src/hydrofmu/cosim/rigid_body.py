"""Build the rigid-body FMU (``csrc/rigid_body.c``): mass and inertia only, for coupling a
body to the hydrodynamic-load FMU (``[export] kind = "loads"``) in tests and examples.

The FMU integrates ``M a = F(t)`` exactly for a force polynomial over each step (the input
``force[i]`` and its derivatives from ``fmi2SetRealInputDerivatives``, orders 1 and 2);
parameters ``M[i,j]`` (6 x 6, kg, kg m, kg m^2), ``initial_pose[i]``,
``initial_velocity[i]``, Integer ``free[i]`` (1 free, 0 fixed at the initial pose);
outputs ``pose[i]``, ``velocity[i]``, ``acceleration[i]`` (``M^-1 force``, a direct
feedthrough of ``kind`` ``fixed``). It provides FMU states with serialization and
``fmi2GetDirectionalDerivative``. Compiled for linux64 by the compiler the project finds
(:func:`~hydrofmu.export.python_binary.c_compiler`: ``$CC``, ``cc``, ``gcc`` or the ziglang
wheel), for win64 and darwin64 (x86_64 and arm64 slices) with the ziglang wheel.
"""

from __future__ import annotations

import subprocess
import uuid
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Sequence
from pathlib import Path
from tempfile import TemporaryDirectory

from ..export.native.compile import RUNTIME_DIR, fat_macho, zig_cc
from ..runtime.errors import ExportError

__all__ = ["MODEL_IDENTIFIER", "SOURCE", "build_rigid_body_fmu", "value_references"]

#: The C source of the FMU (package data).
SOURCE = Path(__file__).resolve().parent / "csrc" / "rigid_body.c"
#: The FMU's model identifier (the binary's name).
MODEL_IDENTIFIER = "RigidBody"
_DOF = ("surge", "sway", "heave", "roll", "pitch", "yaw")
_FLAGS = ("-std=c99", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-fvisibility=hidden")
_UNITS = {"kg": {"kg": 1}, "kg.m": {"kg": 1, "m": 1}, "kg.m2": {"kg": 1, "m": 2},
          "m": {"m": 1}, "rad": {"rad": 1}, "m/s": {"m": 1, "s": -1},
          "rad/s": {"rad": 1, "s": -1}, "m/s2": {"m": 1, "s": -2},
          "rad/s2": {"rad": 1, "s": -2}, "N": {"kg": 1, "m": 1, "s": -2},
          "N.m": {"kg": 1, "m": 2, "s": -2}}


def _variables() -> list[tuple[str, int, str, str, str, str]]:
    """``(name, vr, causality, variability, unit, description)`` of the Real variables."""
    out = []
    for i in range(6):
        for j in range(6):
            unit = ("kg", "kg.m", "kg.m2")[(i >= 3) + (j >= 3)]
            out.append((f"M[{i + 1},{j + 1}]", 6 * i + j, "parameter", "fixed", unit,
                        f"mass matrix entry ({_DOF[i]}, {_DOF[j]})"))
    for k, (name, units, causality) in enumerate((
            ("initial_pose", ("m", "rad"), "parameter"),
            ("initial_velocity", ("m/s", "rad/s"), "parameter"),
            ("force", ("N", "N.m"), "input"), ("pose", ("m", "rad"), "output"),
            ("velocity", ("m/s", "rad/s"), "output"),
            ("acceleration", ("m/s2", "rad/s2"), "output"))):
        for i in range(6):
            variability = "fixed" if causality == "parameter" else "continuous"
            out.append((f"{name}[{i + 1}]", 36 + 6 * k + i, causality, variability,
                        units[i // 3], f"{name.replace('_', ' ')}, {_DOF[i]}"))
    return out


def value_references() -> dict[str, int]:
    """Variable name -> value reference (Real; the Integer ``free[i]`` are ``i - 1``)."""
    refs = {name: vr for name, vr, *_ in _variables()}
    refs.update({f"free[{i + 1}]": i for i in range(6)})
    return refs


def model_description(guid: str) -> bytes:
    """The FMU's ``modelDescription.xml``."""
    root = ET.Element("fmiModelDescription", fmiVersion="2.0", modelName=MODEL_IDENTIFIER,
                      guid=guid, generationTool="hydrofmu rigid_body",
                      variableNamingConvention="structured",
                      description="A rigid body: mass and inertia only, M a = F")
    ET.SubElement(root, "CoSimulation", modelIdentifier=MODEL_IDENTIFIER,
                  needsExecutionTool="false", canHandleVariableCommunicationStepSize="true",
                  canInterpolateInputs="true", maxOutputDerivativeOrder="0",
                  canGetAndSetFMUstate="true", canSerializeFMUstate="true",
                  providesDirectionalDerivative="true",
                  canBeInstantiatedOnlyOncePerProcess="false")
    units = ET.SubElement(root, "UnitDefinitions")
    for name, base in _UNITS.items():
        ET.SubElement(ET.SubElement(units, "Unit", name=name), "BaseUnit",
                      **{k: str(v) for k, v in base.items()})
    ET.SubElement(root, "DefaultExperiment", startTime="0", stopTime="10", stepSize="0.01")
    variables = ET.SubElement(root, "ModelVariables")
    index: dict[str, int] = {}
    for name, vr, causality, variability, unit, description in _variables():
        attrs = dict(name=name, valueReference=str(vr), causality=causality,
                     variability=variability, description=description)
        if causality == "parameter":
            attrs["initial"] = "exact"
        sv = ET.SubElement(variables, "ScalarVariable", **attrs)
        real = dict(unit=unit)
        if causality in ("parameter", "input"):
            start = 1.0 if name in {f"M[{i},{i}]" for i in range(1, 7)} else 0.0
            real["start"] = repr(start)
        ET.SubElement(sv, "Real", **real)
        index[name] = len(index) + 1
    for i in range(6):
        sv = ET.SubElement(variables, "ScalarVariable", name=f"free[{i + 1}]",
                           valueReference=str(i), causality="parameter", variability="fixed",
                           initial="exact", description=f"1: {_DOF[i]} free, 0: fixed")
        ET.SubElement(sv, "Integer", start="1", min="0", max="1")
    structure = ET.SubElement(root, "ModelStructure")
    outputs = ET.SubElement(structure, "Outputs")
    initial = ET.SubElement(structure, "InitialUnknowns")
    forces = " ".join(str(index[f"force[{j + 1}]"]) for j in range(6))
    for name in ("pose", "velocity", "acceleration"):
        for i in range(6):
            attrs = {"index": str(index[f"{name}[{i + 1}]"])}
            deps = dict(dependencies="", dependenciesKind="")
            if name == "acceleration":  # M^-1 force: linear, M a fixed parameter
                deps = dict(dependencies=forces, dependenciesKind=" ".join(["fixed"] * 6))
            ET.SubElement(outputs, "Unknown", **attrs, **deps)
            ET.SubElement(initial, "Unknown", **attrs)
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


def _compile(compiler: Sequence[str], output: Path) -> Path:
    output.parent.mkdir(parents=True, exist_ok=True)
    command = [*compiler, "-shared", "-fPIC", *_FLAGS, f"-I{RUNTIME_DIR}", "-o", str(output),
               str(SOURCE), "-lm"]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or "warning:" in proc.stderr:
        raise ExportError(f"compiling the rigid-body FMU failed ({' '.join(command)}): "
                          f"{proc.stderr.strip()}", value=proc.stderr)
    return output


def build_rigid_body_fmu(path: str | Path, platforms: Sequence[str] = ("linux64",)) -> Path:
    """Write the rigid-body FMU to ``path`` (overwritten) for ``platforms`` (``linux64``,
    ``win64``, ``darwin64``; the last two need the ziglang wheel).

    Raises
    ------
    ExportError
        No C compiler, a failed compilation or an unknown platform (named).
    """
    from ..export.python_binary import c_compiler

    path = Path(path)
    with TemporaryDirectory() as tmp:
        work = Path(tmp)
        binaries: dict[str, Path] = {}
        for platform in platforms:
            if platform == "linux64":
                compiler = c_compiler()
                if compiler is None:
                    raise ExportError("no C compiler for the rigid-body FMU; fix: install cc "
                                      "or pip install ziglang", value="cc")
                lib = _compile(compiler, work / platform / f"{MODEL_IDENTIFIER}.so")
            elif platform == "win64":
                lib = _compile(zig_cc("x86_64-windows-gnu"),
                               work / platform / f"{MODEL_IDENTIFIER}.dll")
            elif platform == "darwin64":
                slices = {arch: _compile(zig_cc(f"{arch}-macos"), work / arch /
                                         f"{MODEL_IDENTIFIER}.dylib").read_bytes()
                          for arch in ("x86_64", "aarch64")}
                lib = work / platform / f"{MODEL_IDENTIFIER}.dylib"
                lib.parent.mkdir(parents=True, exist_ok=True)
                lib.write_bytes(fat_macho(slices))
            else:
                raise ExportError(f"unknown platform {platform!r}; choose linux64, win64 or "
                                  "darwin64", value=platform)
            binaries[f"binaries/{platform}/{lib.name}"] = lib
        path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("modelDescription.xml", model_description("{" + str(uuid.uuid4()) + "}"))
            for member, lib in binaries.items():
                z.write(lib, member)
            z.write(SOURCE, f"sources/{SOURCE.name}")
            for header in ("fmi2Functions.h", "fmi2FunctionTypes.h", "fmi2TypesPlatform.h"):
                z.write(RUNTIME_DIR / header, f"sources/{header}")
    return path
