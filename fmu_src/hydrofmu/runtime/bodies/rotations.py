"""Unit quaternions, rotation matrices and Euler angles of the large-rotation bodies.

Conventions (the ones every large-rotation output and input uses):

- a quaternion is ``[w, x, y, z]``, scalar first, unit norm, and turns body axes into world
  axes: a vector with body components ``b`` has world components ``R(q) b``;
- its rate for the angular velocity ``omega`` in **world** axes is
  ``q' = 1/2 [0, omega] * q`` (Hamilton product);
- the Euler angles are ``(roll, pitch, yaw)`` with ``R = Rz(yaw) Ry(pitch) Rx(roll)``
  (intrinsic z-y'-x'' Tait-Bryan angles, the marine convention of :func:`matrix_from_euler`
  and of ``initial_pose``), pitch in ``[-pi/2, pi/2]``, roll and yaw in ``(-pi, pi]``; at
  pitch = +-pi/2 (gimbal lock: ``cos(pitch) <= 1e-12``) yaw is reported 0 and roll carries
  the whole turn about the vertical.

Each function is one call of the compiled rigid-body kernel (``body_kernel.c``, loaded by
:mod:`.body_kernel`): the formulas live there once, for both FMUs.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .body_kernel import call

Array = NDArray[np.float64]


def _vector(x: object, size: int) -> Array:
    out = np.ascontiguousarray(x, dtype=np.float64).reshape(size)
    return out.copy() if out is x else out


def quaternion_rate(q: Array, omega_world: Array) -> Array:
    """``q' = 1/2 [0, omega] * q`` for the angular velocity in world axes (rad/s), (4,)."""
    out = np.empty(4)
    call("hb_quaternion_rate", _vector(q, 4), _vector(omega_world, 3), out)
    return out


def matrix_from_quaternion(q: Array) -> Array:
    """Rotation matrix (body to world), shape (3, 3), of a quaternion; ``q`` is normalised
    first, so an integrated quaternion whose norm drifted still gives a rotation."""
    out = np.empty((3, 3))
    call("hb_matrix_from_quaternion", _vector(q, 4), out)
    return out


def quaternion_from_matrix(r: Array) -> Array:
    """The unit quaternion of a rotation matrix, ``w >= 0``, shape (4,) (Shepperd's method:
    the largest of the four squares first, so it is accurate at any angle)."""
    out = np.empty(4)
    call("hb_quaternion_from_matrix", _vector(r, 9), out)
    return out


def matrix_from_euler(roll: float, pitch: float, yaw: float) -> Array:
    """``Rz(yaw) Ry(pitch) Rx(roll)`` (body to world), shape (3, 3), angles in rad."""
    out = np.empty((3, 3))
    call("hb_matrix_from_euler", np.array([roll, pitch, yaw], dtype=np.float64), out)
    return out


def euler_from_matrix(r: Array) -> Array:
    """``(roll, pitch, yaw)`` of ``R = Rz(yaw) Ry(pitch) Rx(roll)``, rad, shape (3,) (the
    module's convention; ``atan2`` throughout, so well conditioned up to gimbal lock, where
    yaw = 0)."""
    out = np.empty(3)
    call("hb_euler_from_matrix", _vector(r, 9), out)
    return out


def axis_angle_matrix(axis: Array, angle: float) -> Array:
    """Rotation by ``angle`` (rad) about the unit ``axis`` (Rodrigues), shape (3, 3)."""
    out = np.empty((3, 3))
    call("hb_axis_angle_matrix", _vector(axis, 3), float(angle), out)
    return out
