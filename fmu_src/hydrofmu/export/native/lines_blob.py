"""The native runtime's MoorDyn lines and semi-implicit scheme: what the blob's last section
holds (layout in ``csrc/hfn_model.h``), assembled from a built
:class:`~hydrofmu.runtime.simulator.simulator.Simulator`.

The lines' physics is the one C kernel both FMUs call (``runtime/moorings/line_kernel.c``,
compiled into the native library by ``csrc/hfn_lines.c``); this module writes its constant
arrays (the frozen :class:`~hydrofmu.runtime.moorings.line_layout.LineArrays` of each
``mooring.moordyn`` part) and how the lines ride on their body: the part's coupled points
(and coupled bodies at rest angles zero) become the points of one coupled body of the
kernel whose pose is the body's reference point ``ref + q[:3]`` and angles ``q[3:]``, so that
the kernel's own point kinematics moves them exactly as
:meth:`~hydrofmu.runtime.forces.moordyn_mooring.MoorDynPart.coupled` does
(``ref + q[:3] + R(q[3:]) (r0 - ref)``, velocity ``v[:3] + w x arm``). The runtime then sums
the coupled points' forces and their moments about ``ref + q[:3]`` into the body's six DOF
forces (the part's ``force``) and reports each line's fairlead and anchor tension (the
norms of the net forces on its end nodes B and A, the part's ``outputs``).

The scheme: MoorDyn's semi-implicit family of
:mod:`~hydrofmu.runtime.schemes.semi_implicit` (``beulerN``, ``midpointN``, ``acaN``) with
the relaxation weights computed here by the scheme's own :meth:`relax`.

Build time only.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ...runtime.errors import ExportError
from ...runtime.forces.moordyn_mooring import MoorDynPart
from ...runtime.parts.part import Part
from ...runtime.schemes.semi_implicit import (
    AverageConstantAcceleration,
    BackwardEuler,
    Midpoint,
    SemiImplicit,
)
from ...runtime.simulator.simulator import Simulator
from .convolution_blob import native_tableau

#: The kinds of the parts the native runtime steps with the line kernel.
LINE_KINDS = ("mooring.moordyn",)

#: The semi-implicit schemes the native runtime steps, by class: their family code in the
#: blob (1 beuler, 2 midpoint, 3 aca). Anderson mixing (a least-squares solve per
#: iteration) and Wilson-theta (a stage beyond the step) are not.
SI_FAMILIES: dict[type[SemiImplicit], int] = {
    BackwardEuler: 1, Midpoint: 2, AverageConstantAcceleration: 3}


@dataclass
class NativeScheme:
    """A semi-implicit scheme of MoorDyn's family, stepped by the runtime (``hfn_semi.c``).

    Attributes
    ----------
    label
        Its name in the configuration (``midpoint5``).
    family
        1 beuler, 2 midpoint, 3 aca (:data:`SI_FAMILIES`).
    substeps
        N, the iterations per step.
    relax
        The relaxation weight of the previous iterate at iterations 0 .. N-2, (N - 1,).
    """

    label: str
    family: int
    substeps: int
    relax: NDArray[np.float64]


@dataclass
class NativeLinePart:
    """One ``mooring.moordyn`` part for the kernel (sizes as ``struct hf_lines`` names them).

    Attributes
    ----------
    ints
        The kernel's integer arrays by name (int32 in the blob; -1: none).
    reals
        The kernel's real arrays by name (SI units as :class:`LineArrays` documents).
    env
        g (m/s^2), rho (kg/m^3), depth (m), kBot (Pa/m), cBot (Pa s/m).
    sizes
        n_nodes, n_internal, n_points, n_free, n_lines, n_seg, n_groups, n_group_points,
        has_seabed.
    state0
        The first of the part's states among the live states (they are contiguous).
    dof0
        The body's first DOF among the model's (6 k).
    out_row
        The first of its 2 n_lines tension outputs (fairlead, anchor per line).
    ref
        The body's reference point in the file's frame, m, (3,).
    pq, pv
        The body's 6 DOF displacements and velocities from the live state, (6, n) each.
    """

    ints: dict[str, NDArray[np.int64]]
    reals: dict[str, NDArray[np.float64]]
    env: tuple[float, float, float, float, float]
    sizes: tuple[int, ...]
    state0: int
    dof0: int
    out_row: int
    ref: NDArray[np.float64]
    pq: NDArray[np.float64]
    pv: NDArray[np.float64]


@dataclass
class NativeLines:
    """The blob's last section: the scheme (None: the RK mode's rk4) and the lines.

    Attributes
    ----------
    scheme
        The semi-implicit scheme, or None.
    parts
        The line parts.
    ol
        The outputs of the lines' DOF forces (their channel, accelerations, reactions),
        (p, q) with q the model's DOFs.
    """

    scheme: NativeScheme | None = None
    parts: list[NativeLinePart] = field(default_factory=list)
    ol: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 0)))


#: The integer arrays of a part, in blob order.
INT_NAMES = ("internal", "node_kind", "node_left", "node_right", "end_nodes", "end_points",
             "seg0", "seg1", "free_points", "point_free", "group_k", "group_start",
             "group_points")
#: The real arrays of a part, in blob order.
REAL_NAMES = ("l0", "pair_l0", "pair_ea_l0", "pair_ba_l0", "pair_fake", "n_len", "n_m", "n_d",
              "n_area", "n_can", "n_cat", "cdn_d", "cdt_d", "a_full", "b_full", "wz_full",
              "cn_full", "ct_full", "point_r0", "point_mass", "point_volume", "point_cda",
              "point_ca", "group_pose")


def line_parts(sim: Simulator) -> list[MoorDynPart]:
    """The simulator's MoorDyn parts."""
    return [p for p in sim.parts if isinstance(p, MoorDynPart)]


