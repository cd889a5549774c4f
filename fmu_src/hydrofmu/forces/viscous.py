"""Linear and quadratic viscous damping (Morison-type drag on the body's DOFs)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


class ViscousDamping:
    """``F = -B_lin v - B_quad v |v|`` (quadratic term per DOF).

    Parameters
    ----------
    linear
        Linear damping, shape (n, n), N s/m, N s, N m s.
    quadratic
        Quadratic damping per DOF, shape (n,), N s^2/m^2, N m s^2.
    """

    def __init__(self, linear: NDArray[np.float64], quadratic: NDArray[np.float64]) -> None:
        self.linear = np.asarray(linear, dtype=float)
        self.quadratic = np.asarray(quadratic, dtype=float)
        self.active = bool(np.any(self.linear) or np.any(self.quadratic))

    def force(self, v: NDArray[np.float64]) -> NDArray[np.float64]:
        """Damping force for velocity ``v``, shape (n,)."""
        if not self.active:
            return np.zeros_like(v)
        return -self.linear @ v - self.quadratic * v * np.abs(v)
