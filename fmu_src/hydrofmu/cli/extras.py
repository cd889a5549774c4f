"""``hydrofmu bem`` and ``hydrofmu sweep``: the commands of the ``bem`` and ``sweep`` extras
(Capytaine, Dask), whose arguments are checked before any data is read
(:mod:`hydrofmu.cli.early_checks`)."""

from __future__ import annotations

import argparse
from typing import Any, Protocol

from .early_checks import check_bem_arguments, check_sweep_arguments


class SubParsers(Protocol):
    """What the command line's subparsers offer here: ``add_parser`` (the object
    ``argparse.ArgumentParser.add_subparsers`` returns)."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


def _bem(args: argparse.Namespace) -> int:
    """``hydrofmu bem BEM.toml -o body.nc``: Capytaine solve of a ``[bem]`` table."""
    from dataclasses import replace

    from ..bem import bem_to_file, load_bem
    from ..runtime.errors import require

    out = check_bem_arguments(args)
    spec = load_bem(args.config)
    if args.jobs is not None:
        spec = replace(spec, n_jobs=args.jobs)
    require("capytaine", "bem")
    path, line = bem_to_file(spec, out, progress=not args.quiet)
    print(line)
    print(f"wrote {path}")
    return 0


def add_bem_parser(sub: SubParsers) -> None:
    """Add ``hydrofmu bem`` to the command line's subparsers."""
    e = sub.add_parser("bem", help="solve a [bem] table with Capytaine, write its NetCDF")
    e.add_argument("config", help="TOML file with a [bem] table")
    e.add_argument("-o", "--output", required=True, help="NetCDF file to write (.nc)")
    e.add_argument("--jobs", type=int, default=None, help="Capytaine n_jobs (-1: all cores)")
    e.add_argument("--quiet", action="store_true", help="no progress bar")
    e.add_argument("--force", action="store_true", help="overwrite an existing output")
    e.set_defaults(func=_bem)


def _sweep(args: argparse.Namespace) -> int:
    """``hydrofmu sweep CONFIG.toml --sea-states SEAS.csv -o sweep.nc``."""
    from ..sweep import SweepOptions, run_sweep

    check_sweep_arguments(args)
    options = SweepOptions(
        duration=args.duration, transient=args.transient, workers=args.workers,
        scheduler=args.scheduler, resume=args.resume, series=args.series, plot=args.plot,
        force=args.force, progress=not args.quiet,
    )
    result = run_sweep(args.config, args.sea_states, args.output, options)
    print("\n".join(result.summary))
    for path in result.files:
        print(f"wrote {path}")
    return 0


def add_sweep_parser(sub: SubParsers) -> None:
    """Add ``hydrofmu sweep`` to the command line's subparsers."""
    w = sub.add_parser("sweep", help="run the FMU over a table of sea states on Dask")
    w.add_argument("config", help="TOML configuration file")
    w.add_argument("--sea-states", required=True,
                   help="CSV: Hs, Tp [, direction, gamma, seed, occurrence, FMU parameters]")
    w.add_argument("-o", "--output", required=True, help="NetCDF file of the statistics")
    w.add_argument("--duration", type=float, default=10800.0, help="s per sea state (3 h)")
    w.add_argument("--transient", type=float, default=300.0, help="s left out of statistics")
    w.add_argument("--workers", type=int, default=None,
                   help="worker processes of the local Dask cluster (default: cores)")
    w.add_argument("--scheduler", default=None, help="tcp://HOST:PORT of a Dask scheduler")
    w.add_argument("--resume", action="store_true", help="skip sea states already written")
    w.add_argument("--series", action="store_true", help="keep every time series")
    w.add_argument("--plot", action="store_true", help="power matrix heat map (PNG)")
    w.add_argument("--force", action="store_true", help="overwrite outputs and part files")
    w.add_argument("--quiet", action="store_true", help="no progress bar")
    w.set_defaults(func=_sweep)
