"""Local-time-step members ``leuler`` and ``lab2`` ... ``lab5`` (MoorDyn-C v2 names).

The partition protocol
----------------------
A right-hand side MAY offer, besides ``f(t, y) -> y'``:

``f.partition``
    Sequence of ``slice`` objects of ``y``, one per part, disjoint, covering ``y``
    (e.g. the body states as one part, each mooring line's nodes as one part each).
``f.part_steps``
    Sequence of floats, s: each part's own stable step (its CFL step in MoorDyn); 0 or
    less means "evaluate at every step".
``f.evaluate(t, y, parts, out)``
    Write the derivative of the listed parts (indices into ``partition``) into
    ``out[partition[p]]`` and leave the rest of ``out`` untouched. The derivative of a
    part may depend on the whole ``y``.

:class:`PartitionedRHS` packages the three (the simulator can build one per step).

A part is re-evaluated at a step when holding its previous derivative over this step too
would hold it longer than its own stable step; otherwise its derivative is held, as
MoorDyn does for lines whose CFL step exceeds the global one (``LocalSchemeBase``,
source/Time.cpp). Parts whose own step is not larger than the global step are therefore
evaluated at every step. Without the protocol, ``leuler`` is ``euler`` and ``labP`` is
``abP``, result for result. ``labP`` holds derivatives only on steps that use the full
Adams-Bashforth history, starter steps evaluate every part (MoorDyn masks only once the
history is full).

Memory (``get_state``): the held derivative ``held`` (n,), the time since each part's last
evaluation ``age`` (parts,) and the time ``t`` the next step is expected to start at; a step
starting elsewhere (a restore, a reset) evaluates every part.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .adams_bashforth import AB2, AB3, AB4, AB5
from .base import RHS, TimeScheme

Evaluate = Callable[[float, NDArray[np.float64], Sequence[int], NDArray[np.float64]], None]


class PartitionedRHS:
    """A right-hand side offering the partition protocol (see the module docstring).

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
        self.evaluate = evaluate
        self.partition = list(partition)
        self.part_steps = [float(s) for s in part_steps]

    def __call__(self, t: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.empty_like(y)
        self.evaluate(t, y, range(len(self.partition)), out)
        return out


def offers_partition(f: Any) -> bool:
    """True if ``f`` offers the partition protocol."""
    return all(hasattr(f, a) for a in ("partition", "part_steps", "evaluate"))


class LocalClock:
    """Which parts to evaluate at each step, and their held derivatives."""

    def __init__(self) -> None:
        self.held: NDArray[np.float64] | None = None
        self.age = np.zeros(0)
        self.t_next = 0.0

    def derivative(self, f: RHS, t: float, y: NDArray[np.float64], h: float,
                   hold: bool) -> NDArray[np.float64]:
        """The derivative at (t, y), some parts held if ``hold`` and f allows it."""
        if not offers_partition(f):
            return f(t, y)
        parts = f.partition
        steps = np.asarray(f.part_steps, dtype=float)
        fresh = (
            self.held is None
            or self.held.shape != y.shape
            or self.age.size != len(parts)
            or abs(self.t_next - t) > 1e-9 * max(h, abs(t))
        )
        if fresh or not hold:
            due = np.ones(len(parts), dtype=bool)
            d = np.empty_like(y)
        else:
            due = self.age + h > steps * (1.0 + 1e-9)
            d = self.held.copy()
        f.evaluate(t, y, [int(p) for p in np.flatnonzero(due)], d)
        age = np.where(due, 0.0, self.age if self.age.size == len(parts) else 0.0) + h
        self.held, self.age, self.t_next = d, age, t + h
        return d

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        if self.held is None:
            return {}
        return {"held": self.held.copy(), "age": self.age.copy(),
                "t": np.array([self.t_next])}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        if "held" in state:
            self.held = np.array(state["held"], dtype=float)
            self.age = np.array(state["age"], dtype=float).reshape(-1)
            self.t_next = float(np.asarray(state["t"])[0])
        else:
            self.held, self.age = None, np.zeros(0)


class LocalEuler(TimeScheme):
    """Forward Euler with local time steps (MoorDyn ``leuler``), first order."""

    name = "leuler"
    order = 1

    def __init__(self) -> None:
        self.clock = LocalClock()

    def _step_impl(
        self, f: RHS, t: float, y: NDArray[np.float64], h: float
    ) -> NDArray[np.float64]:
        return y + h * self.clock.derivative(f, t, y, h, hold=True)

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        return {f"local.{k}": v for k, v in self.clock.get_state().items()}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        self.clock.set_state(
            {k[len("local."):]: v for k, v in state.items() if k.startswith("local.")}
        )


class _LocalAB:
    """Mix-in: an Adams-Bashforth scheme whose newest derivative may hold slow parts."""

    clock: LocalClock

    def __init__(self) -> None:
        super().__init__()  # type: ignore[call-arg]
        self.clock = LocalClock()

    def _derivative(self, f: RHS, t: float, y: NDArray[np.float64], h: float,
                    full_history: bool) -> NDArray[np.float64]:
        return self.clock.derivative(f, t, y, h, hold=full_history)

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        st = super().get_state()  # type: ignore[misc]
        st.update({f"local.{k}": v for k, v in self.clock.get_state().items()})
        return st

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        super().set_state(state)  # type: ignore[misc]
        self.clock.set_state(
            {k[len("local."):]: v for k, v in state.items() if k.startswith("local.")}
        )


class LAB2(_LocalAB, AB2):
    """``ab2`` with local time steps."""

    name = "lab2"


class LAB3(_LocalAB, AB3):
    """``ab3`` with local time steps."""

    name = "lab3"


class LAB4(_LocalAB, AB4):
    """``ab4`` with local time steps."""

    name = "lab4"


class LAB5(_LocalAB, AB5):
    """``ab5`` with local time steps."""

    name = "lab5"


LOCAL: tuple[type[TimeScheme], ...] = (LocalEuler, LAB2, LAB3, LAB4, LAB5)
