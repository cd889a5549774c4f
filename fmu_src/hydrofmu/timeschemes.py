"""The integrator family, chosen by name as in MoorDyn.

A scheme sees only ``y' = f(t, y)`` over one internal step: forces with memory keep it in
the state or in a history object that the simulator commits after the step is accepted,
so a scheme may evaluate ``f`` as often as it likes without side effects.

This module holds the explicit Runge-Kutta members (``euler``, ``heun``, ``rk2``, ``rk3``,
``rk4``); the multistep (``abN``) and semi-implicit (``beulerN``, ``midpointN``...) members
plug into the same :class:`TimeScheme` interface (they keep their memory in
:meth:`TimeScheme.get_state`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from .errors import ConfigError, IntegrationError, did_you_mean

RHS = Callable[[float, NDArray[np.float64]], NDArray[np.float64]]


class TimeScheme:
    """Base class: :meth:`step` does the bookkeeping, subclasses implement ``_step_impl``.

    Attributes
    ----------
    name
        Registry name.
    order
        Formal convergence order.
    """

    name: ClassVar[str] = ""
    order: ClassVar[int] = 0

    def step(self, f: RHS, t: float, y: NDArray[np.float64], h: float) -> NDArray[np.float64]:
        """Advance ``y`` from ``t`` to ``t + h``.

        Parameters
        ----------
        f
            Right-hand side ``f(t, y) -> y'``.
        t
            Current time, s.
        y
            State at ``t``; never modified.
        h
            Step, s, > 0.

        Returns
        -------
        numpy.ndarray
            The new state. Raises :class:`IntegrationError` if it is not finite.
        """
        y_new = self._step_impl(f, t, y, h)
        if not np.all(np.isfinite(y_new)):
            raise IntegrationError(
                f"time scheme '{self.name}' produced a non-finite state in the step "
                f"t = {t:.6g} s -> {t + h:.6g} s (h = {h:.3g} s); the step is too large for "
                "this scheme or the model diverges: reduce max_internal_step",
                value=t,
            )
        return y_new

    def _step_impl(
        self, f: RHS, t: float, y: NDArray[np.float64], h: float
    ) -> NDArray[np.float64]:
        raise NotImplementedError

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """Internal memory of the scheme (empty for one-step schemes)."""
        return {}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore the memory saved by :meth:`get_state`."""


class ExplicitRungeKutta(TimeScheme):
    """Explicit Runge-Kutta scheme defined by its Butcher tableau (``A``, ``B``, ``C``)."""

    A: ClassVar[NDArray[np.float64]]
    B: ClassVar[NDArray[np.float64]]
    C: ClassVar[NDArray[np.float64]]

    def _step_impl(
        self, f: RHS, t: float, y: NDArray[np.float64], h: float
    ) -> NDArray[np.float64]:
        n = self.B.size
        k = np.empty((n, y.size))
        for i in range(n):
            yi = y + h * (self.A[i, :i] @ k[:i]) if i else y
            k[i] = f(t + self.C[i] * h, yi)
        return y + h * (self.B @ k)


class Euler(ExplicitRungeKutta):
    """Forward Euler, first order."""

    name = "euler"
    order = 1
    A = np.zeros((1, 1))
    B = np.array([1.0])
    C = np.array([0.0])


class Heun(ExplicitRungeKutta):
    """Heun's predictor-corrector (explicit trapezoid), second order."""

    name = "heun"
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
    """The classical fourth-order Runge-Kutta scheme."""

    name = "rk4"
    order = 4
    A = np.array(
        [[0.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]
    )
    B = np.array([1.0, 2.0, 2.0, 1.0]) / 6.0
    C = np.array([0.0, 0.5, 0.5, 1.0])


SCHEMES: dict[str, type[TimeScheme]] = {
    cls.name: cls for cls in (Euler, Heun, RK2, RK3, RK4)
}


def make_scheme(name: str | type[TimeScheme]) -> TimeScheme:
    """Instantiate a scheme by registry name, or from a user subclass of :class:`TimeScheme`.

    Raises
    ------
    ConfigError
        Unknown name; the message lists the choices and the closest match.
    """
    if isinstance(name, type) and issubclass(name, TimeScheme):
        return name()
    key = str(name).strip().lower()
    if key not in SCHEMES:
        hint = did_you_mean(key, list(SCHEMES))
        raise ConfigError(
            f"unknown time_scheme {name!r}{hint}; available: {', '.join(sorted(SCHEMES))}",
            value=name,
        )
    return SCHEMES[key]()
