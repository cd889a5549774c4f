"""Stability map of the added-mass treatments ``implicit``, ``split`` and ``lagged``.

Run ``python docs/added_mass/stability_map.py`` from the repository root: it writes
``stability_map.png`` and ``stability_map.md`` beside this script (about 1-3 minutes on
one core).

The case: the embedded default sphere (Capytaine, r = 5 m) free in heave only, its own
A_inf (A33_inf = 1.35e5 kg, hydrostatic stiffness rho g pi r^2), the radiation memory by
convolution, no waves, released from 0.5 m at rest. The body mass m is varied against the
fixed added mass, A33_inf / m from 0.1 to 100: the light bodies stand for a submerged,
nearly neutrally buoyant body whose structural mass is a small part of the inertia. With
m != rho V the net buoyancy ``(rho V - m) g`` would push the body to another equilibrium;
it is balanced by a constant external heave force ``-(rho V - m) g`` through the body's
``F_pto[3]`` input (a ballast or a tether), so every run decays about z = 0.

It drives the public :class:`~hydrofmu.runtime.simulator.simulator.Simulator` (resolved from a
configuration dictionary, as ``tests/physics_helpers.py: make_simulator`` does), internal step
``simulation.max_internal_step`` from 0.005 to 0.1 s, communication step 0.1 s, 40 s
simulated (5 to 15 natural periods). A run is **stable** when it finishes with finite
values and the heave over the last quarter stays within the 0.5 m release (a passive
system's free decay never exceeds its release; an unstable scheme grows exponentially and
leaves that bound after a few steps). The integrator's own verdict (an IntegrationError on
a non-finite or diverging step) counts as unstable.
"""

from __future__ import annotations

import functools
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent

METHODS: tuple[str, ...] = ("implicit", "split", "lagged")
RATIOS: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
STEPS: tuple[float, ...] = (0.005, 0.01, 0.02, 0.05, 0.1)
RELEASE = 0.5      # m
STOP = 40.0        # s
COMM_STEP = 0.1    # s


@functools.lru_cache(maxsize=1)
def sphere_a33() -> float:
    """A33_inf of the embedded sphere, kg."""
    from hydrofmu.config.configuration import default_config

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bodies, _ = default_config()
    return float(bodies[0].added_mass_inf[2, 2])


