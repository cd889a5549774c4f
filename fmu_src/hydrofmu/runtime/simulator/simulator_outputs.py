"""The simulator's outputs at its time, state and inputs: :class:`SimulatorOutputs`.

A mixin of :class:`~.simulator.Simulator` (the same object): it evaluates the outputs by
the linear output map or part by part (``outputs.py``, which reads only the simulator's
:class:`~.assembly.Assembly` and the values handed to it) and caches them until the
state, the time or the inputs change.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import IntegrationError
from ..parts.part import Context, Part
from .assembly import Assembly
from .outputs import general_outputs


class SimulatorOutputs:
    """Mixin of :class:`~.simulator.Simulator`: :meth:`output_vector`, :meth:`part_outputs`.

    Uses the simulator's ``assembly``, ``time``, ``y``, ``u``, ``t0``, ``dt``,
    ``grid_time``, its output map and its evaluation context.
    """

    assembly: Assembly
    time: float
    t0: float
    dt: float
    y: NDArray[np.float64]
    u: NDArray[np.float64]
    grid_time: float
    _out: NDArray[np.float64]
    _dirty: bool
    _u_finite: bool
    _acc_prev: NDArray[np.float64]
    _listening: list[Part]
    _output_map: Any
    _context: Any

    def _output_context(self, t: float, y: NDArray[np.float64],
                        u: NDArray[np.float64]) -> Context:
        """The context of the outputs at ``(t, y, u)`` (off the history grid's time)."""
        return self._context(t, y, t - self.grid_time, u=u)

    def _part_outputs(self, t: float, y: NDArray[np.float64],
                      u: NDArray[np.float64]) -> NDArray[np.float64]:
        """All outputs at ``(t, y, u)`` asked of the parts one by one (outputs.py); on the
        history grid the parts that listen to new inputs take them first."""
        if t - self.grid_time <= 1e-9 * self.dt:
            ctx = self._context(t, y, 0.0, u=u)
            for part in self._listening:
                part.new_inputs(ctx)
        return general_outputs(self.assembly, self._output_context(t, y, u), self._acc_prev)

    @property
    def output_map(self) -> Any:
        """The linear output map (:class:`~hydrofmu.runtime.simulator.outputs.OutputMap`)
        the outputs come from, or ``None`` (the part-by-part assembly: a model that is not
        linear, local time steps, or a map that failed its check, said in ``warnings``)."""
        return self._output_map

    def part_outputs(self) -> NDArray[np.float64]:
        """All outputs now, asked of the parts one by one (what the linear output map is
        checked against), shape (n_out,)."""
        return self._part_outputs(self.time, self.y, self.u)

    def output_vector(self) -> NDArray[np.float64]:
        """All outputs at the current time with the current inputs (order of output_names)."""
        if self._dirty:
            self._evaluate_outputs()
        return self._out

    def _evaluate_outputs(self) -> None:
        if not self._u_finite:
            return  # keep the last good outputs; step() reports the bad input
        omap = self._output_map
        out = (self._part_outputs(self.time, self.y, self.u) if omap is None else
               omap.evaluate(self.time, self.y, self.u, self.t0, self._output_context))
        total = float(out.sum())
        if total - total == 0.0 or np.all(np.isfinite(out)):
            self._out = out
            self._dirty = False
        else:  # pragma: no cover - guarded by the step checks
            raise IntegrationError("non-finite output", value=self.time)
