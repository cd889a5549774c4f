"""The files of one model of the FMI cross-check tree: ``_in.csv``, ``_ref.opt``, ``_ref.csv``.

The Modelica Association's cross-check rules (``FMI-CROSS-CHECK-RULES.md`` of
``modelica/fmi-cross-check``, version 4.1, section 9.1.4 and appendix B) ask, beside
``<Model>.fmu``:

- ``<Model>_ref.opt``: ``StartTime``, ``StopTime``, ``StepSize`` (s; 0 means a variable-step
  solver) and ``RelTol``, one ``name, value`` per line;
- ``<Model>_in.csv``: the input signals, every input variable of the model description, the
  time first; linear interpolation between rows;
- ``<Model>_ref.csv``: the reference solution, at most 10 important variables, from
  ``StartTime`` to ``StopTime``.

A CSV has a first line of double-quoted names (the time first, then names exactly as the
model description spells them), numbers as C floating-point literals, no units, no
comments, commas only between elements, a monotonic time and at most 1 MB. Here every
number is Python's shortest round-trip repr of the double, so that a file read back gives
the very doubles written, and :func:`reproduce` (fmpy run from ``_in.csv`` and
``_ref.opt``) can be compared with ``_ref.csv`` bit for bit.

The input signals (:func:`input_signals`): a PTO force that changes, ``A sin(2 pi t /
T_in)`` with ``A`` = 10 % of the weight of the first moving body (N, or N m for a torque:
a 1 m lever), on the joint PTOs' inputs when the model has any, else on the heave force
(or the first free DOF) of the first moving body; the elevation input follows a 1 m,
8 s sinusoid when the FMU's ``wave.type`` is ``input``; every other input is 0. Sampled at
every communication point, so that the importer's linear interpolation gives the sampled
values there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import ExportError

#: The period of the PTO force input, s (away from the examples' wave periods and
#: natural periods, so that the response carries both).
INPUT_PERIOD = 11.3
#: The PTO force's amplitude as a fraction of the first moving body's weight.
INPUT_WEIGHT_FRACTION = 0.1
#: The elevation input (``wave.type = input``): amplitude (m) and period (s).
ELEVATION_INPUT = (1.0, 8.0)
#: Gravity used for the weight, m/s2.
GRAVITY = 9.81
#: The cross-check rules' limits: variables in ``_ref.csv`` and bytes of any CSV.
MAX_REF_VARIABLES, MAX_CSV_BYTES = 10, 1_000_000
#: ``RelTol`` written in ``_ref.opt`` (the co-simulation FMU takes no tolerance; the
#: value the rules' example gives).
REL_TOL = 1e-4

_BODY_FORCE = re.compile(r"^(?P<body>.+)\.F_pto\[(?P<dof>[1-6])\]$")
_JOINT_OUTPUT = re.compile(r"\.(angle|position)$")


def number(value: float) -> str:
    """``value`` as a C floating-point literal that reads back as the same double.

    Raises
    ------
    ExportError
        A NaN or an infinity (the rules allow numbers only).
    """
    v = float(value)
    if not math.isfinite(v):
        raise ExportError(f"{v!r} cannot be written in a cross-check CSV (numbers only): the "
                          "simulation did not stay finite", value=v)
    return repr(v)


def write_csv(path: Path, names: Sequence[str], columns: np.ndarray) -> Path:
    """Write ``columns`` (rows x len(names), the time first) as the rules' CSV.

    Raises
    ------
    ExportError
        A non-finite number, a time that decreases, or a file over 1 MB.
    """
    data = np.asarray(columns, dtype=float)
    if data.ndim != 2 or data.shape[1] != len(names):
        raise ExportError(f"{path.name}: {data.shape} values for {len(names)} names",
                          value=list(names))
    if np.any(np.diff(data[:, 0]) < 0.0):
        raise ExportError(f"{path.name}: the time decreases", value=str(path))
    lines = [",".join(f'"{n}"' for n in names)]
    lines += [",".join(number(v) for v in row) for row in data]
    text = "\n".join(lines) + "\n"
    if len(text.encode()) > MAX_CSV_BYTES:
        raise ExportError(f"{path.name} would be {len(text.encode()) / 1e6:.2f} MB, over the "
                          "cross-check rules' 1 MB: fewer rows (a shorter StopTime or a "
                          "longer StepSize)", value=str(path))
    path.write_text(text, encoding="ascii")
    return path


def write_ref_opt(path: Path, start: float, stop: float, step: float,
                  rel_tol: float = REL_TOL) -> Path:
    """Write ``_ref.opt`` (times in s)."""
    rows = (("StartTime", start), ("StopTime", stop), ("StepSize", step), ("RelTol", rel_tol))
    path.write_text("".join(f"{k}, {number(v)}\n" for k, v in rows), encoding="ascii")
    return path


def read_ref_opt(path: Path) -> dict[str, float]:
    """The options of a ``_ref.opt`` as fmpy reads them (``fmpy.util.read_ref_opt_file``:
    the required elements checked)."""
    from fmpy.util import read_ref_opt_file

    return read_ref_opt_file(str(path))


def _variables(md: Any, causality: str) -> list[str]:
    return [v.name for v in md.modelVariables if v.causality == causality]


def _start(md: Any, name: str) -> str | None:
    for v in md.modelVariables:
        if v.name == name:
            return v.start
    return None


def _first_moving_body(config: dict[str, Any]) -> dict[str, Any]:
    for body in config["bodies"]:
        if any(body.get("free_dofs", [True] * 6)):
            return body
    raise ExportError("no body of the model moves: nothing for a PTO force to drive",
                      value=[b["name"] for b in config["bodies"]])


def driven_inputs(md: Any, config: dict[str, Any]) -> list[str]:
    """The inputs the PTO force drives: the joint PTOs' (every input that is neither a
    body's ``F_pto[i]`` nor the elevation), else one DOF of the first moving body (heave
    when free, else its first free DOF)."""
    inputs = _variables(md, "input")
    joints = [n for n in inputs if not _BODY_FORCE.match(n) and n != "wave.elevation_input"]
    if joints:
        return joints
    body = _first_moving_body(config)
    free = list(body.get("free_dofs", [True] * 6))
    dof = 3 if free[2] else 1 + free.index(True)
    name = f"{body['name']}.F_pto[{dof}]"
    if name not in inputs:
        raise ExportError(f"the FMU has no input {name!r}", value=name)
    return [name]


def input_signals(md: Any, config: dict[str, Any], time: np.ndarray
                  ) -> tuple[list[str], np.ndarray]:
    """Every input of the FMU over ``time`` (s): ``(names, values)`` with ``values`` of
    shape (len(time), len(names)) (see the module docstring)."""
    names = _variables(md, "input")
    values = np.zeros((time.size, len(names)))
    body = _first_moving_body(config)
    amplitude = INPUT_WEIGHT_FRACTION * GRAVITY * float(body["mass"])
    force = amplitude * np.sin(2.0 * np.pi * time / INPUT_PERIOD)
    for name in driven_inputs(md, config):
        values[:, names.index(name)] = force
    if "wave.elevation_input" in names and _start(md, "wave.type") == "input":
        a, period = ELEVATION_INPUT
        values[:, names.index("wave.elevation_input")] = a * np.sin(2.0 * np.pi * time / period)
    return names, values


def reference_outputs(md: Any, config: dict[str, Any]) -> list[str]:
    """At most :data:`MAX_REF_VARIABLES` outputs, chosen in this order: the joints' angles
    and positions, the PTOs' power, the pose of each body's free DOFs, and the elevation
    at the origin; listed in the model description's order."""
    outputs = _variables(md, "output")
    chosen = [n for n in outputs if _JOINT_OUTPUT.search(n) and not n.startswith(
        tuple(f"{b['name']}." for b in config["bodies"]))]
    chosen += [n for n in outputs if n.startswith("pto.") and n.endswith(".power")]
    for body in config["bodies"]:
        free = list(body.get("free_dofs", [True] * 6))
        chosen += [f"{body['name']}.pose[{i + 1}]" for i in range(6)
                   if free[i] and f"{body['name']}.pose[{i + 1}]" in outputs]
    chosen = list(dict.fromkeys(chosen))[: MAX_REF_VARIABLES - 1]
    if "wave.elevation" in outputs:
        chosen.append("wave.elevation")
    return sorted(chosen, key=outputs.index)  # the FMU's order, as fmpy returns them


