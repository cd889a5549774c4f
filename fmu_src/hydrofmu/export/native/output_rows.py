"""The native runtime's output map beyond the linear one: the parts whose outputs the map
does not cover (probed at build: a linear one, a joint's reaction, position and velocity, is
folded into the map; a linear PTO's power becomes a product of two outputs; anything else
is refused, naming the part), and the outputs' sinusoids through the few signals that carry
them (``H = O S``).

Build time only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ...runtime.errors import ExportError
from ...runtime.forces.pto import LinearPto
from ...runtime.linear.model import LinearModel
from ...runtime.parts.part import Context, Part
from ...runtime.simulator.outputs import map_rows
from ...runtime.simulator.simulator import Simulator

#: How a refused part is told to change (the assembly's fix).
FIX = ("use linear moorings (quadratic drag, the elevation input and convolution radiation "
       "are stepped with an explicit Runge-Kutta time_scheme, e.g. 'rk4'), or build the "
       "Python FMU (hydrofmu build without --native)")

#: Relative agreement required when a hybrid part's outputs are checked for linearity at a
#: random point: a linear map reproduces them to a few ulps of the terms; 1e-9 is far above.
LINEARITY_TOLERANCE = 1e-9


def _probe_context(q: NDArray, v: NDArray, fc: NDArray, u: NDArray,
                   multiplier_map: NDArray | None) -> Context:
    """The evaluation context of a part's outputs at the point ``(q, v, fc, u)`` (``fc``:
    the constraint force, the multipliers through ``multiplier_map``), at t = 0."""
    ctx = Context()
    ctx.q, ctx.v, ctx.vn, ctx.u = q, v, v, u
    ctx.multipliers = multiplier_map @ fc if multiplier_map is not None else np.zeros(0)
    return ctx


def probe_part(part: Part, n: int, m: int, multiplier_map: NDArray | None
           ) -> tuple[NDArray, NDArray, list[int]]:
    """A part's outputs as ``base + J [q; v; fc; u]`` (shape (p, 3n + m)), and the rows
    that are not linear (checked at a seeded random point)."""
    size = 3 * n + m

    def call(x: NDArray) -> NDArray:
        ctx = _probe_context(x[:n], x[n : 2 * n], x[2 * n : 3 * n], x[3 * n :],
                             multiplier_map)
        return np.asarray(part.outputs(ctx), dtype=float)

    base = call(np.zeros(size))
    jac = np.stack([call(e) - base for e in np.eye(size)], axis=1)
    rng = np.random.default_rng(20261126)
    x = rng.standard_normal(size)
    got = call(x)
    want = base + jac @ x
    scale = np.abs(base) + np.abs(jac) @ np.abs(x) + 1e-300
    bad = np.flatnonzero(~(np.abs(got - want) <= LINEARITY_TOLERANCE * scale))
    return base, jac, [int(i) for i in bad]


def hybrid_rows(sim: Simulator, hybrid: list[Part], fc_rows: NDArray, c: NDArray,
                h: NDArray) -> list[tuple[int, int, int, float]]:
    """Fold the hybrid parts' outputs into ``c`` and ``h`` (in place; ``c`` maps
    ``[y, u, 1, ...]``); the products."""
    n, nr = sim.n, sim.nr
    m = sim.u.size
    big_n = sim.y.size
    nz = c.shape[1]
    basis = sim.constraints.basis
    q_map = np.zeros((n, nz))
    q_map[:, :nr] = basis
    v_map = np.zeros((n, nz))
    v_map[:, nr : 2 * nr] = basis
    u_map = np.zeros((m, nz))
    u_map[:, big_n : big_n + m] = np.eye(m)
    fc_z, fc_h = c[fc_rows], h[fc_rows]
    mult = sim.assembly.multiplier_map  # the constraint multipliers, as the map uses them
    products: list[tuple[int, int, int, float]] = []
    for part in hybrid:
        sl = part.output_slice
        base, jac, bad = probe_part(part, n, m, mult)
        jq, jv, jf, ju = (jac[:, :n], jac[:, n : 2 * n], jac[:, 2 * n : 3 * n],
                          jac[:, 3 * n :])
        rows_z = jq @ q_map + jv @ v_map + jf @ fc_z + ju @ u_map
        rows_z[:, big_n + m] += base
        rows_h = jf @ fc_h
        c[sl] = rows_z
        h[sl] = rows_h
        # A linear PTO: outputs [F, -F g.v] (g: the PTO coordinate's gradient, a body DOF
        # or a joint's relative motion); the power is a product of two outputs (also when
        # both its coefficients are 0 at build: they are tunable).
        pto = isinstance(part, LinearPto)
        if not bad and not pto:
            continue
        if not pto or bad not in ([1], []):
            names = ", ".join(sim.output_names(sim.bodies, sim.config)[sl][b] for b in bad)
            raise ExportError(f"the outputs {names} of part '{part.kind}' are not linear in "
                              "the state and inputs: the native FMU cannot compute them; "
                              f"fix: {FIX}", value=part.kind)
        v_row = np.asarray(part.gradient) @ v_map
        v_rows = np.flatnonzero(np.all(np.abs(c - v_row) <= 1e-12 * (np.abs(v_row).max()
                                                                       + 1e-300), axis=1)
                                & np.all(h == 0.0, axis=1))
        if v_rows.size == 0:
            raise ExportError(f"part '{part.kind}': no output carries the velocity that its "
                              "power needs", value=part.kind)
        c[sl.start + 1] = 0.0
        h[sl.start + 1] = 0.0
        products.append((sl.start + 1, sl.start, int(v_rows[0]), -1.0))
    return products


#: The outputs' sinusoids factorised (``H = O S``, :func:`sine_factor`) must give every row
#: of ``H`` to this fraction of the magnitude of its terms: the factors regroup the same
#: sums (a few ulps); a wrong factor is off by O(1).
FACTOR_TOLERANCE = 1e-12


def sine_factor(sim: Simulator, model: LinearModel, h_rows: NDArray, h: NDArray
                ) -> tuple[NDArray, NDArray] | None:
    """``(S, O)`` with ``h = O S``: the outputs' sinusoids (rows ``h_rows`` of the output
    map) through the few signals that carry them, the sinusoidal forces of each channel
    and DOF (the excitation) and the parts' own sinusoid outputs (the elevation). The runtime
    then sums r signals over the k components instead of every row. ``None`` when it does
    not save work or does not reproduce ``h`` within :data:`FACTOR_TOLERANCE`."""
    k = model.omega.size
    if not k or not len(h_rows):
        return None
    asm = sim.assembly
    n = asm.n
    chans = [ch for ch, sines in model.channel_sines.items() if np.any(sines != 0.0)]
    width = n * len(chans)
    extra = {}
    for i, ch in enumerate(chans):
        block = np.zeros((n, width))
        block[:, i * n : (i + 1) * n] = np.eye(n)
        extra[ch] = block
    c_ext = map_rows(asm, model, extra)[0] if chans else np.zeros((h.shape[0], 0))
    o_body = c_ext[np.asarray(h_rows), c_ext.shape[1] - width :]
    s_body = (np.concatenate([model.channel_sines[ch] for ch in chans]) if chans
              else np.zeros((0, k), dtype=complex))
    used = np.flatnonzero(np.any(s_body != 0.0, axis=1) & np.any(o_body != 0.0, axis=0))
    body_rows = (5 + len(asm.channels)) * n  # the body quantities come first
    own = [i for i, row in enumerate(h_rows) if row >= body_rows]
    sig = np.concatenate([s_body[used], h[own]])
    omap = np.zeros((len(h_rows), sig.shape[0]))
    omap[:, : used.size] = o_body[:, used]
    omap[own, used.size + np.arange(len(own))] = 1.0
    if sig.shape[0] >= len(h_rows):
        return None
    terms = np.abs(omap) @ np.abs(sig) + np.abs(h)
    if not np.all(np.abs(omap @ sig - h) <= FACTOR_TOLERANCE * terms):
        return None
    return sig, omap
