"""The native runtime's panels: the blob's section for nonlinear hydrostatics and
Froude-Krylov force (layout in ``csrc/hfn_panels.h``), assembled from a built
:class:`~hydrofmu.runtime.simulator.simulator.Simulator`.

The physics is the one C kernel both FMUs call (``runtime/panels/panel_kernel.c``, compiled
into the native library by ``csrc/hfn_panels.c``); this module writes what the Python
parts hand it (:class:`~hydrofmu.runtime.forces.nonlinear_hydro.PanelBodies`, the
evaluator the two parts share), exactly as they hold it:

- each body's mesh (vertices in the body frame about the reference point, triangles), rho,
  g and the depth, the kernel's mode flags (static and wave pressure, mean or instantaneous
  surface), its reference point at rest, centre of gravity and weight;
- the wave components the kernel integrates (amplitude at the built height, frequency, wave
  number, heading, phase), the ramp time and the amplitude factor at build;
- the body's six displacements from the live state (the constraint basis, as the
  simulator's ``q``) and the outputs of the two loads' DOF forces.

The subtraction of the linear Froude-Krylov force at rest and the zeroed linear stiffness
are in the linear model already (:mod:`hydrofmu.config.nonlinear` removed them from the
body's data): the native linear part is the Python one.

Build time only.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ...runtime.forces.nonlinear_hydro import (
    NonlinearFroudeKrylov,
    NonlinearHydrostatics,
    PanelBodies,
)
from ...runtime.simulator.simulator import Simulator
from .packing import pack_f64

#: The kinds of the parts the native runtime steps with the panel kernel.
PANEL_KINDS = ("hydrostatics.nonlinear", "froude_krylov.nonlinear")


@dataclass
class NativePanelBody:
    """One nonlinear body for the kernel.

    Attributes
    ----------
    vertices, triangles
        The mesh: (nv, 3) m, body frame about the reference point; (nt, 3) indices.
    rho, g, depth
        kg/m^3, m/s^2, m (-1: deep water, as the kernel's structure holds it).
    mode
        The kernel's mode flags (static always; wave; instantaneous surface).
    dof0
        The body's first DOF among the model's (6 k).
    body
        Reference point at rest (world, m), centre of gravity about it (body frame, m),
        weight (N): 7 values.
    wave
        Amplitude (m), omega (rad/s), wave number (rad/m), heading (rad), phase (rad):
        (5, nc).
    pq
        The body's 6 displacements from the live state, (6, n).
    """

    vertices: NDArray[np.float64]
    triangles: NDArray[np.int64]
    rho: float
    g: float
    depth: float
    mode: int
    dof0: int
    body: NDArray[np.float64]
    wave: NDArray[np.float64]
    pq: NDArray[np.float64]


@dataclass
class NativePanels:
    """The blob's panels section.

    Attributes
    ----------
    ramp_time
        The wave's ramp, s.
    scale0
        The wave's amplitude factor at build (0 without a wave).
    op
        The outputs of the ``[static; wave]`` DOF forces, (p, 2 q).
    bodies
        The nonlinear bodies.
    """

    ramp_time: float
    scale0: float
    op: NDArray[np.float64]
    bodies: list[NativePanelBody] = field(default_factory=list)


def panel_parts(sim: Simulator) -> tuple[NonlinearHydrostatics | None,
                                         NonlinearFroudeKrylov | None]:
    """The simulator's two panel parts (each ``None`` when absent)."""
    return (next((p for p in sim.parts if isinstance(p, NonlinearHydrostatics)), None),
            next((p for p in sim.parts if isinstance(p, NonlinearFroudeKrylov)), None))


def native_panels(sim: Simulator, keep: NDArray[np.intp], op: NDArray[np.float64]
                  ) -> NativePanels | None:
    """The panels section for ``sim`` (live states ``keep``, the loads' output map ``op``),
    or ``None`` without a nonlinear body."""
    static, _ = panel_parts(sim)
    if static is None or not static.panels.indices:
        return None
    panels: PanelBodies = static.panels
    nr, big_n = sim.nr, sim.y.size
    basis = sim.constraints.basis
    bodies = []
    for kernel, k, mode in zip(panels.kernels, panels.indices, panels.modes, strict=True):
        pq = np.zeros((6, big_n))
        pq[:, :nr] = basis[6 * k : 6 * k + 6]
        depth = float(kernel.struct.depth)
        bodies.append(NativePanelBody(
            vertices=kernel.vertices.copy(), triangles=kernel.triangles.copy(),
            rho=float(kernel.struct.rho), g=float(kernel.struct.g),
            depth=depth if math.isfinite(depth) else -1.0, mode=int(mode), dof0=6 * k,
            body=kernel.body.copy(), wave=np.array(kernel.wave_arrays, dtype=float),
            pq=pq[:, keep]))
    return NativePanels(ramp_time=float(panels.ramp_time),
                        scale0=float(panels.scale) if panels.needs_wave else 0.0,
                        op=np.asarray(op, dtype=float), bodies=bodies)


def _f64(a: NDArray, size: int) -> bytes:
    return pack_f64(np.asarray(a, dtype=float).ravel(), (size,))


def panels_section(panels: NativePanels | None, n: int, p: int, q: int) -> bytes:
    """The bytes of the panels section (``n`` live states, ``p`` outputs, ``q`` DOFs): u32
    bodies [f64 ramp_time, scale0, OP[p*2q], then each body]."""
    if panels is None or not panels.bodies:
        return struct.pack("<I", 0)
    out = [struct.pack("<I", len(panels.bodies)),
           struct.pack("<2d", panels.ramp_time, panels.scale0), _f64(panels.op, p * 2 * q)]
    for b in panels.bodies:
        nv, nt, nc = len(b.vertices), len(b.triangles), b.wave.shape[1]
        out += [struct.pack("<5I", nv, nt, nc, b.mode, b.dof0),
                struct.pack("<3d", b.rho, b.g, b.depth), _f64(b.body, 7),
                _f64(b.vertices, 3 * nv),
                np.ascontiguousarray(b.triangles, dtype="<u4").tobytes(),
                _f64(b.wave, 5 * nc), _f64(b.pq, 6 * n)]
    return b"".join(out)
