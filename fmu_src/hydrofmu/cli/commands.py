"""Command line: ``hydrofmu build | check | run | demo | info | doctor | bem | sweep | mooring |
crosscheck``.

Every expected failure (a bad configuration, an unreadable, truncated or corrupt data file,
an unwritable output, a missing file) prints one line ``error: <message>`` on stderr and
exits with status 2; a warning prints one line ``warning: <message>`` on stderr, once. A
traceback appears only with ``--debug``; an unexpected exception (a bug) prints one line
``error: internal error ...`` and exits with status 1. Nothing the user wrote is
overwritten unless ``--force`` is given. Every argument is checked before any data is read
(:mod:`hydrofmu.cli.early_checks`); ``bem`` and ``sweep`` are in :mod:`hydrofmu.cli.extras`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path

from ..runtime.errors import HydroFMUError
from .early_checks import RUN_TIME_OPTIONS, check_build_arguments, check_run_arguments

DEMO_MARKER = ".hydrofmu-demo"


#: Exit status of a user error and of an internal error.
EXIT_USER_ERROR, EXIT_INTERNAL_ERROR = 2, 1

_WARNED: set[str] = set()


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _warn(message: object) -> None:
    """Print ``warning: <message>`` on stderr, once per message in this process."""
    text = _one_line(message)
    if text not in _WARNED:
        _WARNED.add(text)
        print(f"warning: {text}", file=sys.stderr)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` replacement: one line, no source line."""
    _warn(message)


def _print_notes(cfg: dict) -> None:
    """The resolution notes and the model report (IRF lengths, round-trip errors...)."""
    for note in cfg.get("notes", []):
        print(f"note: {note}")
    for line in cfg.get("report", []):
        print(f"model: {line}")
    for line in cfg.get("warnings", []):
        _warn(line)


