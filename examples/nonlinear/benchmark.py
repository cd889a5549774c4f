"""Cost of one panel-kernel evaluation against the number of triangles (250-4,000).

    .venv/bin/python examples/nonlinear/benchmark.py

A sphere (r = 5 m) heeled 10 degrees, centre 0.5 m below the surface; per size: the
static pressure at the mean surface (``nonlinear = "mean"``, hydrostatics only), and the
static and wave pressures at the instantaneous surface of a regular wave (1 component) and
of an irregular sea (50 components). The median of 7 repeats of 200 calls, microseconds
per call, from Python (ctypes) as the simulator calls it; one body step of rk4 costs
4 such calls per part (two parts with a wave).
"""

from __future__ import annotations

import math
import time

import numpy as np

from hydrofmu.export.panel_kernel_build import compiled_library
from hydrofmu.io.panel_mesh import merged
from hydrofmu.runtime.panels.kernel import (
    INSTANTANEOUS,
    STATIC,
    WAVE,
    PanelKernel,
    WaveComponents,
    load_library,
)
from hydrofmu.runtime.panels.pose import rotation_matrix
from hydrofmu.runtime.waves.kinematics import wave_number


def sea(n: int) -> WaveComponents:
    omega = np.linspace(0.4, 2.0, n)
    rng = np.random.default_rng(1)
    return WaveComponents(np.full(n, 1.0 / n), omega, wave_number(omega), np.zeros(n),
                          rng.uniform(0, 2 * math.pi, n))


def per_call(kernel: PanelKernel, mode: int) -> float:
    rot = rotation_matrix(math.radians(10.0), 0.0, 0.0)
    trans = np.array([0.0, 0.0, -0.5])
    times = []
    for _ in range(7):
        start = time.perf_counter()
        for i in range(200):
            kernel.evaluate(rot, trans, t=0.01 * i, mode=mode)
        times.append((time.perf_counter() - start) / 200)
    return 1e6 * float(np.median(times))


def main() -> None:
    import capytaine as cpt

    compiled_library()
    lib = load_library()
    print(f"{'triangles':>9} {'mean us':>8} {'1 comp us':>10} {'50 comp us':>11}")
    for n in (8, 11, 16, 22, 32, 45):
        m = cpt.mesh_sphere(radius=5.0, center=(0, 0, 0), resolution=(n, 2 * n))
        mesh = merged(m.vertices, m.faces, "sphere")
        cols = [per_call(PanelKernel(mesh.vertices, mesh.triangles, rho=1025.0, g=9.81,
                                     lib=lib), STATIC)]
        for nc in (1, 50):
            k = PanelKernel(mesh.vertices, mesh.triangles, rho=1025.0, g=9.81, wave=sea(nc),
                            lib=lib)
            cols.append(per_call(k, STATIC | WAVE | INSTANTANEOUS))
        print(f"{len(mesh.triangles):9d} {cols[0]:8.1f} {cols[1]:10.1f} {cols[2]:11.1f}")


if __name__ == "__main__":
    main()
