"""The native runtime's matrices from a built
:class:`~hydrofmu.runtime.simulator.simulator.Simulator`.

Physics stays in Python: the linear model (:mod:`~hydrofmu.runtime.linear.model`), its exact
discretisation (:func:`~hydrofmu.runtime.linear.lti.discretize`), the particular solutions of the
sinusoids (:func:`~hydrofmu.runtime.linear.lti.particular_solution`, on the ramp the three shifted
components of :func:`~hydrofmu.runtime.linear.lti.ramped_components` for a start time 0) and the
output map
(:class:`~hydrofmu.runtime.simulator.outputs.OutputMap`). The parts whose outputs the map does not
cover are
probed: a linear one (a joint's reaction, position and velocity) is folded into the map; a
linear PTO's power ``-F v`` becomes a product of two outputs. Anything else is refused,
naming the part.

Build time only.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...runtime.errors import ConfigError, ExportError
from ...runtime.linear.lti import discretize, particular_solution, quantized_step
from ...runtime.linear.model import LinearModel
from ...runtime.schemes.base import DIVERGENCE_LIMIT
from ...runtime.simulator.outputs import map_rows
from .blob import NativeModel, NativeRK, TunableMatrices

#: How a refused model is told to change.
FIX = ("use radiation.method = 'state_space' (or 'constant') and linear moorings (quadratic "
       "drag and the elevation input are stepped with time_scheme = 'rk4'), or build the "
       "Python FMU (hydrofmu build without --native)")

#: Relative agreement required when a hybrid part's outputs are checked for linearity at a
#: random point: a linear map reproduces them to a few ulps of the terms; 1e-9 is far above.
LINEARITY_TOLERANCE = 1e-9


#: The parts that are not linear and that the native runtime still steps, by RK4 as the
#: Python FMU's ``rk4`` scheme: quadratic drag and the excitation by the elevation input.
RK4_KINDS = ("viscous", "wave_excitation")


def _not_linear(sim: Any) -> list[Any]:
    """The parts without a linear form (as :func:`~hydrofmu.runtime.linear.model.assemble`
    leaves them out)."""
    return [part for part in sim.parts if part.linear_system() is None]


def refusal(sim: Any) -> str:
    """Why the native runtime cannot step ``sim`` ("" when it can), naming the parts."""
    parts = _not_linear(sim)
    reasons = [part.why_not_linear() for part in parts if part.kind not in RK4_KINDS]
    method = getattr(sim, "added_mass_method", "implicit")
    if method != "implicit":
        reasons.append(f"added_mass.method = {method} (use added_mass.method = implicit)")
    if reasons:
        return ("the native FMU steps the linear model, with quadratic drag and the elevation "
                "input by RK4, and these parts are none of them: " + "; ".join(reasons)
                + ". Fix: " + FIX)
    scheme = sim.parameters["time_scheme"]
    if parts and scheme != "rk4":
        named = ", ".join(sorted({part.kind for part in parts}))
        return (f"the native FMU steps the parts that are not linear ({named}: quadratic drag, "
                f"the elevation input) with the rk4 scheme, and time_scheme = '{scheme}'. "
                "Fix: set time_scheme = 'rk4' (the Python FMU then steps the same scheme), or "
                "build the Python FMU (hydrofmu build without --native)")
    if parts and getattr(sim, "partition", None) is not None:
        return ("the native FMU takes one internal step for the whole state; this model "
                "runs local time steps. Fix: " + FIX)
    return ""


def _fake_context(n: int, m: int, q: NDArray, v: NDArray, fc: NDArray, u: NDArray,
                  multiplier_map: NDArray | None) -> SimpleNamespace:
    mult = multiplier_map @ fc if multiplier_map is not None else np.zeros(0)
    return SimpleNamespace(q=q, v=v, vn=v, u=u, multipliers=mult, t=0.0, t0=0.0, s=0.0,
                           sn=0.0, y=None)


def _probe(part: Any, n: int, m: int, multiplier_map: NDArray | None
           ) -> tuple[NDArray, NDArray, list[int]]:
    """A part's outputs as ``base + J [q; v; fc; u]`` (shape (p, 3n + m)), and the rows
    that are not linear (checked at a seeded random point)."""
    size = 3 * n + m

    def call(x: NDArray) -> NDArray:
        ctx = _fake_context(n, m, x[:n], x[n : 2 * n], x[2 * n : 3 * n], x[3 * n :],
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


def _hybrid_rows(sim: Any, hybrid: list[Any], fc_rows: NDArray, c: NDArray, h: NDArray
                 ) -> list[tuple[int, int, int, float]]:
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
    mult = getattr(sim, "_multiplier_map", None)  # the simulator's own, as the map uses it
    products: list[tuple[int, int, int, float]] = []
    for part in hybrid:
        sl = part.output_slice
        base, jac, bad = _probe(part, n, m, mult)
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
        gradient = getattr(part, "gradient", None)
        pto = getattr(part, "kind", "") == "pto.linear" and gradient is not None
        if not bad and not pto:
            continue
        if not pto or bad not in ([1], []):
            names = ", ".join(sim.output_names(sim.bodies, sim.config)[sl][b] for b in bad)
            raise ExportError(f"the outputs {names} of part '{part.kind}' are not linear in "
                              "the state and inputs: the native FMU cannot compute them; "
                              f"fix: {FIX}", value=part.kind)
        v_row = np.asarray(gradient) @ v_map
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


def live_states(f: NDArray, g: NDArray, y0: NDArray, forcing: NDArray) -> NDArray[np.bool_]:
    """The states that can ever be nonzero: started nonzero, driven by an input, the
    constant or a sinusoid, or by another live state (the closure through ``F``). The
    others stay exactly 0.0 in any discretisation (``e^{F h}`` keeps the exact zeros of a
    block-triangular ``F``): e.g. the radiation states of the DOFs a joint or ``dofs`` hold."""
    live = (y0 != 0.0) | np.any(g != 0.0, axis=1) | np.any(forcing != 0.0, axis=0)
    while True:
        grown = live | np.any(f[:, live] != 0.0, axis=1)
        if np.array_equal(grown, live):
            return live
        live = grown


#: The outputs' sinusoids factorised (``H = O S``, :func:`sine_factor`) must give every row
#: of ``H`` to this fraction of the magnitude of its terms: the factors regroup the same
#: sums (a few ulps); a wrong factor is off by O(1).
FACTOR_TOLERANCE = 1e-12


def sine_factor(sim: Any, model: LinearModel, h_rows: NDArray, h: NDArray
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


def _snapshot(sim: Any) -> SimpleNamespace:
    """The full (unreduced) matrices of ``sim`` at its current parameters: ``f``,
    ``g = [G, c]``, the output map ``c`` of ``[y, u, 1]`` and ``h`` (hybrid parts folded
    in), ``products``, and what must not depend on a tunable matrix parameter."""
    model: LinearModel = sim.linear_model
    omap = sim.output_map
    if omap is None:
        raise ExportError("the linear output map of this model disagrees with the "
                          "part-by-part assembly (see the simulator's warnings: "
                          f"{sim.warnings}); the native FMU cannot be built", value=None)
    c = np.array(omap.c, dtype=float)
    h = np.array(omap.h, dtype=complex)
    products = _hybrid_rows(sim, omap.hybrid, omap.fc_rows, c, h)
    return SimpleNamespace(
        f=np.array(model.f, dtype=float),
        g=np.concatenate([model.g, model.c[:, None]], axis=1), c=c, h=h, products=products,
        omega=np.array(model.omega, dtype=float), forcing=np.array(model.forcing),
        ramp_time=float(model.ramp_time), y0=np.array(sim.y, dtype=float))


#: Agreement required of a tunable parameter's matrices at a third value with the affine
#: map through the first two, relative to each matrix's largest entry: the assembly is
#: affine in a PTO coefficient up to the rounding of its sums (a few 1e-16 of the entries,
#: amplified by at most ``2 |p - p0| / delta <= 6`` here); 1e-10 is far above that and far
#: below any nonlinearity worth the name.
AFFINE_TOLERANCE = 1e-10


def _matrix_derivatives(sim: Any, name: str, base: SimpleNamespace
                        ) -> tuple[NDArray, NDArray, NDArray] | str:
    """``(dF, dG, dC)`` of the tunable parameter ``name`` (per unit of it), or why it is not
    affine. ``sim`` is re-tuned at two other values and set back (checked)."""
    p0 = float(sim.parameters[name])

    def at(value: float) -> SimpleNamespace:
        sim.set_parameter(name, value)
        return _snapshot(sim)

    def diff(a: SimpleNamespace, dp: float) -> tuple[NDArray, NDArray, NDArray]:
        return ((a.f - base.f) / dp, (a.g - base.g) / dp, (a.c - base.c) / dp)

    try:
        # A first probe for the scale; then delta (a power of 2) at least the size that
        # makes delta dF comparable to F: the difference keeps the derivative to round-off.
        p1 = p0 + max(abs(p0), 1.0)
        d1 = diff(at(p1), p1 - p0)
        ratio = max((float(np.max(np.abs(b))) / float(np.max(np.abs(d)))
                     for b, d in zip((base.f, base.g, base.c), d1, strict=True)
                     if np.any(d != 0.0)), default=1.0)
        delta = 2.0 ** math.ceil(math.log2(max(abs(p0), 1.0, ratio)))
        p1 = p0 + delta
        one = at(p1)
        d = diff(one, p1 - p0)
        p2 = p0 + 3.0 * delta
        two = at(p2)
    except (ConfigError, ExportError) as exc:
        sim.set_parameter(name, p0)
        return f"re-tuning it fails ({exc})"
    sim.set_parameter(name, p0)
    back = _snapshot(sim)
    for probe in (one, two, back):
        same = (np.array_equal(probe.omega, base.omega)
                and np.array_equal(probe.forcing, base.forcing)
                and probe.ramp_time == base.ramp_time and np.array_equal(probe.y0, base.y0)
                and np.array_equal(probe.h, base.h) and probe.products == base.products)
        if not same:
            return ("it changes the sinusoids, the direct sinusoid outputs, the initial "
                    "state or the output products, not only F, G and C")
    if not (np.array_equal(back.f, base.f) and np.array_equal(back.g, base.g)
            and np.array_equal(back.c, base.c)):
        return "the model re-tuned to its build value differs from the built one"
    for b, dm, got in zip((base.f, base.g, base.c), d, (two.f, two.g, two.c), strict=True):
        want = b + (p2 - p0) * dm
        if np.max(np.abs(got - want), initial=0.0) > AFFINE_TOLERANCE * max(
                float(np.max(np.abs(got), initial=0.0)), 1e-300):
            return "the model's matrices are not affine in it"
    return d


def native_model(sim: Any, step: float, tunable: Sequence[str] = ()) -> NativeModel:
    """The matrices of ``sim`` (initialized; linear) for the native runtime.

    Parameters
    ----------
    sim
        :class:`~hydrofmu.runtime.simulator.simulator.Simulator` with the build's parameters,
        initialized at its
        start time.
    step
        The communication step to precompute, s (others are discretised at run time).
    tunable
        Tunable Real parameters to keep tunable natively (the PTO coefficients): each one's
        derivatives of ``F``, ``G`` and ``C`` are stored when the matrices are affine in it
        (checked at a third value); the others are left out of
        :attr:`NativeModel.tunables` with a warning (the build declares them fixed).

    Raises
    ------
    ExportError
        A part is not linear (named, with the fix), or a wave component resonates with an
        undamped mode.
    """
    why = refusal(sim)
    if why:
        raise ExportError(why, value=[p.kind for p in sim.parts])
    model: LinearModel = sim.linear_model
    nonlinear = _not_linear(sim)
    if nonlinear:  # the Runge-Kutta mode: its PTO coefficients stay fixed
        for name in tunable:
            warnings.warn(f"parameter '{name}' is fixed in the native FMU: with quadratic drag "
                          "or the elevation input (the Runge-Kutta mode) only the wave height "
                          "stays tunable", stacklevel=2)
        return _rk_model(sim, model, nonlinear)
    base = _snapshot(sim)
    derivatives: list[tuple[str, tuple[NDArray, NDArray, NDArray]]] = []
    for name in tunable:
        got = _matrix_derivatives(sim, name, base)
        if isinstance(got, str):
            warnings.warn(f"parameter '{name}' is fixed in the native FMU: {got}",
                          stacklevel=2)
        else:
            derivatives.append((name, got))
    model = sim.linear_model
    n_state = sim.y.size
    f, g = base.f, base.g
    hq = quantized_step(step)
    phi, gam0, _ = discretize(f, g, hq)
    eye = np.eye(n_state)
    omega = model.omega
    try:
        steady = particular_solution(f, eye, omega, model.forcing)
        ramped = None
        if model.ramp_time > 0.0 and omega.size:
            nu = math.pi / model.ramp_time
            quarter = -0.25 * model.forcing
            ramped = (particular_solution(f, eye, omega, 0.5 * model.forcing),
                      particular_solution(f, eye, omega + nu, quarter),
                      particular_solution(f, eye, omega - nu, quarter))
    except ConfigError as exc:
        raise ExportError(f"the native FMU cannot be built: {exc}", value=exc.value) from exc
    c, h, products = base.c, base.h, base.products
    rows = np.flatnonzero(np.any(h != 0.0, axis=1))
    y0 = base.y0
    # Live: the closure over every value of the tunable parameters (their sparsity union).
    f_any = np.abs(f) + sum((np.abs(d[0]) for _, d in derivatives), np.zeros_like(f))
    g_any = np.abs(g) + sum((np.abs(d[1]) for _, d in derivatives), np.zeros_like(g))
    keep = np.flatnonzero(live_states(f_any, g_any, y0, model.forcing))
    cols = np.concatenate([keep, np.arange(n_state, c.shape[1])])  # [x_live, u, 1]
    fused = np.concatenate([phi, gam0], axis=1)
    return NativeModel(
        y0=y0[keep], u0=np.array(sim.u, dtype=float), f=f[np.ix_(keep, keep)], g=g[keep],
        h0=hq, fused0=fused[np.ix_(keep, np.concatenate([keep, np.arange(n_state,
                                                                        fused.shape[1])]))],
        omega=np.array(omega, dtype=float), steady=steady[:, keep],
        ramped=None if ramped is None else tuple(a[:, keep] for a in ramped),
        ramp_time=float(model.ramp_time), t0=float(sim.t0),
        divergence_limit=DIVERGENCE_LIMIT, c=c[:, cols], h_rows=rows, h=h[rows],
        products=products, sine_factor=sine_factor(sim, model, rows, h[rows]),
        forcing=np.array(model.forcing)[:, keep],
        tunables=[TunableMatrices(name=name, value=float(sim.parameters[name]),
                                  df=d[0][np.ix_(keep, keep)], dg=d[1][keep], dc=d[2][:, cols])
                  for name, d in derivatives],
    )


def _rk_model(sim: Any, model: LinearModel, nonlinear: list[Any]) -> NativeModel:
    """The Runge-Kutta mode (:class:`~.blob.NativeRK`): the linear model without the
    quadratic drag and the elevation input's excitation, which the runtime adds at every
    stage; the output map takes both as extra columns."""
    n, nr, big_n, m = sim.n, sim.nr, sim.y.size, sim.u.size
    viscous = next((q for q in nonlinear if q.kind == "viscous"), None)
    wave = next((q for q in nonlinear if q.kind == "wave_excitation"), None)
    eye = np.eye(n)
    extra: dict[str | None, NDArray] = {}
    if viscous is not None:
        extra[viscous.channel] = np.hstack([eye, np.zeros((n, n))])
    if wave is not None:
        extra[wave.channel] = np.hstack([np.zeros((n, n)), eye])
    c, h, hybrid, fc_rows = map_rows(sim.assembly, model, extra)
    products = _hybrid_rows(sim, [q for q in hybrid if q is not wave], fc_rows, c, h)
    basis = sim.constraints.basis
    eg = np.zeros((big_n, n))
    eg[nr : 2 * nr] = sim.assembly.acc_map
    vel = np.zeros((n, big_n))
    vel[:, nr : 2 * nr] = basis
    f = model.f
    g = np.concatenate([model.g, model.c[:, None]], axis=1)
    y0 = np.array(sim.y, dtype=float)
    keep = np.flatnonzero(live_states(f, np.concatenate([g, eg], axis=1), y0, model.forcing))
    one = big_n + m
    cols = np.concatenate([keep, np.arange(big_n, one + 1)])  # [x_live, u, 1]
    rows = np.flatnonzero(np.any(h != 0.0, axis=1))
    rk = NativeRK(dt=float(sim.dt), v=vel[:, keep], bl=np.zeros((n, n)), bq=np.zeros(n),
                  eg=eg[keep], og=c[:, one + 1 :])
    if viscous is not None:
        rk.has_drag = True
        rk.bl = np.array(viscous.model.linear, dtype=float)
        rk.bq = np.array(viscous.model.quadratic, dtype=float)
    if wave is not None:
        filt = wave.from_input
        rk.has_input = True
        rk.input_index = int(wave.input_slice.start)
        rk.elevation_row = int(wave.output_slice.start)
        rk.kw = np.array(filt.fir, dtype=float)
        rk.preview_steps = float(filt.preview_steps)
        rk.wave_ramp = max(float(wave.ramp_time), 0.0)
    nk = keep.size
    return NativeModel(
        y0=y0[keep], u0=np.array(sim.u, dtype=float), f=f[np.ix_(keep, keep)], g=g[keep],
        h0=float(sim.dt), fused0=np.zeros((nk, nk + m + 1)),
        omega=np.array(model.omega, dtype=float), steady=model.forcing[:, keep],
        ramped=None, ramp_time=float(model.ramp_time), t0=float(sim.t0),
        divergence_limit=DIVERGENCE_LIMIT, c=c[:, cols], h_rows=rows, h=h[rows],
        products=products, rk=rk, sine_factor=sine_factor(sim, model, rows, h[rows]),
    )
