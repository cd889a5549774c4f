"""The right-hand side of each internal step of the simulator: :class:`RhsBuilder`, owned by
the simulator.

For the internal step from ``(t_n, y_n)`` the builder fills the shared evaluation context
(the start of the run, the step's start on the history grid, the inputs, the velocity at the
step's start) and returns ``f(t, y)`` (``rhs.py``): the assembled linear form (plus the
stateless parts that are not linear) unless a part with states is not linear or a
local-time-step scheme runs; else the sum over the parts, with the partition of the local
time steps (``local_steps.py``). The run's values (time, inputs, the lagged acceleration)
come as arguments; the structure from the simulator's :class:`~.assembly.Assembly`.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..bodies.dynamics import LargeRotationDynamics
from ..parts.part import Context
from ..schemes.right_hand_side import RightHandSide
from .assembly import Assembly
from .local_steps import StatePartition
from .rhs import LinearForm, PartSumRHS, part_sum_rhs


class RhsBuilder:
    """Builds ``f(t, y)`` for the simulator's internal steps (module docstring).

    Parameters
    ----------
    assembly
        The model's structure (its parts, in force order, with their state slices).
    ctx
        The evaluation context shared by the parts (filled in place).
    partition
        The local-time-step partition, or ``None``.
    large
        The large-rotation bodies' equations (``bodies/dynamics.py``), or ``None``: then
        :meth:`build` gives theirs.

    Attributes
    ----------
    assembly, ctx, partition
        As given.
    forces
        The active parts' ``force`` methods, in summation order.
    stateful
        The parts with states, in state order.
    """

    def __init__(self, assembly: Assembly, ctx: Context, partition: StatePartition | None,
                 large: LargeRotationDynamics | None = None) -> None:
        self.assembly, self.ctx, self.partition = assembly, ctx, partition
        self.large = large
        self.forces = [p.force for p in assembly.parts if p.active]
        self.stateful = [p for p in assembly.parts if p.n_states]

    def start(self, t_n: float, y_n: NDArray[np.float64], *, t0: float, t_grid: float,
              u: NDArray[np.float64]) -> None:
        """Fill the context for the internal step from ``(t_n, y_n)`` (s, state); ``t0``
        the start of the run, ``t_grid`` the newest history time (s), ``u`` the inputs."""
        ctx = self.ctx
        ctx.t0, ctx.sn, ctx.u = t0, t_n - t_grid, u
        ctx.vn = self.assembly.constraints.expand_pair(y_n)[1]

    def part_sum(self, t_n: float, y_n: NDArray[np.float64], *, t0: float, t_grid: float,
                 u: NDArray[np.float64], lag: NDArray[np.float64] | None) -> PartSumRHS:
        """The sum over the parts for the step from ``(t_n, y_n)``, whatever the model
        (arguments of :meth:`start`; ``lag`` the lagged added-mass force (n,), N, or
        ``None``)."""
        self.start(t_n, y_n, t0=t0, t_grid=t_grid, u=u)
        asm = self.assembly
        return part_sum_rhs(self.ctx, asm.constraints.expand_pair, self.forces,
                            self.stateful, asm.acc_map, asm.nr, t_grid, lag)

    def build(self, t_n: float, y_n: NDArray[np.float64], *, t0: float, t_grid: float,
              u: NDArray[np.float64], lag: NDArray[np.float64] | None,
              linear_form: LinearForm | None,
              linear_part: NDArray[np.float64] | None) -> RightHandSide:
        """``f(t, y)`` for the step from ``(t_n, y_n)`` (module docstring; arguments of
        :meth:`part_sum`): by ``linear_form`` when there is one and no partition; with
        ``linear_part`` (``F`` of ``f = F y + g``, for a scheme that reads it) or ``None``."""
        rhs: RightHandSide
        expand = self.assembly.constraints.expand_pair
        if self.large is not None:  # large rotations: the Newton-Euler equations
            self.start(t_n, y_n, t0=t0, t_grid=t_grid, u=u)
            rhs = self.large.rhs(self.ctx, y_n, t_grid)
        elif linear_form is not None and self.partition is None:
            self.start(t_n, y_n, t0=t0, t_grid=t_grid, u=u)
            rhs = linear_form.rhs(self.ctx, t_grid, lag, expand)
        else:
            rhs = self.part_sum(t_n, y_n, t0=t0, t_grid=t_grid, u=u, lag=lag)
            if self.partition is not None:
                rhs = self.partition.rhs(rhs, self.ctx, expand, t_grid)
        if linear_part is not None:
            rhs.linear_part = linear_part
        return rhs
