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

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from .frames import cross, rotation
from .line_kernel import select_kernel
from .line_layout import Environment, LineLayout
from .moordyn_model import MoorDynModel

Array = NDArray[np.float64]

__all__ = ["Environment", "LineSystem"]


class LineSystem(LineLayout):
    """Lines, points and coupled bodies of a MoorDyn file, as one first-order system.

    The layout (nodes, segments, constants) is :class:`~.line_layout.LineLayout`'s; this
    class adds the kinematics of the points, the forces on the nodes, the state derivative
    and the outputs. The derivative is written for few numpy calls on small arrays (all the
    lines' nodes in one set of arrays, no Python loop over lines or segments, the fully
    submerged coefficients precomputed): at 20-60 nodes the cost of a call dominates.

    Parameters
    ----------
    model
        The file read by :func:`~hydrofmu.runtime.moorings.moordyn_input.read_moordyn`.
    kernel
        ``"auto"`` (default): the compiled kernel (:mod:`~hydrofmu.runtime.moorings.line_kernel`,
        ``line_kernel.c``, the same physics) when its library loads, else numpy with one
        logged note; ``"c"``: the compiled kernel or a
        :class:`~hydrofmu.runtime.errors.ConfigError`;
        ``"numpy"``: numpy only. :attr:`kernel` tells which one runs.
    """

    def __init__(self, *, model: MoorDynModel, kernel: str = "auto") -> None:
        super().__init__(model=model)
        env = self.env
        self._cp_index = np.array(self.coupled_points, dtype=int)
        self._no_bodies = not self.bodies and not any(b is not None for b in self.point_body)
        self._tangent_nodes = np.concatenate([self.end_a, self.end_b])
        self._tangent_pairs = np.concatenate([self.end_a, self.end_b - 1])
        self._pair_ea_l0 = self._pair_ea / self._pair_l0
        self._pair_ba_l0 = self._pair_ba / self._pair_l0
        half_rho = 0.5 * env.rho
        self._cn_full = self._cdn_d * half_rho * self.n_len
        self._ct_full = self._cdt_d * half_rho * self.n_len
        ii = self.internal
        self._bab_full_i = (self._b_full / (self._a_full + self._b_full))[ii]
        self._inv_a_full_i = 1.0 / self._a_full[ii]
        self._has_seabed = math.isfinite(env.depth)
        # free points: the line ends on them (incidence, shape (n_free, n_ends_on_free)),
        # their submerged weight (N), drag factor (kg/m) and own mass with added mass (kg)
        on_free = np.isin(self.end_points, self.free_points)
        self._free_end_nodes = self.end_nodes[on_free]
        self._free_inc = (self.end_points[on_free][None, :]
                          == self.free_points[:, None]).astype(float)
        fp = self.free_points
        self._free_weight = env.g * (self.point_volume[fp] * env.rho - self.point_mass[fp])
        self._free_drag = 0.5 * env.rho * self.point_cda[fp]
        self._free_mass = self.point_mass[fp] + env.rho * self.point_volume[fp] * self.point_ca[fp]
        self._eye3 = np.eye(3)
        # per body carrying points: coupled index (-1: fixed), file pose, points, body-frame
        # positions (m)
        self._zero6 = np.zeros(6)
        self._body_groups = []
        for bi, body in enumerate(self.bodies):
            idx = np.array([i for i, pb in enumerate(self.point_body) if pb == body.id],
                           dtype=int)
            if idx.size:
                k = self.coupled_bodies.index(bi) if body.kind == "coupled" else -1
                self._body_groups.append((k, np.array(body.pose, dtype=float), idx,
                                          self.point_r0[idx]))
        self._ck = select_kernel(self, kernel)
        #: The kernel that evaluates the derivative: ``"c"`` or ``"numpy"``.
        self.kernel = "numpy" if self._ck is None else "c"

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
        if self._no_bodies:
            r[self._cp_index] = cp.reshape(-1, 3)
            v[self._cp_index] = cv.reshape(-1, 3)
        else:
            self._body_kinematics(cp, cv, r, v)
        if self.n_free:
            nf = self.n_free
            base = 6 * self.n_internal
            r[self.free_points] = x[base:base + 3 * nf].reshape(nf, 3)
            v[self.free_points] = x[base + 3 * nf:base + 6 * nf].reshape(nf, 3)
        return r, v

    def _body_kinematics(self, cp: Array, cv: Array, r: Array, v: Array) -> None:
        """Coupled points and the points of bodies into ``r``, ``v`` (in place)."""
        for k, pose, idx, r0 in self._body_groups:
            vel = self._zero6
            if k >= 0:  # a coupled body; otherwise fixed, at its pose from the file
                pose, vel = cp[6 * k:6 * k + 6], cv[6 * k:6 * k + 6]
            arm = r0 @ rotation(pose[3:]).T
            r[idx] = pose[:3] + arm
            w = vel[3:]
            # w x arm for every point of the body at once
            v[idx] = vel[:3] + np.column_stack([w[1] * arm[:, 2] - w[2] * arm[:, 1],
                                                w[2] * arm[:, 0] - w[0] * arm[:, 2],
                                                w[0] * arm[:, 1] - w[1] * arm[:, 0]])
        off = 6 * len(self.coupled_bodies)
        r[self._cp_index] = cp[off:].reshape(-1, 3)
        v[self._cp_index] = cv[off:].reshape(-1, 3)

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
        lstr = np.sqrt(np.einsum("ij,ij->i", d, d))
        lstr += self._pair_fake
        ldstr = np.einsum("ij,ij->i", d, v[1:] - v[:-1])
        ldstr /= lstr
        stretch = lstr - self._pair_l0
        if not self._compression:
            np.maximum(stretch, 0.0, out=stretch)
        tmag = self._pair_ea_l0 * stretch
        tmag += self._pair_ba_l0 * ldstr
        self._pair_tension = tmag
        seg_force = (tmag / lstr)[:, None] * d
        fnet = np.empty_like(r)
        fnet[:-1] = seg_force
        fnet[-1] = 0.0
        fnet[1:] -= seg_force
        # tangents: neighbours for internal nodes, the end segment for end nodes
        t = np.empty_like(r)
        np.subtract(r[2:], r[:-2], out=t[1:-1])
        t[self._tangent_nodes] = d[self._tangent_pairs]
        q = t / np.sqrt(np.einsum("ij,ij->i", t, t))[:, None]
        z = r[:, 2]
        if z.max() < 0.0:  # every node under water: the precomputed full values
            sub_len, a, b = self.n_len, self._a_full, self._b_full
            fnet[:, 2] += self._wz_full
            if self.drag_scale == 1.0:
                cn, ct = self._cn_full, self._ct_full
            else:
                shared = (0.5 * env.rho * self.drag_scale) * sub_len
                cn, ct = self._cdn_d * shared, self._cdt_d * shared
        else:
            # submergence of each segment (surface z = 0): linear in the ends' depth
            z0, z1 = z[self.seg0], z[self.seg1]
            lo, hi = np.minimum(z0, z1), np.maximum(z0, z1)
            frac = np.where(hi <= 0.0, 1.0, np.where(lo >= 0.0, 0.0,
                                                     -lo / np.maximum(hi - lo, 1e-300)))
            seg_sub = self.l0 * frac
            sub_len = 0.5 * (np.where(self._has_left, seg_sub[self._left], 0.0)
                             + np.where(self._has_right, seg_sub[self._right], 0.0))
            vol = sub_len * self.n_area
            fnet[:, 2] -= env.g * (self.n_m - env.rho * vol)
            a = self.n_m + env.rho * vol * self.n_can
            b = env.rho * vol * (self.n_cat - self.n_can)
            shared = (0.5 * env.rho * self.drag_scale) * sub_len
            cn, ct = self._cdn_d * shared, self._cdt_d * shared
        # Morison drag in still water: normal and tangential parts of the node's velocity
        u = np.einsum("ij,ij->i", v, q)
        v_par = u[:, None] * q
        v_perp = v - v_par
        fnet -= (np.sqrt(np.einsum("ij,ij->i", v_perp, v_perp)) * cn)[:, None] * v_perp
        fnet -= (np.abs(u) * ct)[:, None] * v_par
        # seabed
        if self._has_seabed and z.min() < -env.depth:
            pen = -env.depth - z
            fnet[:, 2] += np.where(
                pen > 0, (pen * env.kbot - v[:, 2] * env.cbot) * self.n_d * self.n_len, 0.0)
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
        if self._ck is not None:
            return self._ck.run_checked(self, x, coupled_positions, coupled_velocities,
                                        False).copy()
        rp, vp = self.point_kinematics(x, coupled_positions, coupled_velocities)
        r, v = self._nodes(x, rp, vp)
        fnet, a, b, q = self.node_forces(r, v)
        ii = self.internal
        fi, qi = fnet[ii], q[ii]
        ni = self.n_internal
        out = np.empty(self.n_states)
        out[:3 * ni] = x[3 * ni:6 * ni]
        acc = out[3 * ni:6 * ni].reshape(ni, 3)
        if a is self._a_full:
            qf = np.einsum("ij,ij->i", qi, fi) * self._bab_full_i
            np.subtract(fi, qf[:, None] * qi, out=acc)
            acc *= self._inv_a_full_i[:, None]
        else:
            ai, bi = a[ii], b[ii]
            qf = np.einsum("ij,ij->i", qi, fi)
            np.divide(fi - (bi / (ai + bi) * qf)[:, None] * qi, ai[:, None], out=acc)
        if self.n_free:
            base, nf = 6 * ni, self.n_free
            out[base:base + 3 * nf] = vp[self.free_points].ravel()
            out[base + 3 * nf:base + 6 * nf] = self._free_acceleration(fnet, a, b, q, vp).ravel()
        return out

    def _free_acceleration(self, fnet: Array, a: Array, b: Array, q: Array, vp: Array
                           ) -> Array:
        """Acceleration of the free points, m/s^2, shape (n_free, 3).

        As :meth:`_point_forces` restricted to the free points, with the line ends summed
        onto them by one product with their incidence matrix.
        """
        inc, ends = self._free_inc, self._free_end_nodes
        f = inc @ fnet[ends]
        f[:, 2] += self._free_weight
        vf = vp[self.free_points]
        speed = np.sqrt(np.einsum("ij,ij->i", vf, vf))
        f -= (self._free_drag * self.drag_scale * speed)[:, None] * vf
        qe = q[ends]
        me = (b[ends, None, None] * qe[:, :, None] * qe[:, None, :]).reshape(-1, 9)
        m = (inc @ me).reshape(-1, 3, 3)
        m += (self._free_mass + inc @ a[ends])[:, None, None] * self._eye3
        return np.linalg.solve(m, f[:, :, None])[:, :, 0]

    def derivative_and_evaluate(
        self, x: Array, coupled_positions: Array, coupled_velocities: Array, *,
        points: bool = True,
    ) -> tuple[Array, dict]:
        """:meth:`derivative` and :meth:`evaluate` from one evaluation of the node forces
        (``point_f`` is ``None`` unless ``points`` or there are free points)."""
        if self._ck is not None:
            points = points or bool(self.n_free)
            out = self._ck.run_checked(self, x, coupled_positions, coupled_velocities, points)
            return out.copy(), self._ck.evaluation(self, points)
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
        if self._ck is not None:
            self._ck.run_checked(self, x, coupled_positions, coupled_velocities, True)
            return self._ck.evaluation(self, True)
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
            m = cross(rp[idx] - ref, fp[idx]).sum(axis=0) if idx else np.zeros(3)
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
