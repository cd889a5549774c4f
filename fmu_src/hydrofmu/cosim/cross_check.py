"""``hydrofmu crosscheck``: the FMUs of configurations in the FMI cross-check layout.

The Modelica Association's FMI cross-check (``modelica/fmi-cross-check``, rules 4.1) judges
an exporting tool by its FMUs, stored as::

    fmus/2.0/cs/<platform>/hydrofmu/<version>/<Model>/
        <Model>.fmu  <Model>_in.csv  <Model>_ref.csv  <Model>_ref.opt  README.md

:func:`write_cross_check` writes that tree for a list of configurations: each FMU built as
``hydrofmu build`` builds it (the native FMU whenever the model allows, for this platform
alone, else the Python FMU; :func:`~hydrofmu.export.native.build.choose_runtime`), the
input signals, the options and the reference that fmpy computes from those two files
(:mod:`hydrofmu.cosim.cross_check_files`), and a README per model and per tree. Each
model folder is then checked by FMPy's own validator of vendor repositories
(``fmpy.cross_check.validate_vendor_repo.validate_test_fmu``: the model description
against the FMI schema, the FMI version and type, ``_ref.opt``, the CSVs' names and
times, the file sizes); a problem is an :class:`~hydrofmu.runtime.errors.ExportError`
(no folder is marked ``notCompliantWithLatestRules``: none is written that is not
compliant). :func:`validate_tree` runs the validator over a whole tree.

Build and run side (fmpy); the platform is this machine's (``fmpy.platform``), where the
references are computed.
"""

from __future__ import annotations

import os
import re
import shutil
import time as clock
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..runtime.errors import ConfigError, ExportError
from ..runtime.version import __version__
from .cross_check_files import (
    INPUT_PERIOD,
    driven_inputs,
    input_signals,
    reference_outputs,
    simulate_reference,
    write_csv,
    write_ref_opt,
)

#: The exporting tool's name in the tree.
TOOL_NAME = "hydrofmu"
#: The most rows of a CSV (``StopTime`` is shortened to fit): 2,001 rows of 10 values
#: stay well under the rules' 1 MB.
MAX_ROWS = 2001


@dataclass(frozen=True)
class CrossCheckModel:
    """One model written into the tree.

    Attributes
    ----------
    name
        The model name (the folder's, the FMU's model identifier).
    folder
        Its folder ``fmus/2.0/cs/<platform>/hydrofmu/<version>/<name>``.
    native
        The native FMU (True) or the Python FMU (False).
    note
        Why that FMU (the build's note).
    config
        The configuration it was built from.
    stop_time, step_size
        ``StopTime`` and ``StepSize`` of ``_ref.opt``, s (``StartTime`` is the
        configuration's).
    driven, outputs
        The inputs the PTO force drives; the variables of ``_ref.csv``.
    seconds
        Wall time of the build and the reference run, s.
    """

    name: str
    folder: Path
    native: bool
    note: str
    config: Path
    stop_time: float
    step_size: float
    driven: tuple[str, ...]
    outputs: tuple[str, ...]
    seconds: float


def model_name(config: str | os.PathLike[str]) -> str:
    """The model name of a configuration file: its stem in CamelCase
    (``default_sphere_regular.toml`` -> ``DefaultSphereRegular``)."""
    from ..export.names import sanitize_model_name

    parts = re.split(r"[^A-Za-z0-9]+", Path(config).stem)
    return sanitize_model_name("".join(p[:1].upper() + p[1:] for p in parts if p))


def tool_folder(out: str | os.PathLike[str], platform: str | None = None) -> Path:
    """``<out>/fmus/2.0/cs/<platform>/hydrofmu/<version>`` (default platform: this one)."""
    import fmpy

    return Path(out) / "fmus" / "2.0" / "cs" / (platform or fmpy.platform) / TOOL_NAME \
        / __version__


def _description(config: Path) -> str:
    """The comment lines that open a configuration file (what it is)."""
    lines = []
    for line in config.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if text.lower().startswith("run:"):
            continue
        lines.append(text)
    return " ".join(lines) or config.name


