"""The native FMU's second-order wave loads and steady current, assembled from the
simulator's parts: the blob's "drift and current" section (layout in ``csrc/hfn_drift.h``).

- :class:`NativeDrift`: the ``drift`` part (:class:`~hydrofmu.runtime.forces.drift.DriftPart`)
  as the SAME part object the Python FMU steps holds it, per body its
  :class:`~hydrofmu.runtime.forces.drift_loads.DriftLoad`: the components' frequencies, the
  constant (``mean``), the complex rows ``R`` whose products make the load (``newman``: the
  amplitudes ``a_i`` and the weighted ``a_i D_i``; ``qtf``: the eigenvector rows of the
  Hermitian pair matrices, the same truncation) and the optional sum-frequency pair
  matrix. The runtime (``csrc/hfn_drift.c``) evaluates, with ``p_i = e^{i w_i t}``,

      F_d(t) = c_d + sum_terms w Re(z_a conj(z_b)) + Re(sum_i p_i (S_d p)_i),  z = R p,

  then multiplies by ``(scale ramp(t - t0))^2`` (the part's fade-in and the tunable wave
  height's square): sums of products, no physics decided in C.
- The current: the bodies' quadratic drag on the velocity relative to the water
  (:class:`~hydrofmu.runtime.forces.current_drag.CurrentDragPart`: its water velocity per
  DOF; the drag coefficients go in the Runge-Kutta section's ``BQ``) and the MoorDyn
  lines' current tables (``LineArrays.current_z``/``current_u``, MoorDyn-C's
  ``Currents = 1`` rows the line kernel interpolates), one per line part.

Build time only.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ...runtime.errors import ExportError
from ...runtime.forces.current_drag import CurrentDragPart
from ...runtime.forces.drift import DriftPart
from ...runtime.forces.drift_loads import DriftLoad
from ...runtime.forces.moordyn_mooring import MoorDynPart
from ...runtime.parts.part import Part
from .packing import pack_f64 as _f64

__all__ = ["DriftBody", "NativeDrift", "current_part", "drift_part", "drift_section",
           "native_drift"]


@dataclass
class DriftBody:
    """One body's second-order load as sums of products of the wave's phasors.

    Attributes
    ----------
    dof0
        The body's first DOF among the model's q DOFs (6 k).
    constant
        The constant load ``c`` (mean drift in ``mean`` mode), N and N m, (6,), or ``None``.
    rows
        ``R`` (r, N) complex: ``z = R p``.
    terms
        ``(dof, a, b, w)``: ``F[dof] += w Re(z_a conj(z_b))`` in this order.
    sum_pairs
        The sum-frequency pairs ``S`` (6 N, N) complex, or ``None``.
    """

    dof0: int
    constant: NDArray[np.float64] | None
    rows: NDArray[np.complex128]
    terms: list[tuple[int, int, int, float]]
    sum_pairs: NDArray[np.complex128] | None = None


@dataclass
class NativeDrift:
    """The blob's drift and current section (q DOFs, p outputs).

    Attributes
    ----------
    omega
        The wave components' frequencies, (N,), rad/s (the drift part's one wave).
    ramp_time
        The fade-in's half-cosine length, s (the load is multiplied by its square).
    bodies
        The bodies with a drift load.
    od
        The outputs of the drift DOF forces, (p, q).
    current
        The water velocity per DOF for the bodies' quadratic drag, (q,) m/s, or ``None``.
    line_currents
        Per MoorDyn part (in the lines section's order): its current table, rows
        ``(z, ux, uy, uz)`` (m, m/s), shape (nrows, 4); empty for still water.
    """

    omega: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    ramp_time: float = 0.0
    bodies: list[DriftBody] = field(default_factory=list)
    od: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 0)))
    current: NDArray[np.float64] | None = None
    line_currents: list[NDArray[np.float64]] = field(default_factory=list)


def drift_part(parts: list[Part]) -> DriftPart | None:
    """The active drift part among ``parts`` (the Runge-Kutta mode's), or ``None``."""
    return next((p for p in parts if isinstance(p, DriftPart) and p.active), None)


def current_part(parts: list[Part]) -> CurrentDragPart | None:
    """The active current drag part among ``parts``, or ``None``."""
    return next((p for p in parts if isinstance(p, CurrentDragPart) and p.active), None)


def _body(k: int, load: DriftLoad) -> DriftBody:
    """The products of one body's :class:`DriftLoad`, term for term as its ``force``."""
    n = load.omega.size
    sums = None if load.sum_pairs is None else np.asarray(load.sum_pairs, dtype=complex)
    if load.mode == "mean":
        return DriftBody(dof0=6 * k, constant=np.asarray(load.constant, dtype=float),
                         rows=np.zeros((0, n), dtype=complex), terms=[], sum_pairs=sums)
    if load.mode == "newman":  # Re(P_D conj(P)): rows [a, a D_1 .. a D_6]
        rows = np.vstack([load.amplitude[None, :], np.asarray(load.weighted).T])
        terms = [(d, 1 + d, 0, 1.0) for d in range(6)]
        return DriftBody(dof0=6 * k, constant=None, rows=rows, terms=terms, sum_pairs=sums)
    terms = [(int(d), i, i, float(lam))  # sum_k lambda_k |u_k^T p|^2, in the rows' order
             for i, (d, lam) in enumerate(zip(load.row_dof, load.eigenvalues, strict=True))]
    return DriftBody(dof0=6 * k, constant=None, rows=np.asarray(load.rows, dtype=complex),
                     terms=terms, sum_pairs=sums)


def native_drift(drift: DriftPart | None, current: CurrentDragPart | None,
                 lines: list[MoorDynPart], od: NDArray[np.float64]) -> NativeDrift | None:
    """The section of a model's ``drift`` part, its current drag part and its MoorDyn
    ``lines`` (``od``: the outputs of the drift DOF forces); ``None`` when none of them
    has anything for it."""
    tables = [np.asarray(np.column_stack([p.system.arrays.current_z,
                                          p.system.arrays.current_u])
                         if p.system.arrays.current_z.size else np.zeros((0, 4)), dtype=float)
              for p in lines]
    if drift is None and current is None and not any(t.size for t in tables):
        return None
    out = NativeDrift(line_currents=tables, od=np.asarray(od, dtype=float))
    if current is not None:
        out.current = np.asarray(current.current, dtype=float)
    if drift is not None and drift.scale != 0.0:  # a wave built 0 high: no load (fixed)
        omegas = [load.omega for _, load in drift.loads]
        if any(not np.array_equal(w, omegas[0]) for w in omegas):
            raise ExportError("drift: the bodies' wave components differ", value=None)
        out.omega = np.asarray(omegas[0], dtype=float)
        out.ramp_time = float(drift.ramp_time)
        out.bodies = [_body(k, load) for k, load in drift.loads]
    return out


def _complex(a: NDArray[np.complex128], shape: tuple[int, ...]) -> list[bytes]:
    return [_f64(np.real(a), shape), _f64(np.imag(a), shape)]


def drift_section(drift: NativeDrift | None, q: int, p: int) -> bytes:
    """The bytes of the drift and current section (``q`` DOFs, ``p`` outputs; layout in
    ``csrc/hfn_drift.h``): ``u32 nd`` and the drift bodies, ``u32 has_current`` and the
    water velocity, ``u32 ntables`` and the lines' current tables."""
    if drift is None:
        return struct.pack("<3I", 0, 0, 0)
    n = drift.omega.size
    out = [struct.pack("<I", len(drift.bodies))]
    if drift.bodies:
        out += [struct.pack("<I", n), struct.pack("<d", drift.ramp_time),
                _f64(drift.omega, (n,)), _f64(drift.od, (p, q))]
    for body in drift.bodies:
        r, nt = body.rows.shape[0], len(body.terms)
        has_sum = body.sum_pairs is not None
        out += [struct.pack("<5I", body.dof0, int(body.constant is not None), r, nt,
                            int(has_sum)),
                _f64(np.zeros(6) if body.constant is None else body.constant, (6,))]
        out += _complex(body.rows, (r, n))
        cols = np.array(body.terms, dtype=float).reshape(nt, 4)
        out += [np.asarray(cols[:, :3], dtype="<u4").T.copy().tobytes(),
                _f64(cols[:, 3], (nt,))]
        if has_sum:
            out += _complex(body.sum_pairs, (6 * n, n))
    out.append(struct.pack("<I", 0 if drift.current is None else 1))
    if drift.current is not None:
        out.append(_f64(drift.current, (q,)))
    out.append(struct.pack("<I", len(drift.line_currents)))
    for table in drift.line_currents:
        rows = table.shape[0]
        out += [struct.pack("<I", rows), _f64(table[:, 0], (rows,)),
                _f64(table[:, 1:], (rows, 3))]
    return b"".join(out)
