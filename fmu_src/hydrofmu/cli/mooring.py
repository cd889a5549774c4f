"""``hydrofmu mooring replay``: the command line of :mod:`hydrofmu.cosim.replay`."""

from __future__ import annotations

from ..cosim.replay import replay_file
from ..io.output_paths import check_output_path


def _replay_command(args) -> int:
    out = check_output_path(args.output, "-o", force=args.force)
    path = replay_file(args.lines, args.motion, out, quiet=args.quiet, kernel=args.kernel)
    print(f"wrote {path}")
    return 0


def add_mooring_commands(sub) -> None:
    """Add ``hydrofmu mooring replay`` to the command line's subparsers."""
    m = sub.add_parser("mooring", help="mooring lines alone (MoorDyn input files)")
    msub = m.add_subparsers(dest="mooring_command", required=True)
    r = msub.add_parser(
        "replay",
        help="move the coupled points/bodies of a MoorDyn file through MOTION.csv; write forces "
        "and the file's OUTPUTS channels",
    )
    r.add_argument("lines", help="MoorDyn v2 input file")
    r.add_argument("motion", help="CSV: t, point<k>.x/.y/.z (m), body<k>.x..z (m) .roll..yaw (rad)")
    r.add_argument("-o", "--output", required=True, help="CSV file to write")
    r.add_argument("--force", action="store_true", help="overwrite an existing output")
    r.add_argument("--quiet", action="store_true", help="no progress on stderr")
    r.add_argument("--kernel", choices=("auto", "c", "numpy"), default="auto",
                   help="line derivative: compiled C (compiled on first use into the cache "
                   "folder), numpy, or auto (C when it loads, else numpy); default auto")
    r.set_defaults(func=_replay_command)
