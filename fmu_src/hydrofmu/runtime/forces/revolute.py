"""Revolute joints (``[[joints]] kind = "revolute"``): a hinge between two bodies, or between
a body and the fixed world, with a torque input.

Configuration::

    [[joints]]
    name = "hinge"
    kind = "revolute"
    bodies = ["flap", "base"]   # or body = "flap": hinged on the fixed world
    axis = [0.0, 1.0, 0.0]      # hinge axis (world frame), normalised
    point = [0.0, 0.0, -8.9]    # a point of the axis, m, in the frame of the bodies'
                                # reference points (HydroData.reference_point)
    initial_angle = 0.0         # rad, first body relative to the second, about the axis
    locked = false              # true: the angle is held too (the two bodies move as one)

Small rotations about each body's reference point ``r``: the displacement of a point ``s``
of body ``k`` is ``x_k + theta_k x (s - r_k)``. The joint holds (``G q = 0``, 5 rows)

- the rotation of ``a`` relative to ``b`` normal to the axis: ``e_i . (theta_a - theta_b) = 0``
  for the two unit vectors ``e_1``, ``e_2`` normal to the axis;
- the hinge point, as a point of ``a`` and of ``b``, together:
  ``x_a + theta_a x (p - r_a) - x_b - theta_b x (p - r_b) = 0``.

With ``locked = true`` a sixth row holds the angle ``u . (theta_a - theta_b) = 0`` as
well: the hinge is welded (a decay test with the flaps locked), with its outputs and
reaction kept; ``initial_angle`` must then be 0.

The joint angle is ``u . (theta_a - theta_b)`` (output ``<joint>.angle``, rad; its rate
``<joint>.angular_velocity``, rad/s). The input ``<joint>.T_pto`` (N m) is a torque ``+T u``
on ``a`` and ``-T u`` on ``b``: its generalized force is ``T`` times the gradient of the
angle. ``<joint>.F_constraint[1..6]`` is the reaction on ``a`` about its reference point.
The fixed FMU parameter ``<joint>.initial_angle`` rotates ``a`` about the hinge from the
bodies' ``initial_pose``: ``theta_a += angle u``, ``x_a += angle u x (r_a - p)``
(:meth:`RevoluteJoint.initial_shift`, small-rotation kinematics).

**Static loads about the hinge.** The linear model writes every force about the body's
reference point. A hinge that carries a load at rest (a body's buoyancy minus weight at its
reference point, away from the hinge) has a reaction whose arm turns with the bodies: the
stiffness :meth:`RevoluteJoint.reaction_stiffness` declares and the part
``joint.static_load`` (:mod:`hydrofmu.runtime.forces.static_loads`) adds, on the world, on
a fixed body or on a moving one, locked or free alike. With the reaction ``lambda`` on
``a`` at the hinge point and the moment ``mu`` normal to the axis,

- ``a``'s rotations: ``(e_a . lambda) I - e_a lambda^T`` with ``e_a = p - r_a``;
- ``b``'s rotations: ``-((e_b . lambda) I - e_b lambda^T)`` with ``e_b = p - r_b``, and
  ``-S(mu)`` (the axis, and the moment normal to it, turn with ``b``);
- ``a``'s moment from ``b``'s rotation: ``S(mu)``; a locked hinge holds every relative
  rotation, its moment may keep its direction (no ``mu`` terms: on the motions the joint
  allows, the two ways give the same stiffness).

A pendulum (the weight ``-m g e_z`` at the reference point, ``l`` below a hinge on the
world) gets ``m g l`` about the axis, whichever point the data call the reference point.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..hydrodata.model import HydroData
from ..parameters.table import ParameterSpec, check_finite
from ..parts.part import Context, LinearSystem, ModelInfo, Port
from .joints import JointPart
from .static_loads import arm_stiffness, skew


def _vector3(options: dict[str, Any], key: str, default: list[float] | None) -> NDArray:
    raw = options.get(key, default)
    if raw is None:
        raise ConfigError(f"joint '{options['name']}' (revolute) needs {key} = [x, y, z]",
                          value=None)
    try:
        v = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        v = np.zeros(0)
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise ConfigError(f"joint '{options['name']}': {key} must be 3 finite numbers, got "
                          f"{raw!r}", value=raw)
    return v


def hinge_geometry(bodies: list[HydroData], options: dict[str, Any], index: list[int],
                   n: int) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Rows ``G`` (5, n), the angle row (n,), the unit axis (3,) and the point (3,) of a
    revolute joint on bodies ``index`` (one: hinged on the world)."""
    axis = _vector3(options, "axis", None)
    if np.linalg.norm(axis) == 0.0:
        raise ConfigError(f"joint '{options['name']}': axis must not be zero, got "
                          f"{options.get('axis')!r}", value=options.get("axis"))
    u = axis / np.linalg.norm(axis)
    point = _vector3(options, "point", None)
    trial = np.eye(3)[int(np.argmin(np.abs(u)))]
    e1 = np.cross(u, trial)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u, e1)
    rot = np.zeros((3, n))
    pos = np.zeros((3, n))
    for sign, k in zip((1.0, -1.0), index, strict=False):
        r = np.asarray(bodies[k].reference_point, dtype=float)
        rot[:, 6 * k + 3 : 6 * k + 6] = sign * np.eye(3)
        # theta x (p - r) = S(r - p) theta
        pos[:, 6 * k : 6 * k + 3] = sign * np.eye(3)
        pos[:, 6 * k + 3 : 6 * k + 6] = sign * skew(r - point)
    rows = np.vstack([e1 @ rot, e2 @ rot, pos])
    return rows, u @ rot, u, point


