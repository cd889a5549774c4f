"""Initial conditions of a :class:`~hydrofmu.runtime.moorings.lines.LineSystem` (numpy +
stdlib only).

The nodes start on the elastic catenary between their ends; the static equilibrium is then
found by Newton's method (segments allowed to resist compression first, so that the slack
chords of a coarse catenary profile do not make the problem singular, then as MoorDyn; free
points as the outer unknowns of a nested damped Newton iteration), or by MoorDyn's own IC
stage, dynamic relaxation with scaled drag until ``threshIC``. This module imports
:mod:`.lines` (for types only); :mod:`.lines` never imports it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from .catenary import Catenary, CatenaryError

if TYPE_CHECKING:
    from .lines import LineSystem

Array = NDArray[np.float64]


def initial_profile(system: LineSystem, coupled_positions: Array,
                    free_positions: Array | None = None) -> Array:
    """State with the nodes on the elastic catenary (or straight) between their ends.

    ``free_positions`` (m, shape (3 n_free,)) places the free points; by default they are
    where the file puts them.
    """
    la = system.arrays
    env = la.env
    zero = np.zeros(la.n_coupled_dof)
    x = np.zeros(la.n_states)
    if la.n_free:
        nf = la.n_free
        x[6 * la.n_internal:6 * la.n_internal + 3 * nf] = (
            la.point_r0[la.free_points].ravel() if free_positions is None
            else free_positions)
    rp, _ = system.point_kinematics(x, coupled_positions, zero)
    r = np.empty((la.n_nodes, 3))
    for li, ln in enumerate(system.model.lines):
        lt = system.model.line_types[ln.line_type]
        ra, rb = rp[ln.point_a - 1], rp[ln.point_b - 1]
        n = ln.n_segments
        k = la.line_start[li]
        frac = np.arange(n + 1) / n
        r[k:k + n + 1] = ra + frac[:, None] * (rb - ra)
        dvec = rb - ra
        xf = math.hypot(dvec[0], dvec[1])
        w = (lt.mass_per_length - env.rho * math.pi / 4 * lt.diameter**2) * env.g
        if xf > 1e-4 and w > 0:
            on_bed = math.isfinite(env.depth) and min(ra[2], rb[2]) <= -env.depth * (
                1 - 1e-5)
            try:
                cat = Catenary(length=ln.length, weight=w, ea=lt.ea, seabed=on_bed)
                sol = cat.solve(xf, float(dvec[2]))
                xs, zs, _ = cat.profile(sol, frac * ln.length)
                cphi, sphi = dvec[0] / xf, dvec[1] / xf
                r[k:k + n + 1] = ra + np.column_stack([xs * cphi, xs * sphi, zs])
            except CatenaryError:
                pass  # straight initial profile, as MoorDyn when its catenary fails
    ni = la.n_internal
    x[:3 * ni] = r[la.internal].ravel()
    return x


def initial_state(system: LineSystem, coupled_positions: Array) -> tuple[Array, dict]:
    """Initial state of the lines: the static equilibrium at the coupled positions, at rest.

    :func:`static_equilibrium` (Newton) finds the equilibrium that MoorDyn's IC stage
    approaches by dynamic relaxation, to round-off; when it does not converge (e.g. a line
    slack in mid water) MoorDyn's own dynamic relaxation, :func:`relax`, is used.

    Returns
    -------
    x, info
        State, shape (n_states,), and the solver's report with ``"method"`` (``"newton"``
        or ``"relaxation"``) and ``"converged"``.
    """
    x, info = static_equilibrium(system, coupled_positions)
    if info["converged"]:
        info["method"] = "newton"
        return x, info
    x, info = relax(system, coupled_positions)
    info["method"] = "relaxation"
    return x, info


def static_equilibrium(system: LineSystem, coupled_positions: Array, *, tol: float = 1e-9,
                       max_iter: int = 60) -> tuple[Array, dict]:
    """Static equilibrium by Newton's method from the catenary profile.

    The unknowns are the internal node and free point positions; the residual is the net
    static force on them (weight, buoyancy, tension, seabed; velocities zero). Without free
    points, one Newton solve on the nodes (Jacobian by central differences, block
    tridiagonal, solved block by block; a step that does not reduce the residual norm is
    replaced by one of the shifted Jacobian). With free points the problem is nested: for given
    free point positions the lines' nodes are solved as above (each line then hangs between
    fixed ends, a well-posed problem); the free points are the outer unknowns of a damped
    Newton iteration on their net force, the reduced Jacobian by central differences of
    that inner solve, each step halved until the force norm decreases. Solving all the
    unknowns at once stalls: a step of a free point drags whole lines slack or into
    compression, where the static residual is not smooth; the reduced problem (3 unknowns
    a free point, the lines always in equilibrium) is smooth, as the catenary forces are.

    Returns
    -------
    x, info
        State with zero velocities, and ``{"converged", "iterations", "residual"}`` with
        the largest residual force, N.
    """
    cp = np.asarray(coupled_positions, dtype=float).ravel()
    x = initial_profile(system, cp)
    nodes = _NodeSolver(system, cp, tol, max_iter)
    x, res_nodes, it = nodes.solve(x, first=True)
    la = system.arrays
    if not la.n_free:
        err = float(np.max(np.abs(res_nodes)))
        return x, {"converged": err <= nodes.tol, "iterations": it, "residual": err}
    ni, nf = la.n_internal, la.n_free
    fp = slice(6 * ni, 6 * ni + 3 * nf)

    def outer(p: Array, warm: Array | None = None) -> tuple[Array, Array, Array]:
        # the nodes restart from the catenary between their ends (from a warm start, a free
        # point moved far leaves a line slack or overstretched); a warm start is tried
        # for the small moves of the finite differences
        rn = None
        if warm is not None:
            xx = warm.copy()
            xx[fp] = p
            xx, rn, _ = nodes.solve(xx)
        if rn is None or np.max(np.abs(rn)) > nodes.tol:
            xx, rn, _ = nodes.solve(initial_profile(system, cp, p))
        ev = system.evaluate(xx, cp, np.zeros_like(cp))
        return xx, ev["point_f"][la.free_points].ravel(), rn

    p = x[fp].copy()
    x, res, rn = outer(p)
    h = 1e-4 * max(1.0, float(np.max(np.abs(p))))
    n_outer = 0
    for n_outer in range(1, max_iter + 1):  # noqa: B007
        if max(np.max(np.abs(res)), np.max(np.abs(rn))) <= nodes.tol:
            break
        jac = np.empty((p.size, p.size))
        for j in range(p.size):
            e = np.zeros(p.size)
            e[j] = h
            jac[:, j] = (outer(p + e, x)[1] - outer(p - e, x)[1]) / (2 * h)
        try:
            dp = np.linalg.solve(jac, -res)
        except np.linalg.LinAlgError:
            dp = -np.linalg.lstsq(jac, res, rcond=None)[0]
        norm0 = float(np.linalg.norm(res))
        for _ in range(30):
            xt, rt, rnt = outer(p + dp)
            if np.linalg.norm(rt) < norm0:
                break
            dp *= 0.5
        else:
            break
        p, x, res, rn = p + dp, xt, rt, rnt
    err = float(max(np.max(np.abs(res)), np.max(np.abs(rn))))
    return x, {"converged": err <= nodes.tol, "iterations": it + nodes.iterations + n_outer,
               "residual": err}


class _NodeSolver:
    """Newton solve of the internal nodes with every point (free ones too) held fixed."""

    def __init__(self, system: LineSystem, cp: Array, tol: float, max_iter: int) -> None:
        self.system, self.cp, self.max_iter = system, cp, max_iter
        self.cv = np.zeros_like(cp)
        self.pos = np.arange(3 * system.arrays.n_internal)
        self.tol = math.inf
        self.rel_tol = tol
        self.iterations = 0

    def solve(self, x: Array, *, first: bool = False) -> tuple[Array, Array, int]:
        """Nodes of ``x`` in equilibrium; returns the state, the nodes' residual, iterations."""
        system, pos = self.system, self.pos
        la = system.arrays
        x = x.copy()

        def residual(y: Array) -> Array:
            x[pos] = y
            return system.evaluate(x, self.cp, self.cv)["fnet"][la.internal].ravel()

        y = x[pos].copy()
        it0 = 0
        if first:
            x[pos] = y
            seg_tension = system.evaluate(x, self.cp, self.cv)["seg_tension"]
            self.tol = self.rel_tol * max(
                float(np.max(np.abs(seg_tension))), float(np.max(la.n_m)) * la.env.g)
        # first with segments that resist compression too (a smooth problem: the catenary's
        # chords are shorter than its arcs, so coarse segments start slack, and a moved free
        # point leaves the segments next to it slack), then as MoorDyn
        system.compression = True
        try:
            y, _, it0 = _newton(system, residual, y, self.tol, self.max_iter)
        finally:
            system.compression = False
        y, res, it = _newton(system, residual, y, self.tol, self.max_iter)
        x[pos] = y
        self.iterations += it + it0
        return x, res, it + it0


