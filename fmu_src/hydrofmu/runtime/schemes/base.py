"""The one protocol of every time scheme of :mod:`hydrofmu.runtime.schemes`:
:meth:`TimeScheme.advance`.

A scheme advances a :class:`SteppedSystem` (the simulator: its state, time, history grid
and right-hand side) from its time to the end of a communication step,
``scheme.advance(system, t_end)``. Two kinds implement it:

- the stagewise schemes (:class:`~.stagewise.StagewiseScheme`: Runge-Kutta,
  Adams-Bashforth, semi-implicit, local time steps, ``etdrk4``): the base class takes the
  internal steps of at most ``dt`` on the system's history grid, commits each, checks it
  and restores the system when one fails (as scipy's ``OdeSolver`` does the bookkeeping);
  each scheme implements one internal step, ``_step_impl(f, t, y, h)``, on a
  :class:`~.right_hand_side.RightHandSide` ``f``;
- ``exact`` (:class:`~.exact.Exact`): the exact discretisation of the system's linear
  model over the whole interval.

A scheme that can step the system's linear model over a whole interval by a map says so
in :meth:`TimeScheme.bind` (``exact`` always; an explicit Runge-Kutta scheme on a linear
model with the added mass on the left side and no local time step: its own linear map,
``linear_rk.py``). The map is an :class:`IntervalStepper` held in
:attr:`TimeScheme.interval_map`: it returns the new state, time and history-grid index
(:class:`Interval`) for the system to commit, or ``None`` for an interval it does not take
(a stagewise scheme then takes its internal steps).

Memory of a scheme (the derivative history of a multistep scheme, the last derivative a
semi-implicit scheme starts its iteration from, the held derivatives of a local-time-step
scheme) is returned by :meth:`TimeScheme.get_state` as a dict of finite float arrays and
restored by :meth:`TimeScheme.set_state`; an empty dict restores a fresh scheme (the next
step restarts it).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from typing import ClassVar, NamedTuple, NoReturn, Protocol

import numpy as np
from numpy.typing import NDArray

from ..errors import IntegrationError
from ..linear.model import LinearModel
from ..linear.stepper import SinusoidBank
from .right_hand_side import RHS, RightHandSide

__all__ = ["ADVICE", "DIVERGENCE_LIMIT", "GROWTH_LIMIT", "RHS", "Interval", "IntervalStepper",
           "SteppedSystem", "TimeScheme", "diverged", "grid_tolerance", "same_step"]

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


def grid_tolerance(t: float, t0: float, dt: float) -> float:
    """How far (s) a communication time ``t`` (s) may be from a time of the history grid
    ``t0 + k dt`` (s) and still be it.

    An importer that computes its times as ``t += h`` adds about one rounding of ``t``
    per step (measured: 2.2e-8 s after 3 hours of 0.1 s steps, 1.8e-6 s after 30
    hours): allowed, one ulp of ``t`` per internal step since the start (a bound for
    steps of at least ``dt``), at least 8 ulps and 1e-9 ``dt``, at most ``dt / 4``.
    """
    ulp = math.ulp(t)
    return min(0.25 * dt, max(1e-9 * dt, ulp * max(8.0, (t - t0) / dt)))


def same_step(a: float, b: float) -> bool:
    """True if two steps (s) are equal to round-off (a few ulps of the larger)."""
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


class Interval(NamedTuple):
    """The end of a communication step taken by an :class:`IntervalStepper`.

    Attributes
    ----------
    y
        The new state, shape (n,).
    time
        The new time, s.
    grid_index
        The new history-grid index (grid time ``t0 + grid_index dt``).
    """

    y: NDArray[np.float64]
    time: float
    grid_index: int


class IntervalStepper(Protocol):
    """A scheme's map of a linear model over a communication step (module docstring)."""

    def advance(self, y: NDArray[np.float64], u: NDArray[np.float64], *, t0: float,
                time: float, grid_index: int, t_end: float, eps: float) -> Interval | None:
        """From the state ``y`` at ``time`` (s; ``grid_index`` its history-grid index, the
        run started at ``t0``) to ``t_end`` with the inputs ``u`` held; ``eps`` the grid
        tolerance at ``t_end`` (s). ``None``: not an interval this stepper takes. Raises
        :class:`IntegrationError` for a diverging state (nothing is changed)."""
        ...


