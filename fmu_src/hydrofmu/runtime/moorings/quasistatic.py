"""Quasi-static catenary lines between fixed anchors and fairleads on a body.

The force and moment of the lines on the body, about its reference point, follow from the
:class:`~hydrofmu.runtime.moorings.catenary.Catenary` solution in each line's vertical plane;
the fairlead's kinematics, the solve and the sum over the lines are one call of the compiled
kernel (``hf_cat_body`` of ``catenary_kernel.c``, the one the native FMU calls too). The 6x6
stiffness is their central-difference derivative with respect to the body's pose, the
moment arm's rotation included (numpy, ctypes + standard library only).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from .catenary import (
    SOLUTION_SIZE,
    Catenary,
    CatenaryError,
    CatenarySolution,
    HfCatenary,
    catenary_library,
    error_value,
    message,
    solution_of,
)


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

    Attributes
    ----------
    struct
        The line with its ends as the C kernel reads it (:class:`HfCatenary`).
    """

    def __init__(
        self, *, anchor: NDArray[np.float64], fairlead: NDArray[np.float64], line: Catenary
    ) -> None:
        self.anchor = np.asarray(anchor, dtype=float).reshape(3)
        self.fairlead = np.asarray(fairlead, dtype=float).reshape(3)
        if not (np.all(np.isfinite(self.anchor)) and np.all(np.isfinite(self.fairlead))):
            raise CatenaryError("catenary anchor and fairlead must be finite", value=anchor)
        self.line = line
        s = line.struct
        self.struct = HfCatenary(s.length, s.weight, s.ea, s.cb, s.max_strain, s.tol,
                                 tuple(self.anchor), tuple(self.fairlead), s.seabed)
        self.lines = CatenaryBody([self])

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
        force, _ = self.lines.evaluate(pose)
        return force, solution_of(self.lines.sol)

    def force(self, pose: NDArray[np.float64]) -> NDArray[np.float64]:
        """Force and moment of the line on the body, N and N m, shape (6,)."""
        return self.state(pose)[0]

    def stiffness(self, pose: NDArray[np.float64], *, step: float = 1e-4) -> NDArray[np.float64]:
        """Stiffness ``K = -dF/dq`` at ``pose`` by central differences, shape (6, 6).

        Columns are the body's surge, sway, heave (m) and roll, pitch, yaw (rad); the rows
        the force (N) and moment about the reference point (N m). ``step`` is the
        displacement (m and rad).
        """
        return self.lines.stiffness(pose, step=step)


class CatenaryBody:
    """Several :class:`CatenaryMooring` lines on one body, evaluated by one C call.

    Parameters
    ----------
    moorings
        The lines, in output order.

    Attributes
    ----------
    moorings
        The lines.
    array
        Their :class:`HfCatenary` structures, contiguous (what the native blob copies).
    sol
        The solution array of the last line solved (or of the one that failed), shape
        (``SOLUTION_SIZE``,).
    """

    def __init__(self, moorings: Sequence[CatenaryMooring]) -> None:
        self.moorings = list(moorings)
        n = len(self.moorings)
        self.array = (HfCatenary * n)(*[m.struct for m in self.moorings])
        self.sol = np.zeros(SOLUTION_SIZE)

    def evaluate(self, pose: NDArray[np.float64]
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Force and moment of all lines on the body (N, N m, shape (6,), about the
        reference point, global axes) and the tensions ``[T_fairlead_1, T_anchor_1, ...]``
        (N) at the body pose ``pose`` (m, rad, shape (6,)).

        Raises
        ------
        CatenaryError
            A line cannot be solved (the message names it, 1-based, and why).
        """
        n = len(self.moorings)
        pose = np.ascontiguousarray(pose, dtype=float)
        force, tensions = np.zeros(6), np.zeros(2 * n)
        failed = ctypes.c_int64(-1)
        code = catenary_library().hf_cat_body(self.array, n, pose.ctypes.data,
                                              force.ctypes.data, tensions.ctypes.data,
                                              self.sol.ctypes.data, ctypes.byref(failed))
        if code:
            i = int(failed.value)
            text = message(self.array[i], code, self.sol)
            raise CatenaryError(text if n == 1 else f"line {i + 1}: {text}",
                                value=error_value(code, self.sol))
        return force, tensions

    def stiffness(self, pose: NDArray[np.float64], *, step: float = 1e-4
                  ) -> NDArray[np.float64]:
        """Stiffness ``K = -dF/dq`` of all lines at ``pose`` by central differences,
        shape (6, 6) (see :meth:`CatenaryMooring.stiffness`)."""
        pose = np.asarray(pose, dtype=float)
        k = np.empty((6, 6))
        for j in range(6):
            dq = np.zeros(6)
            dq[j] = step
            k[:, j] = -(self.evaluate(pose + dq)[0] - self.evaluate(pose - dq)[0]) / (2 * step)
        return k
