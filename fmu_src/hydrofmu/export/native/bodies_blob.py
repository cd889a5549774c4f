"""The native runtime's large-rotation bodies: the blob's bodies section (layout in
``csrc/hfn_bodies.h``), assembled from a built
:class:`~hydrofmu.runtime.simulator.simulator.Simulator` with ``rotations = "large"``.

A model with large rotations is not the precomputed linear system of the Runge-Kutta mode
(``x' = F x + ...`` with the mass inverted once): its mass matrix turns with the bodies. The
native runtime steps it in the force form that :mod:`hydrofmu.runtime.bodies.dynamics`
steps in Python, with the same compiled kernel (``runtime/bodies/body_kernel.c``, included
by ``csrc/hfn_bodies.c``) for the poses, the turned mass, the gyroscopic terms and the
solve. What this module writes is what the Python parts declare, as they declare it:

- the kernel's model (each body's kind, first DOF, quaternion state, radiation frame, axis,
  geometry and body-axes mass matrix; the constraint basis, the constant left side and the
  added mass);
- each force channel's linear force as a map of ``z = [q, v, y, u, 1]`` (``q``, ``v`` the
  true pose and velocity, ``y`` the state, ``u`` the inputs), split into the parts that act
  in world axes and those that a ``radiation_frame = "body"`` body sees in its body axes
  (radiation and damping: ``v`` turned to body axes before, the force turned back after),
  and their sinusoids (the wave excitation);
- the parts' state derivatives as maps of the same ``z`` (world and body-frame parts);
- the quadratic drag's coefficients (``-B_q v |v|`` per DOF, on the body-axes velocity of
  a ``radiation_frame = "body"`` body, as the viscous part sees it);
- the output map of ``w = [q, v, a, F_added_mass, channels, F_constraint, y, u, 1]`` (the
  body outputs placed by :func:`~hydrofmu.runtime.simulator.layout.body_outputs`, the
  parts' outputs from their linear declarations or probed as the exact mode probes them),
  the outputs' sinusoids, the quaternion outputs' first row and the PTOs' power products.

The nonlinear hydrostatics and Froude-Krylov of the panels section are evaluated at the
true pose and added to their channels. Anything else that is not linear is refused with
large rotations (:func:`bodies_refusal`).

Build time only.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...runtime.bodies.dynamics import BODY_FRAME_KINDS, EXCLUDED_KINDS, PART_KIND
from ...runtime.errors import ExportError
from ...runtime.forces.pto import LinearPto
from ...runtime.forces.viscous import ViscousPart
from ...runtime.simulator.layout import body_outputs
from ...runtime.simulator.simulator import Simulator
from .output_rows import FIX, probe_part
from .packing import pack_f64
from .panels_blob import PANEL_KINDS

#: ``NONE`` in the section's u32 indices (no quaternion state, no quaternion output, no
#: panel channel).
NONE = 0xFFFFFFFF


@dataclass
class NativeBodies:
    """The blob's bodies section (the module docstring; shapes with ``nb`` bodies, ``n``
    DOFs, ``nr`` reduced coordinates, ``N`` states, ``m`` inputs, ``c`` force groups (the
    channels, then the forces in no channel), ``k`` sinusoids, ``p`` outputs)."""

    ints: NDArray[np.int64]  # (nb, 5): kind, dof0, quaternion state, frame, axis
    geometry: NDArray[np.float64]  # (nb, 6)
    mass: NDArray[np.float64]  # (nb, 36)
    basis: NDArray[np.float64]  # (n, nr)
    lhs0: NDArray[np.float64]  # (n, n)
    added: NDArray[np.float64]  # (n, n)
    force: NDArray[np.float64]  # (2, c, n, nz): world, body-frame parts; nz = 2n + N + m + 1
    sines: NDArray[np.complex128]  # (2, c, n, k)
    state: NDArray[np.float64]  # (2, N, nz)
    out: NDArray[np.float64]  # (p, nw): nw = (5 + channels) n + N + m + 1
    out_sines: NDArray[np.complex128]  # (p, k)
    quat_row: int  # the first quaternion output, or NONE
    panel_channels: tuple[int, int]  # the static and the wave loads' groups, or NONE
    products: list[tuple[int, int, int, float]]
    #: the quadratic drag ``-B_q v |v|`` (``None``: none): its group, 1 when it acts on the
    #: body-axes velocity, and ``B_q`` (n,)
    drag: tuple[int, int, NDArray[np.float64]] | None = None


def bodies_refusal(sim: Simulator) -> str:
    """Why the native runtime cannot step the large-rotation model ``sim`` ("" when it
    can, or when ``sim`` has no large-rotation body)."""
    if _part(sim) is None:
        return ""
    others = [p.kind for p in sim.parts if p.linear_system() is None and p.kind != PART_KIND
              and p.kind not in PANEL_KINDS and not isinstance(p, ViscousPart)
              and (p.active or p.n_states)]
    if others:
        return (f"with rotations = \"large\" the native FMU steps the linear parts, the "
                f"quadratic drag and the nonlinear hydrostatics and Froude-Krylov force only, "
                f"and these parts are "
                f"not linear: {', '.join(sorted(set(others)))}. Fix: {FIX}")
    if sim.parameters["time_scheme"] not in ("euler", "rk2heun", "rk2", "rk3", "rk4"):
        return (f"with rotations = \"large\" the native FMU steps an explicit Runge-Kutta "
                f"scheme, and time_scheme = '{sim.parameters['time_scheme']}'. Fix: set "
                "time_scheme = 'rk4' (the Python FMU then steps the same scheme)")
    return ""


def _part(sim: Simulator) -> object | None:
    return next((p for p in sim.parts if p.kind == PART_KIND and p.kinematics), None)


def native_bodies(sim: Simulator) -> NativeBodies | None:
    """The bodies section of ``sim`` (every state live), or ``None`` without a
    large-rotation body.

    Raises
    ------
    ExportError
        A part's outputs are not linear in the true pose, velocity, constraint force and
        inputs (named).
    """
    part = _part(sim)
    large = sim.large
    if part is None or large is None:
        return None
    asm = sim.assembly
    n, big_n, m = asm.n, asm.n_states, asm.n_inputs
    nz = 2 * n + big_n + m + 1
    chans = list(asm.channels)
    groups = [*chans, None]
    kernel = large.kernel
    sine_cols = _sine_columns(sim)
    k = sum(c.stop - c.start for c in sine_cols.values())
    force = np.zeros((2, len(groups), n, nz))
    sines = np.zeros((2, len(groups), n, k), dtype=complex)
    state = np.zeros((2, big_n, nz))
    drag = None
    for index, p in enumerate(asm.parts):
        if not p.active or p.kind in EXCLUDED_KINDS or p.kind in PANEL_KINDS:
            if p.kind not in PANEL_KINDS and p.n_states and p.kind != PART_KIND:
                raise ExportError(f"part '{p.kind}' has states but no force", value=p.kind)
            continue
        lin = p.linear_system()
        framed = int(large.body_frame and p.kind in BODY_FRAME_KINDS)
        g = groups.index(p.channel) if p.channel in groups else len(groups) - 1
        if lin is None and isinstance(p, ViscousPart):  # -B_l v - B_q v |v|
            force[framed, g][:, n:2 * n] -= np.asarray(p.model.linear, dtype=float)
            drag = (g, framed, np.array(p.model.quadratic, dtype=float))
            continue
        xs, us = p.state_slice, p.input_slice
        u_cols = slice(2 * n + big_n + us.start, 2 * n + big_n + us.stop)
        target = force[framed, g]
        for value, cols in ((lin.force_q, slice(0, n)), (lin.force_v, slice(n, 2 * n)),
                            (lin.force_x, slice(2 * n + xs.start, 2 * n + xs.stop)),
                            (lin.force_u, u_cols)):
            if value is not None:
                target[:, cols] += np.asarray(value, dtype=float)
        if lin.f0 is not None:
            target[:, -1] += np.asarray(lin.f0, dtype=float)
        for value, cols in ((lin.state_q, slice(0, n)), (lin.state_v, slice(n, 2 * n)),
                            (lin.state_x, slice(2 * n + xs.start, 2 * n + xs.stop)),
                            (lin.state_u, u_cols)):
            if value is not None:
                state[framed, xs, cols] += np.asarray(value, dtype=float)
        sine = p.sinusoidal_forcing()
        if index in sine_cols:
            coef = np.asarray(sine.coefficients, dtype=complex).reshape(-1, n)
            sines[framed, g, :, sine_cols[index]] += coef.T
    out, out_sines, products = _outputs(sim, chans, sine_cols, k)
    static, wave = (next((groups.index(p.channel) for p in asm.parts if p.kind == kind), NONE)
                    for kind in PANEL_KINDS)
    s = kernel.struct
    ints = np.array([[int(s.kind[i]), int(s.dof0[i]), int(s.quat[i]) if s.quat[i] >= 0 else NONE,
                      int(s.frame[i]), int(s.axis[i])] for i in range(kernel.nb)], dtype=np.int64)
    geometry, mass, basis, lhs0, added = (np.array(a) for a in kernel.arrays[5:10])
    return NativeBodies(
        ints=ints, geometry=geometry.reshape(kernel.nb, 6), mass=mass.reshape(kernel.nb, 36),
        basis=basis, lhs0=lhs0, added=added, force=force, sines=sines,
        state=state, out=out, out_sines=out_sines,
        quat_row=int(part.output_slice.start) if part.output_slice.stop > part.output_slice.start
        else NONE, panel_channels=(static, wave), products=products, drag=drag)


def _sine_columns(sim: Simulator) -> dict[int, slice]:
    """The columns of the model's sinusoids each part occupies (as the linear model's
    :attr:`~hydrofmu.runtime.linear.model.LinearModel.sine_columns`)."""
    from ...runtime.linear.model import assemble

    return assemble(sim.assembly).sine_columns


def _outputs(sim: Simulator, chans: list[str | None], sine_cols: dict[int, slice], k: int
             ) -> tuple[NDArray, NDArray, list[tuple[int, int, int, float]]]:
    """The output map of ``w`` (module docstring), its sinusoids and the products."""
    asm = sim.assembly
    n, big_n, m = asm.n, asm.n_states, asm.n_inputs
    nch = len(chans)
    body = (5 + nch) * n
    nw = body + big_n + m + 1
    y0, u0, one = body, body + big_n, nw - 1
    out = np.zeros((asm.n_outputs, nw))
    out_sines = np.zeros((asm.n_outputs, k), dtype=complex)
    marks = np.arange(body, dtype=float)
    placed = np.full(asm.n_outputs, -1.0)
    body_outputs(marks[:n], marks[n:2 * n], marks[2 * n:3 * n], marks[3 * n:4 * n],
                 marks[(4 + nch) * n:], marks[4 * n:(4 + nch) * n].reshape(nch, n), placed)
    rows = np.flatnonzero(placed[:body] >= 0.0)
    out[rows, placed[rows].astype(np.intp)] = 1.0
    fc = slice((4 + nch) * n, body)
    mult = asm.multiplier_map
    products: list[tuple[int, int, int, float]] = []
    for index, p in enumerate(asm.parts):
        sl = p.output_slice
        size = sl.stop - sl.start
        if not size or p.kind == PART_KIND:
            continue
        lin = p.linear_outputs()
        if lin is not None:
            xs, us = p.state_slice, p.input_slice
            for value, cols in ((lin.out_q, slice(0, n)), (lin.out_v, slice(n, 2 * n)),
                                (lin.out_x, slice(y0 + xs.start, y0 + xs.stop)),
                                (lin.out_u, slice(u0 + us.start, u0 + us.stop))):
                if value is not None:
                    out[sl, cols] += np.asarray(value, dtype=float).reshape(size, -1)
            if lin.y0 is not None:
                out[sl, one] += np.asarray(lin.y0, dtype=float).reshape(size)
            if lin.sinusoids is not None:
                out_sines[sl, sine_cols[index]] += np.asarray(
                    lin.sinusoids, dtype=complex).reshape(-1, size).T
            continue
        base, jac, bad = probe_part(p, n, m, mult)
        out[sl, :n] += jac[:, :n]
        out[sl, n:2 * n] += jac[:, n:2 * n]
        out[sl, fc] += jac[:, 2 * n:3 * n]
        out[sl, u0:u0 + m] += jac[:, 3 * n:]
        out[sl, one] += base
        pto = isinstance(p, LinearPto)
        if not bad and not pto:
            continue
        if not pto or bad not in ([1], []):
            raise ExportError(f"the outputs of part '{p.kind}' are not linear in the pose, "
                              f"velocity, constraint force and inputs: the native FMU cannot "
                              f"compute them with large rotations; fix: {FIX}", value=p.kind)
        # the power: -F (g . v), a product of the force and the velocity along the PTO
        v_row = np.zeros(nw)
        v_row[n:2 * n] = np.asarray(p.gradient, dtype=float)
        same = np.flatnonzero(np.all(np.abs(out - v_row) <= 1e-12 * np.abs(v_row).max(), axis=1)
                              & np.all(out_sines == 0.0, axis=1))
        if same.size == 0:
            raise ExportError(f"part '{p.kind}': no output carries the velocity that its "
                              "power needs", value=p.kind)
        out[sl.start + 1] = 0.0
        products.append((sl.start + 1, sl.start, int(same[0]), -1.0))
    return out, out_sines, products


def _f64(a: NDArray, size: int) -> bytes:
    return pack_f64(np.asarray(a, dtype=float).ravel(), (size,))


def bodies_section(bodies: NativeBodies | None, n_states: int, n_inputs: int, p: int,
                   k: int) -> bytes:
    """The bytes of the bodies section (``n_states`` states, ``n_inputs`` inputs, ``p``
    outputs, ``k`` sinusoids; layout in ``csrc/hfn_bodies.h``): u32 0 without."""
    if bodies is None:
        return struct.pack("<I", 0)
    nb = bodies.ints.shape[0]
    n, nr = bodies.basis.shape
    groups = bodies.force.shape[1]
    nz = bodies.force.shape[3]
    nw = bodies.out.shape[1]
    if (nz != 2 * n + n_states + n_inputs + 1 or bodies.out.shape[0] != p
            or bodies.sines.shape[3] != k or nw != (4 + groups) * n + n_states + n_inputs + 1):
        raise ExportError("the bodies section's sizes disagree with the model's", value=nz)
    out = [struct.pack("<7I", nb, n, nr, groups, bodies.quat_row, *bodies.panel_channels),
           np.ascontiguousarray(bodies.ints, dtype="<u4").tobytes(),
           _f64(bodies.geometry, nb * 6), _f64(bodies.mass, nb * 36),
           _f64(bodies.basis, n * nr), _f64(bodies.lhs0, n * n), _f64(bodies.added, n * n),
           _f64(bodies.force, 2 * groups * n * nz),
           _f64(bodies.sines.real, 2 * groups * n * k), _f64(bodies.sines.imag, 2 * groups * n * k),
           _f64(bodies.state, 2 * n_states * nz), _f64(bodies.out, p * nw),
           _f64(bodies.out_sines.real, p * k), _f64(bodies.out_sines.imag, p * k),
           struct.pack("<I", len(bodies.products))]
    for i, j, k2, coef in bodies.products:
        out.append(struct.pack("<IIId", i, j, k2, coef))
    if bodies.drag is None:
        out.append(struct.pack("<I", 0))
    else:
        group, framed, quadratic = bodies.drag
        out += [struct.pack("<3I", 1, group, framed), _f64(quadratic, n)]
    return b"".join(out)
