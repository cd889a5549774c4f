"""What the simulator assembles from its parts, handed out read-only: :class:`Assembly`.

The output assembly (``outputs.py``), the linear model (``linear/model.py``), the
local-time-step partition (``local_steps.py``) and the interval steppers of a linear model
read the model's structure from here, never from the simulator's own attributes: the
constraint map, the left side and its factorised map to the accelerations, the added
mass as treated, the channel rows, the parts and the sizes of the state, input and output
vectors. The values that change in a run (the state, the time, the inputs) stay in the
simulator, which hands them to these functions as arguments and commits what they return.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..parts.part import Part
from .constraints import Constraints


def _frozen(a: NDArray[Any] | None) -> NDArray[Any] | None:
    """``a`` made read-only (no copy), or ``None``."""
    if a is not None:
        a.flags.writeable = False
    return a


@dataclass(frozen=True, kw_only=True, eq=False)
class Assembly:
    """The assembled structure of a model (see the module docstring); arrays read-only.

    Attributes
    ----------
    n
        Number of DOFs, 6 per body.
    nr
        Number of reduced coordinates, ``q = T q_r``.
    n_states
        Length of the state vector ``y = [q_r, v_r, x_1, ...]``.
    n_inputs, n_outputs
        Lengths of the input and output vectors (FMU order).
    parts
        The built parts, in the order their forces are summed (their slices shifted to
        the state vector).
    constraints
        The constraint basis ``T`` and its projections (:class:`Constraints`).
    multiplier_map
        Reaction ``F_c`` -> the joints' multipliers, or ``None`` without joints.
    lhs
        Left side ``M + A_left + ...``, shape (n, n), kg and kg m^2.
    acc_map
        ``L_r^-1 T^T``: a full force (n,) -> the reduced acceleration (nr,).
    added_left, added_lagged
        The added mass on the left side and on the previous internal step's
        acceleration, shape (n, n) each.
    lagged
        Some added mass acts through the previous acceleration (``split``, ``lagged``).
    channels
        Body force channels in output order.
    channel_rows
        Channel name -> its row in the channel forces.
    """

    n: int
    nr: int
    n_states: int
    n_inputs: int
    n_outputs: int
    parts: tuple[Part, ...]
    constraints: Constraints
    multiplier_map: NDArray[np.float64] | None
    lhs: NDArray[np.float64]
    acc_map: NDArray[np.float64]
    added_left: NDArray[np.float64]
    added_lagged: NDArray[np.float64]
    lagged: bool
    channels: tuple[str, ...]
    channel_rows: Mapping[str, int]

    def __post_init__(self) -> None:
        for name in ("multiplier_map", "lhs", "acc_map", "added_left", "added_lagged"):
            _frozen(getattr(self, name))
        object.__setattr__(self, "channel_rows", MappingProxyType(dict(self.channel_rows)))
