"""The right-hand side ``y' = f(t, y)`` a time scheme integrates: :class:`RightHandSide`.

Every scheme calls ``f(t, y)``. Two kinds of scheme read more, declared here instead of
probed for:

- ``etdrk4`` (``uses_linear_part``) reads :attr:`RightHandSide.linear_part`, the matrix
  ``F`` of ``f(t, y) = F y + g(t, y)`` when the simulator knows it;
- the local-time-step schemes (``leuler``, ``labP``, ``local.py``) read
  :attr:`RightHandSide.partition` and :attr:`RightHandSide.part_steps` and call
  :meth:`RightHandSide.evaluate` for some parts only.

The simulator's right-hand sides (``simulator/rhs.py``: the sum over the parts, the
assembled linear form; ``local.py``'s :class:`~.local.PartitionedRHS`) are subclasses; a
plain function ``f(t, y)`` handed to a scheme is wrapped by :func:`as_rhs`.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

#: A plain right-hand side ``f(t, y) -> y'``.
RHS = Callable[[float, NDArray[np.float64]], NDArray[np.float64]]


class RightHandSide:
    """``y' = f(t, y)``: called as ``f(t, y)`` (time in s, state of shape (n,)) for the
    derivative, shape (n,), a new array.

    Attributes
    ----------
    linear_part
        ``F`` of ``f(t, y) = F y + g(t, y)``, shape (n, n), in 1/s (the rows of the
        velocities: 1/s^2 on the positions), or ``None`` when not known (a scheme that
        reads it then takes ``F = 0``).
    partition
        Slices of ``y``, one per part, disjoint and covering ``y`` (the bodies' states,
        each mooring line's nodes...), or ``None``: no partition (every scheme then calls
        ``f(t, y)`` only).
    part_steps
        Each part's own stable step, s (a line's CFL step), one per slice of
        :attr:`partition`; 0 or less: evaluate at every step. ``None`` without partition.
    """

    linear_part: NDArray[np.float64] | None = None
    partition: Sequence[slice] | None = None
    part_steps: Sequence[float] | None = None

    def __call__(self, t: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """The derivative at time ``t`` (s) and state ``y``, shape (n,)."""
        raise NotImplementedError

    def evaluate(self, t: float, y: NDArray[np.float64], parts: Sequence[int],
                 out: NDArray[np.float64]) -> None:
        """Write the derivative of the listed parts (indices into :attr:`partition`) into
        ``out[partition[p]]``; the rest of ``out`` may be left untouched. The derivative of
        a part may depend on the whole ``y``. By default the whole derivative is written."""
        out[:] = self(t, y)


class FunctionRHS(RightHandSide):
    """A plain function ``f(t, y)`` as a :class:`RightHandSide` (no linear part, no
    partition unless given).

    Parameters
    ----------
    function
        ``f(t, y) -> y'``.
    linear_part
        See :attr:`RightHandSide.linear_part`.
    """

    def __init__(self, function: RHS, *,
                 linear_part: NDArray[np.float64] | None = None) -> None:
        self.function = function
        self.linear_part = linear_part

    def __call__(self, t: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        return self.function(t, y)


def as_rhs(f: RightHandSide | RHS) -> RightHandSide:
    """``f`` itself if it is a :class:`RightHandSide`, else ``f`` wrapped
    (:class:`FunctionRHS`)."""
    return f if isinstance(f, RightHandSide) else FunctionRHS(f)
