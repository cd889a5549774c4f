"""The native runtime's matrices from a built
:class:`~hydrofmu.runtime.simulator.simulator.Simulator`.

Physics stays in Python: the linear model (:mod:`~hydrofmu.runtime.linear.model`), its exact
discretisation (:func:`~hydrofmu.runtime.linear.lti.discretize`), the particular solutions of the
sinusoids (:func:`~hydrofmu.runtime.linear.lti.particular_solution`, on the ramp the three
shifted components for a start time 0) and the output map
(:class:`~hydrofmu.runtime.simulator.outputs.OutputMap`, completed by
:mod:`~hydrofmu.export.native.output_rows`). The tunable PTO coefficients' derivatives of
``F``, ``[G | c]`` and ``C`` (checked affine). With ``time_scheme = "exact"`` a linear
model is stepped by its exact discretisation; with an explicit Runge-Kutta scheme
(``euler``, ``rk2heun``, ``rk2``, ``rk3``, ``rk4``: its tableau as data,
:mod:`~hydrofmu.export.native.convolution_blob`) the Runge-Kutta mode
(:class:`~.blob.NativeRK`): the linear model without quadratic drag, the elevation input's
excitation and the convolution radiation, their lifts into the state derivative and the
outputs, the drag coefficients, the excitation FIR and the radiation kernel. Anything else
that is not linear, or another scheme, is refused, naming the part or the scheme.

Build time only.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...runtime.errors import ConfigError, ExportError
from ...runtime.forces.viscous import ViscousPart
from ...runtime.forces.wave_excitation import WaveExcitation
from ...runtime.linear.lti import discretize, particular_solution, quantized_step
from ...runtime.linear.model import LinearModel, assemble
from ...runtime.parts.part import Part
from ...runtime.schemes.base import DIVERGENCE_LIMIT
from ...runtime.simulator.outputs import OutputMap, map_rows
from ...runtime.simulator.simulator import Simulator
from .blob import NativeModel, NativeRK, TunableMatrices
from .bodies_blob import native_bodies
from .catenary_blob import catenary_parts, native_catenary
from .convolution_blob import convolution_model, native_convolution, native_tableau
from .drift_blob import current_part, drift_part, native_drift
from .lines_blob import NativeScheme, line_parts, native_lines, native_scheme
from .output_rows import hybrid_rows, sine_factor
from .panels_blob import native_panels, panel_parts
from .refusal import not_linear, refusal


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


@dataclass
class Snapshot:
    """The full (unreduced) matrices of a simulator at its current parameters.

    Attributes
    ----------
    f, g
        ``x' = f x + g [u; 1]`` (``g = [G, c]``), shapes (N, N), (N, m + 1).
    c, h, products
        The output map of ``[y, u, 1]`` (and the Runge-Kutta mode's force columns) and the
        outputs' sinusoids (hybrid parts folded in), the products of outputs.
    omega, forcing, ramp_time, y0
        What must not depend on a tunable matrix parameter: the sinusoids' frequencies
        (rad/s) and forcing, the ramp's length (s), the initial state.
    """

    f: NDArray[np.float64]
    g: NDArray[np.float64]
    c: NDArray[np.float64]
    h: NDArray[np.complex128]
    products: list[tuple[int, int, int, float]]
    omega: NDArray[np.float64]
    forcing: NDArray[np.complex128]
    ramp_time: float
    y0: NDArray[np.float64]


def _snapshot(sim: Simulator) -> Snapshot:
    """The :class:`Snapshot` of ``sim`` at its current parameters: its linear model
    (:func:`~hydrofmu.runtime.linear.model.assemble` of its assembly) and output map."""
    model = assemble(sim.assembly)
    nonlinear = not_linear(sim)
    if nonlinear:  # the Runge-Kutta mode: c maps [y, u, 1, g_drag, g_exc]
        c, h, products = _rk_rows(sim, model, nonlinear)
    else:
        omap: OutputMap | None = sim.output_map  # the simulator's checked map
        if omap is None:
            raise ExportError("the linear output map of this model disagrees with the "
                              "part-by-part assembly (see the simulator's warnings: "
                              f"{sim.warnings}); the native FMU cannot be built", value=None)
        c = np.array(omap.c, dtype=float)
        h = np.array(omap.h, dtype=complex)
        products = hybrid_rows(sim, omap.hybrid, omap.fc_rows, c, h)
    return Snapshot(
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


def _matrix_derivatives(sim: Simulator, name: str, base: Snapshot
                        ) -> tuple[NDArray, NDArray, NDArray] | str:
    """``(dF, dG, dC)`` of the tunable parameter ``name`` (per unit of it), or why it is not
    affine. ``sim`` is re-tuned at two other values and set back (checked)."""
    p0 = float(sim.parameters[name])

    def at(value: float) -> Snapshot:
        sim.set_parameter(name, value)
        return _snapshot(sim)

    def diff(a: Snapshot, dp: float) -> tuple[NDArray, NDArray, NDArray]:
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


def native_model(sim: Simulator, step: float, tunable: Sequence[str] = ()) -> NativeModel:
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
    base = _snapshot(sim)
    nonlinear = not_linear(sim)
    n_extra = base.c.shape[1] - (sim.y.size + sim.u.size + 1)  # the RK mode's force columns
    derivatives: list[tuple[str, tuple[NDArray, NDArray, NDArray]]] = []
    for name in tunable:
        got = ("large rotations: the force form is assembled once (bodies_blob.py)"
               if sim.large is not None else _matrix_derivatives(sim, name, base))
        if not isinstance(got, str) and n_extra and np.any(got[2][:, -n_extra:] != 0.0):
            got = "it changes how the drag or the excitation reaches the outputs"
        if isinstance(got, str):
            warnings.warn(f"parameter '{name}' is fixed in the native FMU: {got}",
                          stacklevel=2)
        else:
            derivatives.append((name, got))
    model = assemble(sim.assembly)
    if native_tableau(sim) is not None or nonlinear:  # the configured explicit Runge-Kutta
        # scheme, or (with parts that are not linear) a semi-implicit one (refusal: checked)
        return _rk_model(sim, model, nonlinear, base, derivatives)
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


def _rk_parts(nonlinear: list[Part]) -> tuple[Part | None, WaveExcitation | None, Part | None]:
    """The Runge-Kutta mode's parts among ``nonlinear``: (the quadratic drag: viscous, or
    the current drag on the relative velocity; wave excitation; radiation by convolution),
    each ``None`` when absent."""
    return (next((q for q in nonlinear if isinstance(q, ViscousPart)), current_part(nonlinear)),
            next((q for q in nonlinear if isinstance(q, WaveExcitation)), None),
            next((q for q in nonlinear if convolution_model(q) is not None), None))


def _rk_rows(sim: Simulator, model: LinearModel, nonlinear: list[Part]
             ) -> tuple[NDArray, NDArray, list[tuple[int, int, int, float]]]:
    """The Runge-Kutta mode's output map: ``c`` of ``[y, u, 1, g_drag, g_exc]`` (the two DOF
    forces as extra columns, n each; ``[..., g_conv]`` with convolution radiation), ``h``
    and the products."""
    n = sim.n
    viscous, wave, conv = _rk_parts(nonlinear)
    lines = line_parts(sim)
    order: list[Part | None] = [viscous, wave]
    if conv is not None:
        order.append(conv)
    if lines:
        order.append(lines[0])
    cats = catenary_parts(sim)  # after the lines: the catenary moorings' block
    if cats:
        order.append(cats[0])
    if panel_parts(sim)[0] is not None:  # the panels' static, then wave loads
        order.extend(panel_parts(sim))
    if drift_part(nonlinear) is not None:  # the last block (drift_blob.py)
        order.append(drift_part(nonlinear))
    blocks = len(order)
    extra: dict[str | None, NDArray] = {}

    def column(block: int) -> NDArray:
        e = np.zeros((n, blocks * n))
        e[:, block * n:(block + 1) * n] = np.eye(n)
        return e

    for block, part in enumerate(order):
        if part is not None:
            extra[part.channel] = extra.get(part.channel, 0.0) + column(block)
    if not extra and sim.large is None:  # pragma: no cover - the mode needs one of them
        raise ExportError("the Runge-Kutta mode without drag, elevation input or lines",
                          value=None)
    c, h, hybrid, fc_rows = map_rows(sim.assembly, model, extra)
    if sim.large is not None:  # large rotations: bodies_blob.py's own output map
        return c, h, []
    products = hybrid_rows(sim, [q for q in hybrid if q is not wave and q not in lines
                                 and q not in cats and q not in panel_parts(sim)],
                           fc_rows, c, h)
    return c, h, products


def _rk_model(sim: Simulator, model: LinearModel, nonlinear: list[Part], base: Snapshot,
              derivatives: list[tuple[str, tuple[NDArray, NDArray, NDArray]]]
              ) -> NativeModel:
    """The Runge-Kutta mode (:class:`~.blob.NativeRK`): the linear model without the
    quadratic drag and the elevation input's excitation, which the runtime adds at every
    stage; the output map takes both as extra columns (``base``: :func:`_snapshot`; the
    tunable PTO coefficients' ``derivatives`` as for the exact mode)."""
    n, nr, big_n, m = sim.n, sim.nr, sim.y.size, sim.u.size
    viscous, wave, conv = _rk_parts(nonlinear)
    c, h, products = base.c, base.h, base.products
    basis = sim.constraints.basis
    eg = np.zeros((big_n, n))
    eg[nr : 2 * nr] = sim.assembly.acc_map
    vel = np.zeros((n, big_n))
    vel[:, nr : 2 * nr] = basis
    f, g, y0 = base.f, base.g, base.y0
    # Live: the closure over every value of the tunable parameters (their sparsity union).
    f_any = np.abs(f) + sum((np.abs(d[0]) for _, d in derivatives), np.zeros_like(f))
    g_any = np.abs(g) + sum((np.abs(d[1]) for _, d in derivatives), np.zeros_like(g))
    live = live_states(f_any, np.concatenate([g_any, eg], axis=1), y0, model.forcing)
    for part in line_parts(sim):  # the kernel writes every line state's derivative
        live[part.state_slice] = True
    if sim.large is not None:  # large rotations: the force form reads every state
        live[:] = True
    keep = np.flatnonzero(live)
    one = big_n + m
    cols = np.concatenate([keep, np.arange(big_n, one + 1)])  # [x_live, u, 1]
    rows = np.flatnonzero(np.any(h != 0.0, axis=1))
    extra = c[:, one + 1 :]  # [drag, exc(, conv)(, lines)] (none for a linear model)
    og = extra[:, : 2 * n] if extra.shape[1] else np.zeros((c.shape[0], 2 * n))
    rk = NativeRK(dt=float(sim.dt), v=vel[:, keep], bl=np.zeros((n, n)), bq=np.zeros(n),
                  eg=eg[keep], og=og)
    if isinstance(viscous, ViscousPart):
        rk.has_drag = True
        rk.bl = np.array(viscous.model.linear, dtype=float)
        rk.bq = np.array(viscous.model.quadratic, dtype=float)
    elif viscous is not None:  # the drag on the velocity relative to the current
        rk.has_drag = True
        rk.bq = np.array(viscous.quadratic, dtype=float)
    if wave is not None and wave.from_input is not None:
        filt = wave.from_input
        rk.has_input = True
        rk.input_index = int(wave.input_slice.start)
        rk.elevation_row = int(wave.output_slice.start)
        rk.kw = np.array(filt.fir, dtype=float)
        rk.preview_steps = float(filt.preview_steps)
        rk.wave_ramp = max(float(wave.ramp_time), 0.0)
    nk = keep.size
    forcing = np.array(model.forcing)[:, keep]
    # after [drag, exc]: the convolution force's block, then the lines' (as _rk_rows)
    conv_cols = extra[:, 2 * n : 3 * n] if conv is not None else None
    at = 3 * n if conv is not None else 2 * n
    lines = native_lines(sim, keep, extra[:, at : at + n]) if (
        line_parts(sim) or isinstance(native_scheme(sim), NativeScheme)) else None
    at += n if line_parts(sim) else 0  # then the catenary moorings' block
    catenary = native_catenary(sim, keep, extra[:, at : at + n])
    at += n if catenary_parts(sim) else 0  # then the panels' static and wave loads
    panels = native_panels(sim, keep, extra[:, at : at + 2 * n])
    bodies = native_bodies(sim)  # large rotations (every state kept)
    return NativeModel(
        y0=y0[keep], u0=np.array(sim.u, dtype=float), f=f[np.ix_(keep, keep)], g=g[keep],
        h0=float(sim.dt), fused0=np.zeros((nk, nk + m + 1)),
        omega=np.array(model.omega, dtype=float), steady=forcing,
        ramped=None, ramp_time=float(model.ramp_time), t0=float(sim.t0),
        divergence_limit=DIVERGENCE_LIMIT, c=c[:, cols], h_rows=rows, h=h[rows],
        products=products, rk=rk, sine_factor=sine_factor(sim, model, rows, h[rows]),
        forcing=forcing, tableau=native_tableau(sim), lines=lines, catenary=catenary,
        panels=panels, bodies=bodies,
        conv=None if conv is None else native_convolution(
            convolution_model(conv), vel[:, keep], conv_cols),
        drift=native_drift(drift_part(nonlinear), current_part(nonlinear), line_parts(sim),
                           extra[:, -n:]),
        tunables=[TunableMatrices(name=name, value=float(sim.parameters[name]),
                                  df=d[0][np.ix_(keep, keep)], dg=d[1][keep], dc=d[2][:, cols])
                  for name, d in derivatives],
    )