def simulate_reference(fmu: Path, in_csv: Path, opt: Path, outputs: Sequence[str]
                       ) -> np.ndarray:
    """fmpy's run of ``fmu`` from the files alone: the inputs of ``in_csv`` (fmpy's
    cross-check reader), the times of ``opt`` (``StepSize`` the communication step and the
    output interval); the structured array of ``time`` and ``outputs``."""
    import fmpy
    from fmpy.util import read_csv

    opts = read_ref_opt(opt)
    step = opts["StepSize"]
    return fmpy.simulate_fmu(
        str(fmu), validate=False, start_time=opts["StartTime"], stop_time=opts["StopTime"],
        step_size=step, output_interval=step, input=read_csv(str(in_csv)),
        output=list(outputs))


def reproduce(model_dir: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """``(reference, result)``: ``<Model>_ref.csv`` as written and fmpy's run of
    ``<Model>.fmu`` from ``<Model>_in.csv`` and ``<Model>_ref.opt`` (the variables of the
    reference), both structured arrays with the time first."""
    from fmpy.util import read_csv

    folder = Path(model_dir)
    name = folder.name
    reference = read_csv(str(folder / f"{name}_ref.csv"))
    result = simulate_reference(folder / f"{name}.fmu", folder / f"{name}_in.csv",
                                folder / f"{name}_ref.opt", reference.dtype.names[1:])
    return reference, result
