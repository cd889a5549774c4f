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

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..linear.stepper import SinusoidBank, stacked
from ..parts.linear import ramp_factor
from .layout import body_outputs

#: Relative agreement (to the magnitude of the terms summed, per output) required between
#: the linear map and the part-by-part assembly: both sum the same terms in other orders,
#: so they differ by a few ulps of those terms; 1e-9 is far above that and far below any
#: declaration error.
MAP_TOLERANCE = 1e-9


def general_outputs(sim: Any) -> NDArray[np.float64]:
    """All outputs at ``sim.time`` from the parts' forces and outputs, shape (n_out,)."""
    if sim.time - sim.grid_time <= 1e-9 * sim.dt:
        ctx = sim._context(sim.time, sim.y, 0.0)
        for part in sim._listening:
            part.new_inputs(ctx)
    ctx = sim._context(sim.time, sim.y, sim.time - sim.grid_time)
    rows = sim._channel_rows
    channels = np.zeros((len(rows), sim.n))
    total = np.zeros(sim.n)
    for part in sim.parts:
        f = part.force(ctx)
        if f is None:
            continue
        total += f
        if part.channel is not None:
            channels[rows[part.channel]] += f
    if sim.lagged:
        total -= sim.added_lagged @ sim._acc_prev
    acc = sim.constraints.basis @ (sim._acc_map @ total)
    # The added-mass force the model applies: -A q'' (implicit), with the lagged part
    # on the previous step's acceleration for split / lagged.
    f_am = -sim.added_left @ acc - sim.added_lagged @ sim._acc_prev
    # Reaction on the constrained directions: what the left side needs beyond F.
    f_c = sim.constraints.reaction(sim.lhs @ acc - total)
    if sim._multiplier_map is not None:
        ctx.multipliers = sim._multiplier_map @ f_c
    out = np.empty(sim._out.size)
    body_outputs(ctx.q, ctx.v, acc, f_am, f_c, channels, out)
    for part in sim.parts:
        if part.output_slice.stop > part.output_slice.start:
            out[part.output_slice] = part.outputs(ctx)
    return out


def _body_quantities(sim: Any, channel_maps: dict[str | None, NDArray[Any]],
                     zero: NDArray[Any], q: NDArray[Any], v: NDArray[Any]) -> NDArray[Any]:
    """The body quantities ``[q, v, q'', F_added_mass, channels..., F_constraint]`` stacked,
    each as a map (rows of n) of the same columns as the channels' force maps (the
    ``z = [y, u, 1]`` maps, or the sinusoids' amplitudes): the part-by-part assembly of
    :func:`general_outputs`, applied to maps instead of values."""
    total = sum(channel_maps.values(), np.zeros_like(zero))
    acc = sim.constraints.basis @ (sim._acc_map @ total)
    f_am = -sim.added_left @ acc
    f_c = sim.constraints.projector @ (sim.lhs @ acc - total)
    channels = [channel_maps.get(ch, zero) for ch in sim.table.channels]
    return np.concatenate([q, v, acc, f_am, *channels, f_c])


def _dense(m: Any, shape: tuple[int, int]) -> NDArray[np.float64]:
    return np.zeros(shape) if m is None else np.asarray(m, dtype=float).reshape(shape)


