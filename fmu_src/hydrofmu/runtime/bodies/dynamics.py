"""The Newton-Euler equations of a model with large-rotation bodies, in the simulator's
reduced coordinates.

Every body's generalized velocity is ``[v, omega]``: the velocity of its reference point
and its angular velocity, both in **world** axes (WEC-Sim's convention: the linear
radiation, excitation, damping and PTO forces are written in world axes about the
reference point, and the added mass ``A_inf`` acts on the world-axes acceleration). A body
with ``rotations = "large"`` (:mod:`hydrofmu.runtime.forces.large_rotation`) has the true
velocity ``v = D(y) T v_r`` (:mod:`~hydrofmu.runtime.bodies.kinematics`), so with
``J = D T`` the equations of motion in the reduced coordinates are (Kane's)::

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
from .rotations import cross

Array = NDArray[np.float64]

#: Parts left out of a model with large-rotation bodies (module docstring).
EXCLUDED_KINDS: tuple[str, ...] = ("joint.static_load",)
#: Parts that see a ``radiation_frame = "body"`` body's velocity in its body axes, their
#: force turned back to world axes (module docstring).
BODY_FRAME_KINDS: tuple[str, ...] = ("radiation", "viscous")
#: Moorings that read a body's pose as Euler angles of their own convention (refused on a
#: body turning about more than one axis).
ANGLE_MOORINGS: tuple[str, ...] = ("mooring.catenary", "mooring.moordyn")
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
        self.nr = assembly.nr
        self.body_mass = [np.array(mass[b.dofs, b.dofs]) for b in self.bodies]
        self.forcing = [p for p in assembly.parts if p.active and p.kind not in EXCLUDED_KINDS]
        self.stateful = [p for p in assembly.parts if p.n_states]
        #: The bodies whose radiation and damping act in body axes.
        self.body_frame = [b for b in self.bodies if b.body_frame]
        self.framed = {id(p) for p in assembly.parts if p.kind in BODY_FRAME_KINDS} \
            if self.body_frame else set()
        self.added_left = np.array(assembly.added_left)
        # The left side without the added mass (turned with the body-frame bodies).
        self.lhs = np.array(assembly.lhs) - (self.added_left if self.body_frame else 0.0)
        self.body_ctx = Context()

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
        framed = [b.name for b in part.kinematics if b.body_frame]  # type: ignore[attr-defined]
        memory = [p.kind for p in assembly.parts if p.kind in BODY_FRAME_KINDS
                  and getattr(p, "method", "") == "convolution"]
        if framed and memory:
            raise ConfigError(
                f"bodies {framed} have radiation_frame = \"body\", which the convolution "
                "radiation's memory (committed in world axes) cannot follow; use "
                "radiation.method = \"constant\" or \"state_space\", or radiation_frame = "
                "\"world\"", value="convolution")
        for p in assembly.parts:
            turning = [b.name for b in part.kinematics  # type: ignore[attr-defined]
                       if not b.single_axis and np.any(p.dofs[b.dofs])]
            if p.kind in ANGLE_MOORINGS and turning:
                raise ConfigError(
                    f"{p.kind} on bodies {turning} with rotations = \"large\" about more than "
                    "one axis: the lines take the pose as MoorDyn's x-y'-z'' angles, the body "
                    "reports z-y'-x''; use rotations = \"small\", a rotation about one axis, "
                    "or a linear mooring", value=p.kind)
        if partition is not None:
            raise ConfigError("local time steps (a part with its own stable step) are not "
                              "stepped with rotations = \"large\"; use one step for the whole "
                              "model (remove the part's own step)", value="local steps")
        part.place_states()  # type: ignore[attr-defined]
        return cls(assembly=assembly, mass=mass, part=part)

    # ------------------------------------------------------------------ kinematics
    def expand_pair(self, y: Array) -> tuple[Array, Array]:
        """The true pose ``q`` (displacement, then roll, pitch, yaw of
        :mod:`~hydrofmu.runtime.bodies.rotations` for the large-rotation bodies) and
        velocity ``[v, omega]`` (world axes) of every body from the state ``y``, shape (n,)
        each."""
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
        if self.body_frame:
            lhs += self.turned_added_mass(poses)
        bias = np.zeros(lhs.shape[0])
        kappa = np.zeros(lhs.shape[0])
        for b, mb, (rot, d) in zip(self.bodies, self.body_mass, poses, strict=True):
            sl = b.dofs
            jac[sl] = d @ self.basis[sl]
            r6 = _turn(rot)
            lhs[sl, sl] += r6 @ mb @ r6.T - mb
            s = mb[3:, :3]  # m S(c)
            mc = rot @ np.array([s[2, 1], s[0, 2], s[1, 0]])
            w = v[sl][3:]
            bias[sl] = np.concatenate([cross(w, cross(w, mc)),
                                       cross(w, rot @ (mb[3:, 3:] @ (rot.T @ w)))])
            k = b.velocity_product(v[sl], rot)
            if k is not None:
                kappa[sl] = k
        rhs = jac.T @ (total - bias - lhs @ kappa)
        vr_dot = np.linalg.solve(jac.T @ lhs @ jac, rhs)
        acc = jac @ vr_dot + kappa
        return vr_dot, acc, lhs @ acc + bias - total

    def turned_added_mass(self, poses: list[tuple[Array, Array]]) -> Array:
        """The left side's added mass with the ``radiation_frame = "body"`` bodies' rows and
        columns turned with them, ``Q A Q^T``, shape (n, n)."""
        q = np.eye(self.lhs.shape[0])
        for b, (rot, _) in zip(self.bodies, poses, strict=True):
            if b.body_frame:
                q[b.dofs, b.dofs] = _turn(rot)
        return q @ self.added_left @ q.T

    def frame_context(self, ctx: Context, poses: list[tuple[Array, Array]]) -> Context:
        """``ctx`` with the ``radiation_frame = "body"`` bodies' velocities (``v``, ``vn``)
        in their body axes (a second context, refilled)."""
        bctx = self.body_ctx
        for name in Context.__slots__:
            setattr(bctx, name, getattr(ctx, name))
        bctx.v, bctx.vn = ctx.v.copy(), ctx.vn.copy()
        for b, (rot, _) in zip(self.bodies, poses, strict=True):
            if b.body_frame:
                r6t = _turn(rot).T
                bctx.v[b.dofs] = r6t @ ctx.v[b.dofs]
                bctx.vn[b.dofs] = r6t @ ctx.vn[b.dofs]  # at the step's start: an
                # approximation of the same order as the parts' own use of vn
        return bctx

    def part_force(self, part: Part, ctx: Context, bctx: Context | None,
                   poses: list[tuple[Array, Array]]) -> Array | None:
        """``part``'s force at ``ctx`` (world axes); a body-frame part evaluated at ``bctx``
        and its force turned back to world axes for the body-frame bodies."""
        if bctx is None or id(part) not in self.framed:
            return part.force(ctx)
        f = part.force(bctx)
        if f is None:
            return None
        f = f.copy()
        for b, (rot, _) in zip(self.bodies, poses, strict=True):
            if b.body_frame:
                f[b.dofs] = _turn(rot) @ f[b.dofs]
        return f

    def force_sum(self, ctx: Context, poses: list[tuple[Array, Array]]) -> Array:
        """The parts' forces summed at ``ctx``, shape (n,), N and N m."""
        total = np.zeros(self.lhs.shape[0])
        bctx = self.frame_context(ctx, poses) if self.framed else None
        for part in self.forcing:
            f = self.part_force(part, ctx, bctx, poses)
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
        poses = self.poses(ctx.y)[2]
        bctx = self.frame_context(ctx, poses) if self.framed else None
        for part in self.forcing:
            f = self.part_force(part, ctx, bctx, poses)
            if f is None:
                continue
            total += f
            if part.channel is not None:
                channels[rows[part.channel]] += f
        _, acc, f_c = self.solve(poses, ctx.v, total)
        if asm.multiplier_map is not None:
            ctx.multipliers = asm.multiplier_map @ f_c
        added = self.turned_added_mass(poses) if self.body_frame else self.added_left
        out = np.empty(asm.n_outputs)
        body_outputs(ctx.q, ctx.v, acc, -added @ acc, f_c, channels, out)
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
        vr_dot, _, _ = dyn.solve(poses, ctx.v, dyn.force_sum(ctx, poses))
        out = np.empty_like(y)
        out[:nr] = y[nr: 2 * nr]
        out[nr: 2 * nr] = vr_dot
        bctx = dyn.frame_context(ctx, poses) if dyn.framed else ctx
        for part in dyn.stateful:  # a state-space radiation in body axes too
            out[part.state_slice] = part.derivative(bctx if id(part) in dyn.framed else ctx)
        return out


def _turn(rot: Array) -> Array:
    """``diag(R, R)``, shape (6, 6)."""
    r6 = np.zeros((6, 6))
    r6[:3, :3] = r6[3:, 3:] = rot
    return r6