def _newton(system: LineSystem, residual: Callable[[Array], Array], y: Array, tol: float,
            max_iter: int
            ) -> tuple[Array, Array, int]:
    """Newton iterations with a shifted-Jacobian safeguard; returns y, residual, count."""
    res = residual(y)
    mu = None
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007
        if np.max(np.abs(res)) <= tol:
            break
        jac = _jacobian(system, residual, y)
        norm0 = float(np.linalg.norm(res))
        try:
            dy = solve_block_tridiagonal(jac, -res)
            trial = residual(y + dy)
            if np.linalg.norm(trial) < norm0:
                y, res = y + dy, trial
                continue
        except np.linalg.LinAlgError:
            pass
        # the Newton step does not reduce the residual: shift the Jacobian, -K - mu I (the
        # static stiffness K, made more definite), which turns the step from Newton's
        # (mu -> 0) toward moving the nodes along their net force (mu large); it keeps the
        # block-tridiagonal structure
        dmax = float(np.max(np.abs(np.diag(jac))))
        mu = 1e-3 * dmax if mu is None else mu
        shift = np.eye(y.size)
        for _ in range(60):
            try:
                dy = solve_block_tridiagonal(jac - mu * shift, -res)
                trial = residual(y + dy)
                if np.linalg.norm(trial) < norm0:
                    mu = max(mu / 10, 1e-9 * dmax)
                    break
            except np.linalg.LinAlgError:
                pass
            mu *= 4
        else:
            break
        y, res = y + dy, trial
    return y, res, it


