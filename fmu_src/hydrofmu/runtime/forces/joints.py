"""Joints: constant linear constraints between bodies or to the ground (``[[joints]]``).

Each joint is a part that declares rows ``G`` of the constraint ``G q = 0`` on the stacked
body DOFs (small motions about each body's reference point); the simulator builds the
constraint basis ``T`` (``q = T q_r``, ``G T = 0``, :mod:`hydrofmu.runtime.simulator.constraints`)
from the rows of all joints and of the bodies' fixed DOFs, so the added mass stays on the left side
(``T^T (M + A) T``). Kinds:

- ``fixed``: every DOF of ``body`` held at equilibrium;
- ``planar``: ``body`` moves in surge, heave and pitch only (sway, roll, yaw held);
- ``prismatic``: ``bodies = [a, b]`` share their rotations and ``a``'s reference point
  moves relative to ``b`` along ``axis`` only (world frame). The relative displacement is
  ``d = x_a - x_b - theta_b x (p_a - p_b)`` with ``p`` the reference points.

Every joint reports ``<joint>.F_constraint[1..6]``: the reaction it applies on its (first)
body, N and N m about the body's reference point. A prismatic joint also has the PTO
input ``<joint>.F_pto`` (N: ``+F_pto axis`` on ``a`` at its reference point, the opposite
on ``b`` at the same point) and the outputs ``<joint>.position`` (m) and
``<joint>.velocity`` (m/s) of ``a`` relative to ``b`` along the axis.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..hydrodata.model import HydroData
from ..parts.part import ALL_INPUTS, FORCE_UNITS, Context, LinearSystem, ModelInfo, Part, Port


def _body_index(config: dict[str, Any], name: str, joint: str) -> int:
    names = [b["name"] for b in config["bodies"]]
    if name not in names:
        raise ConfigError(f"joint '{joint}': no body {name!r}; bodies: {', '.join(names)}",
                          value=name)
    return names.index(name)


def _skew(r: NDArray[np.float64]) -> NDArray[np.float64]:
    """``S(r)`` with ``S(r) x = r x x``."""
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])


class JointPart(Part):
    """Base of the joints: constraint rows, the reaction output, no force."""

    kind = "joint"
    active = False
    #: Rows of the body-local DOFs held (fixed, planar).
    held: tuple[int, ...] = ()

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        o = model.options
        self.name = str(o["name"])
        self.names = list(model.names)
        self.parameters = model.parameters
        self.body_index = [_body_index(model.config, b, self.name) for b in o["bodies"]]
        #: Rows of G q = 0 in the full DOFs, (m, n); set by the subclass.
        self.rows = np.zeros((0, model.n))
        for i in self.held:
            row = np.zeros(model.n)
            row[6 * self.body_index[0] + i] = 1.0
            self.rows = np.vstack([self.rows, row])
        #: Slice of this joint's rows in the simulator's stacked rows (set there).
        self.row_slice = slice(0, 0)

    @classmethod
    def output_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        return [Port(f"{options['name']}.F_constraint[{i + 1}]", FORCE_UNITS[i // 3],
                     ALL_INPUTS) for i in range(6)]

    def constraint_rows(self, pose: NDArray[np.float64] | None = None,
                        velocity: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
        """Rows ``G`` of ``G q = 0``, shape (m, n); a :class:`ConfigError` if the bodies'
        initial pose or velocity (``pose``, ``velocity``, shape (n,): the model's, with
        every joint's :meth:`initial_shift`; default: the ``initial_pose`` and
        ``initial_velocity`` parameters) violates them."""
        p = self.parameters
        given = {"initial_pose": pose, "initial_velocity": velocity}
        for what, x in given.items():
            if x is None:
                x = np.array([float(p[f"{b}.{what}[{i + 1}]"]) for b in self.names
                              for i in range(6)])
            bad = np.abs(self.rows @ x)
            # 1e-9 of the motion: a consistent pose typed with ten digits passes.
            if np.any(bad > 1e-9 * max(1.0, float(np.abs(x).max()))):
                raise ConfigError(
                    f"joint '{self.name}' ({self.kind}): the bodies' {what} violates the "
                    f"joint by {bad.max():.3g} (m, rad); set {what} of "
                    f"{', '.join(self.names[k] for k in self.body_index)} consistently "
                    "(e.g. zero off the joint's free motion; a revolute joint's "
                    "initial_angle places its first body)", value=float(bad.max()))
        return self.rows

    def initial_shift(self) -> NDArray[np.float64]:
        """What the joint adds to the bodies' initial pose, shape (n,): zero here; a
        revolute joint's ``initial_angle``."""
        return np.zeros(self.n)

    def force(self, ctx: Context) -> NDArray[np.float64] | None:
        return None

    def reaction(self, ctx: Context) -> NDArray[np.float64]:
        """Reaction of this joint on its first body, shape (6,), N and N m."""
        lam = ctx.multipliers[self.row_slice]
        k = self.body_index[0]
        return (self.rows.T @ lam)[6 * k : 6 * k + 6]

    def outputs(self, ctx: Context) -> NDArray[np.float64]:
        return self.reaction(ctx)


