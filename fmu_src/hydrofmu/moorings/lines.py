"""Dynamic lumped-mass mooring lines as MoorDyn-C v2 models them (numpy + standard library).

Each line of ``N`` segments has ``N + 1`` nodes; the end nodes sit on points (fixed,
coupled, free, or fixed to a coupled body), the ``N - 1`` internal nodes carry the state
(position and velocity, m and m/s). Per segment: axial stiffness ``EA (l_s - l)/l`` (no
compression) and internal damping ``BA dl_s/dt / l`` along the segment (``BA < 0`` is the
damping ratio ``zeta``: ``BA = zeta (L/N) sqrt(EA m)``). Per node, over half of each
adjacent segment: mass, submerged weight, added mass ``rho V (Can (I - qq') + Cat qq')``,
Morison drag in still water (``Cd`` on the frontal area ``d l``, ``CdAx`` on the surface
``pi d l``), seabed contact ``(kBot dz - cBot w) d l`` below ``z = -WtrDpth``. The tangent
``q`` of an internal node joins its neighbours. Free points add their own mass, volume,
drag ``CdA`` and added mass ``Ca``.

The state vector is ``[r_nodes, v_nodes, r_free, v_free]`` (flattened, nodes of all lines in
order). Coupled degrees of freedom follow MoorDyn's order: coupled bodies (6 each: position
m, roll-pitch-yaw rad; velocities: linear m/s and angular rad/s in global axes), then coupled
points (3 each).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from .catenary import Catenary, CatenaryError
from .moordyn_input import MoorDynModel

Array = NDArray[np.float64]


def rotation(angles: Array) -> Array:
    """``Rz(yaw) Ry(pitch) Rx(roll)``, shape (3, 3), from roll, pitch, yaw in rad."""
    cr, sr = math.cos(angles[0]), math.sin(angles[0])
    cp, sp = math.cos(angles[1]), math.sin(angles[1])
    cy, sy = math.cos(angles[2]), math.sin(angles[2])
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


@dataclass
class Environment:
    """Still water: gravity (m/s^2), density (kg/m^3), depth (m), seabed kBot (Pa/m), cBot (Pa s/m)."""

    g: float = 9.80665
    rho: float = 1025.0
    depth: float = math.inf
    kbot: float = 3.0e6
    cbot: float = 3.0e5


class LineSystem:
    """Lines, points and coupled bodies of a MoorDyn file, as one first-order system.

    Parameters
    ----------
    model
        The file read by :func:`~hydrofmu.moorings.moordyn_input.read_moordyn`.
    """

    def __init__(self, *, model: MoorDynModel) -> None:
        o = model.options
        self.model = model
        self.env = Environment(g=o.g, rho=o.rho, depth=o.WtrDpth if o.WtrDpth > 0 else math.inf,
                               kbot=o.kBot, cbot=o.cBot)
        self.drag_scale = 1.0
        self._compression = False
        self._build(model)

    # -- assembly ---------------------------------------------------------------------------
    def _build(self, model: MoorDynModel) -> None:
        env = self.env
        pts = model.points
        self.n_points = len(pts)
        self.point_kind = [p.kind for p in pts]
        self.point_r0 = np.array([p.position for p in pts], dtype=float).reshape(-1, 3)
        self.point_mass = np.array([p.mass for p in pts], dtype=float)
        self.point_volume = np.array([p.volume for p in pts], dtype=float)
        self.point_cda = np.array([p.cda for p in pts], dtype=float)
        self.point_ca = np.array([p.ca for p in pts], dtype=float)
        self.point_body = [p.body for p in pts]
        self.bodies = [b for b in model.bodies]
        self.coupled_bodies = [i for i, b in enumerate(self.bodies) if b.kind == "coupled"]
        self.coupled_points = [i for i, p in enumerate(pts) if p.kind == "coupled"]
        self.free_points = np.array([i for i, p in enumerate(pts) if p.kind == "free"], dtype=int)
        self.n_coupled_dof = 6 * len(self.coupled_bodies) + 3 * len(self.coupled_points)

        starts, seg0, seg1, internal, node_line = [], [], [], [], []
        l0, ea, ba, seg_d, seg_area = [], [], [], [], []
        n_d, n_area, n_rho, n_can, n_cat, n_cdn, n_cdt, n_len, n_m = ([] for _ in range(9))
        prev, nxt = [], []
        self.end_a, self.end_b = [], []
        k = 0
        for li, ln in enumerate(model.lines):
            lt = model.line_types[ln.line_type]
            n = ln.n_segments
            area = math.pi / 4 * lt.diameter**2
            lseg = ln.length / n
            b = lt.ba
            if b < 0:
                b = -b * lseg * math.sqrt(lt.ea * lt.mass_per_length)
            starts.append(k)
            for j in range(n):
                seg0.append(k + j)
                seg1.append(k + j + 1)
                l0.append(lseg)
                ea.append(lt.ea)
                ba.append(b)
                seg_d.append(lt.diameter)
                seg_area.append(area)
            for j in range(n + 1):
                node_line.append(li)
                half = 0.5 * lseg * ((j > 0) + (j < n))
                n_len.append(half)
                n_m.append(lt.mass_per_length * half)
                n_d.append(lt.diameter)
                n_area.append(area)
                n_rho.append(lt.mass_per_length / area)
                n_can.append(lt.ca)
                n_cat.append(lt.caax)
                n_cdn.append(lt.cd)
                n_cdt.append(lt.cdax)
                prev.append(k + max(j - 1, 0))
                nxt.append(k + min(j + 1, n))
                if 0 < j < n:
                    internal.append(k + j)
            self.end_a.append(k)
            self.end_b.append(k + n)
            k += n + 1
        self.n_nodes = k
        self.line_start = np.array(starts)
        self.seg0, self.seg1 = np.array(seg0), np.array(seg1)
        self.l0, self.ea, self.ba = np.array(l0), np.array(ea), np.array(ba)
        self.seg_d = np.array(seg_d)
        self.internal = np.array(internal, dtype=int)
        self.node_line = np.array(node_line)
        self.n_len, self.n_m, self.n_d = np.array(n_len), np.array(n_m), np.array(n_d)
        self.n_area = np.array(n_area)
        self.n_can, self.n_cat = np.array(n_can), np.array(n_cat)
        self.n_cdn, self.n_cdt = np.array(n_cdn), np.array(n_cdt)
        self.prev, self.next = np.array(prev), np.array(nxt)
        self.end_a, self.end_b = np.array(self.end_a), np.array(self.end_b)
        # which end nodes sit on which point
        self.end_nodes = np.concatenate([self.end_a, self.end_b])
        self.end_points = np.array([ln.point_a - 1 for ln in model.lines]
                                   + [ln.point_b - 1 for ln in model.lines])
        self.n_internal = self.internal.size
        self.n_free = self.free_points.size
        self.n_states = 6 * self.n_internal + 6 * self.n_free
        # seabed, left/right segment of each node (for submergence)
        nseg = self.seg0.size
        self.node_left = np.full(self.n_nodes, -1)
        self.node_right = np.full(self.n_nodes, -1)
        self.node_left[self.seg1] = np.arange(nseg)
        self.node_right[self.seg0] = np.arange(nseg)
        self._has_left = self.node_left >= 0
        self._has_right = self.node_right >= 0
        self._left = np.where(self._has_left, self.node_left, 0)
        self._right = np.where(self._has_right, self.node_right, 0)
        if self.n_free and not np.all(self.point_mass[self.free_points]
                                      + self.point_volume[self.free_points] >= 0):
            raise ConfigError("free points need mass and volume >= 0", value=None)
        del env

    # -- kinematics of the points -------------------------------------------------------------
    def point_kinematics(
        self, x: Array, coupled_positions: Array, coupled_velocities: Array
    ) -> tuple[Array, Array]:
        """Positions and velocities of every point, m and m/s, shape (n_points, 3) each."""
        cp = np.asarray(coupled_positions, dtype=float).ravel()
        cv = np.asarray(coupled_velocities, dtype=float).ravel()
        if cp.size != self.n_coupled_dof or cv.size != self.n_coupled_dof:
            raise ConfigError(
                f"the lines expect {self.n_coupled_dof} coupled positions and velocities, got "
                f"{cp.size} and {cv.size}", value=cp.size)
        r = self.point_r0.copy()
        v = np.zeros_like(r)
        poses: dict[int, tuple[Array, Array, Array, Array]] = {}
        for n, bi in enumerate(self.coupled_bodies):
            pose, vel = cp[6 * n:6 * n + 6], cv[6 * n:6 * n + 6]
            poses[self.bodies[bi].id] = (pose[:3], rotation(pose[3:]), vel[:3], vel[3:])
        for bi, b in enumerate(self.bodies):
            if b.kind == "fixed":
                pose = np.array(b.pose)
                poses[b.id] = (pose[:3], rotation(pose[3:]), np.zeros(3), np.zeros(3))
        off = 6 * len(self.coupled_bodies)
        for n, pi in enumerate(self.coupled_points):
            r[pi] = cp[off + 3 * n:off + 3 * n + 3]
            v[pi] = cv[off + 3 * n:off + 3 * n + 3]
        for pi, bid in enumerate(self.point_body):
            if bid is not None:
                pos, rot, lin, ang = poses[bid]
                arm = rot @ self.point_r0[pi]
                r[pi] = pos + arm
                v[pi] = lin + np.cross(ang, arm)
        if self.n_free:
            nf = self.n_free
            base = 6 * self.n_internal
            r[self.free_points] = x[base:base + 3 * nf].reshape(nf, 3)
            v[self.free_points] = x[base + 3 * nf:base + 6 * nf].reshape(nf, 3)
        return r, v

    # -- the line model ---------------------------------------------------------------------
    def node_forces(self, r: Array, v: Array) -> tuple[Array, Array, Array, Array]:
        """Net force on every node and the terms of its mass matrix.

        Parameters
        ----------
        r, v
            Node positions and velocities, m and m/s, shape (n_nodes, 3).

        Returns
        -------
        fnet, a, b, q
            Net force, N, shape (n_nodes, 3); mass ``M = a I + b q q'`` with ``a``, ``b``
            (kg, shape (n_nodes,)) and the unit tangent ``q``, shape (n_nodes, 3).
        """
        env = self.env
        d = r[self.seg1] - r[self.seg0]
        lstr = np.sqrt(np.einsum("ij,ij->i", d, d))
        qs = d / lstr[:, None]
        ldstr = np.einsum("ij,ij->i", qs, v[self.seg1] - v[self.seg0])
        stretch = lstr - self.l0 if self._compression else np.maximum(lstr - self.l0, 0.0)
        tmag = (self.ea * stretch + self.ba * ldstr) / self.l0
        seg_force = tmag[:, None] * qs
        self._seg_tension = tmag
        fnet = np.zeros_like(r)
        fnet[self.seg0] += seg_force
        fnet[self.seg1] -= seg_force
        # tangents
        t = r[self.next] - r[self.prev]
        q = t / np.sqrt(np.einsum("ij,ij->i", t, t))[:, None]
        # submergence of each segment (still water, surface z = 0): linear in the ends' depth
        z0, z1 = r[self.seg0, 2], r[self.seg1, 2]
        lo, hi = np.minimum(z0, z1), np.maximum(z0, z1)
        frac = np.where(hi <= 0.0, 1.0, np.where(lo >= 0.0, 0.0,
                                                 -lo / np.maximum(hi - lo, 1e-300)))
        seg_sub = self.l0 * frac
        sub_len = 0.5 * (np.where(self._has_left, seg_sub[self._left], 0.0)
                         + np.where(self._has_right, seg_sub[self._right], 0.0))
        vol = sub_len * self.n_area
        rho_w = env.rho
        fnet[:, 2] -= env.g * (self.n_m - rho_w * vol)
        # Morison drag in still water
        vq_l = -np.einsum("ij,ij->i", v, q)
        vq = vq_l[:, None] * q
        vp = -v - vq
        shared = 0.5 * rho_w * self.n_d * sub_len * self.drag_scale
        vp_mag = np.sqrt(np.einsum("ij,ij->i", vp, vp))
        fnet += (vp_mag * self.n_cdn * shared)[:, None] * vp
        fnet += (np.abs(vq_l) * self.n_cdt * math.pi * shared)[:, None] * vq
        # seabed
        if math.isfinite(env.depth):
            pen = -env.depth - r[:, 2]
            contact = pen > 0
            if contact.any():
                fnet[:, 2] += np.where(
                    contact, (pen * env.kbot - v[:, 2] * env.cbot) * self.n_d * self.n_len, 0.0)
        a = self.n_m + rho_w * vol * self.n_can
        b = rho_w * vol * (self.n_cat - self.n_can)
        return fnet, a, b, q

    def _nodes(self, x: Array, r_points: Array, v_points: Array) -> tuple[Array, Array]:
        ni = self.n_internal
        r = np.empty((self.n_nodes, 3))
        v = np.empty((self.n_nodes, 3))
        r[self.internal] = x[:3 * ni].reshape(ni, 3)
        v[self.internal] = x[3 * ni:6 * ni].reshape(ni, 3)
        r[self.end_nodes] = r_points[self.end_points]
        v[self.end_nodes] = v_points[self.end_points]
        return r, v

    def _point_forces(self, fnet: Array, a: Array, b: Array, q: Array, vp: Array
                      ) -> tuple[Array, Array]:
        """Net force (N) and mass matrix (kg) of every point, shapes (n_points, 3[, 3])."""
        env = self.env
        f = np.zeros((self.n_points, 3))
        f[:, 2] = env.g * (self.point_volume * env.rho - self.point_mass)
        np.add.at(f, self.end_points, fnet[self.end_nodes])
        speed = np.sqrt(np.einsum("ij,ij->i", vp, vp))
        f -= (0.5 * env.rho * self.point_cda * speed * self.drag_scale)[:, None] * vp
        m = np.zeros((self.n_points, 3, 3))
        eye = np.eye(3)
        m += ((self.point_mass + env.rho * self.point_volume * self.point_ca)[:, None, None]
              * eye)
        qe = q[self.end_nodes]
        me = (a[self.end_nodes, None, None] * eye
              + b[self.end_nodes, None, None] * qe[:, :, None] * qe[:, None, :])
        np.add.at(m, self.end_points, me)
        return f, m

    def derivative(
        self, t: float, x: Array, coupled_positions: Array, coupled_velocities: Array
    ) -> Array:
        """State derivative ``x'``, shape (n_states,).

        Parameters
        ----------
        t
            Time, s (the still-water model does not depend on it).
        x
            State, shape (n_states,).
        coupled_positions, coupled_velocities
            Coupled degrees of freedom, shape (n_coupled_dof,).
        """
        rp, vp = self.point_kinematics(x, coupled_positions, coupled_velocities)
        r, v = self._nodes(x, rp, vp)
        fnet, a, b, q = self.node_forces(r, v)
        ii = self.internal
        fi, ai, bi, qi = fnet[ii], a[ii], b[ii], q[ii]
        # (a I + b q q')^-1 f = (f - b/(a+b) (q.f) q) / a
        qf = np.einsum("ij,ij->i", qi, fi)
        acc = (fi - (bi / (ai + bi) * qf)[:, None] * qi) / ai[:, None]
        ni = self.n_internal
        out = np.empty(self.n_states)
        out[:3 * ni] = x[3 * ni:6 * ni]
        out[3 * ni:6 * ni] = acc.ravel()
        if self.n_free:
            fp, mp = self._point_forces(fnet, a, b, q, vp)
            fr = self.free_points
            accp = np.linalg.solve(mp[fr], fp[fr][:, :, None])[:, :, 0]
            base, nf = 6 * ni, self.n_free
            out[base:base + 3 * nf] = vp[fr].ravel()
            out[base + 3 * nf:base + 6 * nf] = accp.ravel()
        return out

    def evaluate(self, x: Array, coupled_positions: Array, coupled_velocities: Array) -> dict:
        """Everything an output needs at state ``x``: nodes, node and point forces."""
        rp, vp = self.point_kinematics(x, coupled_positions, coupled_velocities)
        r, v = self._nodes(x, rp, vp)
        fnet, a, b, q = self.node_forces(r, v)
        fp, _ = self._point_forces(fnet, a, b, q, vp)
        return {"r": r, "v": v, "fnet": fnet, "point_r": rp, "point_v": vp, "point_f": fp,
                "seg_tension": self._seg_tension.copy()}

    def coupled_forces(
        self, x: Array, coupled_positions: Array, coupled_velocities: Array
    ) -> Array:
        """Force of the lines on each coupled object, shape (n_coupled_dof,).

        Bodies: force (N) and moment about the body reference point (N m), global axes;
        points: force (N). A point's force includes its own weight and buoyancy, as
        MoorDyn reports it.
        """
        ev = self.evaluate(x, coupled_positions, coupled_velocities)
        return self.coupled_from(ev, np.asarray(coupled_positions, dtype=float).ravel())

    def coupled_from(self, ev: dict, cp: Array) -> Array:
        """:meth:`coupled_forces` from the result of :meth:`evaluate`."""
        out = np.empty(self.n_coupled_dof)
        fp, rp = ev["point_f"], ev["point_r"]
        for n, bi in enumerate(self.coupled_bodies):
            bid = self.bodies[bi].id
            ref = cp[6 * n:6 * n + 3]
            idx = [i for i, pb in enumerate(self.point_body) if pb == bid]
            f = fp[idx].sum(axis=0) if idx else np.zeros(3)
            m = np.cross(rp[idx] - ref, fp[idx]).sum(axis=0) if idx else np.zeros(3)
            out[6 * n:6 * n + 6] = np.concatenate([f, m])
        off = 6 * len(self.coupled_bodies)
        for n, pi in enumerate(self.coupled_points):
            out[off + 3 * n:off + 3 * n + 3] = fp[pi]
        return out

    def tensions(self, x: Array, coupled_positions: Array, coupled_velocities: Array
                 ) -> tuple[Array, Array]:
        """Fairlead (end B) and anchor (end A) tension of every line, N, shape (n_lines,) each.

        As MoorDyn's ``FairTen``/``AnchTen``: the magnitude of the net force on the end node.
        """
        ev = self.evaluate(x, coupled_positions, coupled_velocities)
        f = ev["fnet"]
        return (np.linalg.norm(f[self.end_b], axis=1), np.linalg.norm(f[self.end_a], axis=1))

    # -- initial state ---------------------------------------------------------------------
    def initial_profile(self, coupled_positions: Array) -> Array:
        """State with the nodes on the elastic catenary (or straight) between their ends."""
        zero = np.zeros(self.n_coupled_dof)
        x = np.zeros(self.n_states)
        if self.n_free:
            nf = self.n_free
            x[6 * self.n_internal:6 * self.n_internal + 3 * nf] = self.point_r0[
                self.free_points].ravel()
        rp, _ = self.point_kinematics(x, coupled_positions, zero)
        r = np.empty((self.n_nodes, 3))
        for li, ln in enumerate(self.model.lines):
            lt = self.model.line_types[ln.line_type]
            ra, rb = rp[ln.point_a - 1], rp[ln.point_b - 1]
            n = ln.n_segments
            k = self.line_start[li]
            frac = np.arange(n + 1) / n
            r[k:k + n + 1] = ra + frac[:, None] * (rb - ra)
            dvec = rb - ra
            xf = math.hypot(dvec[0], dvec[1])
            w = (lt.mass_per_length - self.env.rho * math.pi / 4 * lt.diameter**2) * self.env.g
            if xf > 1e-4 and w > 0:
                on_bed = math.isfinite(self.env.depth) and min(ra[2], rb[2]) <= -self.env.depth * (
                    1 - 1e-5)
                try:
                    cat = Catenary(length=ln.length, weight=w, ea=lt.ea, seabed=on_bed)
                    sol = cat.solve(xf, float(dvec[2]))
                    xs, zs, _ = cat.profile(sol, frac * ln.length)
                    cphi, sphi = dvec[0] / xf, dvec[1] / xf
                    r[k:k + n + 1] = ra + np.column_stack([xs * cphi, xs * sphi, zs])
                except CatenaryError:
                    pass  # straight initial profile, as MoorDyn when its catenary fails
        ni = self.n_internal
        x[:3 * ni] = r[self.internal].ravel()
        return x

    def static_equilibrium(self, coupled_positions: Array, *, tol: float = 1e-9,
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
        x = self.initial_profile(cp)
        ni, nf = self.n_internal, self.n_free
        pos = np.concatenate([np.arange(3 * ni), 6 * ni + np.arange(3 * nf)]).astype(int)

        def residual(y: Array) -> Array:
            xx = x.copy()
            xx[pos] = y
            ev = self.evaluate(xx, cp, cv)
            out = ev["fnet"][self.internal].ravel()
            if nf:
                out = np.concatenate([out, ev["point_f"][self.free_points].ravel()])
            return out

        y = x[pos].copy()
        residual(y)
        scale = max(float(np.max(np.abs(self._seg_tension))), float(np.max(self.n_m)) * self.env.g)
        # first with segments that resist compression too (a smooth problem: the catenary's
        # chords are shorter than its arcs, so coarse segments start slack), then as MoorDyn
        self._compression = True
        try:
            y, _, it0 = self._newton(residual, y, tol * scale, max_iter)
        finally:
            self._compression = False
        y, res, it = self._newton(residual, y, tol * scale, max_iter)
        it += it0
        x[pos] = y
        err = float(np.max(np.abs(res)))
        return x, {"converged": err <= tol * scale, "iterations": it, "residual": err}

    def _newton(self, residual: Callable[[Array], Array], y: Array, tol: float, max_iter: int
                ) -> tuple[Array, Array, int]:
        """Newton iterations with a Levenberg-Marquardt safeguard; returns y, residual, count."""
        res = residual(y)
        mu = None
        it = 0
        for it in range(1, max_iter + 1):  # noqa: B007
            if np.max(np.abs(res)) <= tol:
                break
            jac = self._jacobian(residual, y)
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

    def _jacobian(self, residual: Callable[[Array], Array], y: Array) -> Array:
        """Central-difference Jacobian of the static residual, shape (y.size, y.size).

        Without free points a node's static force depends on itself and its two neighbours
        only, so nodes three apart are perturbed together (9 residual pairs in all);
        with free points every column is perturbed on its own.
        """
        h = 1e-6 * max(1.0, float(np.max(np.abs(y))))
        n = y.size
        jac = np.zeros((n, n))
        if self.n_free:
            for j in range(n):
                e = np.zeros(n)
                e[j] = h
                jac[:, j] = (residual(y + e) - residual(y - e)) / (2 * h)
            return jac
        ni = self.n_internal
        where = np.full(self.n_nodes, -1)
        where[self.internal] = np.arange(ni)
        for c in range(3):
            cols = np.flatnonzero(self.internal % 3 == c)
            for k in range(3):
                e = np.zeros(n)
                e[3 * cols + k] = h
                diff = (residual(y + e) - residual(y - e)) / (2 * h)
                for off in (-1, 0, 1):
                    rows = where[self.internal[cols] + off]
                    ok = rows >= 0
                    # neighbours must belong to the same line
                    ok &= self.node_line[self.internal[cols] + off] == self.node_line[
                        self.internal[cols]]
                    rr, cc = rows[ok], cols[ok]
                    for m in range(3):
                        jac[3 * rr + m, 3 * cc + k] = diff[3 * rr + m]
        return jac

    def initial_state(self, coupled_positions: Array) -> tuple[Array, dict]:
        """Initial state: the static equilibrium at the coupled positions, at rest.

        :meth:`static_equilibrium` (Newton) finds the equilibrium that MoorDyn's IC stage
        approaches by dynamic relaxation, to round-off; when it does not converge (e.g. a
        line slack in mid water) MoorDyn's own dynamic relaxation, :meth:`relax`, is used.
        """
        x, info = self.static_equilibrium(coupled_positions)
        if info["converged"]:
            info["method"] = "newton"
            return x, info
        x, info = self.relax(coupled_positions)
        info["method"] = "relaxation"
        return x, info

    def relax(self, coupled_positions: Array, *, scheme: str | None = None,
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

        o = self.model.options
        step = make_scheme(scheme or o.tScheme)
        dt = dt or o.dtM
        tmax = o.TmaxIC if tmax is None else tmax
        thresh = o.threshIC if thresh is None else thresh
        cp = np.asarray(coupled_positions, dtype=float).ravel()
        cv = np.zeros_like(cp)
        x = self.initial_profile(cp)
        self.drag_scale = o.CdScaleIC
        check = max(o.dtIC / 10, dt)
        n_sub = max(1, round(check / dt))
        last = np.cumsum([ln.n_segments for ln in self.model.lines]) - 1  # fairlead segments

        def f(t: float, y: Array) -> Array:
            return self.derivative(t, y, cp, cv)

        history: list[Array] = []
        t, err, converged = 0.0, math.inf, False
        try:
            while t < tmax - 1e-12:
                for _ in range(n_sub):
                    x = step.step(f, t, x, dt)
                    t += dt
                self.evaluate(x, cp, cv)
                ten = np.abs(self._seg_tension[last])
                history.append(ten)
                if len(history) > 10:
                    hist = np.array(history[-11:-1])
                    err = float(np.max(np.abs(ten / np.maximum(hist, 1e-300) - 1.0)))
                    if err < thresh:
                        converged = True
                        break
        finally:
            self.drag_scale = 1.0
        return x, {"converged": converged, "time": t, "error": err}
