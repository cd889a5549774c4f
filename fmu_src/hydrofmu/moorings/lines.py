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
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from .frames import rotation
from .moordyn_input import MoorDynModel

Array = NDArray[np.float64]


@dataclass
class Environment:
    """Still water: g (m/s^2), density (kg/m^3), depth (m), seabed kBot (Pa/m), cBot (Pa s/m)."""

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
        # as MoorDyn-C: the water is at least as deep as the lowest point of the file
        depth = max([o.WtrDpth, *(-p.position[2] for p in model.points if p.kind != "body")])
        self.env = Environment(g=o.g, rho=o.rho, depth=depth if depth > 0 else math.inf,
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
        npair = self.n_nodes - 1
        real = np.zeros(npair, dtype=bool)
        real[self.seg0] = True
        self._pair_fake = np.where(real, 0.0, 1.0)
        self._pair_l0 = np.ones(npair)
        self._pair_ea = np.zeros(npair)
        self._pair_ba = np.zeros(npair)
        self._pair_l0[self.seg0] = self.l0
        self._pair_ea[self.seg0] = self.ea
        self._pair_ba[self.seg0] = self.ba
        vol = self.n_len * self.n_area
        self._a_full = self.n_m + env.rho * vol * self.n_can
        self._b_full = env.rho * vol * (self.n_cat - self.n_can)
        self._wz_full = -env.g * (self.n_m - env.rho * vol)
        self._cdn_d = self.n_cdn * self.n_d
        self._cdt_d = math.pi * self.n_cdt * self.n_d

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
        for b in self.bodies:
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
        # node pairs (p, p+1): the segments, and between two lines a pair with no stiffness
        d = r[1:] - r[:-1]
        lstr = np.sqrt(np.einsum("ij,ij->i", d, d)) + self._pair_fake
        qs = d / lstr[:, None]
        ldstr = np.einsum("ij,ij->i", qs, v[1:] - v[:-1])
        stretch = lstr - self._pair_l0
        if not self._compression:
            stretch = np.maximum(stretch, 0.0)
        tmag = (self._pair_ea * stretch + self._pair_ba * ldstr) / self._pair_l0
        seg_force = tmag[:, None] * qs
        self._pair_tension = tmag
        fnet = np.zeros_like(r)
        fnet[:-1] += seg_force
        fnet[1:] -= seg_force
        # tangents: neighbours for internal nodes, the end segment for end nodes
        t = np.empty_like(r)
        t[1:-1] = r[2:] - r[:-2]
        t[self.end_a] = d[self.end_a]
        t[self.end_b] = d[self.end_b - 1]
        q = t / np.sqrt(np.einsum("ij,ij->i", t, t))[:, None]
        rho_w = env.rho
        if r[:, 2].max() < 0.0:  # every node under water: the precomputed full values
            sub_len, a, b = self.n_len, self._a_full, self._b_full
            fnet[:, 2] += self._wz_full
        else:
            # submergence of each segment (surface z = 0): linear in the ends' depth
            z0, z1 = r[self.seg0, 2], r[self.seg1, 2]
            lo, hi = np.minimum(z0, z1), np.maximum(z0, z1)
            frac = np.where(hi <= 0.0, 1.0, np.where(lo >= 0.0, 0.0,
                                                     -lo / np.maximum(hi - lo, 1e-300)))
            seg_sub = self.l0 * frac
            sub_len = 0.5 * (np.where(self._has_left, seg_sub[self._left], 0.0)
                             + np.where(self._has_right, seg_sub[self._right], 0.0))
            vol = sub_len * self.n_area
            fnet[:, 2] -= env.g * (self.n_m - rho_w * vol)
            a = self.n_m + rho_w * vol * self.n_can
            b = rho_w * vol * (self.n_cat - self.n_can)
        # Morison drag in still water
        vq_l = -np.einsum("ij,ij->i", v, q)
        vq = vq_l[:, None] * q
        vp = -v - vq
        shared = (0.5 * rho_w * self.drag_scale) * sub_len
        vp_mag = np.sqrt(np.einsum("ij,ij->i", vp, vp))
        fnet += (vp_mag * self._cdn_d * shared)[:, None] * vp
        fnet += (np.abs(vq_l) * self._cdt_d * shared)[:, None] * vq
        # seabed
        if math.isfinite(env.depth):
            pen = -env.depth - r[:, 2]
            contact = pen > 0
            if contact.any():
                fnet[:, 2] += np.where(
                    contact, (pen * env.kbot - v[:, 2] * env.cbot) * self.n_d * self.n_len, 0.0)
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
        return self.derivative_and_evaluate(x, coupled_positions, coupled_velocities,
                                            points=False)[0]

    def derivative_and_evaluate(
        self, x: Array, coupled_positions: Array, coupled_velocities: Array, *,
        points: bool = True,
    ) -> tuple[Array, dict]:
        """:meth:`derivative` and :meth:`evaluate` from one evaluation of the node forces
        (``point_f`` is ``None`` unless ``points`` or there are free points)."""
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
        seg_tension = self._pair_tension[self.seg0]
        fp = None
        if points or self.n_free:
            fp, mp = self._point_forces(fnet, a, b, q, vp)
        if self.n_free:
            fr = self.free_points
            accp = np.linalg.solve(mp[fr], fp[fr][:, :, None])[:, :, 0]
            base, nf = 6 * ni, self.n_free
            out[base:base + 3 * nf] = vp[fr].ravel()
            out[base + 3 * nf:base + 6 * nf] = accp.ravel()
        return out, {"r": r, "v": v, "fnet": fnet, "point_r": rp, "point_v": vp,
                     "point_f": fp, "seg_tension": seg_tension}

    def evaluate(self, x: Array, coupled_positions: Array, coupled_velocities: Array) -> dict:
        """Everything an output needs at state ``x``: nodes, node and point forces."""
        rp, vp = self.point_kinematics(x, coupled_positions, coupled_velocities)
        r, v = self._nodes(x, rp, vp)
        fnet, a, b, q = self.node_forces(r, v)
        fp, _ = self._point_forces(fnet, a, b, q, vp)
        return {"r": r, "v": v, "fnet": fnet, "point_r": rp, "point_v": vp, "point_f": fp,
                "seg_tension": self._pair_tension[self.seg0]}

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
    def initial_state(self, coupled_positions: Array) -> tuple[Array, dict]:
        """Initial state: the static equilibrium at the coupled positions, at rest.

        :func:`~hydrofmu.moorings.equilibrium.static_equilibrium` (Newton) finds the
        equilibrium that MoorDyn's IC stage approaches by dynamic relaxation, to round-off;
        when it does not converge (e.g. a line slack in mid water) MoorDyn's own dynamic
        relaxation, :func:`~hydrofmu.moorings.equilibrium.relax`, is used.
        """
        from .equilibrium import relax, static_equilibrium

        x, info = static_equilibrium(self, coupled_positions)
        if info["converged"]:
            info["method"] = "newton"
            return x, info
        x, info = relax(self, coupled_positions)
        info["method"] = "relaxation"
        return x, info
