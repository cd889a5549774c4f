"""A body's pose for the panel kernel: rotation matrix from roll, pitch, yaw.

Convention: ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (intrinsic z-y'-x'', body to world), the
one of :func:`hydrofmu.config.rigid_body.rotation_matrix`; for small angles ``R ~ I +
[theta]_x`` with ``theta = (roll, pitch, yaw)``, the linear model's rotations. The matrix
is :func:`hydrofmu.runtime.bodies.rotations.matrix_from_euler`, the large rotations' own
(one implementation, same expressions).

Run-time module: numpy only.
"""

from __future__ import annotations

from ..bodies.rotations import matrix_from_euler as rotation_matrix

__all__ = ["rotation_matrix"]
