"""Command line: ``hydrofmu build | run | demo | info``.

Every expected failure prints ``error: <message>`` and exits with status 2; nothing the user
wrote is overwritten unless ``--force`` is given.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .errors import HydroFMUError

DEMO_MARKER = ".hydrofmu-demo"


def _refuse_overwrite(path: Path, force: bool) -> None:
    from .errors import ConfigError

    if path.exists() and not force:
        raise ConfigError(f"{path} exists; choose another path or pass --force", value=str(path))


def _print_notes(cfg: dict) -> None:
    """The resolution notes and the model report (IRF lengths, round-trip errors...)."""
    for note in cfg.get("notes", []):
        print(f"note: {note}")
    for line in cfg.get("report", []):
        print(f"model: {line}")
    for line in cfg.get("warnings", []):
        print(f"warning: {line}")


def _build(args: argparse.Namespace) -> int:
    from .config import load_config
    from .export import build_fmu

    bodies, cfg = load_config(args.config)
    out = Path(args.output)
    _refuse_overwrite(out, args.force)
    path = build_fmu(
        bodies,
        cfg,
        out,
        model_name=args.name,
        overwrite=args.force,
        link_libpython=args.link_libpython,
    )
    from .osp import write_osp_model_description

    osp = write_osp_model_description(path)
    _print_notes(cfg)
    print(f"wrote {path}")
    print(f"wrote {osp} (OSP-IS ports for libcosim)")
    return 0


def _simulate_config(bodies, cfg, workdir: Path, name: str, fmu_path: Path | None = None):
    from .export import build_fmu
    from .simulate import simulate

    fmu = fmu_path or workdir / f"{name}.fmu"
    build_fmu(bodies, cfg, fmu, model_name=name, overwrite=fmu_path is None)
    sim = cfg["simulation"]
    result = simulate(
        fmu,
        start_time=float(sim["start_time"]),
        stop_time=float(sim["stop_time"]),
        output_interval=float(sim["output_interval"]),
    )
    return fmu, result


def _run(args: argparse.Namespace) -> int:
    from .config import load_config
    from .simulate import plot, summary, write_csv

    bodies, cfg = load_config(args.config)
    if args.stop_time is not None:
        cfg["simulation"]["stop_time"] = args.stop_time
    if args.output_interval is not None:
        cfg["simulation"]["output_interval"] = args.output_interval
    out = Path(args.output)
    _refuse_overwrite(out, args.force)
    if args.plot:
        _refuse_overwrite(Path(args.plot), args.force)
    _print_notes(cfg)
    with tempfile.TemporaryDirectory(prefix="hydrofmu-") as tmp:
        _, result = _simulate_config(bodies, cfg, Path(tmp), "HydroFMU")
    write_csv(result, out)
    print(summary(result, body=cfg["bodies"][0]["name"]))
    print(f"wrote {out}")
    if args.plot:
        plot(result, args.plot, body=cfg["bodies"][0]["name"])
        print(f"wrote {args.plot}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .config import default_config
    from .errors import ConfigError
    from .simulate import plot, summary, write_csv

    out = Path(args.out)
    if out.exists() and any(out.iterdir()) and not (out / DEMO_MARKER).exists():
        raise ConfigError(
            f"{out} exists and was not written by 'hydrofmu demo'; choose another --out",
            value=str(out),
        )
    out.mkdir(parents=True, exist_ok=True)
    (out / DEMO_MARKER).write_text("written by hydrofmu demo\n", encoding="utf-8")
    bodies, cfg = default_config()
    print("default body: floating sphere, r = 5 m (Capytaine data embedded in the package)")
    print(f"waves: regular, H = {cfg['wave']['height']} m, T = {cfg['wave']['period']} s; "
          f"radiation: {cfg['radiation']['method']}; scheme: {cfg['simulation']['time_scheme']}")
    _print_notes(cfg)
    fmu = out / "DefaultSphere.fmu"
    if fmu.exists():
        fmu.unlink()
    _, result = _simulate_config(bodies, cfg, out, "DefaultSphere", fmu_path=fmu)
    csv = write_csv(result, out / "results.csv")
    png = plot(result, out / "heave.png")
    print(summary(result))
    print(f"wrote {fmu}\nwrote {csv}\nwrote {png}")
    return 0


def _info(args: argparse.Namespace) -> int:
    import numpy as np

    from .hydrodata.readers import read_hydro

    hd = read_hydro(args.file, body=args.body)
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
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from .doctor import diagnose, format_report

    diagnosis = diagnose(args.fmu, python=args.python)
    print(format_report(diagnosis))
    return 0 if diagnosis.ok else 1


def make_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``hydrofmu`` command."""
    p = argparse.ArgumentParser(prog="hydrofmu", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="export a configuration as an FMI 2.0 co-simulation FMU")
    b.add_argument("config", help="TOML configuration file")
    b.add_argument("-o", "--output", required=True, help="path of the .fmu to write")
    b.add_argument("--name", default="HydroFMU", help="model name (an identifier)")
    b.add_argument("--force", action="store_true", help="overwrite an existing output")
    b.add_argument(
        "--link-libpython",
        action="store_true",
        help="patch the Linux binary to load this Python's libpython itself, so that C/C++ "
        "hosts need no LD_PRELOAD (ties the FMU to this libpython; needs patchelf)",
    )
    b.set_defaults(func=_build)
    r = sub.add_parser("run", help="export to a temporary FMU, simulate it with fmpy, write CSV")
    r.add_argument("config", help="TOML configuration file")
    r.add_argument("-o", "--output", default="results.csv", help="CSV file to write")
    r.add_argument("--plot", default=None, help="also write a PNG plot to this path")
    r.add_argument("--stop-time", type=float, default=None, help="s (default: config)")
    r.add_argument("--output-interval", type=float, default=None, help="communication step, s")
    r.add_argument("--force", action="store_true", help="overwrite existing outputs")
    r.set_defaults(func=_run)
    d = sub.add_parser("demo", help="the default body in regular waves: FMU, CSV and plot")
    d.add_argument("--out", default="hydrofmu_demo", help="output folder")
    d.set_defaults(func=_demo)
    i = sub.add_parser("info", help="summarise a BEM data file (.nc, .h5)")
    i.add_argument("file")
    i.add_argument("--body", default=None)
    i.set_defaults(func=_info)

    dr = sub.add_parser("doctor", help="what an importer will find when it loads an FMU")
    dr.add_argument("fmu", help="the .fmu to inspect")
    dr.add_argument(
        "--python", default="python3", help="interpreter a C/C++ host starts (default: PATH's)"
    )
    dr.set_defaults(func=_doctor)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = make_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except HydroFMUError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