def _locked(options: dict[str, Any]) -> bool:
    """``locked`` of a ``[[joints]]`` entry (a bool, else a :class:`ConfigError`)."""
    value = options.get("locked", False)
    if not isinstance(value, bool):
        raise ConfigError(f"joint '{options['name']}': locked = {value!r} must be true or "
                          "false", value=value)
    return value


def _initial_angle(name: str, value: Any) -> float:
    return check_finite(name, value)


class RevoluteJoint(JointPart):
    """A hinge between two bodies or a body and the world, with the torque input."""

    kind = "joint.revolute"
    active = True
    feedthrough = True
    forcing = True
    input_kind = "constant"  # T times the hinge row (geometry fixed at export)

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        self.rows, self.along, self.axis, self.point = hinge_geometry(
            model.bodies, model.options, self.body_index, model.n)
        self.initial_angle = float(model.parameters[f"{self.name}.initial_angle"])
        self.locked = _locked(model.options)
        if self.locked:
            if self.initial_angle != 0.0:
                raise ConfigError(f"joint '{self.name}': locked = true holds the angle at "
                                  f"0; initial_angle = {self.initial_angle!r} contradicts "
                                  "it (unlock the joint or set initial_angle = 0)",
                                  value=self.initial_angle)
            self.rows = np.vstack([self.rows, self.along])
        a = self.body_index[0]
        #: The unit vectors normal to the axis of the two rotation rows, (3,) each.
        self.normals = (self.rows[0, 6 * a + 3 : 6 * a + 6].copy(),
                        self.rows[1, 6 * a + 3 : 6 * a + 6].copy())
        #: The bodies' reference points (m), (3,) each.
        self.reference = [np.asarray(model.bodies[k].reference_point, dtype=float)
                          for k in self.body_index]
        r_a = self.reference[0]
        self._shift = np.zeros(model.n)
        self._shift[6 * a : 6 * a + 3] = self.initial_angle * np.cross(self.axis,
                                                                        r_a - self.point)
        self._shift[6 * a + 3 : 6 * a + 6] = self.initial_angle * self.axis
        other = (f"body '{model.names[self.body_index[1]]}'" if len(self.body_index) == 2
                 else "the world")
        model.report.append(
            f"joint '{self.name}': revolute, {model.names[a]} on {other}, axis "
            f"{np.round(self.axis, 6).tolist()} through {self.point.tolist()} m, initial "
            f"angle {self.initial_angle:.6g} rad{', locked' if self.locked else ''}")

    @classmethod
    def input_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                    options: dict[str, Any]) -> list[Port]:
        return [Port(f"{options['name']}.T_pto", "N.m")]

    @classmethod
    def output_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        name = options["name"]
        return [*super().output_ports(bodies, config, options),
                Port(f"{name}.angle", "rad"), Port(f"{name}.angular_velocity", "rad/s")]

    @classmethod
    def parameter_specs(cls, bodies: list[HydroData], config: dict[str, Any],
                        options: dict[str, Any]) -> list[ParameterSpec]:
        name = options["name"]
        start = check_finite(f"joint '{name}': initial_angle",
                             options.get("initial_angle", 0.0))
        return [ParameterSpec(f"{name}.initial_angle", "Real", start, "rad",
                              f"Initial angle of the revolute joint '{name}' (first body "
                              "relative to the second, about the axis)",
                              check=_initial_angle)]

    def initial_shift(self) -> NDArray[np.float64]:
        """What :attr:`initial_angle` adds to the bodies' initial pose, shape (n,)."""
        return self._shift

    def reaction_stiffness(self, lam: NDArray[np.float64]) -> NDArray[np.float64]:
        """``-d(G(q)^T lam)/dq`` for the joint's multipliers ``lam`` held (the rows' order:
        the two rotations normal to the axis, the hinge point, the angle when locked),
        shape (n, n), N m/rad (module docstring;
        :mod:`hydrofmu.runtime.forces.static_loads`)."""
        lam = np.asarray(lam, dtype=float)
        # Free: the moment normal to the axis turns with b. Locked: the three rotation
        # rows hold every relative rotation, their moment may keep its direction (the
        # rows combined by a rotation give the same motion; module static_loads).
        moment = (np.zeros(3) if self.locked
                  else lam[0] * self.normals[0] + lam[1] * self.normals[1])
        force = lam[2:5]
        k = np.zeros((self.n, self.n))
        a = self.body_index[0]
        ra = slice(6 * a + 3, 6 * a + 6)
        k[ra, ra] = arm_stiffness(self.point - self.reference[0], force)
        if len(self.body_index) == 2:
            b = self.body_index[1]
            rb = slice(6 * b + 3, 6 * b + 6)
            k[rb, rb] = -arm_stiffness(self.point - self.reference[1], force) - skew(moment)
            k[ra, rb] = skew(moment)
        return k

    def force(self, ctx: Context) -> NDArray[np.float64]:
        return ctx.u[self.input_slice][0] * self.along

    def linear_system(self) -> LinearSystem:
        return LinearSystem(force_u=self.along[:, None])

    def outputs(self, ctx: Context) -> NDArray[np.float64]:
        return np.concatenate([self.reaction(ctx),
                               [self.along @ ctx.q, self.along @ ctx.v]])
