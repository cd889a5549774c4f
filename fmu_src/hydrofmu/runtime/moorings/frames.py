"""Rotation of a body's roll, pitch, yaw, and the cross product of 3-vectors (numpy +
standard library only)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


def rotation(angles: Array) -> Array:
    """``Rz(yaw) Ry(pitch) Rx(roll)``, shape (3, 3), from roll, pitch, yaw in rad."""
    cr, sr = math.cos(angles[0]), math.sin(angles[0])
    cp, sp = math.cos(angles[1]), math.sin(angles[1])
    cy, sy = math.cos(angles[2]), math.sin(angles[2])
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def cross(a: Array, b: Array) -> Array:
    """``a x b`` of 3-vectors along the last axis (broadcast), shape of the broadcast.

    The same products as ``numpy.cross`` without its generic axis handling, which costs
    ~35 µs a call on the few vectors of a mooring's coupled points.
    """
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
