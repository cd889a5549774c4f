"""The simulator's outputs at its time, state and inputs, evaluated once per point:
:class:`OutputCache`, owned by the simulator.

The outputs come from the linear output map when there is one (``outputs.py``,
:class:`~.outputs.OutputMap`), else part by part (the simulator's
:meth:`~.simulator.Simulator.outputs_by_parts`, handed over as a function). They are kept
until the simulator says that the state, the time or the inputs changed
(:meth:`OutputCache.invalidate`).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..errors import IntegrationError
from .outputs import AtPoint, OutputMap


class OutputCache:
    """The outputs of the current point (module docstring).

    Parameters
    ----------
    n_outputs
        Number of outputs.
    by_parts
        ``(t, y, u) -> outputs``, shape (n_outputs,): asked of the parts one by one.
    context
        ``(t, y, u) -> Context``: the evaluation context of a point, for the parts asked on
        top of the map.

    Attributes
    ----------
    values
        The last good outputs, shape (n_outputs,) (a new array at each evaluation).
    stale
        :attr:`values` are not those of the current point.
    output_map
        The linear output map, or ``None`` (part by part); set by the simulator when it
        assembles its linear model.
    by_parts, context
        As given.
    """

    def __init__(self, n_outputs: int, *, by_parts: AtPoint, context: AtPoint) -> None:
        self.values: NDArray[np.float64] = np.zeros(n_outputs)
        self.stale = True
        self.output_map: OutputMap | None = None
        self.by_parts = by_parts
        self.context = context

    def reset(self) -> None:
        """Zero outputs (a new array), to be evaluated."""
        self.values = np.zeros(self.values.size)
        self.stale = True

    def invalidate(self) -> None:
        """The point changed: evaluate at the next :meth:`vector`."""
        self.stale = True

    def vector(self, t: float, y: NDArray[np.float64], u: NDArray[np.float64], t0: float,
               inputs_finite: bool) -> NDArray[np.float64]:
        """The outputs at time ``t`` (s), state ``y`` and inputs ``u`` (the run started at
        ``t0``, s), evaluated if :attr:`stale`; with non-finite inputs the last good ones
        (the step reports the bad input)."""
        if self.stale and inputs_finite:
            omap = self.output_map
            out = (self.by_parts(t, y, u) if omap is None else
                   omap.evaluate(t, y, u, t0, self.context))
            total = float(out.sum())
            if total - total == 0.0 or np.all(np.isfinite(out)):
                self.values = out
                self.stale = False
            else:  # pragma: no cover - guarded by the step checks
                raise IntegrationError("non-finite output", value=t)
        return self.values