def write_model(config: str | os.PathLike[str], out: str | os.PathLike[str], *,
                name: str | None = None, runtime: str | None = None,
                max_rows: int = MAX_ROWS, overwrite: bool = False,
                on_note: Callable[[str], None] | None = None) -> CrossCheckModel:
    """Write one configuration's model folder into the tree under ``out``.

    Parameters
    ----------
    config
        The TOML configuration.
    out
        The tree's root (the vendor repository's folder that holds ``fmus/``).
    name
        The model name; default :func:`model_name` of the file.
    runtime
        ``"native"``, ``"python"`` or None (``[export] runtime``: ``auto``, the native FMU
        whenever the model allows).
    max_rows
        The most rows of a CSV: ``StopTime`` is the configuration's ``stop_time``, or
        ``start_time + (max_rows - 1) * output_interval`` when that is earlier.
    overwrite
        Replace an existing model folder.
    on_note
        Called with each note (which FMU and why).

    Raises
    ------
    ConfigError
        The folder exists (without ``overwrite``), or a bad configuration.
    ExportError
        A failed build, a non-finite reference, a CSV over 1 MB, or a folder FMPy's
        validator finds problems in (listed).
    """
    import fmpy

    from ..api.model import Model
    from ..export.native.build import choose_runtime

    started = clock.perf_counter()
    config = Path(config)
    name = name or model_name(config)
    model = Model.from_toml(config)
    choice = choose_runtime(model.bodies, model.config, model.parts, runtime)
    if on_note is not None:
        on_note(f"{name}: {choice.note}")
    folder = tool_folder(out) / name
    if folder.exists():
        if not overwrite:
            raise ConfigError(f"{folder} exists; pass --force (overwrite=True) to replace it",
                              value=str(folder))
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    fmu = folder / f"{name}.fmu"
    options = {"platforms": (fmpy.platform,)} if choice.native else {}
    model.build_fmu(fmu, model_name=name, native=choice.native, overwrite=True, **options)
    md = fmpy.read_model_description(str(fmu))
    sim = model.config["simulation"]
    start, step = float(sim["start_time"]), float(sim["output_interval"])
    n = int(min(round((float(sim["stop_time"]) - start) / step), max_rows - 1))
    stop = start + n * step
    times = start + step * np.arange(n + 1)
    opt = write_ref_opt(folder / f"{name}_ref.opt", start, stop, step)
    names, values = input_signals(md, model.config, times)
    in_csv = write_csv(folder / f"{name}_in.csv", ["time", *names],
                       np.column_stack([times, values]))
    outputs = reference_outputs(md, model.config)
    result = simulate_reference(fmu, in_csv, opt, outputs)
    t = np.asarray(result["time"], dtype=float)
    if t[0] != start or abs(t[-1] - stop) > 1e-9 * max(1.0, abs(stop)):
        raise ExportError(f"{name}: fmpy's run spans {t[0]!r}..{t[-1]!r} s, not StartTime.."
                          f"StopTime {start!r}..{stop!r} s", value=[t[0], t[-1]])
    write_csv(folder / f"{name}_ref.csv", ["time", *outputs],
              np.column_stack([t] + [np.asarray(result[o], dtype=float) for o in outputs]))
    entry = CrossCheckModel(name, folder, choice.native, choice.note, config, stop, step,
                            tuple(driven_inputs(md, model.config)), tuple(outputs),
                            clock.perf_counter() - started)
    (folder / "README.md").write_text(_model_readme(entry, _description(config)),
                                      encoding="utf-8")
    from fmpy.cross_check.validate_vendor_repo import validate_test_fmu

    problems = validate_test_fmu(str(folder))
    if problems:
        raise ExportError(f"{name}: FMPy's cross-check validator finds problems:\n  "
                          + "\n  ".join(problems), value=problems)
    return entry