def native_scheme(sim: Simulator) -> NativeScheme | str | None:
    """The configured scheme for the runtime: None for an explicit Runge-Kutta scheme (the RK
    mode's tableau, :func:`~.convolution_blob.native_tableau`), a :class:`NativeScheme`, or
    why it cannot be stepped natively."""
    scheme = sim.scheme
    label = str(sim.parameters["time_scheme"])
    if native_tableau(sim) is not None:
        return None
    family = SI_FAMILIES.get(type(scheme))
    if family is None or not isinstance(scheme, SemiImplicit):
        return (f"time_scheme = '{label}' is not one the native FMU steps; it steps the "
                "explicit Runge-Kutta schemes euler, rk2heun, rk2, rk3, rk4 and MoorDyn's "
                "semi-implicit beuler<N>, midpoint<N> and aca<N>. Fix: set time_scheme to "
                "one of them, or build the Python FMU (hydrofmu build --python)")
    n = scheme.substeps
    return NativeScheme(label=label, family=family, substeps=n,
                        relax=np.array([scheme.relax(i) for i in range(n - 1)], dtype=float))


def part_refusal(part: Part) -> str:
    """Why a line part cannot be stepped natively ("" when it can)."""
    if not isinstance(part, MoorDynPart):
        return ""
    la = part.system.arrays
    for group in la.body_groups:
        if group.coupled >= 0 and np.any(np.asarray(group.pose)[3:] != 0.0):
            return ("mooring.moordyn: a Coupled body of the file has rest angles "
                    f"{np.asarray(group.pose)[3:].tolist()} rad; the native FMU moves coupled "
                    "bodies at rest angles zero only. Fix: give the body zero angles in the "
                    "file, or build the Python FMU")
    return ""


def _part(sim: Simulator, part: MoorDynPart, keep: NDArray[np.intp]) -> NativeLinePart:
    """The kernel's arrays of ``part`` with its coupled objects on one coupled body."""
    la = part.system.arrays
    ref = np.asarray(part.ref, dtype=float)
    r0 = np.array(la.point_r0, dtype=float).reshape(-1, 3)
    ks, poses, members = [], [], []
    coupled: list[int] = []
    for group in la.body_groups:
        pts = [int(i) for i in group.points]
        if group.coupled < 0:  # a fixed body: its points in its frame, its file pose
            ks.append(-1)
            poses.append(np.asarray(group.pose, dtype=float))
            members.append(pts)
        else:  # a coupled body at rest angles 0: its points relative to ref
            for i in pts:
                r0[i] = np.asarray(group.pose, dtype=float)[:3] - ref + r0[i]
            coupled += pts
    for i in la.coupled_points:
        r0[int(i)] = r0[int(i)] - ref
        coupled.append(int(i))
    ks.append(0)
    poses.append(np.zeros(6))
    members.append(coupled)
    nn, nl = la.n_nodes, len(la.end_a)
    kind = np.zeros(nn, dtype=np.int64)
    kind[la.end_a] = 1
    kind[la.end_b] = 2
    point_free = np.full(la.n_points, -1, dtype=np.int64)
    point_free[la.free_points] = np.arange(la.n_free)
    ints = {"internal": la.internal, "node_kind": kind, "node_left": la.node_left,
            "node_right": la.node_right, "end_nodes": la.end_nodes,
            "end_points": la.end_points, "seg0": la.seg0, "seg1": la.seg1,
            "free_points": la.free_points, "point_free": point_free,
            "group_k": np.array(ks), "group_start": np.cumsum([0] + [len(m) for m in members]),
            "group_points": np.array([i for m in members for i in m], dtype=np.int64)}
    reals = {name: np.asarray(getattr(la, name), dtype=float).ravel()
             for name in REAL_NAMES if name not in ("point_r0", "group_pose")}
    reals["point_r0"] = r0.ravel()
    reals["group_pose"] = np.array(poses).ravel()
    env = la.env
    state0 = int(np.searchsorted(keep, part.state_slice.start))
    if not np.array_equal(keep[state0 : state0 + la.n_states],
                          np.arange(part.state_slice.start, part.state_slice.stop)):
        raise ExportError("the lines' states are not all live", value=part.kind)
    nr, big_n = sim.nr, sim.y.size
    basis = sim.constraints.basis
    pq, pv = np.zeros((6, big_n)), np.zeros((6, big_n))
    pq[:, :nr] = basis[part.sl]
    pv[:, nr : 2 * nr] = basis[part.sl]
    return NativeLinePart(
        ints={k: np.asarray(v, dtype=np.int64).ravel() for k, v in ints.items()}, reals=reals,
        env=(env.g, env.rho, env.depth, env.kbot, env.cbot),
        sizes=(nn, la.n_internal, la.n_points, la.n_free, nl, la.seg0.size, len(ks),
               len(ints["group_points"]), int(la.has_seabed)),
        state0=state0, dof0=int(part.sl.start), out_row=int(part.output_slice.start), ref=ref,
        pq=pq[:, keep], pv=pv[:, keep])


