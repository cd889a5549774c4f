"""Initial conditions of a :class:`~hydrofmu.moorings.lines.LineSystem` (numpy + stdlib only).

The nodes start on the elastic catenary between their ends; the static equilibrium is then
found by Newton's method (segments allowed to resist compression first, so that the slack
chords of a coarse catenary profile do not make the problem singular, then as MoorDyn), or by
MoorDyn's own IC stage, dynamic relaxation with scaled drag until ``threshIC``.
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


def initial_profile(system: LineSystem, coupled_positions: Array) -> Array:
    """State with the nodes on the elastic catenary (or straight) between their ends."""
    zero = np.zeros(system.n_coupled_dof)
    x = np.zeros(system.n_states)
    if system.n_free:
        nf = system.n_free
        x[6 * system.n_internal:6 * system.n_internal + 3 * nf] = system.point_r0[
            system.free_points].ravel()
    rp, _ = system.point_kinematics(x, coupled_positions, zero)
    r = np.empty((system.n_nodes, 3))
    for li, ln in enumerate(system.model.lines):
        lt = system.model.line_types[ln.line_type]
        ra, rb = rp[ln.point_a - 1], rp[ln.point_b - 1]
        n = ln.n_segments
        k = system.line_start[li]
        frac = np.arange(n + 1) / n
        r[k:k + n + 1] = ra + frac[:, None] * (rb - ra)
        dvec = rb - ra
        xf = math.hypot(dvec[0], dvec[1])
        w = (lt.mass_per_length - system.env.rho * math.pi / 4 * lt.diameter**2) * system.env.g
        if xf > 1e-4 and w > 0:
            on_bed = math.isfinite(system.env.depth) and min(ra[2], rb[2]) <= -system.env.depth * (
                1 - 1e-5)
            try:
                cat = Catenary(length=ln.length, weight=w, ea=lt.ea, seabed=on_bed)
                sol = cat.solve(xf, float(dvec[2]))
                xs, zs, _ = cat.profile(sol, frac * ln.length)
                cphi, sphi = dvec[0] / xf, dvec[1] / xf
                r[k:k + n + 1] = ra + np.column_stack([xs * cphi, xs * sphi, zs])
            except CatenaryError:
                pass  # straight initial profile, as MoorDyn when its catenary fails
    ni = system.n_internal
    x[:3 * ni] = r[system.internal].ravel()
    return x


def static_equilibrium(system: LineSystem, coupled_positions: Array, *, tol: float = 1e-9,
                       max_iter: int = 60) -> tuple[Array, dict]:
    """Static equilibrium by Newton's method from the catenary profile.

    The unknowns are the internal node and free point positions; the residual is the net
    static force on them (weight, buoyancy, tension, seabed; velocities zero). The
    Jacobian is built by central differences and the Newton step is backtracked on the
    residual norm.

    Returns
    -------
    x, info
        State with zero velocities, and ``{"converged", "iterations", "residual"}`` with
        the largest residual force, N.
    """
    cp = np.asarray(coupled_positions, dtype=float).ravel()
    cv = np.zeros_like(cp)
    x = initial_profile(system, cp)
    ni, nf = system.n_internal, system.n_free
    pos = np.concatenate([np.arange(3 * ni), 6 * ni + np.arange(3 * nf)]).astype(int)

    def residual(y: Array) -> Array:
        xx = x.copy()
        xx[pos] = y
        ev = system.evaluate(xx, cp, cv)
        out = ev["fnet"][system.internal].ravel()
        if nf:
            out = np.concatenate([out, ev["point_f"][system.free_points].ravel()])
        return out

    y = x[pos].copy()
    residual(y)
    scale = max(float(np.max(np.abs(system._pair_tension[system.seg0]))),
                float(np.max(system.n_m)) * system.env.g)
    # first with segments that resist compression too (a smooth problem: the catenary's
    # chords are shorter than its arcs, so coarse segments start slack), then as MoorDyn
    system._compression = True
    try:
        y, _, it0 = _newton(system, residual, y, tol * scale, max_iter)
    finally:
        system._compression = False
    y, res, it = _newton(system, residual, y, tol * scale, max_iter)
    it += it0
    x[pos] = y
    err = float(np.max(np.abs(res)))
    return x, {"converged": err <= tol * scale, "iterations": it, "residual": err}


def _newton(system: LineSystem, residual: Callable[[Array], Array], y: Array, tol: float,
            max_iter: int
            ) -> tuple[Array, Array, int]:
    """Newton iterations with a Levenberg-Marquardt safeguard; returns y, residual, count."""
    res = residual(y)
    mu = None
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007
        if np.max(np.abs(res)) <= tol:
            break
        jac = _jacobian(system, residual, y)
        norm0 = float(np.linalg.norm(res))
        try:
            dy = np.linalg.solve(jac, -res)
            trial = residual(y + dy)
            if np.linalg.norm(trial) < norm0:
                y, res = y + dy, trial
                continue
        except np.linalg.LinAlgError:
            pass
        jtj, jtr = jac.T @ jac, jac.T @ res
        dmax = float(np.max(np.diag(jtj)))
        mu = 1e-9 * dmax if mu is None else mu
        for _ in range(60):
            dy = np.linalg.solve(jtj + mu * np.eye(y.size), -jtr)
            trial = residual(y + dy)
            if np.linalg.norm(trial) < norm0:
                mu = max(mu / 10, 1e-15 * dmax)
                break
            mu *= 8
        else:
            break
        y, res = y + dy, trial
    return y, res, it


def _jacobian(system: LineSystem, residual: Callable[[Array], Array], y: Array) -> Array:
    """Central-difference Jacobian of the static residual, shape (y.size, y.size).

    Without free points a node's static force depends on itself and its two neighbours
    only, so nodes three apart are perturbed together (9 residual pairs in all);
    with free points every column is perturbed on its own.
    """
    h = 1e-6 * max(1.0, float(np.max(np.abs(y))))
    n = y.size
    jac = np.zeros((n, n))
    if system.n_free:
        for j in range(n):
            e = np.zeros(n)
            e[j] = h
            jac[:, j] = (residual(y + e) - residual(y - e)) / (2 * h)
        return jac
    ni = system.n_internal
    where = np.full(system.n_nodes, -1)
    where[system.internal] = np.arange(ni)
    for c in range(3):
        cols = np.flatnonzero(system.internal % 3 == c)
        for k in range(3):
            e = np.zeros(n)
            e[3 * cols + k] = h
            diff = (residual(y + e) - residual(y - e)) / (2 * h)
            for off in (-1, 0, 1):
                rows = where[system.internal[cols] + off]
                ok = rows >= 0
                # neighbours must belong to the same line
                ok &= system.node_line[system.internal[cols] + off] == system.node_line[
                    system.internal[cols]]
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
    from ..timeschemes import make_scheme

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
            system.evaluate(x, cp, cv)
            ten = np.abs(system._pair_tension[system.seg0[last]])
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
