"""The simulator's outputs: assembled from the parts' forces, or by the linear output map.

The outputs at a time are, per body, ``q``, ``v``, ``q''``, the added-mass force, every force
channel and the constraint force (:func:`~hydrofmu.runtime.simulator.layout.body_outputs`), then
every part's extra outputs. :func:`general_outputs` asks each part for its force and outputs.

When every part declares its linear form (:mod:`hydrofmu.runtime.linear.model`), the added mass is
all on the left side and no local time step runs, all of it is one affine map of
``z = [y, u, 1]`` plus the ramped sinusoids (:class:`OutputMap`)::

    outputs(t) = C z + ramp(t - t0) Re(sum_k H_k e^{i w_k t})

assembled once from the same declarations (forces per channel, the acceleration through
the factorised left side, ``-A q''``, the reaction ``P (L q'' - F)``) and placed by
:func:`~hydrofmu.runtime.simulator.layout.body_outputs` itself. Parts whose extra outputs are not
declared linear (a PTO's power, a joint's reaction) are still asked, on top of the map. The map is
checked against :func:`general_outputs` when it is built (a seeded random state, inputs
and two times, one on the ramp); a disagreement beyond round-off keeps the general
assembly and says so in the simulator's warnings.

Both read the model's structure from the simulator's :class:`~.assembly.Assembly` and
the values (time, state, inputs, the evaluation context) from their arguments: nothing
here reads or writes the simulator.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..bodies.dynamics import LargeRotationDynamics
from ..linear.model import LinearModel
from ..linear.stepper import SinusoidBank, stacked
from ..parts.linear import ramp_factor
from ..parts.part import Context, Part
from .assembly import Assembly
from .layout import body_outputs

#: ``(t, y, u) -> outputs`` (the part-by-part assembly at a point) or ``-> Context`` (the
#: evaluation context of a point, for the parts asked on top of the map).
AtPoint = Callable[[float, NDArray[np.float64], NDArray[np.float64]], Any]

#: Relative agreement (to the magnitude of the terms summed, per output) required between
#: the linear map and the part-by-part assembly: both sum the same terms in other orders,
#: so they differ by a few ulps of those terms; 1e-9 is far above that and far below any
#: declaration error.
MAP_TOLERANCE = 1e-9


def general_outputs(asm: Assembly, ctx: Context, acc_prev: NDArray[np.float64],
                    large: LargeRotationDynamics | None = None) -> NDArray[np.float64]:
    """All outputs at the point of ``ctx`` (time, state, inputs) from the parts' forces and
    outputs, shape (n_out,); ``acc_prev`` the previous internal step's acceleration (n,)
    for the lagged added mass; ``large``: the large-rotation bodies' equations, which then
    assemble them. Sets ``ctx.multipliers`` (joints)."""
    if large is not None:
        return large.outputs(ctx, body_outputs)
    rows = asm.channel_rows
    channels = np.zeros((len(rows), asm.n))
    total = np.zeros(asm.n)
    for part in asm.parts:
        f = part.force(ctx)
        if f is None:
            continue
        total += f
        if part.channel is not None:
            channels[rows[part.channel]] += f
    if asm.lagged:
        total -= asm.added_lagged @ acc_prev
    acc = asm.constraints.basis @ (asm.acc_map @ total)
    # The added-mass force the model applies: -A q'' (implicit), with the lagged part
    # on the previous step's acceleration for split / lagged.
    f_am = -asm.added_left @ acc - asm.added_lagged @ acc_prev
    # Reaction on the constrained directions: what the left side needs beyond F.
    f_c = asm.constraints.reaction(asm.lhs @ acc - total)
    if asm.multiplier_map is not None:
        ctx.multipliers = asm.multiplier_map @ f_c
    out = np.empty(asm.n_outputs)
    body_outputs(ctx.q, ctx.v, acc, f_am, f_c, channels, out)
    for part in asm.parts:
        if part.output_slice.stop > part.output_slice.start:
            out[part.output_slice] = part.outputs(ctx)
    return out


def _body_quantities(asm: Assembly, channel_maps: dict[str | None, NDArray[Any]],
                     zero: NDArray[Any], q: NDArray[Any], v: NDArray[Any]) -> NDArray[Any]:
    """The body quantities ``[q, v, q'', F_added_mass, channels..., F_constraint]`` stacked,
    each as a map (rows of n) of the same columns as the channels' force maps (the
    ``z = [y, u, 1]`` maps, or the sinusoids' amplitudes): the part-by-part assembly of
    :func:`general_outputs`, applied to maps instead of values."""
    total = sum(channel_maps.values(), np.zeros_like(zero))
    acc = asm.constraints.basis @ (asm.acc_map @ total)
    f_am = -asm.added_left @ acc
    f_c = asm.constraints.projector @ (asm.lhs @ acc - total)
    channels = [channel_maps.get(ch, zero) for ch in asm.channels]
    return np.concatenate([q, v, acc, f_am, *channels, f_c])


def _dense(m: Any, shape: tuple[int, int]) -> NDArray[np.float64]:
    return np.zeros(shape) if m is None else np.asarray(m, dtype=float).reshape(shape)


def map_rows(asm: Assembly, model: LinearModel,
             extra: dict[str | None, NDArray[np.float64]] | None = None
             ) -> tuple[NDArray[np.float64], NDArray[np.complex128], list[Part],
                        NDArray[np.intp]]:
    """The rows of the output map of ``model`` (its linear parts' declarations):
    ``(C, H, hybrid, fc_rows)`` as :class:`OutputMap` holds them.

    ``C`` maps ``z = [y, u, 1, e]``, with ``e`` the extra force columns of ``extra``: per
    channel, a (n, len(e)) map adding those forces to the channel (the forces of parts that
    are not linear, given as values: the native runtime's quadratic drag and elevation-input
    excitation). ``hybrid``: the parts whose own outputs are not declared linear;
    ``fc_rows``: the rows of the constraint force.
    """
    n, nr, big_n, m = asm.n, asm.nr, asm.n_states, asm.n_inputs
    n_extra = 0 if not extra else next(iter(extra.values())).shape[1]
    nz, k = big_n + m + 1 + n_extra, model.omega.size
    one = big_n + m  # the constant's column
    forces = {ch: np.pad(f, ((0, 0), (0, n_extra))) for ch, f in model.channel_force.items()}
    for ch, e in (extra or {}).items():
        forces.setdefault(ch, np.zeros((n, nz)))[:, one + 1 :] += e
    basis = asm.constraints.basis
    q, v = np.zeros((n, nz)), np.zeros((n, nz))
    q[:, :nr] = basis
    v[:, nr : 2 * nr] = basis
    rows_z = _body_quantities(asm, forces, np.zeros((n, nz)), q, v)
    no_sines = np.zeros((n, k), dtype=complex)
    rows_s = _body_quantities(asm, model.channel_sines, no_sines, no_sines, no_sines)
    # Where body_outputs puts each entry of [q, v, acc, f_am, channels, f_c].
    size = rows_z.shape[0]
    marks = np.arange(size, dtype=float)
    nch = len(asm.channels)
    out = np.zeros(asm.n_outputs)
    body_outputs(marks[:n], marks[n : 2 * n], marks[2 * n : 3 * n],
                 marks[3 * n : 4 * n], marks[(4 + nch) * n :],
                 marks[4 * n : (4 + nch) * n].reshape(nch, n), out)
    source = out[:size].astype(np.intp)
    c = np.zeros((out.size, nz))
    h = np.zeros((out.size, k), dtype=complex)
    c[:size] = rows_z[source]
    h[:size] = rows_s[source]
    fc_rows = np.empty(n, dtype=np.intp)
    fc_rows[source[source >= (4 + nch) * n] - (4 + nch) * n] = \
        np.flatnonzero(source >= (4 + nch) * n)
    hybrid = []
    for index, part in enumerate(asm.parts):
        sl = part.output_slice
        p = sl.stop - sl.start
        if not p:
            continue
        lin = part.linear_outputs()
        if lin is None:
            hybrid.append(part)
            continue
        c[sl, :nr] += _dense(lin.out_q, (p, n)) @ basis
        c[sl, nr : 2 * nr] += _dense(lin.out_v, (p, n)) @ basis
        xs, us = part.state_slice, part.input_slice
        c[sl, xs] += _dense(lin.out_x, (p, xs.stop - xs.start))
        c[sl, big_n + us.start : big_n + us.stop] += _dense(lin.out_u, (p, us.stop - us.start))
        c[sl, one] += _dense(lin.y0, (p, 1))[:, 0]
        if lin.sinusoids is not None:
            cols = model.sine_columns[index]
            h[sl, cols] += np.asarray(lin.sinusoids, dtype=complex).reshape(-1, p).T
    return c, h, hybrid, fc_rows


class OutputMap:
    """``outputs(t) = C z + ramp(t - t0) Re(sum_k H_k e^{i w_k t})`` of a linear model (see
    the module docstring); :meth:`build` assembles and checks it."""

    def __init__(self, asm: Assembly, c: NDArray[np.float64], h: NDArray[np.complex128],
                 bank: SinusoidBank, hybrid: list[Part], fc_rows: NDArray[np.intp],
                 ramp_time: float) -> None:
        self.c = np.ascontiguousarray(c)
        self.h = h
        self.bank = bank
        # Only the outputs with a direct sinusoid (accelerations, forces, the elevation;
        # not poses or velocities) share the phasors' product.
        self._rows = np.flatnonzero(np.any(h != 0.0, axis=1))
        self._cols = (bank.add(stacked(h[self._rows].T), "outputs")
                      if h.shape[1] and self._rows.size else None)
        self.hybrid = hybrid
        self.fc_rows = fc_rows
        self.ramp_time = float(ramp_time)
        self.multiplier_map = asm.multiplier_map
        self._n, self._m = asm.n_states, asm.n_inputs
        self._w = np.zeros(c.shape[1])
        self._w[-1] = 1.0

    @classmethod
    def build(cls, asm: Assembly, model: LinearModel, bank: SinusoidBank, *,
              reference: AtPoint, context: AtPoint, t0: float,
              warnings: list[str]) -> OutputMap | None:
        """The map of a model whose ``model`` (its linear part) is linear, or ``None`` (not
        linear, added mass off the left side, or the check against ``reference``, the
        part-by-part assembly at a point, failed: said in ``warnings``). ``bank``: the
        sinusoids of ``model.omega``; ``context``, ``t0``: as for :meth:`check`."""
        if not model.linear or asm.lagged:
            return None
        c, h, hybrid, fc_rows = map_rows(asm, model)
        omap = cls(asm, c, h, bank, hybrid, fc_rows, model.ramp_time)
        problem = omap.check(reference, context, t0)
        if problem:
            warnings.append(f"the linear output map disagrees with the part-by-part "
                                f"assembly ({problem}); the part-by-part assembly is used")
            return None
        return omap

    def evaluate(self, t: float, y: NDArray[np.float64], u: NDArray[np.float64], t0: float,
                 context: AtPoint) -> NDArray[np.float64]:
        """All outputs at ``t`` (s) for the state ``y`` and inputs ``u``, shape (n_out,);
        ``t0`` the start of the run (the ramp's), s; ``context(t, y, u)`` the evaluation
        context of the parts asked on top of the map."""
        w, n = self._w, self._n
        w[:n] = y
        w[n : n + self._m] = u
        out = self.c @ w
        if self._cols is not None:
            r = ramp_factor(t - t0, self.ramp_time)
            if r:
                part = self.bank.at(t)[self._cols]
                out[self._rows] += part if r == 1.0 else r * part
        if self.hybrid:
            ctx = context(t, y, u)
            if self.multiplier_map is not None:
                ctx.multipliers = self.multiplier_map @ out[self.fc_rows]
            for part in self.hybrid:
                out[part.output_slice] = part.outputs(ctx)
        return out

    def check(self, reference: AtPoint, context: AtPoint, t0: float) -> str:
        """Compare with ``reference(t, y, u)`` (the part-by-part assembly,
        :func:`general_outputs`) at a seeded random state and inputs, at a time on the ramp
        and one after it (``t0`` the start of the run, s; ``context`` as for
        :meth:`evaluate`); ``""`` when they agree within :data:`MAP_TOLERANCE` of the
        magnitude of the terms, else what differs."""
        rng = np.random.default_rng(20261123)
        ramp = self.ramp_time
        for t in (t0 + 0.37 * ramp, t0 + ramp + 3.3):
            y = rng.standard_normal(self._n)
            u = 1.0e3 * rng.standard_normal(self._m)
            ref = reference(t, y, u)
            got = self.evaluate(t, y, u, t0, context)
            terms = np.abs(self.c) @ np.abs(self._w) + np.abs(self.h).sum(axis=1) + 1e-300
            for part in self.hybrid:  # asked of the part: its own scale
                sl = part.output_slice
                terms[sl] = float(np.max(np.abs(ref[sl]))) + 1e-300
            err = np.abs(got - ref) / terms
            if not np.all(err <= MAP_TOLERANCE):
                i = int(np.argmax(np.where(np.isfinite(err), err, np.inf)))
                return (f"output {i} at t = {t:.6g} s: {got[i]!r} vs {ref[i]!r}, "
                        f"{err[i]:.3g} of the terms")
        return ""