def _model_readme(m: CrossCheckModel, what: str) -> str:
    import fmpy

    kind = ("the native FMU (the model assembled at build, stepped by hydrofmu's C runtime; "
            "no Python at run time)" if m.native else
            "the Python FMU (pythonfmu; it needs a Python 3 with numpy where it runs)")
    outputs = " ".join(f"'{o}'" for o in m.outputs)
    return f"""# {m.name}

{what}

Exported by hydrofmu {__version__} from `{m.config.name}` as {kind}.

- **Inputs** (`{m.name}_in.csv`): a PTO force `A sin(2 pi t / {INPUT_PERIOD} s)`, A = 10 %
  of the weight of the first moving body (N; N m for a torque), on
  {", ".join(f"`{d}`" for d in m.driven)}; every other input 0. Sampled at every
  communication point; linear interpolation between rows.
- **Reference** (`{m.name}_ref.csv`): {", ".join(f"`{o}`" for o in m.outputs)}, computed
  by FMPy {fmpy.__version__} on {fmpy.platform} from `{m.name}_in.csv` and
  `{m.name}_ref.opt` alone: co-simulation with the communication step and the output
  interval `StepSize` = {m.step_size!r} s until `StopTime` = {m.stop_time!r} s.
- **Reproduce**:

      fmpy simulate {m.name}.fmu --input-file {m.name}_in.csv --stop-time {m.stop_time!r} \\
          --step-size {m.step_size!r} --output-interval {m.step_size!r} \\
          --output-variables {outputs}

Written by `hydrofmu crosscheck`; checked by FMPy's
`fmpy.cross_check.validate_vendor_repo.validate_test_fmu`.
"""


def write_cross_check(configs: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str],
                      *, runtime: str | None = None, max_rows: int = MAX_ROWS,
                      overwrite: bool = False,
                      on_note: Callable[[str], None] | None = None) -> list[CrossCheckModel]:
    """Write the cross-check tree of ``configs`` under ``out`` (see the module docstring):
    one model folder each (:func:`write_model`) and the tool folder's ``README.md``.

    Raises
    ------
    ConfigError
        Two configurations with the same model name, or as :func:`write_model`.
    ExportError
        As :func:`write_model`.
    """
    names = [model_name(c) for c in configs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"configurations with the same model name {twice}: rename a file "
                          "(the model name is its stem in CamelCase)", value=twice)
    models = [write_model(c, out, runtime=runtime, max_rows=max_rows, overwrite=overwrite,
                          on_note=on_note) for c in configs]
    folder = tool_folder(out)
    known = sorted(p.name for p in folder.iterdir() if p.is_dir())
    rows = "\n".join(f"| `{m.name}` | `{m.config.name}` | {'native' if m.native else 'Python'} "
                     f"| {m.stop_time!r} | {m.step_size!r} |" for m in models)
    (folder / "README.md").write_text(f"""# hydrofmu {__version__}: FMI 2.0 co-simulation FMUs

Floating bodies in waves (BEM data -> linear or nonlinear time-domain model). Models of
this tool folder: {", ".join(known)}. Each folder's README.md says what the model is, which
inputs its `_in.csv` drives and how `_ref.csv` was computed.

| model | configuration | FMU | StopTime (s) | StepSize (s) |
|---|---|---|---|---|
{rows}

The native FMU is stepped by hydrofmu's C runtime (no Python at run time); the Python FMU
(pythonfmu) needs a Python 3 with numpy where it runs, and is written where the native
runtime cannot step the model (the build's note says why).
""", encoding="utf-8")
    return models


def validate_tree(out: str | os.PathLike[str]) -> tuple[int, list[str]]:
    """FMPy's validator of a vendor repository over the tree under ``out``
    (``fmpy.cross_check.validate_vendor_repo.validate_repo``): ``(number of FMUs
    validated, problems)``."""
    from fmpy.cross_check.validate_vendor_repo import validate_repo

    fmu_count, _, problems = validate_repo(str(Path(out).absolute()))
    return fmu_count, list(problems)
