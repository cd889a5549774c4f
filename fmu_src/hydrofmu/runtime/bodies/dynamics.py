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

The kinematics, the turned mass matrices, the velocity terms and the solve are the
compiled kernel's (``body_kernel.c`` through :mod:`~hydrofmu.runtime.bodies.body_kernel`,
the one implementation both FMUs call); this module sums the parts' forces between its
calls. The bodies with small rotations keep ``D = I``, ``M_w = M_b``, ``b = 0``: the linear
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
from .body_kernel import BodyKernel, Poses

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
        The ``rigid_body.large_rotation`` part (its ``kinematics``, their quaternion
        slices placed).
    """

    def __init__(self, *, assembly: Any, mass: Array, part: Part) -> None:
        self.assembly = assembly
        self.bodies = list(part.kinematics)  # type: ignore[attr-defined]
        self.nr = assembly.nr
        self.forcing = [p for p in assembly.parts if p.active and p.kind not in EXCLUDED_KINDS]
        self.stateful = [p for p in assembly.parts if p.n_states]
        #: Whether a body's radiation and damping act in its body axes.
        self.body_frame = any(b.body_frame for b in self.bodies)
        self.framed = {id(p) for p in assembly.parts if p.kind in BODY_FRAME_KINDS} \
            if self.body_frame else set()
        added = np.array(assembly.added_left)
        bodies = self.bodies
        self.kernel = BodyKernel(
            kind=[b.kernel_kind for b in bodies], dof0=[6 * b.index for b in bodies],
            quat=[b.state_slice.start if b.n_states else -1 for b in bodies],
            frame=[int(b.body_frame) for b in bodies], axis=[b.kernel_axis() for b in bodies],
            geometry=np.array([b.geometry() for b in bodies]),
            mass=np.array([mass[b.dofs, b.dofs] for b in bodies]),
            basis=assembly.constraints.basis,
            # the left side without the added mass when it turns with a body-frame body
            lhs0=np.array(assembly.lhs) - (added if self.body_frame else 0.0), added=added)
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
        dynamics = cls(assembly=assembly, mass=mass, part=part)
        part.attach(dynamics.kernel)  # type: ignore[attr-defined]
        return dynamics

    # ------------------------------------------------------------------ kinematics
    def expand_pair(self, y: Array) -> tuple[Array, Array]:
        """The true pose ``q`` (displacement, then roll, pitch, yaw of
        :mod:`~hydrofmu.runtime.bodies.rotations` for the large-rotation bodies) and
        velocity ``[v, omega]`` (world axes) of every body from the state ``y``, shape (n,)
        each."""
        poses = self.poses(y)
        return poses.q, poses.v

    def poses(self, y: Array) -> Poses:
        """The true pose and velocity of every body and each large-rotation body's rotation
        ``R`` and velocity map ``D`` (the kernel's ``hb_poses``) at the state ``y``."""
        q_lin, v_lin = self.assembly.constraints.expand_pair(y)
        return self.kernel.poses(q_lin, v_lin, y)

    # ------------------------------------------------------------------ dynamics
    def frame_context(self, ctx: Context, poses: Poses) -> Context:
        """``ctx`` with the ``radiation_frame = "body"`` bodies' velocities (``v``, ``vn``)
        in their body axes (a second context, refilled)."""
        bctx = self.body_ctx
        for name in Context.__slots__:
            setattr(bctx, name, getattr(ctx, name))
        bctx.v = self.kernel.turn(poses, ctx.v, to_body=True)
        # vn at the step's start, turned at the stage's pose: an approximation of the same
        # order as the parts' own use of vn
        bctx.vn = self.kernel.turn(poses, ctx.vn, to_body=True)
        return bctx

    def part_force(self, part: Part, ctx: Context, bctx: Context | None,
                   poses: Poses) -> Array | None:
        """``part``'s force at ``ctx`` (world axes); a body-frame part evaluated at ``bctx``
        and its force turned back to world axes for the body-frame bodies."""
        if bctx is None or id(part) not in self.framed:
            return part.force(ctx)
        f = part.force(bctx)
        return None if f is None else self.kernel.turn(poses, f, to_body=False)

    def force_sum(self, ctx: Context, poses: Poses) -> Array:
        """The parts' forces summed at ``ctx``, shape (n,), N and N m."""
        total = np.zeros(self.kernel.n)
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
        poses = self.poses(ctx.y)
        bctx = self.frame_context(ctx, poses) if self.framed else None
        for part in self.forcing:
            f = self.part_force(part, ctx, bctx, poses)
            if f is None:
                continue
            total += f
            if part.channel is not None:
                channels[rows[part.channel]] += f
        _, acc, f_c = self.kernel.solve(poses, total)
        if asm.multiplier_map is not None:
            ctx.multipliers = asm.multiplier_map @ f_c
        added = self.kernel.turned_added_mass(poses) if self.body_frame else asm.added_left
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
        poses = dyn.poses(y)
        ctx.q, ctx.v = poses.q, poses.v
        vr_dot, _, _ = dyn.kernel.solve(poses, dyn.force_sum(ctx, poses))
        out = np.empty_like(y)
        out[:nr] = y[nr: 2 * nr]
        out[nr: 2 * nr] = vr_dot
        bctx = dyn.frame_context(ctx, poses) if dyn.framed else ctx
        for part in dyn.stateful:  # a state-space radiation in body axes too
            out[part.state_slice] = part.derivative(bctx if id(part) in dyn.framed else ctx)
        return out
