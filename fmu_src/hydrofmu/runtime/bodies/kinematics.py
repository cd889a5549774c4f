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
range), the displacement ``x`` of the reference point (world axes), the map ``D`` from the
linear coordinates' velocity to the true one (``v = D q'``, per body 6 x 6) and the
velocity-product acceleration ``kappa = D' q'``. The classes here only describe the body;
the compiled kernel (``body_kernel.c``, :mod:`~hydrofmu.runtime.bodies.body_kernel`)
evaluates all of it.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from . import body_kernel

Array = NDArray[np.float64]


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
    #: The kernel's kind (``body_kernel.NONE``, ``FREE``, ``AXIS``, ``HINGE``).
    kernel_kind: int = body_kernel.NONE

    def __init__(self, *, index: int, name: str) -> None:
        self.index = index
        self.name = name
        self.dofs = slice(6 * index, 6 * index + 6)
        #: The body's quaternion slice in the state vector (set by its part).
        self.state_slice = slice(0, 0)

    def kernel_axis(self) -> int:
        """The kernel's ``axis`` entry: the free axis (an axis rotation), 1 for a hinge
        about a coordinate axis, else 0."""
        return 0

    def geometry(self) -> Array:
        """The kernel's geometry: the unit axis and the arm from the hinge point, (6,)."""
        return np.zeros(body_kernel.GEOMETRY)


class FreeRotation(BodyKinematics):
    """Roll, pitch and yaw free: a unit quaternion among the states."""

    n_states = 4
    description = "free rotation, unit quaternion"
    single_axis = False
    kernel_kind = body_kernel.FREE


class AxisRotation(BodyKinematics):
    """One rotation free (DOF ``3 + axis``): about the world axis through the reference
    point."""

    kernel_kind = body_kernel.AXIS

    def __init__(self, *, index: int, name: str, axis: int) -> None:
        super().__init__(index=index, name=name)
        self.axis = axis
        self.unit = np.eye(3)[axis]
        self.description = f"rotation about the world {'xyz'[axis]} axis (reduced angle)"

    def kernel_axis(self) -> int:
        return self.axis

    def geometry(self) -> Array:
        return np.concatenate([self.unit, np.zeros(3)])


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

    kernel_kind = body_kernel.HINGE

    def __init__(self, *, index: int, name: str, axis: Array, point: Array,
                 reference: Array) -> None:
        super().__init__(index=index, name=name)
        self.unit = np.asarray(axis, dtype=float)
        self.point = np.asarray(point, dtype=float)
        self.arm0 = np.asarray(reference, dtype=float) - self.point
        self.description = "revolute joint (reduced hinge angle, exact at any angle)"
        self.single_axis = bool(np.count_nonzero(self.unit) == 1)

    def kernel_axis(self) -> int:
        return int(self.single_axis)

    def geometry(self) -> Array:
        return np.concatenate([self.unit, self.arm0])


class NoRotation(BodyKinematics):
    """Every rotation held: translations only."""

    description = "no rotation (roll, pitch, yaw held)"
