"""``hydrofmu build --native``: an FMI 2.0 co-simulation FMU with no Python at run time.

The model is assembled by the same Python as the Python FMU of the same configuration,
in memory: the configuration prepared as the Python FMU's payload (JSON values, the
state-space realisation), a :class:`~hydrofmu.runtime.simulator.simulator.Simulator` built
from it with the default parameters, and its linear model, exact discretisation and output
map written into ``resources/model.bin`` (:mod:`hydrofmu.export.native.assemble`,
:mod:`hydrofmu.export.native.blob`). No Python FMU is built on the way. The model
description is written from the model's parameter, input and output tables
(:mod:`hydrofmu.export.native.description`: the Python FMU's names, units, causalities,
value references), with:

- the tunable parameters declared ``fixed`` (the native runtime steps matrices computed at
  build: a parameter other than its build value is refused with a message naming the
  rebuild), except ``wave.height``, which scales every sinusoid (as the Python FMU scales
  its wave by height / built height) when the wave was built at a height other than 0,
  and the linear PTOs' ``pto.<name>.damping`` and ``pto.<name>.stiffness``: ``F``, ``G``
  and the output map are affine in them (checked at build), their derivatives are stored
  and the runtime re-discretises and solves for the particular solutions again when one
  changes;
- ``time_scheme`` = the scheme the runtime steps: the configuration's (``exact`` for a linear
  model, or an explicit Runge-Kutta scheme, ``euler``, ``rk2heun``, ``rk2``, ``rk3``,
  ``rk4``, also with quadratic drag, the elevation input or convolution radiation; another
  scheme is refused);
- ``<SourceFiles>`` listing the C runtime, shipped in ``sources/``.

Binaries: linux64 (glibc 2.17), win64 and darwin64 (a universal x86_64 + arm64 library,
macOS 11) cross-compiled with the ziglang wheel; without it linux64 alone, with this
machine's C compiler, and a note naming the missing platforms
(:mod:`hydrofmu.export.native.compile`).

Which FMU a build makes (:func:`choose_runtime`): the native one whenever the model allows
(:func:`~hydrofmu.export.native.refusal.refusal` finds nothing to refuse and a compiler is
there), the Python FMU otherwise or when asked for, with a note saying which and why.

Build time only.
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...runtime.errors import ExportError, HydroFMUError
from ...runtime.hydrodata.model import HydroData
from ...runtime.linear.model import assemble
from ...runtime.parameters.table import ParameterSpec, config_value
from ...runtime.simulator.simulator import Simulator
from ..names import model_name_problem, sanitize_model_name
from .assemble import native_model
from .blob import write_blob
from .compile import SOURCES, compile_all, default_platforms, source_file
from .derivative_blob import declare_derivative
from .description import model_description, native_model_description
from .load_blob import load_model_description, load_refusal, native_load_model
from .refusal import refusal

#: Model file of the native runtime inside ``resources``.
NATIVE_MODEL_FILE = "model.bin"

#: The runtimes a build can be asked for (``[export] runtime``, ``Model.build_fmu(runtime=)``):
#: ``auto`` (the default) is the native FMU whenever the model allows, else the Python FMU.
RUNTIME_CHOICES = ("auto", "native", "python")


@dataclass(frozen=True)
class RuntimeChoice:
    """Which FMU a build makes and why.

    Attributes
    ----------
    native
        True: the native FMU (no Python at run time); False: the Python FMU.
    note
        One sentence for the user: which FMU and why (printed as ``note:`` by the CLI).
    """

    native: bool
    note: str


def choose_runtime(bodies: Sequence[HydroData], config: dict[str, Any],
                   parts: Sequence[Any] = (), requested: str | None = None,
                   *, asked_by: str | None = None) -> RuntimeChoice:
    """The FMU a build makes: ``requested`` (one of :data:`RUNTIME_CHOICES`; None: the
    configuration's ``[export] runtime``, ``auto`` by default).

    ``auto`` is the native FMU when the model allows it (no user part, nothing
    :func:`~hydrofmu.export.native.refusal.refusal` refuses, a C compiler at hand) and the
    Python FMU otherwise, the note saying why. ``asked_by`` names who asked (e.g.
    ``"--python"``) in the note; a request that overrides a different ``[export] runtime``
    says so.

    Raises
    ------
    ExportError
        ``native`` asked for and impossible (the reason and the way out named), or an
        unknown runtime.
    """
    configured = str(config_value(config, "export", "runtime"))
    wanted = configured if requested is None else requested
    if wanted not in RUNTIME_CHOICES:
        raise ExportError(f"runtime {wanted!r} unknown; choose one of "
                          f"{', '.join(RUNTIME_CHOICES)}", value=wanted)
    who = asked_by or ("[export] runtime" if requested is None else f"runtime={wanted!r}")
    over = (f" ({who} overrides [export] runtime = {configured!r})"
            if requested is not None and configured not in ("auto", wanted) else "")
    if wanted == "python":
        return RuntimeChoice(False, f"built the Python FMU, as {who} asks{over} (it needs a "
                             "Python with numpy where it runs)")
    why, scheme = _native_refusal(bodies, config, parts)
    if wanted == "native":
        if why:
            raise ExportError(f"the native FMU was asked for ({who}) and cannot be built: "
                              f"{why}. The Python FMU can: hydrofmu build --python, "
                              "Model.build_fmu(native=False)", value=wanted)
        return RuntimeChoice(True, f"built the native FMU, as {who} asks{over}{scheme}")
    if why:
        return RuntimeChoice(False, f"built the Python FMU (needs a Python with numpy where it "
                             f"runs): the native FMU cannot be built: {why}")
    return RuntimeChoice(True, "built the native FMU (no Python at run time: C/C++ hosts, "
                         f"OpenModelica, Simulink); --python builds the Python FMU{scheme}")


def _native_refusal(bodies: Sequence[HydroData], config: dict[str, Any],
                    parts: Sequence[Any]) -> tuple[str, str]:
    """Why the native FMU cannot be built ("" when it can: user parts, a part the native
    runtime cannot step, no compiler), and what the note adds of its time scheme (nothing:
    the native runtime steps the configured scheme or refuses it)."""
    loads = str(config_value(config, "export", "kind")) == "loads"
    if loads and load_refusal(config, parts):  # the native load FMU (load_blob.py)
        return load_refusal(config, parts), ""
    if parts:
        named = [getattr(p[0] if isinstance(p, tuple) else p, "__name__", repr(p))
                 for p in parts]
        return f"the model has user parts, which run in Python only ({', '.join(named)})", ""
    sim = Simulator(list(bodies), config, {})
    why = refusal(sim)
    if why:
        return why, ""
    platforms, note = default_platforms()
    # the native runtime steps the configured scheme (refusal: one it steps), so the note
    # has nothing to add about it
    return ("" if platforms else note), ""


def payload_model(bodies: Sequence[HydroData], config: dict[str, Any]
                  ) -> tuple[list[HydroData], dict[str, Any]]:
    """The model as the Python FMU's payload holds it: the configuration's values as JSON
    gives them back, with the state-space radiation realisation (made here, as
    :func:`~hydrofmu.export.fmu.build_fmu` makes it)."""
    from ...statespace.payload import add_realisation
    from ..fmu import payload_config

    bodies = list(bodies)
    config = payload_config(config)
    add_realisation(bodies, config,
                    required=config.get("radiation", {}).get("method") == "state_space")
    return bodies, payload_config(config)


def build_simulator(bodies: list[HydroData], config: dict[str, Any]) -> Simulator:
    """The simulator of the model with its default parameters, initialized at the
    configuration's start time.

    Raises
    ------
    ConfigError
        A parameter's default is refused (the one check of the parameters).
    ExportError
        The model does not initialize with its default parameters (as
        :func:`~hydrofmu.export.fmu.build_fmu` says it).
    """
    from ...runtime.parameters.checks import check_parameters
    from ...runtime.simulator.layout import parameter_table

    table = parameter_table(bodies, config)
    check_parameters(table, config)
    try:
        sim = Simulator(bodies, config, {p.name: p.start for p in table})
        sim.initialize(float(config_value(config, "simulation", "start_time")))
    except ExportError:
        raise
    except HydroFMUError as exc:
        raise ExportError(f"the model does not initialize with its default parameters: "
                          f"{exc}", value=str(exc)) from exc
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
        kind = "Integer" if v[0].tag == "Enumeration" else v[0].tag  # set as an Integer
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


def scalable(sim: Simulator) -> bool:
    """The wave height stays tunable in the native FMU: the sinusoids are the internal wave's
    alone (the linear model's ``sine_columns``), built at a height other than 0."""
    model = assemble(sim.assembly)
    kinds = {sim.parts[i].kind for i in model.sine_columns}
    height = float(sim.parameters.get(SCALE_PARAMETER, 0.0))
    return kinds == {"wave_excitation"} and height != 0.0 and model.omega.size > 0


#: Tunable parameters the matrices are affine in, kept tunable when the check agrees
#: (:func:`~hydrofmu.export.native.assemble.native_model`): a linear PTO's coefficients.
MATRIX_PARAMETER_SUFFIXES = (".damping", ".stiffness")


def matrix_parameters(parameters: Sequence[ParameterSpec]) -> tuple[str, ...]:
    """The tunable Real parameters that enter ``F``, ``G`` and ``C`` affinely:
    ``pto.<name>.damping`` and ``pto.<name>.stiffness``."""
    return tuple(p.name for p in parameters
                 if p.kind == "Real" and p.tunable and p.name.startswith("pto.")
                 and p.name.endswith(MATRIX_PARAMETER_SUFFIXES))


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
    on_note: Callable[[str], None] | None = None,
) -> Path:
    """Build the native FMU of a configuration (see the module docstring).

    Parameters
    ----------
    bodies, config, model_name, description, overwrite, validate
        As :func:`~hydrofmu.export.fmu.build_fmu`.
    platforms
        FMI platform folders to compile (``linux64``, ``win64``, ``darwin64``); default:
        every platform with the ziglang wheel, else linux64 alone with a note
        (:func:`~hydrofmu.export.native.compile.default_platforms`).
    python_fmu
        Also build the Python FMU of the same model at this path (separately, after the
        native one: the native build does not use it), replacing any file there.
    on_note
        Called with each note of the build (the platforms left out); default: a
        :class:`UserWarning` (a partial FMU is never built in silence).

    Raises
    ------
    ExportError
        A part the native runtime cannot step (named, with the fix), a failed compilation
        or validation, an existing file without ``overwrite``.
    """
    problem = model_name_problem(model_name)
    if problem:
        raise ExportError(f"invalid model name {model_name!r}: {problem}; e.g. "
                          f"{sanitize_model_name(str(model_name))!r}", value=model_name)
    out = Path(output_path).expanduser().absolute()
    if out.suffix.lower() != ".fmu":
        raise ExportError(f"the output path '{out}' must end with '.fmu'", value=str(out))
    if out.exists() and not overwrite:
        raise ExportError(f"'{out}' exists; pass overwrite=True to replace it", value=str(out))
    given = (list(bodies), copy.deepcopy(dict(config)))
    bodies, config = payload_model(bodies, copy.deepcopy(dict(config)))
    if str(config_value(config, "export", "kind")) == "loads":
        load_refusal(config)  # what no load FMU takes first (joints, large rotations)
    sim = build_simulator(bodies, config)
    why = refusal(sim)
    if why:
        raise ExportError(why, value=[p.kind for p in sim.parts])
    from ...runtime.simulator.layout import parameter_table

    step = float(config_value(config, "simulation", "output_interval"))
    loads = str(config_value(config, "export", "kind")) == "loads"
    if loads:  # the load FMU (load_blob.py): its parameters fixed as built
        model = native_load_model(bodies, config, step)
    else:
        model = native_model(sim, step, matrix_parameters(parameter_table(bodies, config)))
    tunable = () if loads else ((SCALE_PARAMETER,) if scalable(sim) else ()) + tuple(
        t.name for t in model.tunables)
    description = description or f"{model_name}: floating bodies in waves (hydrofmu)"
    scheme = ("exact" if model.rk is None else model.tableau.name
              if model.tableau is not None else model.lines.scheme.label
              if model.lines is not None and model.lines.scheme is not None else "rk4")
    describe = load_model_description if loads else model_description
    xml = native_model_description(describe(bodies, config, model_name, description),
                                   model_name, tunable,
                                   str(sim.parameters["time_scheme"]) if loads else scheme)
    xml = declare_derivative(xml, model)  # derivative_blob.py
    params = parameter_values(xml, model.u0.size, model.c.shape[0])
    model.real_parameters = params["real"]
    model.int_parameters = params["int"]
    model.str_parameters = params["str"]
    model.parameter_names = params["names"]
    model.guid = params["guid"]
    if SCALE_PARAMETER in tunable:
        model.scale_parameter = 1 + params["names"].index(SCALE_PARAMETER)
    for t in model.tunables:
        t.index = params["names"].index(t.name)
    with tempfile.TemporaryDirectory(prefix="hydrofmu_native_") as tmp:
        work = Path(tmp)
        if platforms is None:
            platforms, note = default_platforms()
            if not platforms:
                raise ExportError(note, value=None)
            if note:
                _tell(note, on_note)
        binaries = compile_all(model_name, work / "bin", platforms)
        built = work / "native.fmu"
        with zipfile.ZipFile(built, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("modelDescription.xml", xml)
            z.writestr(f"resources/{NATIVE_MODEL_FILE}", write_blob(model))
            for member, path in binaries.items():
                z.write(path, member)
            for name in SOURCES:
                z.write(source_file(name), f"sources/{name}")
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
    if python_fmu is not None:
        from ..fmu import build_fmu

        build_fmu(*given, python_fmu, model_name=model_name, description=description,
                  overwrite=True, validate=False)
    return out


def _tell(note: str, on_note: Callable[[str], None] | None) -> None:
    """A note of the build: to ``on_note``, or a :class:`UserWarning`."""
    if on_note is not None:
        on_note(note)
    else:
        import warnings

        warnings.warn(note, UserWarning, stacklevel=3)