def native_lines(sim: Simulator, keep: NDArray[np.intp], ol: NDArray[np.float64]
                 ) -> NativeLines:
    """The blob's last section for ``sim`` (live states ``keep``, the lines' output map
    ``ol``)."""
    got = native_scheme(sim)
    if isinstance(got, str):
        raise ExportError(got, value=sim.parameters["time_scheme"])
    return NativeLines(scheme=got, parts=[_part(sim, p, keep) for p in line_parts(sim)],
                       ol=np.asarray(ol, dtype=float))


def _f64(a: NDArray, size: int) -> bytes:
    arr = np.ascontiguousarray(np.asarray(a, dtype="<f8").ravel())
    if arr.size != size:
        raise ExportError(f"native lines array of {arr.size} values, expected {size}",
                          value=arr.size)
    return arr.tobytes()


def _i32(a: NDArray, size: int) -> bytes:
    arr = np.asarray(a).ravel()
    if arr.size != size:
        raise ExportError(f"native lines array of {arr.size} values, expected {size}",
                          value=arr.size)
    return np.ascontiguousarray(arr, dtype="<i4").tobytes()


def _int_sizes(sizes: tuple[int, ...]) -> list[int]:
    nn, ni, npt, nf, nl, ns, ng, ngp, _ = sizes
    return [ni, nn, nn, nn, 2 * nl, 2 * nl, ns, ns, nf, npt, ng, ng + 1, ngp]


def _real_sizes(sizes: tuple[int, ...]) -> list[int]:
    nn, _, npt, _, _, ns, ng, _, _ = sizes
    return [ns] + [nn - 1] * 4 + [nn] * 13 + [3 * npt] + [npt] * 4 + [6 * ng]


def lines_section(lines: NativeLines | None, n: int, p: int, q: int) -> bytes:
    """The bytes of the blob's last section (``n`` live states, ``p`` outputs, ``q`` DOFs):
    u32 scheme N (0: rk4) [u32 family, f64 relax[N-1]], u32 parts [f64 OL[p*q], then each
    part]."""
    if lines is None:
        return struct.pack("<II", 0, 0)
    sch = lines.scheme
    out = [struct.pack("<I", 0 if sch is None else sch.substeps)]
    if sch is not None:
        out += [struct.pack("<I", sch.family), _f64(sch.relax, sch.substeps - 1)]
    out.append(struct.pack("<I", len(lines.parts)))
    if lines.parts:
        out.append(_f64(lines.ol, p * q))
    for part in lines.parts:
        out += [struct.pack("<9I", *part.sizes),
                struct.pack("<3I", part.state0, part.dof0, part.out_row),
                struct.pack("<5d", *part.env), _f64(part.ref, 3)]
        out += [_i32(part.ints[k], s)
                for k, s in zip(INT_NAMES, _int_sizes(part.sizes), strict=True)]
        out += [_f64(part.reals[k], s)
                for k, s in zip(REAL_NAMES, _real_sizes(part.sizes), strict=True)]
        out += [_f64(part.pq, 6 * n), _f64(part.pv, 6 * n)]
    return b"".join(out)
