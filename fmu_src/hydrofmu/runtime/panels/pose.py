"""A body's pose for the panel kernel: rotation matrix from roll, pitch, yaw.

Convention: ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (intrinsic z-y'-x'', body to world), the
one of :func:`hydrofmu.config.rigid_body.rotation_matrix`; for small angles ``R ~ I +
[theta]_x`` with ``theta = (roll, pitch, yaw)``, the linear model's rotations.

Run-time module: numpy only.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray


def rotation_matrix(roll: float, pitch: float, yaw: float) -> NDArray[np.float64]:
    """``Rz(yaw) Ry(pitch) Rx(roll)``, shape (3, 3), angles in rad."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])
