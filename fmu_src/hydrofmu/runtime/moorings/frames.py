"""Rotation of a body's roll, pitch, yaw, and the cross product of 3-vectors (numpy +
standard library only)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


def rotation(angles: Array) -> Array:
    """``Rx(roll) Ry(pitch) Rz(yaw)``, shape (3, 3), from roll, pitch, yaw in rad.

    MoorDyn-C's convention for a body's angles (``RotXYZ``, intrinsic x-y'-z''): a body
    file pose, a replay's motion and the FMU body's pose mean what they mean to MoorDyn
    (the same to first order as z-y'-x'' for the linear model's small rotations).
    """
    cr, sr = math.cos(angles[0]), math.sin(angles[0])
    cp, sp = math.cos(angles[1]), math.sin(angles[1])
    cy, sy = math.cos(angles[2]), math.sin(angles[2])
    return np.array(
        [
            [cp * cy, -cp * sy, sp],
            [sr * sp * cy + cr * sy, cr * cy - sr * sp * sy, -sr * cp],
            [sr * sy - cr * sp * cy, cr * sp * sy + sr * cy, cr * cp],
        ]
    )


def angular_velocity(angles: Array, rates: Array) -> Array:
    """Global angular velocity, rad/s, of the :func:`rotation` angles changing at ``rates``.

    ``w = roll' e_x + pitch' Rx e_y + yaw' Rx Ry e_z``.
    """
    cr, sr = math.cos(angles[0]), math.sin(angles[0])
    cp, sp = math.cos(angles[1]), math.sin(angles[1])
    return (rates[0] * np.array([1.0, 0.0, 0.0]) + rates[1] * np.array([0.0, cr, sr])
            + rates[2] * np.array([sp, -sr * cp, cr * cp]))


def cross(a: Array, b: Array) -> Array:
    """``a x b`` of 3-vectors along the last axis (broadcast), shape of the broadcast.

    The same products as ``numpy.cross`` without its generic axis handling, which costs
    ~35 µs a call on the few vectors of a mooring's coupled points.
    """
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
