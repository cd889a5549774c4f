"""The state partition the simulator offers the local-time-step schemes (``leuler``, ``labN``).

The bodies' states, with the states of the parts that have no stable step of their own
(e.g. a state-space radiation), form one part of the partition, evaluated together; each
part with its own stable step (:meth:`~hydrofmu.runtime.parts.part.Part.stable_step`, e.g. the lines
of a MoorDyn file) is another. ``schemes/local.py`` describes how the schemes use it.

The bodies' own stable step is their shortest natural period over
:data:`BODY_STEPS_PER_PERIOD`, from the parts' stiffness
(:meth:`~hydrofmu.runtime.parts.part.Part.stiffness_estimate`, else the ``K`` of
:meth:`~hydrofmu.runtime.parts.part.Part.linear_matrices`) and the left-side mass.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from ..parts.part import Context, Part
from ..schemes.local import PartitionedRHS
from ..schemes.right_hand_side import RightHandSide
from .assembly import Assembly
from .rhs import stage_context

#: Natural periods of the bodies per own stable step (local time steps).
BODY_STEPS_PER_PERIOD = 50


def body_stable_step(parts: Sequence[Part], basis: NDArray[np.float64],
                     lhs: NDArray[np.float64]) -> float:
    """The bodies' own stable step, s; 0 without stiffness (evaluated at every step).

    Parameters
    ----------
    parts
        The model's parts.
    basis
        Constraint basis ``T`` (q = T q_r), shape (n, nr).
    lhs
        Left-side mass (body, parts' and added mass), shape (n, n), kg, kg m^2.
    """
    n = lhs.shape[0]
    k = np.zeros((n, n))
    for part in parts:
        kp = part.stiffness_estimate()
        if kp is None:
            lin = part.linear_matrices()
            kp = None if lin is None else lin[0]
        if kp is not None:
            k += kp
    kr = basis.T @ k @ basis
    if not np.any(kr):
        return 0.0
    mr = basis.T @ lhs @ basis
    omega2 = float(np.max(np.real(np.linalg.eigvals(np.linalg.solve(mr, kr)))))
    if not omega2 > 0:
        return 0.0
    return 2.0 * math.pi / math.sqrt(omega2) / BODY_STEPS_PER_PERIOD


class StatePartition:
    """Slices of the state vector ``[q_r, v_r, x_1, ...]`` and their own steps.

    Parameters
    ----------
    stateful
        The parts with states, in state order.
    nr
        Number of reduced body coordinates.
    body_step
        The bodies' own stable step, s.

    Attributes
    ----------
    own, body_stateful
        Parts with their own step; parts whose states go with the bodies'.
    partition, part_steps
        One slice and step per part of the partition (the bodies' first, possibly in
        several slices when a part with its own step lies between).
    n_body
        Number of slices of the bodies' part.
    """

    def __init__(self, *, stateful: Sequence[Part], nr: int, body_step: float) -> None:
        self.own = [p for p in stateful if p.stable_step() is not None]
        self.body_stateful = [p for p in stateful if p not in self.own]
        spans = [(0, 2 * nr)] + [(p.state_slice.start, p.state_slice.stop)
                                 for p in self.body_stateful]
        merged: list[list[int]] = []
        for a, b in sorted(spans):
            if merged and merged[-1][1] == a:
                merged[-1][1] = b
            elif b > a:
                merged.append([a, b])
        self.partition = [slice(a, b) for a, b in merged]
        self.n_body = len(self.partition)
        self.part_steps = [float(body_step)] * self.n_body
        for p in self.own:
            self.partition.append(p.state_slice)
            self.part_steps.append(float(p.stable_step()))  # type: ignore[arg-type]
        self.body_step = float(body_step)

    def report(self) -> str:
        """One line for the model's report."""
        own = ", ".join(f"{p.kind} {s:.3g} s"
                        for p, s in zip(self.own, self.part_steps[self.n_body:], strict=True))
        return f"local time steps: bodies' own step {self.body_step:.3g} s, parts' own steps {own}"

    @classmethod
    def build(cls, asm: Assembly, report: list[str]) -> StatePartition | None:
        """The partition of an assembled model (its parts, constraints and left-side mass),
        reported in ``report``; ``None`` when no part has its own stable step (the schemes
        then see a right-hand side without partition)."""
        stateful = [p for p in asm.parts if p.n_states]
        if not any(p.stable_step() is not None for p in stateful):
            return None
        step = body_stable_step(asm.parts, asm.constraints.basis, asm.lhs)
        partition = cls(stateful=stateful, nr=asm.nr, body_step=step)
        report.append(partition.report())
        return partition

    def rhs(self, rhs: RightHandSide, ctx: Context, expand: Callable,
            t_grid: float) -> PartitionedRHS:
        """The simulator's right-hand side ``rhs`` with the partition.

        When the bodies' part is due, the whole ``rhs`` is evaluated (the forces of the
        parts with their own step need the evaluation of their states anyway; a part
        caches it, see ``forces/moordyn_mooring.py``); otherwise only the due parts'
        :meth:`~hydrofmu.runtime.parts.part.Part.derivative`, with the context of ``rhs``
        (``expand`` maps the reduced state to ``(q, v)``; ``t_grid`` the newest history time, s).
        """
        n_body, own = self.n_body, self.own

        def evaluate(t: float, y: NDArray[np.float64], parts: Sequence[int],
                     out: NDArray[np.float64]) -> None:
            if any(p < n_body for p in parts):
                out[:] = rhs(t, y)
                return
            stage_context(ctx, t, t_grid, y, expand)
            for p in parts:
                part = own[p - n_body]
                out[part.state_slice] = part.derivative(ctx)

        return PartitionedRHS(evaluate=evaluate, partition=self.partition,
                              part_steps=self.part_steps)
