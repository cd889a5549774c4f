"""The time-scheme interface shared by every integrator of :mod:`hydrofmu.runtime.schemes`.

A scheme advances ``y' = f(t, y)`` by one internal step, ``scheme.step(f, t, y, h)``.
It may call ``f`` as often as it likes: forces with memory keep it in the state or in a
history object that the simulator commits only after the step is accepted.

Memory of a scheme (the derivative history of a multistep scheme, the last derivative a
semi-implicit scheme starts its iteration from, the held derivatives of a local-time-step
scheme) is returned by :meth:`TimeScheme.get_state` as a dict of finite float arrays and
restored by :meth:`TimeScheme.set_state`; an empty dict restores a fresh scheme (the next
step restarts it).

A right-hand side may offer more than ``f(t, y)``: its linear part ``f.linear_part`` (the
matrix ``F`` of ``f(t, y) = F y + g(t, y)``, shape (n, n), when the simulator knows it;
read by the schemes with ``uses_linear_part``, ``etdrk4``) and the partition protocol of
the local-time-step schemes (``local.py``).

The second protocol here, :class:`IntervalStepper`, is not a time scheme: the map of a
linear model over a whole communication step (``exact``, a Runge-Kutta scheme's linear
map), chosen by the simulator from its linear model and the scheme named by the user. It
returns the new state, time and history-grid index (:class:`Interval`) for the simulator
to commit, or ``None`` when the interval is not one it steps (the simulator then takes its
internal steps with the scheme).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar, NamedTuple, NoReturn, Protocol

import numpy as np
from numpy.typing import NDArray

from ..errors import IntegrationError

RHS = Callable[[float, NDArray[np.float64]], NDArray[np.float64]]

#: A step whose state grows past this many times ``max(1, |y|)`` in one step diverges.
GROWTH_LIMIT = 1.0e6

#: Advice appended to every divergence message.
ADVICE = (
    "reduce max_internal_step, or choose a scheme with a larger stability region such as "
    "an implicit one (e.g. time_scheme = 'midpoint5' or 'aca5')"
)


#: A state beyond this magnitude (m, rad, m/s, rad/s) is taken as a diverging solution.
DIVERGENCE_LIMIT = 1.0e6


def diverged(y: NDArray[np.float64], t: float, label: str, why: str) -> NoReturn:
    """Raise the :class:`IntegrationError` of a state ``y`` that reached
    :data:`DIVERGENCE_LIMIT` (or is not finite) at ``t`` (s) with the scheme ``label``;
    ``why`` is the cause and the fix."""
    size = float(np.max(np.abs(y), initial=0.0))
    what = f"|state| = {size:.3g} > {DIVERGENCE_LIMIT:g}" if math.isfinite(size) else \
        "a non-finite state"
    raise IntegrationError(
        f"the solution diverges at t = {t:.6g} s with time scheme '{label}' ({what}): {why}",
        value=t)


class Interval(NamedTuple):
    """The end of a communication step taken by an :class:`IntervalStepper`."""

    y: NDArray[np.float64]
    time: float
    grid_index: int


class IntervalStepper(Protocol):
    """The map of a linear model over a communication step (module docstring)."""

    def advance(self, y: NDArray[np.float64], u: NDArray[np.float64], *, t0: float,
                time: float, grid_index: int, t_end: float, eps: float) -> Interval | None:
        """From the state ``y`` at ``time`` (s; ``grid_index`` its history-grid index, the
        run started at ``t0``) to ``t_end`` with the inputs ``u`` held; ``eps`` the grid
        tolerance at ``t_end`` (s). ``None``: not an interval this stepper takes. Raises
        :class:`IntegrationError` for a diverging state (nothing is changed)."""
        ...


def same_step(a: float, b: float) -> bool:
    """True if two steps (s) are equal to round-off (a few ulps of the larger)."""
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


class TimeScheme:
    """Base class: :meth:`step` checks the result; subclasses implement ``_step_impl``.

    Attributes
    ----------
    name
        Registry name (for a family with substeps, the instance's full name, ``midpoint5``).
    order
        Nominal convergence order (global error ~ h**order).
    """

    name: ClassVar[str] = ""
    order: ClassVar[int] = 0
    #: True when a communication step is one step of the scheme whatever its length
    #: (``exact``): the work limit counts it as one internal step.
    one_step: ClassVar[bool] = False
    #: The scheme reads ``f.linear_part`` (module docstring); the simulator offers it.
    uses_linear_part: ClassVar[bool] = False

    @property
    def label(self) -> str:
        """The name the user typed (``name`` plus substeps for the semi-implicit family)."""
        return self.name

    def step(self, f: RHS, t: float, y: NDArray[np.float64], h: float) -> NDArray[np.float64]:
        """Advance ``y`` from ``t`` to ``t + h``.

        Parameters
        ----------
        f
            Right-hand side ``f(t, y) -> y'``, shape (n,) -> (n,).
        t
            Current time, s.
        y
            State at ``t``, shape (n,); never modified.
        h
            Step, s, > 0.

        Returns
        -------
        numpy.ndarray
            The new state, shape (n,).

        Raises
        ------
        IntegrationError
            The new state is not finite or grew by more than :data:`GROWTH_LIMIT` in the
            step; the message names the scheme, the step and the time, with advice.
            Subclasses update their memory only after a finite result, so the memory
            is left as before the step (the simulator restores its own state too).
        """
        with np.errstate(over="ignore", invalid="ignore"):
            y_new = self._step_impl(f, t, y, h)
        if not np.all(np.isfinite(y_new)):
            what = "a non-finite state"
        elif float(np.max(np.abs(y_new), initial=0.0)) > GROWTH_LIMIT * max(
            1.0, float(np.max(np.abs(y), initial=0.0))
        ):
            what = f"an exploding state (grown more than {GROWTH_LIMIT:.0e} times in one step)"
        else:
            return y_new
        raise IntegrationError(
            f"time scheme '{self.label}' produced {what} in the step t = {t:.6g} s -> "
            f"{t + h:.6g} s (h = {h:.3g} s): the step is too large for this scheme or the "
            f"model diverges; {ADVICE}",
            value=t,
        )

    def _step_impl(
        self, f: RHS, t: float, y: NDArray[np.float64], h: float
    ) -> NDArray[np.float64]:
        raise NotImplementedError

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """Internal memory of the scheme, arrays only (empty for one-step schemes)."""
        return {}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore the memory saved by :meth:`get_state`; ``{}`` restarts the scheme."""

    def reset(self) -> None:
        """Forget every memory: the next step starts the scheme afresh."""
        self.set_state({})


class CarriedDerivative(TimeScheme):
    """A scheme that carries the last step's final derivative into the next step.

    Memory: ``d`` (that derivative, shape (n,)) and ``t`` (the time it belongs to, s);
    none before the first step. Subclasses set ``self._d, self._t`` after a good step.
    """

    def __init__(self) -> None:
        self._d: NDArray[np.float64] | None = None
        self._t = 0.0

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        if self._d is None:
            return {}
        return {"d": self._d.copy(), "t": np.array([self._t])}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        if "d" in state:
            self._d = np.array(state["d"], dtype=float)
            self._t = float(np.asarray(state["t"])[0])
        else:
            self._d = None
