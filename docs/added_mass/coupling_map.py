"""Stability map of the added-mass coupling across the FMU boundary (issue 29).

Run ``python docs/added_mass/coupling_map.py`` from the repository root: it builds the
load FMU (``[export] kind = "loads"``) and the rigid-body FMU in a temporary folder and
writes ``coupling_map.md`` beside this script (about 5-10 minutes on one core).

The case: the embedded default sphere (Capytaine, r = 5 m, A33_inf = 1.305e5 kg) with its
radiation memory by convolution, no waves; the rigid-body FMU free in heave only, of mass
``m = ratio * A33_inf``, released from 0.5 m (the load FMU's weight is the sphere's own
``rho V``, so the body decays about z = 0 whatever its mass). The load FMU's
``max_internal_step`` is set to the communication step h (its radiation history's grid).
Each run takes 200 communication steps; it is **unstable** when it leaves the master's
limit or when its largest acceleration over the last quarter exceeds the largest over
the first (a passive system's free decay never grows;
:func:`hydrofmu.cosim.coupling_map.diverged`); an iteration that does not converge in 100
iterations counts as unstable. A stable cell shows the mean
number of load-FMU evaluations per step (the cost: one per step for the explicit methods).

The explicit Gauss-Seidel boundary is compared with its closed form
``m / A = 1 + c_N h / (2 A)`` (:func:`hydrofmu.cosim.coupling.explicit_boundary`; ``c_N``
the load FMU's velocity gain at the Nyquist frequency, measured by
:func:`hydrofmu.cosim.coupling_map.nyquist_gain`), located by bisection to 0.5 %, for the
plain sphere and for the sphere with a linear heave drag of 1e5 N s/m (which moves it).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import hydrofmu
from hydrofmu.cosim.coupling import explicit_boundary
from hydrofmu.cosim.coupling_map import direct_gains, map_point, nyquist_gain
from hydrofmu.cosim.rigid_body import build_rigid_body_fmu

HERE = Path(__file__).resolve().parent
METHODS = ("jacobi", "gauss_seidel", "added_mass", "interface_jacobian", "iqn_ils")
RATIOS = (5.0, 2.0, 1.2, 1.0, 0.8, 0.5, 0.2, 0.1, 0.05)
STEPS = (0.01, 0.02, 0.05, 0.1, 0.2)
DRAG = 1.0e5  # N s/m, the second case's linear heave drag


def load_fmu(folder: Path, drag: float) -> Path:
    """The load FMU of the case, with a linear heave drag of ``drag`` N s/m."""
    config = {"wave": {"type": "regular", "height": 0.0, "period": 6.0},
              "export": {"kind": "loads", "runtime": "python"},
              "bodies": [{"name": "body", "hydro": "builtin:sphere", "dofs": ["heave"],
                          "linear_damping": [0, 0, drag, 0, 0, 0]}]}
    name = f"Loads{int(drag)}"
    return hydrofmu.Model.from_dict(config).build_fmu(folder / f"{name}.fmu",
                                                       model_name=name)


def bisect(rigid: Path, load: Path, step: float, a33: float, lo: float, hi: float) -> float:
    """The Gauss-Seidel boundary ratio between an unstable ``lo`` and a stable ``hi``."""
    while hi / lo > 1.005:
        mid = (lo * hi) ** 0.5
        if map_point(rigid, load, method="gauss_seidel", ratio=mid, step=step,
                     added_mass=a33).stable:
            hi = mid
        else:
            lo = mid
    return (lo * hi) ** 0.5


def main() -> int:
    lines = ["# Stability map of the added-mass coupling (load FMU + rigid-body FMU)", "",
             "Written by `python docs/added_mass/coupling_map.py` (its docstring gives the "
             "case: the default sphere in heave, radiation by convolution, the rigid body "
             "of mass m = ratio x A33_inf released from 0.5 m, 200 communication steps). "
             "A cell shows the mean load-FMU evaluations per step of a stable run; "
             "**X** = unstable.", ""]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rigid = build_rigid_body_fmu(folder / "RigidBody.fmu")
        plain, damped = load_fmu(folder, 0.0), load_fmu(folder, DRAG)
        a33 = direct_gains(plain)[0]
        lines += ["| method | h (s) | " + " | ".join(f"m/A={r:g}" for r in RATIOS) + " |",
                  "|---|---|" + "---|" * len(RATIOS)]
        for method in METHODS:
            for step in STEPS:
                cells = []
                for ratio in RATIOS:
                    p = map_point(rigid, plain, method=method, ratio=ratio, step=step,
                                  added_mass=a33)
                    cells.append(f"{p.iterations:.2g}" if p.stable else "**X**")
                    print(method, step, ratio, p.stable, p.iterations, flush=True)
                lines.append(f"| {method} | {step:g} | " + " | ".join(cells) + " |")
        lines += ["", "## The explicit (Gauss-Seidel) boundary against its closed form", "",
                  "| case | h (s) | c_N (N s/m) | closed form m/A | computed m/A | "
                  "difference |", "|---|---|---|---|---|---|"]
        for label, fmu in (("sphere", plain), (f"sphere + drag {DRAG:g} N s/m", damped)):
            for step in STEPS:
                c_n = nyquist_gain(fmu, step)
                closed = explicit_boundary(a33, c_n, step) / a33
                computed = bisect(rigid, fmu, step, a33, 0.9 * closed, 1.1 * closed)
                lines.append(f"| {label} | {step:g} | {c_n:.4g} | {closed:.4f} | "
                             f"{computed:.4f} | {computed / closed - 1:+.2%} |")
                print(label, step, closed, computed, flush=True)
    (HERE / "coupling_map.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