def run_case(method: str, ratio: float, step: float, *, stop: float = STOP
             ) -> dict[str, Any]:
    """One decay run; returns ``{"stable": bool, "max_late": float, "reason": str}``.

    Parameters
    ----------
    method
        ``implicit``, ``split`` or ``lagged``.
    ratio
        A33_inf / m (dimensionless).
    step
        Internal step, s.
    stop
        Simulated time, s.
    """
    from hydrofmu.config.configuration import resolve
    from hydrofmu.runtime.errors import HydroFMUError
    from hydrofmu.runtime.simulator.simulator import Simulator

    mass = sphere_a33() / ratio
    data = {
        "bodies": [{"name": "body", "hydro": "builtin:sphere", "mass": mass,
                    "inertia": [1e6, 1e6, 1e6], "cog": [0.0, 0.0, 0.0], "dofs": ["heave"],
                    "initial_pose": [0.0, 0.0, RELEASE, 0.0, 0.0, 0.0]}],
        "wave": {"type": "none"},
        "simulation": {"max_internal_step": step},
        "added_mass": {"method": method},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bodies, cfg = resolve(data, HERE)
        try:
            sim = Simulator(bodies, cfg)
        except HydroFMUError as exc:
            return {"stable": False, "max_late": float("nan"), "reason": str(exc)[:80]}
        names = Simulator.output_names(sim.bodies, sim.config)
        iz = names.index("body.pose[3]")
        u = np.zeros(len(Simulator.input_names(sim.bodies, sim.config)))
        u[2] = -sim.part("hydrostatics").offset[2]          # balance the net buoyancy
        sim.set_input_vector(u)
        n = round(stop / COMM_STEP)
        z = np.empty(n + 1)
        z[0] = sim.output_vector()[iz]
        try:
            for i in range(n):
                sim.step(i * COMM_STEP, COMM_STEP)
                z[i + 1] = sim.output_vector()[iz]
                if not np.isfinite(z[i + 1]) or abs(z[i + 1]) > 100.0 * RELEASE:
                    return {"stable": False, "max_late": float("inf"),
                            "reason": f"|z| > {100 * RELEASE:g} m at t = {(i + 1) * COMM_STEP:g} s"}
        except HydroFMUError as exc:
            return {"stable": False, "max_late": float("inf"), "reason": str(exc)[:80]}
    late = float(np.max(np.abs(z[3 * n // 4:])))
    return {"stable": late <= RELEASE, "max_late": late,
            "reason": "" if late <= RELEASE else f"late |z| = {late:.3g} m > release"}


def stability_map(methods: tuple[str, ...] = METHODS, ratios: tuple[float, ...] = RATIOS,
                  steps: tuple[float, ...] = STEPS, *, stop: float = STOP
                  ) -> dict[str, np.ndarray]:
    """Boolean maps ``{method: stable[ratio, step]}``."""
    return {m: np.array([[run_case(m, r, h, stop=stop)["stable"] for h in steps]
                         for r in ratios]) for m in methods}


def write_outputs(maps: dict[str, np.ndarray], ratios: tuple[float, ...],
                  steps: tuple[float, ...], folder: Path = HERE) -> None:
    """Write ``stability_map.md`` and ``stability_map.png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a33 = sphere_a33()
    lines = [
        "# Stability of the added-mass treatments",
        "",
        "Written by `python docs/added_mass/stability_map.py` (see its docstring for the "
        "case: the default sphere in heave, A33_inf = "
        f"{a33:.4g} kg, body mass m = A33_inf / ratio, net buoyancy balanced by a constant "
        "F_pto input, free decay from 0.5 m, 40 s). S = stable, **X** = unstable.",
        "",
    ]
    header = "| A33/m | " + " | ".join(f"{m} dt={h:g}" for m in maps for h in steps) + " |"
    lines += [header, "|" + "---|" * (1 + len(maps) * len(steps))]
    for i, r in enumerate(ratios):
        cells = ["S" if maps[m][i, j] else "**X**" for m in maps for j in range(len(steps))]
        lines.append(f"| {r:g} | " + " | ".join(cells) + " |")
    lines += ["", "Summary:", ""]
    for m in maps:
        unstable = [(ratios[i], steps[j]) for i, j in zip(*np.nonzero(~maps[m]), strict=True)]
        if not unstable:
            lines.append(f"- `{m}`: stable over the whole map.")
        else:
            lowest = min(r for r, _ in unstable)
            lines.append(f"- `{m}`: unstable in {len(unstable)} of {maps[m].size} cells, "
                         f"from A33/m = {lowest:g}.")
    (folder / "stability_map.md").write_text("\n".join(lines) + "\n", encoding="utf-8")

    fig, axes = plt.subplots(1, len(maps), figsize=(4 * len(maps), 3.6), sharey=True)
    for ax, m in zip(np.atleast_1d(axes), maps, strict=True):
        ax.imshow(maps[m].astype(float), origin="lower", cmap="RdYlGn", vmin=0, vmax=1,
                  aspect="auto")
        ax.set_xticks(range(len(steps)), [f"{h:g}" for h in steps])
        ax.set_yticks(range(len(ratios)), [f"{r:g}" for r in ratios])
        ax.set_xlabel("internal step (s)")
        ax.set_title(m)
    np.atleast_1d(axes)[0].set_ylabel("A33_inf / m")
    fig.suptitle("Added-mass treatments: stable (green) / unstable (red), heave decay")
    fig.tight_layout()
    fig.savefig(folder / "stability_map.png", dpi=110)
    plt.close(fig)


def main() -> int:
    maps = stability_map()
    write_outputs(maps, RATIOS, STEPS)
    for m, grid in maps.items():
        print(f"{m}: {int(grid.sum())}/{grid.size} stable")
    return 0


if __name__ == "__main__":
    sys.exit(main())