def solve_block_tridiagonal(jac: Array, rhs: Array) -> Array:
    """Solve ``jac y = rhs`` for a block-tridiagonal ``jac`` of 3x3 blocks (nodes' coupling).

    The nodes' static Jacobian couples each internal node with its two neighbours only
    (and not across lines: those blocks are zero), so the block Thomas algorithm solves it
    with 3x3 solves. A dense solve is avoided on purpose: a multithreaded BLAS on a loaded
    machine spends ~100 ms on a 117 x 117 system (40 segments) instead of ~0.1 ms.

    Raises
    ------
    numpy.linalg.LinAlgError
        A pivot block is singular (no block pivoting).
    """
    nb = rhs.size // 3
    blk = jac.reshape(nb, 3, nb, 3)
    cp = np.empty((nb, 3, 4))
    prev = None
    for i in range(nb):
        diag = blk[i, :, i, :]
        aug = np.empty((3, 4))
        aug[:, :3] = blk[i, :, i + 1, :] if i + 1 < nb else 0.0
        aug[:, 3] = rhs[3 * i:3 * i + 3]
        if prev is not None:
            low = blk[i, :, i - 1, :]
            diag = diag - low @ prev[:, :3]
            aug[:, 3] -= low @ prev[:, 3]
        prev = cp[i] = np.linalg.solve(diag, aug)
    y = np.empty(nb * 3)
    y[3 * nb - 3:] = cp[nb - 1, :, 3]
    for i in range(nb - 2, -1, -1):
        y[3 * i:3 * i + 3] = cp[i, :, 3] - cp[i, :, :3] @ y[3 * i + 3:3 * i + 6]
    return y