class OutputMap:
    """``outputs(t) = C z + ramp(t - t0) Re(sum_k H_k e^{i w_k t})`` of a linear model (see
    the module docstring); :meth:`build` assembles and checks it."""

    def __init__(self, sim: Any, c: NDArray[np.float64], h: NDArray[np.complex128],
                 bank: SinusoidBank, hybrid: list[Any], fc_rows: NDArray[np.intp]) -> None:
        self.sim = sim
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
        self._n, self._m = sim.y.size, sim.u.size
        self._w = np.zeros(c.shape[1])
        self._w[-1] = 1.0

    @classmethod
    def build(cls, sim: Any) -> OutputMap | None:
        """The map of a simulator whose ``linear_model`` is linear, or ``None`` (not linear,
        added mass off the left side, local time steps, or the check failed)."""
        model = sim.linear_model
        if not model.linear or sim.lagged or sim.partition is not None:
            return None
        n, nr, big_n, m = sim.n, sim.nr, sim.y.size, sim.u.size
        nz, k = big_n + m + 1, model.omega.size
        basis = sim.constraints.basis
        q, v = np.zeros((n, nz)), np.zeros((n, nz))
        q[:, :nr] = basis
        v[:, nr : 2 * nr] = basis
        rows_z = _body_quantities(sim, model.channel_force, np.zeros((n, nz)), q, v)
        no_sines = np.zeros((n, k), dtype=complex)
        rows_s = _body_quantities(sim, model.channel_sines, no_sines, no_sines, no_sines)
        # Where body_outputs puts each entry of [q, v, acc, f_am, channels, f_c].
        size = rows_z.shape[0]
        marks = np.arange(size, dtype=float)
        nch = len(sim.table.channels)
        out = np.zeros(sim._out.size)
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
        for index, part in enumerate(sim.parts):
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
            c[sl, -1] += _dense(lin.y0, (p, 1))[:, 0]
            if lin.sinusoids is not None:
                cols = model.sine_columns[index]
                h[sl, cols] += np.asarray(lin.sinusoids, dtype=complex).reshape(-1, p).T
        omap = cls(sim, c, h, sim.sinusoids, hybrid, fc_rows)
        problem = omap.check()
        if problem:
            sim.warnings.append(f"the linear output map disagrees with the part-by-part "
                                f"assembly ({problem}); the part-by-part assembly is used")
            return None
        return omap

    def evaluate(self, t: float, y: NDArray[np.float64], u: NDArray[np.float64]
                 ) -> NDArray[np.float64]:
        """All outputs at ``t`` for the state ``y`` and inputs ``u``, shape (n_out,)."""
        sim, w, n = self.sim, self._w, self._n
        w[:n] = y
        w[n : n + self._m] = u
        out = self.c @ w
        if self._cols is not None:
            r = ramp_factor(t - sim.t0, sim.linear_model.ramp_time)
            if r:
                part = self.bank.at(t)[self._cols]
                out[self._rows] += part if r == 1.0 else r * part
        if self.hybrid:
            ctx = sim._context(t, y, t - sim.grid_time)
            if sim._multiplier_map is not None:
                ctx.multipliers = sim._multiplier_map @ out[self.fc_rows]
            for part in self.hybrid:
                out[part.output_slice] = part.outputs(ctx)
        return out

    def check(self) -> str:
        """Compare with :func:`general_outputs` at a seeded random state and inputs, at a
        time on the ramp and one after it; ``""`` when they agree within
        :data:`MAP_TOLERANCE` of the magnitude of the terms, else what differs."""
        sim = self.sim
        saved = (sim.y, sim.u, sim.time)
        rng = np.random.default_rng(20261123)
        ramp = sim.linear_model.ramp_time
        try:
            for t in (sim.t0 + 0.37 * ramp, sim.t0 + ramp + 3.3):
                sim.y = rng.standard_normal(sim.y.size)
                sim.u = 1.0e3 * rng.standard_normal(sim.u.size)
                sim.time = t
                ref = general_outputs(sim)
                got = self.evaluate(t, sim.y, sim.u)
                terms = np.abs(self.c) @ np.abs(self._w) + np.abs(self.h).sum(axis=1) + 1e-300
                for part in self.hybrid:  # asked of the part: its own scale
                    sl = part.output_slice
                    terms[sl] = float(np.max(np.abs(ref[sl]))) + 1e-300
                err = np.abs(got - ref) / terms
                if not np.all(err <= MAP_TOLERANCE):
                    i = int(np.argmax(np.where(np.isfinite(err), err, np.inf)))
                    return (f"output {i} at t = {t:.6g} s: {got[i]!r} vs {ref[i]!r}, "
                            f"{err[i]:.3g} of the terms")
        finally:
            sim.y, sim.u, sim.time = saved
        return ""
