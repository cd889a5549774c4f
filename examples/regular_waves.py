"""Regular waves through the FMU: heave amplitude and phase against the RAO.

Runs the example configurations ``default_sphere_regular.toml`` and
``sphere_bemio_regular.toml`` at several periods through their FMUs (fmpy), fits the
steady-state heave and compares it with the frequency-domain response
``(-w^2 (M + A) + i w B + K)^-1 X`` from the same data.

    python examples/regular_waves.py [--out DIR] [--periods 6 8 10]
"""

from __future__ import annotations

import argparse
import tempfile
import tomllib
import warnings
from pathlib import Path

import numpy as np

from hydrofmu.config.configuration import resolve
from hydrofmu.cosim.fmpy_run import simulate, write_csv
from hydrofmu.export.fmu import build_fmu

HERE = Path(__file__).resolve().parent
CONFIGS = ("default_sphere_regular.toml", "sphere_bemio_regular.toml")


def fit(t: np.ndarray, x: np.ndarray, w: float) -> complex:
    """Complex amplitude of x at w (least squares with a mean)."""
    a = np.column_stack([np.ones_like(t), np.cos(w * t), -np.sin(w * t)])
    c = np.linalg.lstsq(a, x, rcond=None)[0]
    return complex(c[1], c[2])


def rao_heave(cfg: dict, hd, w: float) -> complex:
    """Heave RAO per metre of wave amplitude (e^{+iwt}), over the configured free DOFs."""
    b = cfg["bodies"][0]
    free = np.flatnonzero(b["free_dofs"])
    a, bb = hd.coefficients_at(w)
    z = -w * w * (np.asarray(b["mass_matrix"]) + a) + 1j * w * bb + np.asarray(
        b["hydrostatic_stiffness"])
    x = np.linalg.solve(z[np.ix_(free, free)], hd.excitation_at(w)[free])
    return complex(x[list(free).index(2)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None)
    parser.add_argument("--periods", type=float, nargs="+", default=[6.0, 8.0, 10.0])
    args = parser.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="hydrofmu-rw-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"{'config':30s} {'T':>5s} {'|z|/a FMU':>10s} {'|z|/a RAO':>10s} {'phase err':>10s}")
    for name in CONFIGS:
        data = tomllib.loads((HERE / name).read_text(encoding="utf-8"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bodies, cfg = resolve(data, HERE)
        stem = Path(name).stem
        fmu = build_fmu(bodies, cfg, out / f"{stem}.fmu", model_name=stem.title().replace(
            "_", ""), overwrite=True)
        for period in args.periods:
            w = 2 * np.pi / period
            stop = cfg["wave"]["ramp_time"] + 15 * period
            res = simulate(fmu, stop_time=stop, output_interval=0.05,
                           start_values={"wave.period": period})
            write_csv(res, out / f"{stem}_T{period:g}.csv")
            t = np.asarray(res["time"])
            keep = t >= stop - 8 * period
            z = fit(t[keep], np.asarray(res["body.pose[3]"])[keep], w)
            eta = fit(t[keep], np.asarray(res["wave.elevation"])[keep], w)
            r = rao_heave(cfg, bodies[0], w)
            print(f"{name:30s} {period:5.1f} {abs(z / eta):10.4f} {abs(r):10.4f} "
                  f"{np.angle(z / eta / r):10.4f}")
    print(f"results in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
