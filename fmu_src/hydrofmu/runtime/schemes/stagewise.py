"""The stagewise schemes' base class: :class:`StagewiseScheme`, and the memory of a carried
derivative (:class:`CarriedDerivative`).

:meth:`StagewiseScheme.advance` (the protocol of ``base.py``) takes the interval by the
scheme's linear map when it has one for it, else by internal steps of at most ``dt`` on
the system's history grid (:meth:`StagewiseScheme.internal_steps`): it asks the system for
the right-hand side of each step, takes the step (:meth:`StagewiseScheme.step`, which
checks what the scheme's ``_step_impl`` returns), commits it in the system and restores the
system when a step fails. A scheme implements ``_step_impl(f, t, y, h)`` only. It may call
``f`` as often as it likes: forces with memory keep it in the state or in a history object
that the system commits only after the step is accepted.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..errors import IntegrationError
from .base import ADVICE, DIVERGENCE_LIMIT, GROWTH_LIMIT, SteppedSystem, TimeScheme
from .right_hand_side import RHS, RightHandSide, as_rhs


class StagewiseScheme(TimeScheme):
    """A scheme of internal steps: subclasses implement ``_step_impl`` (module docstring)."""

    def advance(self, system: SteppedSystem, t_end: float) -> None:
        """Advance ``system`` to ``t_end`` (s): by :attr:`interval_map` when it takes the
        interval, else by :meth:`internal_steps`, the system restored when they fail."""
        if self.advance_by_map(system, t_end):
            return
        saved = system.get_state()
        try:
            self.internal_steps(system, t_end)
        except IntegrationError:
            system.set_state(saved)
            raise

    def internal_steps(self, system: SteppedSystem, t_end: float) -> None:
        """Internal steps from the system's time to ``t_end`` (s), each committed in it.

        Each step ends on the next time of the history grid ``t0 + k dt`` or at ``t_end``;
        a time within the grid tolerance of a grid time is that grid time (the importer's
        round-off is absorbed, not stepped). Ended on the grid, the system's time stays the
        grid time (``t_end`` differs by round-off, within the tolerance).

        Raises
        ------
        IntegrationError
            A step fails its check, or the state passes :data:`~.base.DIVERGENCE_LIMIT`;
            the steps before are committed (:meth:`advance` restores them).
        """
        eps = system.grid_tolerance(t_end)
        if abs(system.time - (system.t0 + system.grid_index * system.dt)) <= eps:
            system.start_on_grid()
        while system.time < t_end - eps:
            t, y = system.time, system.y
            t_grid_next = system.t0 + (system.grid_index + 1) * system.dt
            on_grid = t_grid_next <= t_end + eps
            t_next = t_grid_next if on_grid else t_end
            h = t_next - t
            y_new = self.step(system.right_hand_side(t, y), t, y, h)
            if np.max(np.abs(y_new)) > DIVERGENCE_LIMIT:
                raise IntegrationError(
                    f"the solution diverges at t = {t_next:.6g} s with time scheme '"
                    f"{self.label}' (h = {h:.3g} s, |state| = {np.max(np.abs(y_new)):.3g}"
                    f" > {DIVERGENCE_LIMIT:g}); reduce max_internal_step or use an implicit "
                    "scheme (e.g. midpoint5), and check the mass, stiffness and damping data",
                    value=t_next)
            system.accept_step(y_new, t_next, on_grid)

    def step(self, f: RightHandSide | RHS, t: float, y: NDArray[np.float64],
             h: float) -> NDArray[np.float64]:
        """Advance ``y`` from ``t`` to ``t + h`` by one internal step.

        Parameters
        ----------
        f
            Right-hand side ``f(t, y) -> y'``, shape (n,) -> (n,): a
            :class:`~.right_hand_side.RightHandSide`, or a plain function (wrapped).
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
            The new state is not finite or grew by more than :data:`~.base.GROWTH_LIMIT`
            in the step; the message names the scheme, the step and the time, with advice.
            Subclasses update their memory only after a finite result, so the memory
            is left as before the step (the system restores its own state too).
        """
        with np.errstate(over="ignore", invalid="ignore"):
            y_new = self._step_impl(as_rhs(f), t, y, h)
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

    def _step_impl(self, f: RightHandSide, t: float, y: NDArray[np.float64],
                   h: float) -> NDArray[np.float64]:
        """One internal step of the scheme (the subclass's job), unchecked."""
        raise NotImplementedError


class CarriedDerivative(StagewiseScheme):
    """A scheme that carries the last step's final derivative into the next step.

    Memory: ``d`` (that derivative, shape (n,)) and ``t`` (the time it belongs to, s);
    none before the first step. Read by :meth:`carried`, set by :meth:`carry` after a good
    step (also by a compiled stepper of the same scheme).
    """

    def __init__(self) -> None:
        self._d: NDArray[np.float64] | None = None
        self._t = 0.0

    def carried(self, t: float, shape: tuple[int, ...], h: float
                ) -> NDArray[np.float64] | None:
        """The carried derivative when it belongs to time ``t`` (s, to ``1e-9 max(h, |t|)``
        for a step ``h``, s) and has the state's ``shape``, else ``None`` (the scheme
        restarts from ``f(t, y)``)."""
        d = self._d
        if d is None or d.shape != shape or abs(self._t - t) > 1e-9 * max(h, abs(t)):
            return None
        return d

    def carry(self, d: NDArray[np.float64], t: float) -> None:
        """Carry the derivative ``d`` (shape (n,), kept, not copied) of time ``t`` (s)."""
        self._d, self._t = d, t

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
