"""Explicit one-step members: ``euler``, ``heun`` (MoorDyn's), ``rk2heun``, ``rk2``, ``rk3``,
``rk4``.

``heun`` is MoorDyn-C v2's Heun scheme (source/Time.cpp, ``HeunScheme``): ONE derivative
evaluation per step, predictor with the derivative kept from the previous step, corrector
with the derivative at the predicted state,

    y* = y_n + h d_n,   d_{n+1} = f(t_{n+1}, y*),   y_{n+1} = y_n + h/2 (d_n + d_{n+1}).

MoorDyn evaluates that derivative with the clock still at ``t_n`` (which is what makes
its docs call it first order with time-dependent forcing); here it is evaluated at
``t_{n+1}``, the time the predicted state belongs to, which keeps it second order. The
first step (or the first after a restart) takes ``d_n = f(t_n, y_n)``.

``rk2heun`` is the classical two-stage explicit trapezoid (Heun's Runge-Kutta method,
B = [1/2, 1/2], C = [0, 1]): what ``heun`` meant in hydrofmu before MoorDyn's names.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from ..linear.model import LinearModel
from ..linear.stepper import SinusoidBank
from .linear_rk import LinearRungeKutta
from .right_hand_side import RHS, RightHandSide
from .stagewise import CarriedDerivative, StagewiseScheme


class ExplicitRungeKutta(StagewiseScheme):
    """Explicit Runge-Kutta scheme defined by its Butcher tableau (``A``, ``B``, ``C``).

    It declares :attr:`~.base.TimeScheme.explicit_tableau`: a step is exactly
    :func:`rk_step` of the tableau, so the tableau may be stepped elsewhere (the linear
    map of :meth:`bind`, the mooring lines' compiled stepper); a subclass that changes the
    step sets it False.

    Attributes
    ----------
    A
        Stage coefficients, shape (s, s), strictly lower triangular.
    B
        Weights, shape (s,), summing to 1.
    C
        Stage times as fractions of the step, shape (s,), ``C = A.sum(1)``.
    order
        Nominal convergence order (global error ~ h**order).
    """

    explicit_tableau: ClassVar[bool] = True
    A: ClassVar[NDArray[np.float64]]
    B: ClassVar[NDArray[np.float64]]
    C: ClassVar[NDArray[np.float64]]

    def bind(self, model: LinearModel, *, dt: float, bank: SinusoidBank, t0: float,
             added_mass_method: str, local_steps: bool) -> None:
        """The scheme's own linear map over whole intervals (``linear_rk.py``) when the
        tableau is the step, the added mass all on the left side, no local time step
        runs and the model is linear with a discrete particular solution; else none
        (arguments: :meth:`~.base.TimeScheme.bind`)."""
        self.interval_map = LinearRungeKutta.build(self, model, dt=dt, bank=bank) if (
            self.explicit_tableau and added_mass_method == "implicit" and not local_steps
        ) else None

    @property
    def stages(self) -> int:
        """Derivative evaluations per step."""
        return int(self.B.size)

    def _step_impl(
        self, f: RightHandSide, t: float, y: NDArray[np.float64], h: float
    ) -> NDArray[np.float64]:
        return rk_step(self.A, self.B, self.C, f, t, y, h)


def rk_step(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    c: NDArray[np.float64],
    f: RHS,
    t: float,
    y: NDArray[np.float64],
    h: float,
    k0: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """One explicit RK step of tableau (a, b, c); ``k0`` = f(t, y) if already known."""
    n = b.size
    k = np.empty((n, y.size))
    for i in range(n):
        if i == 0:
            k[0] = f(t, y) if k0 is None else k0
        else:
            k[i] = f(t + c[i] * h, y + h * (a[i, :i] @ k[:i]))
    return y + h * (b @ k)


class Euler(ExplicitRungeKutta):
    """Forward Euler, first order (MoorDyn ``euler``)."""

    name = "euler"
    order = 1
    A = np.zeros((1, 1))
    B = np.array([1.0])
    C = np.array([0.0])


class TrapezoidRK2(ExplicitRungeKutta):
    """Heun's Runge-Kutta method (explicit trapezoid), second order, two evaluations."""

    name = "rk2heun"
    order = 2
    A = np.array([[0.0, 0.0], [1.0, 0.0]])
    B = np.array([0.5, 0.5])
    C = np.array([0.0, 1.0])


class RK2(ExplicitRungeKutta):
    """Explicit midpoint rule, second order (MoorDyn's default ``rk2``)."""

    name = "rk2"
    order = 2
    A = np.array([[0.0, 0.0], [0.5, 0.0]])
    B = np.array([0.0, 1.0])
    C = np.array([0.0, 0.5])


class RK3(ExplicitRungeKutta):
    """Kutta's third-order scheme."""

    name = "rk3"
    order = 3
    A = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [-1.0, 2.0, 0.0]])
    B = np.array([1.0, 4.0, 1.0]) / 6.0
    C = np.array([0.0, 0.5, 1.0])


class RK4(ExplicitRungeKutta):
    """The classical fourth-order Runge-Kutta scheme (MoorDyn ``rk4``)."""

    name = "rk4"
    order = 4
    A = np.array(
        [[0.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]
    )
    B = np.array([1.0, 2.0, 2.0, 1.0]) / 6.0
    C = np.array([0.0, 0.5, 0.5, 1.0])


class Heun(CarriedDerivative):
    """MoorDyn's Heun predictor-corrector: one evaluation per step, second order here.

    Memory: ``d`` (the derivative of the last step's corrector, shape (n,)) and ``t``
    (the time it belongs to, s). A step that does not start where the last one ended
    restarts from ``f(t, y)``.
    """

    name = "heun"
    order = 2

    def _step_impl(
        self, f: RightHandSide, t: float, y: NDArray[np.float64], h: float
    ) -> NDArray[np.float64]:
        d0 = self.carried(t, y.shape, h)
        if d0 is None:
            d0 = f(t, y)
        d1 = f(t + h, y + h * d0)
        y_new = y + 0.5 * h * (d0 + d1)
        if np.all(np.isfinite(y_new)):
            self.carry(d1, t + h)
        return y_new


RUNGE_KUTTA: tuple[type[ExplicitRungeKutta], ...] = (Euler, TrapezoidRK2, RK2, RK3, RK4)
