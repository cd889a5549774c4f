"""Local-time-step members ``leuler`` and ``lab2`` ... ``lab5`` (MoorDyn-C v2 names).

The partition
-------------
A :class:`~.right_hand_side.RightHandSide` may declare, besides ``f(t, y) -> y'``, a
partition of the state (:attr:`~.right_hand_side.RightHandSide.partition`: slices of
``y``, one per part, e.g. the body states as one part, each mooring line's nodes as one
part each), each part's own stable step
(:attr:`~.right_hand_side.RightHandSide.part_steps`, s: its CFL step in MoorDyn; 0 or less
means "evaluate at every step") and the evaluation of some parts only
(:meth:`~.right_hand_side.RightHandSide.evaluate`). :class:`PartitionedRHS` packages the
three (the simulator builds one per step).

A part is re-evaluated at a step when going on without evaluating it over this step too
would exceed its own stable step since its last evaluation; otherwise it is not evaluated,
as MoorDyn does for lines whose CFL step exceeds the global one (``LocalSchemeBase``,
source/Time.cpp). Parts whose own step is not larger than the global step are therefore
evaluated at every step. A part not evaluated gets, for ``leuler``, its last derivative
(held, MoorDyn's choice) and, for ``labP``, the polynomial extrapolation through its last
P evaluations: holding would make the slow parts first order, extrapolation keeps them of
order P at their own step (MoorDyn-C v2.7.1's factory actually maps ``lab2``..``lab4`` to
the plain ``abP``). Without a partition, ``leuler`` is ``euler`` and ``labP`` is ``abP``,
result for result. ``labP`` skips parts only on steps that use the full Adams-Bashforth
history; starter steps evaluate every part (MoorDyn masks only once the history is full).

Memory (``get_state``, keys ``local.*``): the last evaluations of each part and their times,
how many are stored, the time since each part's last evaluation, and the time ``t`` the
next step is expected to start at; a step starting elsewhere (a restore of an older
state, a reset) evaluates every part afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from .adams_bashforth import AB2, AB3, AB4, AB5, AdamsBashforth
from .right_hand_side import RightHandSide
from .stagewise import StagewiseScheme

Evaluate = Callable[[float, NDArray[np.float64], Sequence[int], NDArray[np.float64]], None]


class PartitionedRHS(RightHandSide):
    """A right-hand side with a partition (see the module docstring).

    Parameters
    ----------
    evaluate
        ``evaluate(t, y, parts, out)``.
    partition
        Slices of the state, one per part.
    part_steps
        Each part's own stable step, s.
    """

    def __init__(self, *, evaluate: Evaluate, partition: Sequence[slice],
                 part_steps: Sequence[float]) -> None:
        if len(partition) != len(part_steps):
            raise ValueError(
                f"partition has {len(partition)} parts but part_steps has "
                f"{len(part_steps)} entries: give one stable step per part"
            )
        self.evaluator = evaluate
        self.partition: list[slice] = list(partition)
        self.part_steps: list[float] = [float(s) for s in part_steps]

    def evaluate(self, t: float, y: NDArray[np.float64], parts: Sequence[int],
                 out: NDArray[np.float64]) -> None:
        """``evaluate(t, y, parts, out)`` as given (see
        :meth:`~.right_hand_side.RightHandSide.evaluate`)."""
        self.evaluator(t, y, parts, out)

    def __call__(self, t: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.empty_like(y)
        self.evaluator(t, y, range(len(self.partition)), out)
        return out


class LocalClock:
    """Which parts to evaluate at each step, and the derivative of the others.

    Parameters
    ----------
    points
        Evaluations kept per part: a part that is not due is given the polynomial
        extrapolation through its last ``points`` evaluations (1: the derivative held, as
        MoorDyn; P for ``labP``, so that the slow parts keep the order P at their own step).
    """

    def __init__(self, *, points: int = 1) -> None:
        self.points = points
        self._reset()

    def _reset(self) -> None:
        self.evals = np.zeros((0, 0))  # (points, n), newest first, per part's slice
        self.times = np.zeros((0, 0))  # (points, parts)
        self.count = np.zeros(0)  # evaluations stored per part
        self.age = np.zeros(0)  # time since each part's last evaluation, s
        self.t_next = 0.0

    def derivative(self, f: RightHandSide, t: float, y: NDArray[np.float64], h: float,
                   hold: bool) -> NDArray[np.float64]:
        """The derivative at (t, y), some parts extrapolated if ``hold`` and ``f`` has a
        partition."""
        parts = f.partition
        if parts is None or f.part_steps is None:
            return f(t, y)
        steps = np.asarray(f.part_steps, dtype=float)
        k = self.points
        if (
            self.evals.shape != (k, y.size)
            or self.age.size != len(parts)
            or abs(self.t_next - t) > 1e-9 * max(h, abs(t))
        ):
            self._reset()
            self.evals = np.zeros((k, y.size))
            self.times = np.zeros((k, len(parts)))
            self.count = np.zeros(len(parts))
            self.age = np.zeros(len(parts))
            due = np.ones(len(parts), dtype=bool)
        elif hold:
            due = (self.age + h > steps * (1.0 + 1e-9)) | (self.count < k)
        else:
            due = np.ones(len(parts), dtype=bool)
        d = np.empty_like(y)
        f.evaluate(t, y, [int(p) for p in np.flatnonzero(due)], d)
        for p, sl in enumerate(parts):
            if due[p]:
                self.evals[1:, sl] = self.evals[:-1, sl]
                self.evals[0, sl] = d[sl]
                self.times[1:, p] = self.times[:-1, p]
                self.times[0, p] = t
                self.count[p] = min(self.count[p] + 1, k)
            else:
                d[sl] = lagrange_weights(self.times[:, p], t) @ self.evals[:, sl]
        self.age = np.where(due, 0.0, self.age) + h
        self.t_next = t + h
        return d

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        if self.age.size == 0:
            return {}
        return {"evals": self.evals.copy(), "times": self.times.copy(),
                "count": self.count.copy(), "age": self.age.copy(),
                "t": np.array([self.t_next])}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        if "evals" in state:
            self.evals = np.array(state["evals"], dtype=float)
            self.times = np.array(state["times"], dtype=float)
            self.count = np.array(state["count"], dtype=float).reshape(-1)
            self.age = np.array(state["age"], dtype=float).reshape(-1)
            self.t_next = float(np.asarray(state["t"])[0])
        else:
            self._reset()


def lagrange_weights(nodes: NDArray[np.float64], t: float) -> NDArray[np.float64]:
    """Weights of the polynomial through values at ``nodes`` evaluated at ``t``, shape (k,)."""
    w = np.ones(nodes.size)
    for j in range(nodes.size):
        for i in range(nodes.size):
            if i != j:
                w[j] *= (t - nodes[i]) / (nodes[j] - nodes[i])
    return w


class LocalEuler(StagewiseScheme):
    """Forward Euler with local time steps (MoorDyn ``leuler``), first order."""

    name = "leuler"
    order = 1

    def __init__(self) -> None:
        self.clock = LocalClock(points=1)

    def _step_impl(
        self, f: RightHandSide, t: float, y: NDArray[np.float64], h: float
    ) -> NDArray[np.float64]:
        return y + h * self.clock.derivative(f, t, y, h, hold=True)

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        return {f"local.{k}": v for k, v in self.clock.get_state().items()}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        self.clock.set_state(
            {k[len("local."):]: v for k, v in state.items() if k.startswith("local.")}
        )


class LocalAdamsBashforth(AdamsBashforth):
    """An Adams-Bashforth scheme whose newest derivative may hold slow parts (``labP``):
    subclasses set the ``abP`` coefficients (:class:`~.adams_bashforth.AdamsBashforth`).

    Attributes
    ----------
    clock
        Which parts are due, and the extrapolation of the others through their last P
        evaluations.
    """

    def __init__(self) -> None:
        super().__init__()
        self.clock = LocalClock(points=self.BETA.size)

    def _derivative(self, f: RightHandSide, t: float, y: NDArray[np.float64], h: float,
                    full_history: bool) -> NDArray[np.float64]:
        return self.clock.derivative(f, t, y, h, hold=full_history)

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        st = super().get_state()
        st.update({f"local.{k}": v for k, v in self.clock.get_state().items()})
        return st

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        super().set_state(state)
        self.clock.set_state(
            {k[len("local."):]: v for k, v in state.items() if k.startswith("local.")}
        )


class LAB2(LocalAdamsBashforth):
    """``ab2`` with local time steps."""

    name = "lab2"
    order, BETA, STARTER = AB2.order, AB2.BETA, AB2.STARTER


class LAB3(LocalAdamsBashforth):
    """``ab3`` with local time steps."""

    name = "lab3"
    order, BETA, STARTER = AB3.order, AB3.BETA, AB3.STARTER


class LAB4(LocalAdamsBashforth):
    """``ab4`` with local time steps."""

    name = "lab4"
    order, BETA, STARTER = AB4.order, AB4.BETA, AB4.STARTER


class LAB5(LocalAdamsBashforth):
    """``ab5`` with local time steps."""

    name = "lab5"
    order, BETA, STARTER = AB5.order, AB5.BETA, AB5.STARTER


LOCAL: tuple[type[StagewiseScheme], ...] = (LocalEuler, LAB2, LAB3, LAB4, LAB5)
