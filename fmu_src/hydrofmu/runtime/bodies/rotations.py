"""Unit quaternions and rotation matrices for the large-rotation bodies.

Conventions (the ones every large-rotation output and input uses):

- a quaternion is ``[w, x, y, z]``, scalar first, unit norm, and turns body axes into world
  axes: a vector with body components ``b`` has world components ``R(q) b``;
- its rate for the angular velocity ``omega`` in **world** axes is
  ``q' = 1/2 [0, omega] * q`` (Hamilton product);
- the Euler angles are ``(roll, pitch, yaw)`` with ``R = Rz(yaw) Ry(pitch) Rx(roll)``
  (intrinsic z-y'-x'' Tait-Bryan angles, the marine convention of :func:`matrix_from_euler`
  and of ``initial_pose``), pitch in ``[-pi/2, pi/2]``, roll and yaw in ``(-pi, pi]``; at
  pitch = +-pi/2 (gimbal lock) yaw is reported 0 and roll carries the whole turn about the
  vertical.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]

#: ``cos(pitch)`` below which the Euler angles are taken at gimbal lock (yaw = 0): the
#: two remaining angles are then defined by their sum or difference only; 1e-12 is far
#: below any pose a run reaches by chance and far above round-off of ``atan2``'s arguments.
GIMBAL_LOCK: float = 1e-12


def skew(r: Array) -> Array:
    """``S(r)`` with ``S(r) x = r x x``, shape (3, 3)."""
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])


def cross(a: Array, b: Array) -> Array:
    """``a x b`` of two 3-vectors, shape (3,) (written out: ``numpy.cross`` costs ~20x more
    on one pair, and the equations take five per body and stage)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def quaternion_product(a: Array, b: Array) -> Array:
    """Hamilton product ``a * b`` of two quaternions ``[w, x, y, z]``, shape (4,)."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ])


def quaternion_rate(q: Array, omega_world: Array) -> Array:
    """``q' = 1/2 [0, omega] * q`` for the angular velocity in world axes (rad/s), (4,)."""
    return 0.5 * quaternion_product(np.array([0.0, *omega_world]), q)


def normalized(q: Array) -> Array:
    """``q / |q|``, shape (4,) (the drift of an integrated quaternion taken out)."""
    return q / math.sqrt(float(q @ q))


def matrix_from_quaternion(q: Array) -> Array:
    """Rotation matrix (body to world), shape (3, 3), of a quaternion; ``q`` is normalised
    first, so an integrated quaternion whose norm drifted still gives a rotation."""
    w, x, y, z = normalized(q)
    return np.array([
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
    ])


def quaternion_from_matrix(r: Array) -> Array:
    """The unit quaternion of a rotation matrix, ``w >= 0``, shape (4,) (Shepperd's method:
    the largest of the four squares first, so it is accurate at any angle)."""
    tr = r[0, 0] + r[1, 1] + r[2, 2]
    cand = (tr, r[0, 0], r[1, 1], r[2, 2])
    k = int(np.argmax(cand))
    if k == 0:
        s = 2.0 * math.sqrt(1.0 + tr)
        q = np.array([0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s,
                      (r[1, 0] - r[0, 1]) / s])
    elif k == 1:
        s = 2.0 * math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
        q = np.array([(r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s,
                      (r[0, 2] + r[2, 0]) / s])
    elif k == 2:
        s = 2.0 * math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2])
        q = np.array([(r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s,
                      (r[1, 2] + r[2, 1]) / s])
    else:
        s = 2.0 * math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1])
        q = np.array([(r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s,
                      (r[1, 2] + r[2, 1]) / s, 0.25 * s])
    return normalized(-q if q[0] < 0.0 else q)


def matrix_from_euler(roll: float, pitch: float, yaw: float) -> Array:
    """``Rz(yaw) Ry(pitch) Rx(roll)`` (body to world), shape (3, 3), angles in rad."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def euler_from_matrix(r: Array) -> Array:
    """``(roll, pitch, yaw)`` of ``R = Rz(yaw) Ry(pitch) Rx(roll)``, rad, shape (3,) (the
    module's convention; ``atan2`` throughout, so well conditioned up to gimbal lock, where
    yaw = 0)."""
    cp = math.hypot(r[0, 0], r[1, 0])
    pitch = math.atan2(-r[2, 0], cp)
    if cp > GIMBAL_LOCK:
        return np.array([math.atan2(r[2, 1], r[2, 2]), pitch, math.atan2(r[1, 0], r[0, 0])])
    # pitch = +pi/2: R[0,1] = sin(roll - yaw), R[1,1] = cos(roll - yaw); -pi/2: the sum.
    sign = 1.0 if pitch > 0.0 else -1.0
    return np.array([math.atan2(sign * r[0, 1], r[1, 1]), pitch, 0.0])


def axis_angle_matrix(axis: Array, angle: float) -> Array:
    """Rotation by ``angle`` (rad) about the unit ``axis`` (Rodrigues), shape (3, 3)."""
    k = skew(axis)
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)
