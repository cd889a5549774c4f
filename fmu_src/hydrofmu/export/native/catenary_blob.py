"""The native runtime's catenary moorings: what the blob's catenary section holds (layout in
``csrc/hfn_catenary.h``), assembled from a built
:class:`~hydrofmu.runtime.simulator.simulator.Simulator`.

The catenary's physics is the one C solve both FMUs call (``runtime/moorings/
catenary_kernel.c``: the Python FMU through :mod:`ctypes`, the native one compiled in by
``csrc/hfn_catenary.c``); this module writes each ``mooring.catenary`` part's lines as the
kernel's ``struct hf_catenary`` reads them (the part's own
:class:`~hydrofmu.runtime.moorings.quasistatic.CatenaryBody`, read through its public
fields), the body's pose as a map of the live state (``q = T q_r``, the rows of the part's
DOFs), its first DOF and first tension output. The runtime calls ``hf_cat_body`` at the
pose at every stage, adds the force and moment to the body's DOF forces (the part's
``force``) and writes the fairlead and anchor tensions (the part's ``outputs``). A line that
cannot be solved at a stage discards the step with the kernel's message, as the Python FMU
does. The solve keeps nothing between calls (no warm start), so the FMU state holds nothing
of it.

Build time only.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ...runtime.errors import ExportError
from ...runtime.forces.catenary_mooring import CatenaryPart
from ...runtime.simulator.simulator import Simulator
from .packing import pack_f64

#: The kinds of the parts the native runtime evaluates with the catenary solve.
CATENARY_KINDS = ("mooring.catenary",)

#: The doubles of one line in the blob: length, weight, ea, cb, max_strain, tol,
#: anchor[3], fairlead[3], seabed (0 or 1).
LINE_DOUBLES = 13


@dataclass
class NativeCatenaryPart:
    """One ``mooring.catenary`` part for the runtime.

    Attributes
    ----------
    lines
        Per line: length (m), weight (N/m), EA (N), CB, max strain, tolerance, anchor
        (m, 3), fairlead (m, 3), seabed (0/1); shape (n_lines, :data:`LINE_DOUBLES`).
    dof0
        The body's first DOF among the model's (6 k).
    out_row
        The first of its 2 n_lines tension outputs (fairlead, anchor per line).
    pq
        The body's 6 DOF displacements from the live state, (6, n).
    """

    lines: NDArray[np.float64]
    dof0: int
    out_row: int
    pq: NDArray[np.float64]


@dataclass
class NativeCatenary:
    """The blob's catenary section.

    Attributes
    ----------
    parts
        The catenary parts.
    ok
        The outputs of the catenary parts' DOF forces (their channel, accelerations,
        reactions), (p, q) with q the model's DOFs.
    """

    parts: list[NativeCatenaryPart] = field(default_factory=list)
    ok: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 0)))


def catenary_parts(sim: Simulator) -> list[CatenaryPart]:
    """The simulator's catenary parts."""
    return [p for p in sim.parts if isinstance(p, CatenaryPart)]


def _part(sim: Simulator, part: CatenaryPart, keep: NDArray[np.intp]) -> NativeCatenaryPart:
    rows = []
    for line in part.lines_c.array:  # the structures the Python FMU's kernel reads
        rows.append([line.length, line.weight, line.ea, line.cb, line.max_strain, line.tol,
                     *line.anchor, *line.fairlead, float(line.seabed)])
    nr, big_n = sim.nr, sim.y.size
    pq = np.zeros((6, big_n))
    pq[:, :nr] = sim.constraints.basis[part.sl]
    return NativeCatenaryPart(lines=np.array(rows, dtype=float).reshape(-1, LINE_DOUBLES),
                              dof0=int(part.sl.start), out_row=int(part.output_slice.start),
                              pq=pq[:, keep])


def native_catenary(sim: Simulator, keep: NDArray[np.intp], ok: NDArray[np.float64]
                    ) -> NativeCatenary | None:
    """The catenary section for ``sim`` (live states ``keep``, the catenary force's output
    map ``ok``), or None without catenary parts."""
    parts = catenary_parts(sim)
    if not parts:
        return None
    return NativeCatenary(parts=[_part(sim, p, keep) for p in parts],
                          ok=np.asarray(ok, dtype=float))


def catenary_section(cat: NativeCatenary | None, n: int, p: int, q: int) -> bytes:
    """The bytes of the catenary section (``n`` live states, ``p`` outputs, ``q`` DOFs):
    u32 parts; if any, f64 OK[p*q], then per part u32 n_lines, dof0, out_row, f64
    lines[n_lines * 13], PQ[6*n]."""
    if cat is None or not cat.parts:
        return struct.pack("<I", 0)
    out = [struct.pack("<I", len(cat.parts)), pack_f64(cat.ok, (p, q))]
    for part in cat.parts:
        nl = part.lines.shape[0]
        if nl < 1 or not np.all(np.isfinite(part.lines[:, [0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11]])):
            raise ExportError("a catenary part without lines or with non-finite data",
                              value=nl)
        out += [struct.pack("<3I", nl, part.dof0, part.out_row),
                pack_f64(part.lines, (nl, LINE_DOUBLES)), pack_f64(part.pq, (6, n))]
    return b"".join(out)