def _requested_runtime(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The runtime the options ask for and the option that asks: ``--python``,
    ``--native``, ``--link-libpython`` (a Python FMU's option), or ``(None, None)``: as
    ``[export] runtime`` says (``auto`` by default)."""
    if getattr(args, "python", False):
        return "python", "--python"
    if getattr(args, "native", False):
        if getattr(args, "link_libpython", False):
            from ..runtime.errors import ConfigError

            raise ConfigError("--link-libpython patches the Python FMU's binary: it does not "
                              "go with --native; drop one of them", value="--link-libpython")
        return "native", "--native"
    if getattr(args, "link_libpython", False):
        return "python", "--link-libpython"
    return None, None


def _build_with_progress(model, out: Path, *, progress: bool,
                         runtime: tuple[str | None, str | None] = (None, None),
                         **options) -> tuple[Path, bool]:
    """``model.build_fmu`` with the runtime chosen (:func:`~hydrofmu.export.native.build.
    choose_runtime`: its ``note:`` printed) and a progress bar over the Python build's
    stages on stderr (unless disabled; the native build has no stages to show); returns the
    FMU's path and whether it is the native one."""
    from ..export.native.build import choose_runtime

    choice = choose_runtime(model.bodies, model.config, model.parts, runtime[0],
                            asked_by=runtime[1])
    print(f"note: {choice.note}")
    if choice.native:
        options.pop("link_libpython", None)
        return model.build_fmu(out, native=True, on_note=lambda n: print(f"note: {n}"),
                               **options), True
    from ..export.fmu import BUILD_STAGES
    from ..progress import Progress

    bar = Progress(len(BUILD_STAGES), enabled=progress, unit="stage", desc="build")
    started: list[str] = []

    def on_stage(name: str) -> None:
        if started:  # the previous stage is done
            bar.update()
        started.append(name)

    try:
        path = model.build_fmu(out, native=False, on_stage=on_stage, **options)
        bar.update()
    finally:
        bar.close()
    return path, False


def _build(args: argparse.Namespace) -> int:
    from ..api.model import Model

    out, _ = check_build_arguments(args)  # with the OSP description beside it
    runtime = _requested_runtime(args)  # before any data is read
    model = Model.from_toml(args.config)
    path, native = _build_with_progress(model, out, progress=not args.quiet,
                                        runtime=runtime, model_name=args.name,
                                        overwrite=args.force,
                                        link_libpython=args.link_libpython)
    from ..export.osp import libcosim_name_note, write_osp_model_description

    osp = write_osp_model_description(path)
    _print_notes(model.config)
    libcosim = libcosim_name_note(path)
    if libcosim:
        print(f"note: {libcosim}")
    print(f"wrote {path}{' (native: no Python at run time)' if native else ' (Python FMU)'}")
    print(f"wrote {osp} (OSP-IS ports for libcosim)")
    return 0


def _check(args: argparse.Namespace) -> int:
    from ..api.model import Model

    _print_notes(Model.from_toml(args.config).config)
    print(f"{args.config}: the configuration is valid")
    return 0


def _simulate_config(model, workdir: Path, name: str, fmu_path: Path | None = None,
                     progress: bool = True, label: str | None = None,
                     runtime: tuple[str | None, str | None] = (None, None)):
    """Build the model's FMU (native whenever the model allows, as ``build``) and
    simulate ``[simulation]`` with fmpy: ``(fmu, result, units)``."""
    import fmpy

    from ..cosim.fmpy_run import output_units, simulate

    fmu = fmu_path or workdir / f"{name}.fmu"
    # A temporary FMU runs here only: a native one holds this platform's binary alone.
    only_here = {} if fmu_path else {"platforms": (fmpy.platform,)}
    _build_with_progress(model, fmu, progress=progress, runtime=runtime, model_name=name,
                         overwrite=fmu_path is None, **only_here)
    sim = model.config["simulation"]
    result = simulate(
        fmu,
        start_time=float(sim["start_time"]),
        stop_time=float(sim["stop_time"]),
        output_interval=float(sim["output_interval"]),
        progress=progress,
        label=label,
    )
    return fmu, result, output_units(fmu)


def _run(args: argparse.Namespace) -> int:
    from ..api.model import Model
    from ..cosim.fmpy_run import summary, write_csv
    from ..cosim.plots import case_title, plot

    out = check_run_arguments(args)  # with the [simulation] times, before any data
    model = Model.from_toml(args.config)
    cfg = model.config
    for key in RUN_TIME_OPTIONS:
        if getattr(args, key) is not None:
            cfg["simulation"][key] = getattr(args, key)
    _print_notes(cfg)
    with tempfile.TemporaryDirectory(prefix="hydrofmu-") as tmp:
        _, result, units = _simulate_config(model, Path(tmp), "HydroFMU",
                                            progress=not args.quiet,
                                            label=f"the model of {args.config}",
                                            runtime=_requested_runtime(args))
    write_csv(result, out, units)
    print(summary(result, body=[b["name"] for b in cfg["bodies"]]))
    print(f"wrote {out}")
    if args.plot:
        plot(result, args.plot, title=case_title(Path(args.config).stem, cfg), units=units)
        print(f"wrote {args.plot}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from ..api.model import Model
    from ..cosim.fmpy_run import summary, write_csv
    from ..cosim.plots import case_title, plot
    from ..io.output_paths import file_in_the_way
    from ..runtime.errors import ConfigError

    out = Path(args.out)
    blocker = file_in_the_way(out)
    if blocker is not None:
        raise ConfigError(f"cannot write --out {out}: {blocker} is a file, not a folder; "
                          "choose another --out", value=str(out))
    if out.exists() and any(out.iterdir()) and not (out / DEMO_MARKER).exists():
        raise ConfigError(
            f"{out} exists and was not written by 'hydrofmu demo'; choose another --out",
            value=str(out),
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / DEMO_MARKER).touch()
    except OSError as exc:
        raise ConfigError(f"cannot write --out {out}: {exc.strerror or exc}; choose another "
                          "--out", value=str(out)) from exc
    (out / DEMO_MARKER).write_text("written by hydrofmu demo\n", encoding="utf-8")
    model = Model.default()
    cfg = model.config
    print("default body: floating sphere, r = 5 m (Capytaine data embedded in the package)")
    print(f"waves: regular, H = {cfg['wave']['height']} m, T = {cfg['wave']['period']} s; "
          f"radiation: {cfg['radiation']['method']}; scheme: {cfg['simulation']['time_scheme']}")
    _print_notes(cfg)
    fmu = out / "DefaultSphere.fmu"
    if fmu.exists():
        fmu.unlink()
    _, result, units = _simulate_config(model, out, "DefaultSphere", fmu_path=fmu,
                                        runtime=_requested_runtime(args))
    csv = write_csv(result, out / "results.csv", units)
    png = plot(result, out / "heave.png", title=case_title("demo", cfg), units=units)
    print(summary(result))
    print(f"wrote {fmu}\nwrote {csv}\nwrote {png}")
    return 0


def _info(args: argparse.Namespace) -> int:
    import numpy as np

    from ..io.readers import read_hydro
    from ..runtime.errors import HydroDataError
    from .second_order_info import second_order_lines, second_order_only

    try:
        hd = read_hydro(args.file, body=args.body)
    except HydroDataError as exc:  # a drift or QTF file alone, or first order refused
        return second_order_only(args.file, args.body, exc)
    print(f"body {hd.name!r} from {hd.source}")
    print(f"  {hd.nw} frequencies {hd.omega[0]:.4g}..{hd.omega[-1]:.4g} rad/s; headings "
          f"{np.degrees(hd.wave_direction).round(3).tolist()} deg")
    print(f"  rho = {hd.rho} kg/m3, g = {hd.g} m/s2, depth = {hd.water_depth} m, "
          f"V = {hd.displaced_volume:.6g} m3")
    print(f"  A_inf diagonal ({hd.added_mass_inf_source}): "
          f"{np.diag(hd.added_mass_inf).round(1).tolist()}")
    print(f"  K_hs diagonal: {np.diag(hd.hydrostatic_stiffness).round(1).tolist()}")
    for note in hd.notes:
        print(f"  note: {note}")
    print("\n".join(second_order_lines(args.file, args.body, hd.rho)))
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from ..cosim.doctor import diagnose, format_report

    diagnosis = diagnose(args.fmu, python=args.python)
    print(format_report(diagnosis))
    return 0 if diagnosis.ok else 1


def _add_runtime_options(parser: argparse.ArgumentParser, *,
                         link_libpython: bool = False) -> None:
    """``--python`` / ``--native`` (and ``--link-libpython`` for ``build``): which FMU."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--python", action="store_true",
        help="build the Python FMU (pythonfmu: needs a Python with numpy where it runs; "
        "default: the native FMU whenever the model allows, as [export] runtime = \"auto\")")
    which.add_argument(
        "--native", action="store_true",
        help="build the native FMU (no Python at run time) or fail saying why the model "
        "does not allow it (as [export] runtime = \"native\")")
    if link_libpython:
        parser.add_argument(
            "--link-libpython", action="store_true",
            help="build the Python FMU with its Linux binary patched to load this Python's "
            "libpython itself, so that C/C++ hosts need no LD_PRELOAD (ties the FMU to this "
            "libpython; needs patchelf)")


def make_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``hydrofmu`` command."""
    p = argparse.ArgumentParser(
        prog="hydrofmu",
        description="A floating body in waves, from BEM data to an FMI 2.0 co-simulation FMU. "
        "Commands: build, check, run, demo, info, doctor, bem, sweep, mooring replay, "
        "crosscheck; "
        "'hydrofmu COMMAND --help' gives each one's options.",
        epilog="User guide: docs/guide/README.md in the repository. Errors: one line "
        "'error: ...' on stderr and exit status 2 (--debug adds the traceback).",
    )
    p.add_argument("--debug", action="store_true",
                   help="show the traceback of an error (for bug reports)")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="export a configuration as an FMI 2.0 co-simulation FMU")
    b.add_argument("config", help="TOML configuration file")
    b.add_argument("-o", "--output", required=True,
                   help="path of the .fmu to write (and, beside it, its OSP-IS description "
                   "<file>_OspModelDescription.xml)")
    b.add_argument("--name", default="HydroFMU", help="model name (an identifier)")
    b.add_argument("--force", action="store_true", help="overwrite an existing output")
    _add_runtime_options(b, link_libpython=True)
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=_build)
    c = sub.add_parser("check", help="validate a configuration (the build's checks) quickly")
    c.add_argument("config", help="TOML configuration file")
    c.set_defaults(func=_check)
    r = sub.add_parser("run", help="export to a temporary FMU, simulate it with fmpy, write CSV")
    r.add_argument("config", help="TOML configuration file")
    r.add_argument("-o", "--output", default="results.csv", help="CSV file to write")
    r.add_argument("--plot", default=None, help="also write a PNG plot to this path")
    r.add_argument("--stop-time", type=float, default=None, help="s (default: config)")
    r.add_argument("--output-interval", type=float, default=None, help="communication step, s")
    r.add_argument("--force", action="store_true", help="overwrite existing outputs")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_runtime_options(r)
    r.set_defaults(func=_run)
    d = sub.add_parser("demo", help="the default body in regular waves: FMU, CSV and plot")
    d.add_argument("--out", default="hydrofmu_demo", help="output folder")
    _add_runtime_options(d)
    d.set_defaults(func=_demo)
    i = sub.add_parser("info", help="summarise a BEM data file (.nc, .h5, .out)")
    i.add_argument("file", help="BEM data file (Capytaine .nc, BEMIO .h5, WAMIT .out)")
    i.add_argument("--body", default=None,
                   help="the body of a multi-body file (its name or bodyN)")
    i.set_defaults(func=_info)
    from .cross_check import add_crosscheck_parser
    from .extras import add_bem_parser, add_sweep_parser
    from .mooring import add_mooring_commands

    add_mooring_commands(sub)
    add_crosscheck_parser(sub)
    add_bem_parser(sub)
    add_sweep_parser(sub)

    dr = sub.add_parser("doctor", help="what an importer will find when it loads an FMU")
    dr.add_argument("fmu", help="the .fmu to inspect")
    dr.add_argument(
        "--python", default="python3", help="interpreter a C/C++ host starts (default: PATH's)"
    )
    dr.set_defaults(func=_doctor)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (0, 2 for a user error, 1 for a bug)."""
    args = make_parser().parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    _WARNED.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _show_warning
        try:
            return int(args.func(args))
        except KeyboardInterrupt:
            print("error: interrupted", file=sys.stderr)
            return 130
        except Exception as exc:
            if debug:
                traceback.print_exc()
            return _report(exc, debug)


def _report(exc: Exception, debug: bool) -> int:
    """Print the one-line ``error:`` of an exception and return the exit status."""
    import tomllib

    if isinstance(exc, HydroFMUError | tomllib.TOMLDecodeError):
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USER_ERROR
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{_one_line(exc.strerror or exc)}", file=sys.stderr)
        return EXIT_USER_ERROR
    hint = "" if debug else ", rerun with --debug and report it"
    print(f"error: internal error ({type(exc).__name__}: {_one_line(exc)[:200]}){hint}",
          file=sys.stderr)
    return EXIT_INTERNAL_ERROR


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
