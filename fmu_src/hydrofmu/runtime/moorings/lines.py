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

import numpy as np
from numpy.typing import NDArray

from .frames import cross
from .kernel_loader import select_kernel
from .line_kernel import LineKernel
from .line_layout import Environment, line_arrays, water_velocity
from .moordyn_model import MoorDynModel
from .point_motion import point_kinematics

Array = NDArray[np.float64]

__all__ = ["Environment", "LineSystem"]


class LineSystem:
    """Lines, points and coupled bodies of a MoorDyn file, as one first-order system.

    The layout (nodes, segments, constants) is the frozen record :attr:`arrays`
    (:class:`~.line_layout.LineArrays`), the points' motion
    :func:`~.point_motion.point_kinematics`; this class adds the forces on the nodes, the
    state derivative and the outputs. The derivative is written for
    few numpy calls on small arrays (all the lines' nodes in one set of arrays, no Python
    loop over lines or segments, the fully submerged coefficients precomputed): at 20-60
    nodes the cost of a call dominates.

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

    Attributes
    ----------
    model
        The file.
    arrays
        Its constant arrays (read-only).
    drag_scale
        Factor on every drag force (1; MoorDyn's IC stage scales it by ``CdScaleIC``).
    compression
        Whether the segments resist compression too (False, as MoorDyn; the equilibrium
        solver's first stage sets it).
    compiled
        The compiled kernel bound to these lines, or None (numpy runs).
    kernel
        The kernel that evaluates the derivative: ``"c"`` or ``"numpy"``.
    """

    def __init__(self, *, model: MoorDynModel, kernel: str = "auto") -> None:
        self.model = model
        self.arrays = la = line_arrays(model)
        self.drag_scale = 1.0
        self.compression = False
        env = la.env
        self._tangent_nodes = np.concatenate([la.end_a, la.end_b])
        self._tangent_pairs = np.concatenate([la.end_a, la.end_b - 1])
        ii = la.internal
        self._bab_full_i = (la.b_full / (la.a_full + la.b_full))[ii]
        self._inv_a_full_i = 1.0 / la.a_full[ii]
        # left/right segment of each node (for submergence)
        self._has_left = la.node_left >= 0
        self._has_right = la.node_right >= 0
        self._left = np.where(self._has_left, la.node_left, 0)
        self._right = np.where(self._has_right, la.node_right, 0)
        # free points: the line ends on them (incidence, shape (n_free, n_ends_on_free)),
        # their submerged weight (N), drag factor (kg/m) and own mass with added mass (kg)
        on_free = np.isin(la.end_points, la.free_points)
        self._free_end_nodes = la.end_nodes[on_free]
        self._free_inc = (la.end_points[on_free][None, :]
                          == la.free_points[:, None]).astype(float)
        fp = la.free_points
        self._free_weight = env.g * (la.point_volume[fp] * env.rho - la.point_mass[fp])
        self._free_drag = 0.5 * env.rho * la.point_cda[fp]
        self._free_mass = la.point_mass[fp] + env.rho * la.point_volume[fp] * la.point_ca[fp]
        self._eye3 = np.eye(3)
        self._pair_tension = np.zeros(max(la.n_nodes - 1, 0))
        self.compiled: LineKernel | None = select_kernel(la, kernel)
        self.kernel = "numpy" if self.compiled is None else "c"

    @property
    def n_states(self) -> int:
        """Size of the state vector."""
        return self.arrays.n_states

    @property
    def n_coupled_dof(self) -> int:
        """Coupled coordinates (6 per coupled body, then 3 per coupled point)."""
        return self.arrays.n_coupled_dof

    # -- kinematics of the points -------------------------------------------------------------
    def point_kinematics(
        self, x: Array, coupled_positions: Array, coupled_velocities: Array
    ) -> tuple[Array, Array]:
        """Positions and velocities of every point, m and m/s, shape (n_points, 3) each
        (:func:`~.point_motion.point_kinematics`)."""
        return point_kinematics(self.arrays, x, coupled_positions, coupled_velocities)

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
        la = self.arrays
        env = la.env
        # node pairs (p, p+1): the segments, and between two lines a pair with no stiffness
        d = r[1:] - r[:-1]
        lstr = np.sqrt(np.einsum("ij,ij->i", d, d))
        lstr += la.pair_fake
        ldstr = np.einsum("ij,ij->i", d, v[1:] - v[:-1])
        ldstr /= lstr
        stretch = lstr - la.pair_l0
        if not self.compression:
            np.maximum(stretch, 0.0, out=stretch)
        tmag = la.pair_ea_l0 * stretch
        tmag += la.pair_ba_l0 * ldstr
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
            sub_len, a, b = la.n_len, la.a_full, la.b_full
            fnet[:, 2] += la.wz_full
            if self.drag_scale == 1.0:
                cn, ct = la.cn_full, la.ct_full
            else:
                shared = (0.5 * env.rho * self.drag_scale) * sub_len
                cn, ct = la.cdn_d * shared, la.cdt_d * shared
        else:
            # submergence of each segment (surface z = 0): linear in the ends' depth
            z0, z1 = z[la.seg0], z[la.seg1]
            lo, hi = np.minimum(z0, z1), np.maximum(z0, z1)
            frac = np.where(hi <= 0.0, 1.0, np.where(lo >= 0.0, 0.0,
                                                     -lo / np.maximum(hi - lo, 1e-300)))
            seg_sub = la.l0 * frac
            sub_len = 0.5 * (np.where(self._has_left, seg_sub[self._left], 0.0)
                             + np.where(self._has_right, seg_sub[self._right], 0.0))
            vol = sub_len * la.n_area
            fnet[:, 2] -= env.g * (la.n_m - env.rho * vol)
            a = la.n_m + env.rho * vol * la.n_can
            b = env.rho * vol * (la.n_cat - la.n_can)
            shared = (0.5 * env.rho * self.drag_scale) * sub_len
            cn, ct = la.cdn_d * shared, la.cdt_d * shared
        # Morison drag: normal and tangential parts of the node's velocity relative to the
        # water (still, or the steady current)
        water = water_velocity(la, z)
        vr = v if water is None else v - water
        u = np.einsum("ij,ij->i", vr, q)
        v_par = u[:, None] * q
        v_perp = vr - v_par
        fnet -= (np.sqrt(np.einsum("ij,ij->i", v_perp, v_perp)) * cn)[:, None] * v_perp
        fnet -= (np.abs(u) * ct)[:, None] * v_par
        # seabed
        if la.has_seabed and z.min() < -env.depth:
            pen = -env.depth - z
            fnet[:, 2] += np.where(
                pen > 0, (pen * env.kbot - v[:, 2] * env.cbot) * la.n_d * la.n_len, 0.0)
        return fnet, a, b, q

    def _nodes(self, x: Array, r_points: Array, v_points: Array) -> tuple[Array, Array]:
        la = self.arrays
        ni = la.n_internal
        r = np.empty((la.n_nodes, 3))
        v = np.empty((la.n_nodes, 3))
        r[la.internal] = x[:3 * ni].reshape(ni, 3)
        v[la.internal] = x[3 * ni:6 * ni].reshape(ni, 3)
        r[la.end_nodes] = r_points[la.end_points]
        v[la.end_nodes] = v_points[la.end_points]
        return r, v

    def _point_forces(self, fnet: Array, a: Array, b: Array, q: Array, vp: Array,
                      rp: Array) -> tuple[Array, Array]:
        """Net force (N) and mass matrix (kg) of every point, shapes (n_points, 3[, 3])."""
        la = self.arrays
        env = la.env
        f = np.zeros((la.n_points, 3))
        f[:, 2] = env.g * (la.point_volume * env.rho - la.point_mass)
        np.add.at(f, la.end_points, fnet[la.end_nodes])
        water = water_velocity(la, rp[:, 2])
        vr = vp if water is None else vp - water
        speed = np.sqrt(np.einsum("ij,ij->i", vr, vr))
        f -= (0.5 * env.rho * la.point_cda * speed * self.drag_scale)[:, None] * vr
        m = np.zeros((la.n_points, 3, 3))
        eye = np.eye(3)
        m += ((la.point_mass + env.rho * la.point_volume * la.point_ca)[:, None, None]
              * eye)
        qe = q[la.end_nodes]
        me = (a[la.end_nodes, None, None] * eye
              + b[la.end_nodes, None, None] * qe[:, :, None] * qe[:, None, :])
        np.add.at(m, la.end_points, me)
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
        if self.compiled is not None:
            return self.compiled.run_checked(x, coupled_positions, coupled_velocities,
                                             self.drag_scale, self.compression, False).copy()
        la = self.arrays
        rp, vp = self.point_kinematics(x, coupled_positions, coupled_velocities)
        r, v = self._nodes(x, rp, vp)
        fnet, a, b, q = self.node_forces(r, v)
        ii = la.internal
        fi, qi = fnet[ii], q[ii]
        ni = la.n_internal
        out = np.empty(la.n_states)
        out[:3 * ni] = x[3 * ni:6 * ni]
        acc = out[3 * ni:6 * ni].reshape(ni, 3)
        if a is la.a_full:
            qf = np.einsum("ij,ij->i", qi, fi) * self._bab_full_i
            np.subtract(fi, qf[:, None] * qi, out=acc)
            acc *= self._inv_a_full_i[:, None]
        else:
            ai, bi = a[ii], b[ii]
            qf = np.einsum("ij,ij->i", qi, fi)
            np.divide(fi - (bi / (ai + bi) * qf)[:, None] * qi, ai[:, None], out=acc)
        if la.n_free:
            base, nf = 6 * ni, la.n_free
            out[base:base + 3 * nf] = vp[la.free_points].ravel()
            acc = self._free_acceleration(fnet, a, b, q, vp, rp)
            out[base + 3 * nf:base + 6 * nf] = acc.ravel()
        return out

    def _free_acceleration(self, fnet: Array, a: Array, b: Array, q: Array, vp: Array,
                           rp: Array) -> Array:
        """Acceleration of the free points, m/s^2, shape (n_free, 3).

        As :meth:`_point_forces` restricted to the free points, with the line ends summed
        onto them by one product with their incidence matrix.
        """
        la = self.arrays
        inc, ends = self._free_inc, self._free_end_nodes
        f = inc @ fnet[ends]
        f[:, 2] += self._free_weight
        vf = vp[la.free_points]
        water = water_velocity(la, rp[la.free_points, 2])
        if water is not None:
            vf = vf - water
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
        la = self.arrays
        if self.compiled is not None:
            points = points or bool(la.n_free)
            out = self.compiled.run_checked(x, coupled_positions, coupled_velocities,
                                            self.drag_scale, self.compression, points)
            return out.copy(), self.compiled.evaluation(points)
        rp, vp = self.point_kinematics(x, coupled_positions, coupled_velocities)
        r, v = self._nodes(x, rp, vp)
        fnet, a, b, q = self.node_forces(r, v)
        ii = la.internal
        fi, ai, bi, qi = fnet[ii], a[ii], b[ii], q[ii]
        # (a I + b q q')^-1 f = (f - b/(a+b) (q.f) q) / a
        qf = np.einsum("ij,ij->i", qi, fi)
        acc = (fi - (bi / (ai + bi) * qf)[:, None] * qi) / ai[:, None]
        ni = la.n_internal
        out = np.empty(la.n_states)
        out[:3 * ni] = x[3 * ni:6 * ni]
        out[3 * ni:6 * ni] = acc.ravel()
        seg_tension = self._pair_tension[la.seg0]
        fp = None
        if points or la.n_free:
            fp, mp = self._point_forces(fnet, a, b, q, vp, rp)
        if la.n_free:
            fr = la.free_points
            accp = np.linalg.solve(mp[fr], fp[fr][:, :, None])[:, :, 0]
            base, nf = 6 * ni, la.n_free
            out[base:base + 3 * nf] = vp[fr].ravel()
            out[base + 3 * nf:base + 6 * nf] = accp.ravel()
        return out, {"r": r, "v": v, "fnet": fnet, "point_r": rp, "point_v": vp,
                     "point_f": fp, "seg_tension": seg_tension}

    def evaluate(self, x: Array, coupled_positions: Array, coupled_velocities: Array) -> dict:
        """Everything an output needs at state ``x``: nodes, node and point forces."""
        if self.compiled is not None:
            self.compiled.run_checked(x, coupled_positions, coupled_velocities,
                                      self.drag_scale, self.compression, True)
            return self.compiled.evaluation(True)
        la = self.arrays
        rp, vp = self.point_kinematics(x, coupled_positions, coupled_velocities)
        r, v = self._nodes(x, rp, vp)
        fnet, a, b, q = self.node_forces(r, v)
        fp, _ = self._point_forces(fnet, a, b, q, vp, rp)
        return {"r": r, "v": v, "fnet": fnet, "point_r": rp, "point_v": vp, "point_f": fp,
                "seg_tension": self._pair_tension[la.seg0]}

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
        la = self.arrays
        out = np.empty(la.n_coupled_dof)
        fp, rp = ev["point_f"], ev["point_r"]
        for n, bi in enumerate(la.coupled_bodies):
            bid = self.model.bodies[bi].id
            ref = cp[6 * n:6 * n + 3]
            idx = [i for i, pb in enumerate(la.point_body) if pb == bid]
            f = fp[idx].sum(axis=0) if idx else np.zeros(3)
            m = cross(rp[idx] - ref, fp[idx]).sum(axis=0) if idx else np.zeros(3)
            out[6 * n:6 * n + 6] = np.concatenate([f, m])
        off = 6 * len(la.coupled_bodies)
        for n, pi in enumerate(la.coupled_points):
            out[off + 3 * n:off + 3 * n + 3] = fp[pi]
        return out

    def tensions(self, x: Array, coupled_positions: Array, coupled_velocities: Array
                 ) -> tuple[Array, Array]:
        """Fairlead (end B) and anchor (end A) tension of every line, N, shape (n_lines,) each.

        As MoorDyn's ``FairTen``/``AnchTen``: the magnitude of the net force on the end node.
        """
        ev = self.evaluate(x, coupled_positions, coupled_velocities)
        f, la = ev["fnet"], self.arrays
        return (np.linalg.norm(f[la.end_b], axis=1), np.linalg.norm(f[la.end_a], axis=1))
