"""How a large-rotation body's true pose follows from the simulator's coordinates.

The simulator integrates the reduced coordinates ``q_r`` of its constant constraint basis
``T`` (``q = T q_r``, ``q' = T v_r``; :mod:`hydrofmu.runtime.simulator.constraints`) for every
body. A body with ``rotations = "large"`` reads its true pose from them (and, for a body
free to turn about every axis, from a unit quaternion among the model's states):

- :class:`FreeRotation` (roll, pitch and yaw free, no joint): the translation is
  ``q[0:3]`` (exact: its rate is the reference point's velocity in world axes), the
  rotation a unit quaternion integrated from the world angular velocity ``q[3:6]'``
  (``q[3:6]`` itself, the integral of that velocity, is not a pose and is not used);
- :class:`AxisRotation` (one rotation free, the other two held by ``dofs``): a hinge about
  the world axis through the reference point, angle ``q[3 + i]``, exact at any angle;
- :class:`HingeRotation` (the first body of a revolute joint on the world or on a fixed
  body): the reduced coordinate is the hinge angle ``theta = u . q[3:6]``; the pose is the
  rotation by ``theta`` about the axis ``u`` through the hinge point ``p``, so the hinge
  holds exactly (to round-off) at any angle; the reference point moves on its circle,
  ``x = p + R (r0 - p) - r0``, with velocity ``omega x (x + r0 - p)``;
- :class:`NoRotation` (every rotation held): translations only.

Each gives the rotation ``R`` (body to world), its Euler angles (roll, pitch, yaw of
:mod:`~hydrofmu.runtime.bodies.rotations`; for a rotation about a coordinate axis, the
angle itself, continuous past 90 degrees: ``(0, theta, 0)`` is still
``Rz(0) Ry(theta) Rx(0)``, so a hinge about y reads its angle beyond the canonical pitch
range), the displacement ``x`` of the reference
point (world axes), the map ``D`` from the linear coordinates' velocity to the true one
(``v = D q'``, per body 6 x 6) and the velocity-product acceleration ``kappa = D' q'``.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .rotations import (
    axis_angle_matrix,
    cross,
    euler_from_matrix,
    matrix_from_quaternion,
    skew,
)

Array = NDArray[np.float64]

_IDENTITY6 = np.eye(6)
_IDENTITY6.flags.writeable = False


class BodyKinematics:
    """One large-rotation body's kinematics (see the module docstring).

    Parameters
    ----------
    index
        The body's index in the model (its DOFs ``6 index .. 6 index + 5``).
    name
        The body's name.
    """

    #: Quaternion states the body needs (4 for a free rotation).
    n_states: int = 0
    #: What the body's rotation is, for the model's report.
    description: str = ""
    #: ``radiation_frame = "body"``: its radiation and damping act in its body axes.
    body_frame: bool = False
    #: The rotation is about one world coordinate axis (or none): every Euler convention
    #: then reads the same angles (x-y'-z'' of MoorDyn's lines as z-y'-x'').
    single_axis: bool = True

    def __init__(self, *, index: int, name: str) -> None:
        self.index = index
        self.name = name
        self.dofs = slice(6 * index, 6 * index + 6)
        #: The body's quaternion slice in the state vector (set by its part).
        self.state_slice = slice(0, 0)

    def rotation(self, q: Array, y: Array) -> Array:
        """``R`` (3, 3) from the body's linear coordinates ``q`` (6,) and the state ``y``."""
        raise NotImplementedError

    def displacement(self, q: Array, rot: Array) -> Array:
        """Displacement of the reference point, world axes, m, shape (3,)."""
        return q[:3]

    def velocity_map(self, rot: Array) -> Array:
        """``D`` (6, 6): the true velocity ``[v, omega]`` (world axes) from ``q'``."""
        return _IDENTITY6

    def euler(self, q: Array, rot: Array) -> Array:
        """``(roll, pitch, yaw)`` of ``R``, rad, shape (3,)
        (:mod:`~hydrofmu.runtime.bodies.rotations`)."""
        return euler_from_matrix(rot)

    def velocity_product(self, v: Array, rot: Array) -> Array | None:
        """``kappa = D' q'`` (6,), m/s^2 and rad/s^2, or ``None`` when zero."""
        return None


class FreeRotation(BodyKinematics):
    """Roll, pitch and yaw free: a unit quaternion among the states."""

    n_states = 4
    description = "free rotation, unit quaternion"
    single_axis = False

    def rotation(self, q: Array, y: Array) -> Array:
        return matrix_from_quaternion(y[self.state_slice])


class AxisRotation(BodyKinematics):
    """One rotation free (DOF ``3 + axis``): about the world axis through the reference
    point."""

    def __init__(self, *, index: int, name: str, axis: int) -> None:
        super().__init__(index=index, name=name)
        self.axis = axis
        self.unit = np.eye(3)[axis]
        self.description = f"rotation about the world {'xyz'[axis]} axis (reduced angle)"

    def rotation(self, q: Array, y: Array) -> Array:
        return axis_angle_matrix(self.unit, float(q[3 + self.axis]))

    def euler(self, q: Array, rot: Array) -> Array:
        return self.unit * float(q[3 + self.axis])  # continuous, not wrapped


class HingeRotation(BodyKinematics):
    """The first body of a revolute joint on the world or on a fixed body.

    Parameters
    ----------
    axis
        Unit axis, world axes, shape (3,).
    point
        A point of the axis, m, shape (3,).
    reference
        The body's reference point at rest, m, shape (3,).
    """

    def __init__(self, *, index: int, name: str, axis: Array, point: Array,
                 reference: Array) -> None:
        super().__init__(index=index, name=name)
        self.unit = np.asarray(axis, dtype=float)
        self.point = np.asarray(point, dtype=float)
        self.arm0 = np.asarray(reference, dtype=float) - self.point
        self.description = "revolute joint (reduced hinge angle, exact at any angle)"
        self.single_axis = bool(np.count_nonzero(self.unit) == 1)

    def angle(self, q: Array) -> float:
        """The hinge angle, rad, from the linear coordinates (6,)."""
        return float(self.unit @ q[3:])

    def rotation(self, q: Array, y: Array) -> Array:
        return axis_angle_matrix(self.unit, self.angle(q))

    def euler(self, q: Array, rot: Array) -> Array:
        if np.count_nonzero(self.unit) == 1:  # about x, y or z: continuous, not wrapped
            return self.unit * self.angle(q)
        return euler_from_matrix(rot)

    def displacement(self, q: Array, rot: Array) -> Array:
        return rot @ self.arm0 - self.arm0

    def velocity_map(self, rot: Array) -> Array:
        d = np.zeros((6, 6))
        d[:3, 3:] = -skew(rot @ self.arm0)  # v = omega x arm
        d[3:, 3:] = np.eye(3)
        return d

    def velocity_product(self, v: Array, rot: Array) -> Array:
        w = v[3:]
        out = np.zeros(6)
        out[:3] = cross(w, cross(w, rot @ self.arm0))
        return out


class NoRotation(BodyKinematics):
    """Every rotation held: translations only."""

    description = "no rotation (roll, pitch, yaw held)"

    def rotation(self, q: Array, y: Array) -> Array:
        return np.eye(3)