class FixedJoint(JointPart):
    """A body fixed to the ground."""

    kind = "joint.fixed"
    held = (0, 1, 2, 3, 4, 5)


class PlanarJoint(JointPart):
    """A body in the x-z plane: surge, heave and pitch free."""

    kind = "joint.planar"
    held = (1, 3, 5)


class PrismaticJoint(JointPart):
    """Two bodies sliding along an axis, with a PTO force input."""

    kind = "joint.prismatic"
    active = True
    feedthrough = True
    forcing = True
    input_kind = "constant"  # F times the axis row (geometry fixed at export)

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        o = model.options
        axis = np.asarray(o.get("axis", [0.0, 0.0, 1.0]), dtype=float)
        if axis.shape != (3,) or not np.all(np.isfinite(axis)) or np.linalg.norm(axis) == 0:
            raise ConfigError(f"joint '{self.name}': axis must be 3 finite numbers, not all "
                              f"zero, got {o.get('axis')!r}", value=o.get("axis"))
        u = axis / np.linalg.norm(axis)
        # Two unit vectors normal to the axis.
        trial = np.eye(3)[int(np.argmin(np.abs(u)))]
        e1 = np.cross(u, trial)
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(u, e1)
        a, b = self.body_index
        n = model.n
        d = self._displacement(model.bodies, a, b, n)
        rot = np.zeros((3, n))
        rot[:, 6 * a + 3 : 6 * a + 6] = np.eye(3)
        rot[:, 6 * b + 3 : 6 * b + 6] = -np.eye(3)
        self.rows = np.vstack([rot, e1 @ d, e2 @ d])
        self.normals = (e1, e2)
        #: ``r_a - r_b`` (m).
        self.offset = (np.asarray(model.bodies[a].reference_point, dtype=float)
                       - np.asarray(model.bodies[b].reference_point, dtype=float))
        self.along = u @ d
        self.axis = u

    @staticmethod
    def _displacement(bodies: list[HydroData], a: int, b: int, n: int) -> NDArray[np.float64]:
        """``D`` with ``D q`` the displacement of ``a``'s reference point relative to ``b``,
        (3, n)."""
        r = (np.asarray(bodies[a].reference_point, dtype=float)
             - np.asarray(bodies[b].reference_point, dtype=float))
        d = np.zeros((3, n))
        d[:, 6 * a : 6 * a + 3] = np.eye(3)
        d[:, 6 * b : 6 * b + 3] = -np.eye(3)
        d[:, 6 * b + 3 : 6 * b + 6] = _skew(r)
        return d

    def reaction_stiffness(self, lam: NDArray[np.float64]) -> NDArray[np.float64]:
        """``-d(G(q)^T lam)/dq`` for the joint's multipliers ``lam`` held, shape (n, n)
        (:mod:`hydrofmu.runtime.forces.static_loads`). The force ``f`` normal to the axis
        (on ``a`` at its reference point, ``-f`` on ``b`` there) turns with ``b`` and its
        arm about ``b``'s reference point is ``r_a + x_a - r_b - x_b``; the moment rows
        hold every relative rotation and may keep their direction (no terms)."""
        force = float(lam[3]) * self.normals[0] + float(lam[4]) * self.normals[1]
        s_f = _skew(force)
        a, b = self.body_index
        xa, xb = slice(6 * a, 6 * a + 3), slice(6 * b, 6 * b + 3)
        rb = slice(6 * b + 3, 6 * b + 6)
        k = np.zeros((self.n, self.n))
        k[xa, rb] = s_f
        k[xb, rb] = -s_f
        k[rb, xa] = -s_f
        k[rb, xb] = s_f
        k[rb, rb] = -_skew(self.offset) @ s_f
        return k

    @classmethod
    def relative_motion(cls, bodies: list[HydroData], options: dict[str, Any],
                        index: list[int], n: int) -> NDArray[np.float64]:
        """The row of ``<joint>.position`` (m) in the stacked DOFs, shape (n,)."""
        axis = np.asarray(options.get("axis", [0.0, 0.0, 1.0]), dtype=float)
        return axis / np.linalg.norm(axis) @ cls._displacement(bodies, *index, n)

    @classmethod
    def input_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                    options: dict[str, Any]) -> list[Port]:
        return [Port(f"{options['name']}.F_pto", "N")]

    @classmethod
    def output_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        name = options["name"]
        return [*super().output_ports(bodies, config, options),
                Port(f"{name}.position", "m"), Port(f"{name}.velocity", "m/s")]

    def force(self, ctx: Context) -> NDArray[np.float64]:
        # Generalized force of +F on a and -F on b at a's point: F times d(position)/dq.
        return ctx.u[self.input_slice][0] * self.along

    def linear_system(self) -> LinearSystem:
        return LinearSystem(force_u=self.along[:, None])

    def outputs(self, ctx: Context) -> NDArray[np.float64]:
        return np.concatenate([self.reaction(ctx),
                               [self.along @ ctx.q, self.along @ ctx.v]])


JOINTS: dict[str, type[JointPart]] = {
    "fixed": FixedJoint, "planar": PlanarJoint, "prismatic": PrismaticJoint,
}
