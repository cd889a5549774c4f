"""A quasi-static catenary line between a fixed anchor and a fairlead on a body.

The force and moment of the line on the body, about its reference point, follow from the
:class:`~hydrofmu.runtime.moorings.catenary.Catenary` solution in the line's vertical plane; the 6x6
stiffness is their central-difference derivative with respect to the body's pose, the moment
arm's rotation included (numpy + standard library only).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .catenary import Catenary, CatenaryError, CatenarySolution
from .frames import rotation


class CatenaryMooring:
    """A catenary line between a fixed anchor and a fairlead on a body, in 3-D.

    Parameters
    ----------
    anchor
        Anchor position in the global frame, m, shape (3,), z up.
    fairlead
        Fairlead position relative to the body reference point, body axes, m, shape (3,).
    line
        The line's :class:`Catenary`.
    """

    def __init__(
        self, *, anchor: NDArray[np.float64], fairlead: NDArray[np.float64], line: Catenary
    ) -> None:
        self.anchor = np.asarray(anchor, dtype=float).reshape(3)
        self.fairlead = np.asarray(fairlead, dtype=float).reshape(3)
        if not (np.all(np.isfinite(self.anchor)) and np.all(np.isfinite(self.fairlead))):
            raise CatenaryError("catenary anchor and fairlead must be finite", value=anchor)
        self.line = line

    def state(self, pose: NDArray[np.float64]) -> tuple[NDArray[np.float64], CatenarySolution]:
        """Generalised force of the line on the body and the line's solution.

        Parameters
        ----------
        pose
            Body reference point position (m) and roll, pitch, yaw (rad), shape (6,).

        Returns
        -------
        force, solution
            Force (N) and moment about the reference point (N m), global axes, shape (6,).
        """
        pose = np.asarray(pose, dtype=float)
        arm = rotation(pose[3:]) @ self.fairlead
        rel = pose[:3] + arm - self.anchor
        xf = math.hypot(rel[0], rel[1])
        sol = self.line.solve(xf, float(rel[2]))
        horiz = rel[:2] / xf
        f = np.array([-sol.HF * horiz[0], -sol.HF * horiz[1], -sol.VF])
        return np.concatenate([f, np.cross(arm, f)]), sol

    def force(self, pose: NDArray[np.float64]) -> NDArray[np.float64]:
        """Force and moment of the line on the body, N and N m, shape (6,)."""
        return self.state(pose)[0]

    def stiffness(self, pose: NDArray[np.float64], *, step: float = 1e-4) -> NDArray[np.float64]:
        """Stiffness ``K = -dF/dq`` at ``pose`` by central differences, shape (6, 6).

        Columns are the body's surge, sway, heave (m) and roll, pitch, yaw (rad); the rows
        the force (N) and moment about the reference point (N m). ``step`` is the
        displacement (m and rad).
        """
        pose = np.asarray(pose, dtype=float)
        k = np.empty((6, 6))
        for j in range(6):
            dq = np.zeros(6)
            dq[j] = step
            k[:, j] = -(self.force(pose + dq) - self.force(pose - dq)) / (2 * step)
        return k