def _jacobian(system: LineSystem, residual: Callable[[Array], Array], y: Array) -> Array:
    """Central-difference Jacobian of the nodes' static residual, shape (y.size, y.size).

    With every point held fixed a node's static force depends on itself and its two
    neighbours on the same line only, so nodes three apart are perturbed together (9
    residual pairs in all).
    """
    h = 1e-6 * max(1.0, float(np.max(np.abs(y))))
    n = y.size
    jac = np.zeros((n, n))
    la = system.arrays
    ni = la.n_internal
    where = np.full(la.n_nodes, -1)
    where[la.internal] = np.arange(ni)
    for c in range(3):
        cols = np.flatnonzero(la.internal % 3 == c)
        for k in range(3):
            e = np.zeros(n)
            e[3 * cols + k] = h
            diff = (residual(y + e) - residual(y - e)) / (2 * h)
            for off in (-1, 0, 1):
                rows = where[la.internal[cols] + off]
                ok = rows >= 0
                # neighbours must belong to the same line
                ok &= la.node_line[la.internal[cols] + off] == la.node_line[la.internal[cols]]
                rr, cc = rows[ok], cols[ok]
                for m in range(3):
                    jac[3 * rr + m, 3 * cc + k] = diff[3 * rr + m]
    return jac


def relax(system: LineSystem, coupled_positions: Array, *, scheme: str | None = None,
                  dt: float | None = None, tmax: float | None = None,
                  thresh: float | None = None) -> tuple[Array, dict]:
    """Static equilibrium at the coupled positions, by MoorDyn's IC stage.

    Dynamic relaxation from the catenary profile with drag scaled by ``CdScaleIC``,
    integrated at ``dtM`` by the file's scheme, the coupled objects held still; it stops
    when every line's fairlead segment tension has changed by less than ``threshIC``
    (relative) over the last ten checks, ``dtIC / 10`` apart, or at ``TmaxIC``.

    Returns
    -------
    x, info
        The state and ``{"converged": bool, "time": s, "error": relative change}``.
    """
    from ..schemes.registry import make_scheme

    o = system.model.options
    step = make_scheme(scheme or o.tScheme)
    dt = dt or o.dtM
    tmax = o.TmaxIC if tmax is None else tmax
    thresh = o.threshIC if thresh is None else thresh
    cp = np.asarray(coupled_positions, dtype=float).ravel()
    cv = np.zeros_like(cp)
    x = initial_profile(system, cp)
    system.drag_scale = o.CdScaleIC
    check = max(o.dtIC / 10, dt)
    n_sub = max(1, round(check / dt))
    last = np.cumsum([ln.n_segments for ln in system.model.lines]) - 1  # fairlead segments

    def f(t: float, y: Array) -> Array:
        return system.derivative(t, y, cp, cv)

    history: list[Array] = []
    t, err, converged = 0.0, math.inf, False
    try:
        while t < tmax - 1e-12:
            for _ in range(n_sub):
                x = step.step(f, t, x, dt)
                t += dt
            ten = np.abs(system.evaluate(x, cp, cv)["seg_tension"][last])
            history.append(ten)
            if len(history) > 10:
                hist = np.array(history[-11:-1])
                err = float(np.max(np.abs(ten / np.maximum(hist, 1e-300) - 1.0)))
                if err < thresh:
                    converged = True
                    break
    finally:
        system.drag_scale = 1.0
    return x, {"converged": converged, "time": t, "error": err}
