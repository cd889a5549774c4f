"""Adams-Bashforth multistep members ``ab2`` ... ``ab5`` (MoorDyn-C v2 names).

``abP`` advances with P derivatives on an equispaced grid, newest first:
``y_{n+1} = y_n + h sum_j beta_j f_{n-j}``. Coefficients: the textbook ones (Hairer,
Norsett & Wanner, *Solving ODEs I*, III.1), each row sums to 1 (checked by a test).

Memory: the derivatives of the last steps with the times they belong to (``t``, shape
(k,); ``d``, shape (k, n)), returned by ``get_state``. A step of size h at t uses the
stored derivatives at t - h, t - 2h, ... found by time (to round-off), so it is exact
after an FMU state restore and survives the short off-grid steps the simulator takes
when a communication point is not on its internal grid. When fewer than P - 1 of them
are found (the first steps, a restart after ``set_state({})`` or ``reset``, a change of
step size, an off-grid step) the step is taken by the explicit Runge-Kutta scheme of
order min(P, 4) (rk2, rk3, rk4, rk4) started from the same f(t, y): the scheme starts
itself without losing its order. (MoorDyn starts with lower-order Adams-Bashforth steps
instead; an Euler first step caps the global order at 2, which is why it is not done
here.)
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from .right_hand_side import RightHandSide
from .runge_kutta import RK2, RK3, RK4, ExplicitRungeKutta, rk_step
from .stagewise import StagewiseScheme


class AdamsBashforth(StagewiseScheme):
    """Explicit P-step Adams-Bashforth scheme with a Runge-Kutta starter.

    Attributes
    ----------
    BETA
        Weights of f_n, f_{n-1}, ..., shape (P,), summing to 1.
    STARTER
        Explicit RK scheme for steps without enough history.
    """

    BETA: ClassVar[NDArray[np.float64]]
    STARTER: ClassVar[type[ExplicitRungeKutta]]

    def __init__(self) -> None:
        self._t = np.zeros(0)
        self._d = np.zeros((0, 0))
        #: Number of steps taken by the starter / by the multistep formula (diagnostics).
        self.started = 0
        self.multistep = 0

    @property
    def keep(self) -> int:
        """Stored derivatives: enough for P - 1 grid points among off-grid ones."""
        return 3 * self.BETA.size

    def _history(self, t: float, h: float) -> list[int] | None:
        """Rows of the stored derivatives at t - h, ..., t - (P-1) h, or None."""
        rows = []
        tol = 1e-9 * h + 8.0 * float(np.spacing(abs(t) + h))
        for j in range(1, self.BETA.size):
            hit = np.flatnonzero(np.abs(self._t - (t - j * h)) <= tol * j)
            if hit.size == 0:
                return None
            rows.append(int(hit[0]))
        return rows

    def _derivative(self, f: RightHandSide, t: float, y: NDArray[np.float64], h: float,
                    full_history: bool) -> NDArray[np.float64]:
        """f(t, y); the local-time-step variants override this."""
        return f(t, y)

    def _step_impl(
        self, f: RightHandSide, t: float, y: NDArray[np.float64], h: float
    ) -> NDArray[np.float64]:
        if self._d.ndim != 2 or (self._d.size and self._d.shape[1] != y.size):
            self.set_state({})
        rows = self._history(t, h)
        d = self._derivative(f, t, y, h, rows is not None)
        if rows is None:
            s = self.STARTER
            y_new = rk_step(s.A, s.B, s.C, f, t, y, h, k0=d)
            self.started += 1
        else:
            y_new = y + h * (self.BETA[0] * d + self.BETA[1:] @ self._d[rows])
            self.multistep += 1
        if np.all(np.isfinite(y_new)):
            self._push(t, d)
        return y_new

    def _push(self, t: float, d: NDArray[np.float64]) -> None:
        if self._d.size == 0:
            self._t, self._d = np.array([t]), d[None, :].copy()
            return
        keep = self._t < t  # a repeated step (same start) replaces its old derivative
        self._t = np.concatenate(([t], self._t[keep]))[: self.keep]
        self._d = np.concatenate((d[None, :], self._d[keep]))[: self.keep]

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        return {"t": self._t.copy(), "d": self._d.copy()}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        if "d" in state and np.asarray(state["d"]).size:
            self._t = np.array(state["t"], dtype=float).reshape(-1)
            self._d = np.array(state["d"], dtype=float).reshape(self._t.size, -1)
        else:
            self._t, self._d = np.zeros(0), np.zeros((0, 0))


class AB2(AdamsBashforth):
    """Two-step Adams-Bashforth, second order."""

    name = "ab2"
    order = 2
    BETA = np.array([3.0, -1.0]) / 2.0
    STARTER = RK2


class AB3(AdamsBashforth):
    """Three-step Adams-Bashforth, third order."""

    name = "ab3"
    order = 3
    BETA = np.array([23.0, -16.0, 5.0]) / 12.0
    STARTER = RK3


class AB4(AdamsBashforth):
    """Four-step Adams-Bashforth, fourth order."""

    name = "ab4"
    order = 4
    BETA = np.array([55.0, -59.0, 37.0, -9.0]) / 24.0
    STARTER = RK4


class AB5(AdamsBashforth):
    """Five-step Adams-Bashforth, fifth order (rk4 starter: local error O(h^5))."""

    name = "ab5"
    order = 5
    BETA = np.array([1901.0, -2774.0, 2616.0, -1274.0, 251.0]) / 720.0
    STARTER = RK4


ADAMS_BASHFORTH: tuple[type[AdamsBashforth], ...] = (AB2, AB3, AB4, AB5)
