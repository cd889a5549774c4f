"""The left side takes A_inf as the data give it (issue 21, point 5): RM3's WAMIT matrix is
asymmetric by 0.93 % of its largest entry; the acceleration is the solve with the whole
matrix, not with a symmetrised one, and the simulator says that the matrix is asymmetric."""

from __future__ import annotations

import tomllib
import warnings

import numpy as np

from hydrofmu.config.configuration import resolve
from hydrofmu.runtime.simulator.simulator import Simulator
from paths import ROOT

RM3 = ROOT / "examples" / "rm3"


def test_rm3_acceleration_uses_the_whole_added_mass_matrix() -> None:
    data = tomllib.loads((RM3 / "rm3.toml").read_text(encoding="utf-8"))
    data["wave"]["height"] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # WAMIT's 4-digit data: asymmetry notes
        bodies, cfg = resolve(data, RM3)
    sim = Simulator(bodies, cfg)
    assert any("A_inf is asymmetric by 0.00929 of its largest entry" in w
               for w in sim.warnings), sim.warnings
    names = Simulator.output_names(bodies, cfg)
    inputs = Simulator.input_names(bodies, cfg)
    u = np.zeros(len(inputs))
    u[inputs.index("float.F_pto[1]")] = 2.0e5  # surge: the asymmetric surge-pitch coupling
    u[inputs.index("spar.F_pto[5]")] = -3.0e6
    sim.set_input_vector(u)
    y = sim.output_vector()
    acc = np.array([y[names.index(f"{b}.acceleration[{i + 1}]")] for b in ("float", "spar")
                    for i in range(6)])
    force = np.zeros(12)
    for k, b in enumerate(("float", "spar")):
        for c in ("F_radiation", "F_excitation", "F_hydrostatic", "F_mooring", "F_viscous"):
            force[6 * k : 6 * k + 6] += [y[names.index(f"{b}.{c}[{i + 1}]")] for i in range(6)]
    force[0] += 2.0e5
    force[10] -= 3.0e6
    t = sim.constraints.basis
    lhs = sim.mass + sim.part("radiation").added

    def solve(matrix: np.ndarray) -> np.ndarray:
        return t @ np.linalg.solve(t.T @ matrix @ t, t.T @ force)

    whole = solve(lhs)
    lower = solve(np.tril(lhs) + np.tril(lhs, -1).T)  # what a Cholesky would read
    # Two solves of the same 4x4 system by different routes: round-off, 1e-12 (measured
    # 1.6e-16).
    np.testing.assert_allclose(acc, whole, rtol=0, atol=1e-12 * np.abs(whole).max())
    # The symmetrised matrix moves the answer far beyond that (measured 1.8 % of the
    # largest acceleration): the check can fail.
    assert np.abs(lower - whole).max() > 1e-4 * np.abs(whole).max()
