"""Every command-line argument checked before any data is read.

A command's arguments are refused here, before a BEM file, a mesh or a sea-state table is
opened and before anything is built or simulated: the output paths (their folder, their
suffix, an existing file without ``--force``), the model name, the options that override
``[simulation]`` (against the configuration's own table, read as TOML without the data it
names) and the numeric options. Each refusal is a
:class:`~hydrofmu.runtime.errors.ConfigError` naming the option, so the command prints one
``error:`` line and exits with status 2. Build time only.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from ..config.configuration import parse_config
from ..config.run_settings import check_simulation
from ..export.names import model_name_problem, sanitize_model_name
from ..export.osp import osp_description_path
from ..io.output_paths import check_output_path
from ..runtime.errors import ConfigError

#: The ``run`` options that override ``[simulation]`` keys.
RUN_TIME_OPTIONS = {"stop_time": "--stop-time", "output_interval": "--output-interval"}


def check_build_arguments(args: argparse.Namespace) -> tuple[Path, Path]:
    """``build``: the FMU path (``.fmu``), its OSP model description beside it and the
    model name; returns ``(fmu, osp_description)``.

    The OSP description is named after the FMU's file; one that exists while the FMU does
    not belongs to no FMU this build replaces, and is refused without ``--force``.
    """
    problem = model_name_problem(args.name)
    if problem:
        raise ConfigError(f"--name {args.name!r} is not a valid model name: {problem}; e.g. "
                          f"--name {sanitize_model_name(str(args.name))}", value=args.name)
    out = check_output_path(args.output, "-o", force=args.force, suffix=".fmu")
    osp = osp_description_path(out)
    if osp.is_dir() or (osp.exists() and not args.force):
        raise ConfigError(
            f"{osp} exists: build writes the OSP model description of -o {out} there; "
            "choose another -o or pass --force to replace both", value=str(osp))
    return out, osp


def _read_toml(path: str | Path) -> dict | None:
    """The TOML table of ``path``, or None when it cannot be read (loading the
    configuration then says why, in its own words)."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def check_run_arguments(args: argparse.Namespace) -> Path:
    """``run``: the CSV and plot paths, and the ``[simulation]`` times with the options
    that override them (named as options); returns the CSV path.

    The configuration's ``[simulation]`` table is read as TOML and checked with its
    defaults (:func:`~hydrofmu.config.configuration.parse_config`, which opens no data
    file); a configuration that cannot be read is left to the loading, which names why.
    """
    from ..cosim.plots import check_plot_format

    out = check_output_path(args.output, "-o", force=args.force)
    if args.plot:
        check_output_path(args.plot, "--plot", force=args.force)
        check_plot_format(args.plot)
    data = _read_toml(args.config)
    if data is not None:
        sim = parse_config(data, where=str(args.config))["simulation"]
        names = {}
        for key, option in RUN_TIME_OPTIONS.items():
            value = getattr(args, key)
            if value is not None:
                sim[key] = value
                names[key] = option
        check_simulation(sim, names)
    return out


def check_bem_arguments(args: argparse.Namespace) -> Path:
    """``bem``: the NetCDF path and ``--jobs`` (a positive number of processes or -1, all
    cores, as ``[bem] n_jobs``); returns the path."""
    if args.jobs is not None and (args.jobs == 0 or args.jobs < -1):
        raise ConfigError(f"--jobs {args.jobs} must be a positive number of processes or -1 "
                          "(all cores)", value=args.jobs)
    return check_output_path(args.output, "-o", force=args.force)


def check_sweep_arguments(args: argparse.Namespace) -> None:
    """``sweep``: ``--workers`` (at least 1; the durations are checked by
    :class:`~hydrofmu.sweep.runner.SweepOptions`, the paths by
    :func:`~hydrofmu.sweep.runner.run_sweep`, both before any data is read)."""
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers {args.workers} must be at least 1", value=args.workers)
