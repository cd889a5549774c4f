"""The Newton-Euler equations of a model with large-rotation bodies, in the simulator's
reduced coordinates.

Every body's generalized velocity is ``[v, omega]``: the velocity of its reference point
and its angular velocity, both in **world** axes (WEC-Sim's convention: the linear
radiation, excitation, damping and PTO forces are written in world axes about the
reference point, and the added mass ``A_inf`` acts on the world-axes acceleration). A body
with ``rotations = "large"`` (:mod:`hydrofmu.runtime.forces.large_rotation`) has the true
velocity ``v = D(y) T v_r`` (:mod:`.kinematics`), so with ``J = D T`` the equations of
motion in the reduced coordinates are (Kane's)::

    J^T L(R) J v_r' = J^T (F - b(R, omega) - L(R) kappa),    L(R) = M_w(R) + A,

- ``M_w(R) = blockdiag(R, R) M_b blockdiag(R, R)^T`` the body's rigid mass matrix about
  its reference point turned to world axes (``M_b`` in body axes, constant);
- ``b = [omega x (omega x m c_w); omega x I_w omega]`` the velocity terms of the
  Newton-Euler equations about the reference point (``c_w = R c`` the centre of gravity,
  ``I_w = R I R^T`` the inertia about the reference point): the gyroscopic moment;
- ``kappa = D' q'`` the velocity-product acceleration of a hinged body's reference point
  (``omega x (omega x arm)``);
- ``A`` the added mass on the left side, constant in world axes.

The bodies with small rotations keep ``D = I``, ``M_w = M_b``, ``b = 0``: the linear
model's equations exactly. The constraint force reported (``F_constraint``) is
``L a + b - F``. Left out: the joints' static-load stiffness (``joint.static_load``, the
small-rotation model's linearisation of a reaction's turning arm: the large-rotation
kinematics turns the arms exactly); in a model with a large-rotation body that term is off
for every joint. Refused: the lagged or split added mass (``added_mass.method =
"implicit"`` only) and the local time steps.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..parts.part import Context, Part
from ..schemes.right_hand_side import RightHandSide

Array = NDArray[np.float64]

#: Parts left out of a model with large-rotation bodies (module docstring).
EXCLUDED_KINDS: tuple[str, ...] = ("joint.static_load",)
#: The part that holds the large-rotation bodies (forces/large_rotation.py).
PART_KIND = "rigid_body.large_rotation"


class LargeRotationDynamics:
    """The equations of motion of a model with large-rotation bodies (module docstring).

    Parameters
    ----------
    assembly
        The simulator's :class:`~hydrofmu.runtime.simulator.assembly.Assembly`.
    mass
        The bodies' stacked rigid mass matrices about their reference points, body axes,
        shape (n, n).
    part
        The ``rigid_body.large_rotation`` part (its ``kinematics``).
    """

    def __init__(self, *, assembly: Any, mass: Array, part: Part) -> None:
        self.assembly = assembly
        self.bodies = list(part.kinematics)  # type: ignore[attr-defined]
        self.basis = assembly.constraints.basis
        self.lhs = np.array(assembly.lhs)
        self.nr = assembly.nr
        self.body_mass = [np.array(mass[b.dofs, b.dofs]) for b in self.bodies]
        self.forcing = [p for p in assembly.parts if p.active and p.kind not in EXCLUDED_KINDS]
        self.stateful = [p for p in assembly.parts if p.n_states]

    @classmethod
    def build(cls, assembly: Any, mass: Array, method: str,
              partition: Any) -> LargeRotationDynamics | None:
        """The dynamics of a model with large-rotation bodies, or ``None`` when it has none;
        ``method`` the added-mass treatment, ``partition`` the local-time-step partition
        (both refused but ``"implicit"`` and ``None``, :class:`ConfigError`)."""
        part = next((p for p in assembly.parts if p.kind == PART_KIND), None)
        if part is None or not part.kinematics:  # type: ignore[attr-defined]
            return None
        if assembly.lagged or method != "implicit":
            raise ConfigError(
                f"added_mass.method = {method!r} with rotations = \"large\": the added mass "
                "acts on the accelerations of the turning bodies through the left side only; "
                "use added_mass.method = \"implicit\"", value=method)
        if partition is not None:
            raise ConfigError("local time steps (a part with its own stable step) are not "
                              "stepped with rotations = \"large\"; use one step for the whole "
                              "model (remove the part's own step)", value="local steps")
        part.place_states()  # type: ignore[attr-defined]
        return cls(assembly=assembly, mass=mass, part=part)

    # ------------------------------------------------------------------ kinematics
    def expand_pair(self, y: Array) -> tuple[Array, Array]:
        """The true pose ``q`` (displacement, then roll, pitch, yaw of
        :mod:`.rotations` for the large-rotation bodies) and velocity ``[v, omega]``
        (world axes) of every body from the state ``y``, shape (n,) each."""
        q, v, _ = self.poses(y)
        return q, v

    def poses(self, y: Array) -> tuple[Array, Array, list[tuple[Array, Array]]]:
        """:meth:`expand_pair`'s ``(q, v)`` and each large-rotation body's rotation ``R`` and
        velocity map ``D`` (3 x 3, 6 x 6)."""
        q_lin, v_lin = self.assembly.constraints.expand_pair(y)
        q, v = q_lin.copy(), v_lin.copy()
        poses = []
        for b in self.bodies:
            sl = b.dofs
            rot = b.rotation(q_lin[sl], y)
            q[sl] = np.concatenate([b.displacement(q_lin[sl], rot), b.euler(q_lin[sl], rot)])
            d = b.velocity_map(rot)
            v[sl] = d @ v_lin[sl]
            poses.append((rot, d))
        return q, v, poses

    # ------------------------------------------------------------------ dynamics
    def solve(self, poses: list[tuple[Array, Array]], v: Array,
              total: Array) -> tuple[Array, Array, Array]:
        """``(v_r', a, F_c)`` at the bodies' ``poses`` (of :meth:`poses`) and true
        velocity ``v`` (n,) under the force sum ``total`` (n,): the reduced and the full
        acceleration (world axes) and the constraint force."""
        jac = self.basis.copy()
        lhs = self.lhs.copy()
        bias = np.zeros(lhs.shape[0])
        kappa = np.zeros(lhs.shape[0])
        for b, mb, (rot, d) in zip(self.bodies, self.body_mass, poses, strict=True):
            sl = b.dofs
            jac[sl] = d @ self.basis[sl]
            r6 = np.zeros((6, 6))
            r6[:3, :3] = r6[3:, 3:] = rot
            lhs[sl, sl] += r6 @ mb @ r6.T - mb
            s = mb[3:, :3]  # m S(c)
            mc = rot @ np.array([s[2, 1], s[0, 2], s[1, 0]])
            w = v[sl][3:]
            bias[sl] = np.concatenate([np.cross(w, np.cross(w, mc)),
                                       np.cross(w, rot @ (mb[3:, 3:] @ (rot.T @ w)))])
            k = b.velocity_product(v[sl], rot)
            if k is not None:
                kappa[sl] = k
        rhs = jac.T @ (total - bias - lhs @ kappa)
        vr_dot = np.linalg.solve(jac.T @ lhs @ jac, rhs)
        acc = jac @ vr_dot + kappa
        return vr_dot, acc, lhs @ acc + bias - total

    def force_sum(self, ctx: Context) -> Array:
        """The parts' forces summed at ``ctx``, shape (n,), N and N m."""
        total = np.zeros(self.lhs.shape[0])
        for part in self.forcing:
            f = part.force(ctx)
            if f is not None:
                total += f
        return total

    def rhs(self, ctx: Context, y_n: Array, t_grid: float) -> LargeRotationRHS:
        """``f(t, y)`` for the internal step from ``y_n`` (``ctx.t0``, ``ctx.sn``,
        ``ctx.u`` set; ``t_grid`` the newest history time, s)."""
        ctx.vn = self.expand_pair(y_n)[1]
        return LargeRotationRHS(self, ctx, t_grid)

    def outputs(self, ctx: Context, body_outputs: Callable[..., None]) -> Array:
        """All outputs at the point of ``ctx`` (filled with the true pose), shape (n_out,)
        (as :func:`hydrofmu.runtime.simulator.outputs.general_outputs`; ``body_outputs``
        :func:`hydrofmu.runtime.simulator.layout.body_outputs`, which places them)."""
        asm = self.assembly
        rows = asm.channel_rows
        channels = np.zeros((len(rows), asm.n))
        total = np.zeros(asm.n)
        for part in self.forcing:
            f = part.force(ctx)
            if f is None:
                continue
            total += f
            if part.channel is not None:
                channels[rows[part.channel]] += f
        _, acc, f_c = self.solve(self.poses(ctx.y)[2], ctx.v, total)
        if asm.multiplier_map is not None:
            ctx.multipliers = asm.multiplier_map @ f_c
        out = np.empty(asm.n_outputs)
        body_outputs(ctx.q, ctx.v, acc, -asm.added_left @ acc, f_c, channels, out)
        for part in asm.parts:
            if part.output_slice.stop > part.output_slice.start:
                out[part.output_slice] = part.outputs(ctx)
        return out


class LargeRotationRHS(RightHandSide):
    """``y' = f(t, y)`` of a model with large-rotation bodies for one internal step
    (:meth:`LargeRotationDynamics.rhs` builds it)."""

    def __init__(self, dynamics: LargeRotationDynamics, ctx: Context, t_grid: float) -> None:
        self.dynamics, self.ctx, self.t_grid = dynamics, ctx, t_grid

    def __call__(self, t: float, y: Array) -> Array:
        dyn, ctx = self.dynamics, self.ctx
        nr = dyn.nr
        ctx.t, ctx.s, ctx.y = t, t - self.t_grid, y
        ctx.q, ctx.v, poses = dyn.poses(y)
        vr_dot, _, _ = dyn.solve(poses, ctx.v, dyn.force_sum(ctx))
        out = np.empty_like(y)
        out[:nr] = y[nr: 2 * nr]
        out[nr: 2 * nr] = vr_dot
        for part in dyn.stateful:
            out[part.state_slice] = part.derivative(ctx)
        return out