class SteppedSystem(Protocol):
    """What a scheme advances (the simulator, ``simulator/simulator.py``).

    Attributes
    ----------
    y
        The state at :attr:`time`, shape (n,).
    u
        The inputs, held over the communication step, shape (n_in,).
    time
        The current time, s.
    t0
        Start of the run, s.
    dt
        The history grid's step (``max_internal_step``), s: the internal steps end on it.
    grid_index
        Index of the newest history sample, at ``t0 + grid_index dt``.
    """

    y: NDArray[np.float64]
    u: NDArray[np.float64]
    time: float
    t0: float
    dt: float
    grid_index: int

    def grid_tolerance(self, t: float) -> float:
        """How far (s) a time ``t`` may be from a grid time and still be it."""
        ...

    def right_hand_side(self, t_n: float, y_n: NDArray[np.float64]) -> RightHandSide:
        """``f(t, y)`` of the internal step from ``(t_n, y_n)`` (the inputs and the memories
        held over it)."""
        ...

    def start_on_grid(self) -> None:
        """Snap the time to the grid time (the importer's round-off) and let the parts take
        the new inputs, before the first internal step of an interval that starts on it."""
        ...

    def accept_step(self, y: NDArray[np.float64], time: float, on_grid: bool) -> None:
        """Commit the state ``y`` at ``time`` (s) after an internal step; ``on_grid``: it
        ends on the next grid time (the history moves on)."""
        ...

    def accept_interval(self, interval: Interval) -> None:
        """Commit the end of an interval taken by an :class:`IntervalStepper`."""
        ...

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """Every internal array, copied (to restore after a failed interval)."""
        ...

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore a state saved by :meth:`get_state`."""
        ...


class TimeScheme:
    """Base class of every time scheme: :meth:`advance` (module docstring).

    Attributes
    ----------
    name
        Registry name (for a family with substeps, the instance's full name, ``midpoint5``).
    order
        Nominal convergence order (global error ~ h**order).
    one_step
        A communication step is one step of the scheme whatever its length (``exact``):
        the work limit counts it as one internal step.
    uses_linear_part
        The scheme reads :attr:`~.right_hand_side.RightHandSide.linear_part`; the
        simulator offers it.
    explicit_tableau
        Each internal step is exactly the explicit Runge-Kutta step of the class's Butcher
        tableau ``A``, ``B``, ``C`` (:class:`~.runge_kutta.ExplicitRungeKutta`), so that
        another implementation of the same tableau (a linear map, a compiled stepper) may
        replace it.
    interval_map
        The map of the bound linear model over whole intervals (:meth:`bind`), or ``None``:
        internal steps only. Setting it to ``None`` steps stagewise (comparisons), until
        the next :meth:`bind`.
    """

    name: ClassVar[str] = ""
    order: ClassVar[int] = 0
    one_step: ClassVar[bool] = False
    uses_linear_part: ClassVar[bool] = False
    explicit_tableau: ClassVar[bool] = False
    interval_map: IntervalStepper | None = None

    @property
    def label(self) -> str:
        """The name the user typed (``name`` plus substeps for the semi-implicit family)."""
        return self.name

    def bind(self, model: LinearModel, *, dt: float, bank: SinusoidBank, t0: float,
             added_mass_method: str, local_steps: bool) -> None:
        """Take the system's linear model (again, after a tunable parameter changed): set
        :attr:`interval_map` when the scheme steps it over whole intervals. By default none.

        Parameters
        ----------
        model
            The system's linear model (:mod:`hydrofmu.runtime.linear.model`).
        dt
            ``max_internal_step``, s.
        bank
            The system's sinusoids of ``model.omega``.
        t0
            Start of the run, s.
        added_mass_method
            ``added_mass.method``.
        local_steps
            A local-time-step partition runs.

        Raises
        ------
        ConfigError
            A scheme that steps only linear models (``exact``) given one it cannot step.
        """
        self.interval_map = None

    def advance(self, system: SteppedSystem, t_end: float) -> None:
        """Advance ``system`` from its time to ``t_end`` (s) and commit the result in it.

        Raises
        ------
        IntegrationError
            The state diverges; the system is as before the call.
        """
        raise NotImplementedError

    def advance_by_map(self, system: SteppedSystem, t_end: float) -> bool:
        """Advance ``system`` to ``t_end`` (s) by :attr:`interval_map` and commit it; False
        (nothing done) without a map or for an interval it does not take."""
        stepper = self.interval_map
        done = None if stepper is None else stepper.advance(
            system.y, system.u, t0=system.t0, time=system.time, grid_index=system.grid_index,
            t_end=t_end, eps=system.grid_tolerance(t_end))
        if done is None:
            return False
        system.accept_interval(done)
        return True

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """Internal memory of the scheme, arrays only (empty for one-step schemes)."""
        return {}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore the memory saved by :meth:`get_state`; ``{}`` restarts the scheme."""

    def reset(self) -> None:
        """Forget every memory: the next step starts the scheme afresh."""
        self.set_state({})
