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

from ..forces.static_loads import bind_static_loads
from ..parts.part import Part
from .constraints import Constraints, assemble_constraints
from .layout import Table, added_mass_split, reduced_inverse


def body_arrays(config: dict[str, Any], parameters: dict[str, Any]
                ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64],
                           NDArray[np.float64]]:
    """The bodies' stacked mass matrix (n, n), free DOFs (n,), initial pose and velocity
    (n,) each, from the resolved configuration and the validated parameters."""
    n = 6 * len(config["bodies"])
    mass = np.zeros((n, n))
    free = np.zeros(n, dtype=bool)
    q0 = np.zeros(n)
    v0 = np.zeros(n)
    for k, bc in enumerate(config["bodies"]):
        name = bc["name"]
        sl = slice(6 * k, 6 * k + 6)
        mass[sl, sl] = np.asarray(bc["mass_matrix"], dtype=float)
        free[sl] = np.asarray(bc["free_dofs"], dtype=bool)
        for i in range(6):
            q0[6 * k + i] = float(parameters[f"{name}.initial_pose[{i + 1}]"])
            v0[6 * k + i] = float(parameters[f"{name}.initial_velocity[{i + 1}]"])
    return mass, free, q0, v0


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
    added
        The parts' added mass, shape (n, n), kg and kg m^2.
    added_left, added_lagged
        The added mass on the left side and on the previous internal step's
        acceleration (``added_mass.method``), shape (n, n) each.
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
    added: NDArray[np.float64]
    added_left: NDArray[np.float64]
    added_lagged: NDArray[np.float64]
    lagged: bool
    channels: tuple[str, ...]
    channel_rows: Mapping[str, int]

    def __post_init__(self) -> None:
        for name in ("multiplier_map", "lhs", "acc_map", "added", "added_left",
                     "added_lagged"):
            _frozen(getattr(self, name))
        object.__setattr__(self, "channel_rows", MappingProxyType(dict(self.channel_rows)))

    @classmethod
    def build(cls, *, parts: list[Part], table: Table, mass: NDArray[np.float64],
              free: NDArray[np.bool_], added_mass_method: str,
              adj_mass_factor: float,
              initial: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
              ) -> Assembly:
        """Assemble the built ``parts`` of a model (``table`` its ports and channels).

        The constraints are the fixed DOFs (``free`` False, shape (n,)) and the parts'
        rows (joints); the parts' state slices are shifted past ``[q_r, v_r]`` (the parts
        are changed). The left side is ``mass`` (the bodies', (n, n)) plus the parts'
        constant mass plus the added mass as ``added_mass_method`` treats it
        (``adj_mass_factor`` for ``split``). ``initial``: the initial pose and velocity
        (n,) each, which the constraints check against the joints.
        """
        n = mass.shape[0]
        constraints, multiplier_map = assemble_constraints(free, parts, initial)
        nr = constraints.nr
        for part in parts:
            sl = part.state_slice
            part.state_slice = slice(sl.start + 2 * nr, sl.stop + 2 * nr)
        added = np.zeros((n, n))
        extra_mass = np.zeros((n, n))
        for part in parts:
            a = part.added_mass()
            if a is not None:
                added += a
            m = part.left_mass()
            if m is not None:
                extra_mass += m
        left = added_mass_split(added, added_mass_method, adj_mass_factor)
        lagged = added - left
        lhs = mass + extra_mass + left
        _, acc_map = reduced_inverse(lhs, constraints.basis, added_mass_method)
        # The joints' reactions at rest, as the stiffness of their turning arms.
        bind_static_loads(parts, constraints.basis, constraints.projector, multiplier_map,
                          lhs, acc_map)
        return cls(n=n, nr=nr, n_states=2 * nr + sum(p.n_states for p in parts),
                   n_inputs=len(table.inputs), n_outputs=len(table.outputs),
                   parts=tuple(parts), constraints=constraints,
                   multiplier_map=multiplier_map, lhs=lhs, acc_map=acc_map, added=added,
                   added_left=left, added_lagged=lagged, lagged=bool(np.any(lagged)),
                   channels=tuple(table.channels),
                   channel_rows={c: i for i, c in enumerate(table.channels)})
