"""Rotation of a body's roll, pitch, yaw (numpy + standard library only)."""

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
