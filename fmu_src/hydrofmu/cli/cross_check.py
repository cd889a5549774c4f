"""``hydrofmu crosscheck CONFIG... -o DIR``: the FMI cross-check tree of configurations
(:mod:`hydrofmu.cosim.cross_check`), its arguments checked before any data is read."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..runtime.errors import ConfigError


def _check_arguments(args: argparse.Namespace) -> Path:
    """Every configuration exists and ``-o`` can be a folder (before any data is read)."""
    from ..io.output_paths import file_in_the_way

    missing = [c for c in args.configs if not Path(c).is_file()]
    if missing:
        raise ConfigError(f"configuration file(s) not found: {', '.join(missing)}",
                          value=missing)
    out = Path(args.output)
    blocker = file_in_the_way(out / "fmus")
    if blocker is not None:
        raise ConfigError(f"cannot write -o {out}: {blocker} is a file, not a folder; choose "
                          "another -o", value=str(out))
    if args.max_rows < 2:
        raise ConfigError(f"--max-rows {args.max_rows} must be at least 2", value=args.max_rows)
    return out


def _crosscheck(args: argparse.Namespace) -> int:
    import numpy as np

    from ..cosim.cross_check import validate_tree, write_cross_check
    from ..cosim.cross_check_files import reproduce

    out = _check_arguments(args)
    runtime = "python" if args.python else "native" if args.native else None
    models = write_cross_check(args.configs, out, runtime=runtime, max_rows=args.max_rows,
                               overwrite=args.force, on_note=lambda n: print(f"note: {n}"))
    for m in models:
        kind = "native" if m.native else "Python"
        line = (f"{m.name}: {kind} FMU, StopTime {m.stop_time!r} s, StepSize {m.step_size!r} s,"
                f" {len(m.outputs)} reference variables ({m.seconds:.1f} s)")
        if args.verify:
            reference, result = reproduce(m.folder)
            worst = max(float(np.max(np.abs(result[n] - reference[n])))
                        for n in reference.dtype.names)
            line += f"; fmpy from _in.csv and _ref.opt: largest difference {worst:.3g}"
        print(line)
    count, problems = validate_tree(out)
    for problem in problems:
        print(f"problem: {problem}")
    print(f"FMPy's cross-check validator: {count} FMUs, {len(problems)} problems")
    print(f"wrote {out / 'fmus'}")
    return 0 if not problems else 1


def add_crosscheck_parser(sub: Any) -> None:
    """Add ``hydrofmu crosscheck`` to the command line's subparsers."""
    x = sub.add_parser(
        "crosscheck",
        help="write the FMUs of configurations in the FMI cross-check layout "
        "(fmus/2.0/cs/<platform>/hydrofmu/<version>/<Model>/) with _in.csv, _ref.csv, "
        "_ref.opt and README.md, checked by FMPy's cross-check validator")
    x.add_argument("configs", nargs="+", metavar="CONFIG", help="TOML configuration files")
    x.add_argument("-o", "--output", required=True,
                   help="the tree's root folder (the vendor repository: fmus/ is made in it)")
    x.add_argument("--max-rows", type=int, default=2001,
                   help="the most rows of a CSV: StopTime is shortened to fit (default 2001)")
    x.add_argument("--verify", action="store_true",
                   help="run each FMU again with fmpy from _in.csv and _ref.opt and print the "
                   "largest difference from _ref.csv")
    x.add_argument("--force", action="store_true", help="replace existing model folders")
    which = x.add_mutually_exclusive_group()
    which.add_argument("--python", action="store_true", help="the Python FMU of every model")
    which.add_argument("--native", action="store_true",
                       help="the native FMU of every model, or fail saying why not")
    x.set_defaults(func=_crosscheck)
