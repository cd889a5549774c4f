"""A light body in its own FMU, coupled to hydrofmu's load FMU across the added-mass loop.

Builds three FMUs from the default sphere free in heave (state-space radiation, regular
waves): the motion FMU (``[export] kind = "motion"``: hydrofmu integrates the body, the
reference), the load FMU (``kind = "loads"``: motion in, force and ``A_inf`` out) and the
project's rigid-body FMU (mass only). It couples the last two with each method of
``hydrofmu.cosim.coupling`` and prints, per method, whether the run stayed bounded, its
largest heave difference from the motion FMU (relative to the heave's peak) and its
load-FMU evaluations per step::

    python examples/added_mass_coupling.py --out out/examples/coupling --ratio 0.05

``--ratio`` is the body's mass over its heave added mass ``A33_inf`` (the sphere floats
with its own displacement as weight in the load FMU's hydrostatics whatever the ratio: a
body of 0.05 A33 settles at another draft, which the three FMUs share). See
docs/guide/added-mass-coupling.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import hydrofmu
from hydrofmu.cosim.coupling import METHODS, run_coupled
from hydrofmu.cosim.fmu_unit import FmuUnit
from hydrofmu.cosim.rigid_body import build_rigid_body_fmu


def config(kind: str, mass: float, step: float) -> dict:
    """The sphere in heave, as the load FMU (``kind = "loads"``) or the motion FMU."""
    return {"simulation": {"max_internal_step": step},
            "wave": {"type": "regular", "height": 2.0, "period": 6.0, "ramp_time": 2.0},
            "export": {"kind": kind, "runtime": "python"},
            "bodies": [{"name": "body", "hydro": "builtin:sphere", "dofs": ["heave"],
                        "mass": mass, "inertia": [1e5, 1e5, 1e5],
                        "radiation": "state_space"}]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("out/examples/coupling"))
    parser.add_argument("--ratio", type=float, default=0.05, help="m / A33_inf")
    parser.add_argument("--step", type=float, default=0.01, help="communication step, s")
    parser.add_argument("--stop", type=float, default=3.0, help="end time, s")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    a33 = hydrofmu.Model.default().bodies[0].added_mass_inf[2, 2]
    fmus = {}
    for kind in ("motion", "loads"):
        model = hydrofmu.Model.from_dict(config(kind, args.ratio * a33, args.step))
        fmus[kind] = model.build_fmu(args.out / f"Sphere_{kind}.fmu",
                                     model_name=f"Sphere_{kind}", overwrite=True)
        mass = np.array(model.config["bodies"][0]["mass_matrix"])
    rigid = build_rigid_body_fmu(args.out / "RigidBody.fmu")

    ref = FmuUnit(fmus["motion"], "motion")
    try:
        heave = [ref.get(["body.pose[3]"])[0]]
        for _ in range(round(args.stop / args.step)):
            ref.do_step(args.step)
            heave.append(ref.get(["body.pose[3]"])[0])
    finally:
        ref.close()
    heave = np.array(heave)
    peak = np.max(np.abs(heave))

    print(f"m / A33_inf = {args.ratio:g}, h = {args.step:g} s, {args.stop:g} s; heave peak "
          f"{peak:.4g} m (motion FMU)")
    print(f"{'method':<22}{'bounded':<9}{'max |dz| / peak':>16}{'evaluations/step':>18}")
    for method in METHODS:
        res = run_coupled(rigid, fmus["loads"], mass=mass, method=method, step=args.step,
                          stop_time=args.stop, free=(0, 0, 1, 0, 0, 0), limit=1e9)
        n = len(res.time)
        err = np.max(np.abs(res.pose[:, 2] - heave[:n])) / peak
        print(f"{method:<22}{'no' if res.diverged else 'yes':<9}{err:>16.3g}"
              f"{np.mean(res.iterations[1:]):>18.2f}")


if __name__ == "__main__":
    main()
