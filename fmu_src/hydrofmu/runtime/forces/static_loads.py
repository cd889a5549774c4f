"""The static loads the joints carry, as a stiffness: their reactions' arms and directions
turn with the bodies (``joint.static_load``, one part for a model with joints).

The linear model writes every force about the body's reference point and the joints as
constant rows ``G q = 0`` (small motions). A joint that carries a load at rest (buoyancy
minus weight of the bodies beyond it, a pretension) has a reaction ``G^T lambda_0`` whose
arm and direction turn when the bodies rotate: the reaction of a hinge acts at the hinge
point, which moves about the reference point with the body; a hinge's reaction moment stays
normal to its axis, which turns with the second body. Linearising the equation of motion
with the reaction ``G(q)^T lambda`` about the state at rest (``lambda = lambda_0 +
delta lambda``; the ``delta lambda`` stay the constraints' unknowns) adds the stiffness

    K_g = -d(G(q)^T lambda_0)/dq,

which each joint declares for given multipliers (``reaction_stiffness(lam)``:
:class:`~hydrofmu.runtime.forces.revolute.RevoluteJoint`,
:class:`~hydrofmu.runtime.forces.joints.PrismaticJoint`; the rows of ``fixed`` and
``planar`` joints and of the bodies' held DOFs are exact and add nothing). It is the
standard geometric stiffness of a preloaded constraint; for a hinge point ``p`` on body
``a`` (reference point ``r_a``) carrying the force ``lambda`` (on ``a``), the block on
``a``'s rotations is

    K_g[theta_a, theta_a] = (e . lambda) I - e lambda^T,     e = p - r_a,

the form of the hydrostatic stiffness's own gravity terms (``K44 = K55 = -m g z_g``,
``K46 = m g x_g``, ``K56 = m g y_g`` for the weight ``-m g e_z`` at ``c``: ``(F . c) I -
c F^T``). A pendulum (the weight ``-m g e_z`` at the reference point, ``l`` below a hinge on
the world: ``lambda = m g e_z``, ``e = l e_z``) gets ``m g l`` about the axis; a flap locked
to a pitching base gets what the merged rigid body has: the flap's load moved from its
reference point to the base's; a slider on a tilting prismatic joint is pushed along the
axis by the load it carries (``tests/test_joint_static_loads.py``: a double pendulum, a
slider on a pendulum, flaps locked to a pitching base, against closed forms).

The multipliers ``lambda_0`` are the joints' reactions at rest in the initial pose under the
constant loads the linear parts declare (``f0`` of
:meth:`~hydrofmu.runtime.parts.part.Part.linear_matrices`: buoyancy minus weight, a linear
mooring's pretension): ``F_c = L T a - f0`` with ``T^T L T a = T^T f0`` (the acceleration
of an unbalanced mechanism; zero at an equilibrium), ``lambda_0`` from ``F_c`` by the
constraints' multiplier map. A nonlinear mooring's pretension is not among them. The rows
and columns of DOFs that never move (a fixed body, a body's held DOFs) are set to zero:
they multiply no motion, and their forces would go to the supports.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..parts.part import Context, ModelInfo, Part


def skew(r: NDArray[np.float64]) -> NDArray[np.float64]:
    """``S(r)`` with ``S(r) x = r x x``, shape (3, 3)."""
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])


def arm_stiffness(arm: NDArray[np.float64], force: NDArray[np.float64]
                  ) -> NDArray[np.float64]:
    """``(arm . force) I - arm force^T``: minus the change of the moment ``arm x force`` about
    the reference point per unit rotation when the arm turns with the body and the force
    keeps its direction, N m/rad, shape (3, 3)."""
    return float(arm @ force) * np.eye(3) - np.outer(arm, force)


def static_multipliers(parts: Sequence[Any], basis: NDArray[np.float64],
                       projector: NDArray[np.float64], multiplier_map: NDArray[np.float64],
                       lhs: NDArray[np.float64], acc_map: NDArray[np.float64]
                       ) -> NDArray[np.float64]:
    """The constraints' multipliers at rest under the linear parts' constant loads ``f0``
    (see the module docstring), shape (m,).

    Parameters
    ----------
    parts
        The model's parts (their ``linear_matrices()`` constant terms are summed).
    basis, projector
        The constraint basis ``T`` (n, n_r) and the projector ``I - T T^+`` (n, n).
    multiplier_map
        ``F_c -> lambda``, (m, n).
    lhs, acc_map
        The left side ``L`` (n, n) and ``L_r^-1 T^T`` (n_r, n).
    """
    n = basis.shape[0]
    f0 = np.zeros(n)
    for part in parts:
        lin = part.linear_matrices() if part.active else None
        if lin is not None:
            f0 += np.asarray(lin[2], dtype=float)
    reaction = projector @ (lhs @ (basis @ (acc_map @ f0)) - f0)
    return multiplier_map @ reaction


def bind_static_loads(parts: Sequence[Any], basis: NDArray[np.float64],
                      projector: NDArray[np.float64],
                      multiplier_map: NDArray[np.float64] | None,
                      lhs: NDArray[np.float64], acc_map: NDArray[np.float64]) -> None:
    """Give the model's :class:`StaticLoads` part (if any) the joints' stiffness ``K_g``
    from their reactions at rest (arguments as :func:`static_multipliers`; no joints: no
    multiplier map, nothing to do)."""
    carriers = [p for p in parts if isinstance(p, StaticLoads)]
    if not carriers or multiplier_map is None:
        return
    lam = static_multipliers(parts, basis, projector, multiplier_map, lhs, acc_map)
    # Multipliers below 1e-12 of the largest are the round-off of the solves (a free
    # body's balanced load): no stiffness from them.
    lam[np.abs(lam) < 1e-12 * float(np.max(np.abs(lam), initial=0.0))] = 0.0
    n = basis.shape[0]
    k = np.zeros((n, n))
    for part in parts:
        declare = getattr(part, "reaction_stiffness", None)
        if declare is not None:
            k += declare(lam[part.row_slice])
    still = ~np.any(basis != 0.0, axis=1)
    k[still, :] = 0.0
    k[:, still] = 0.0
    carriers[0].bind(k)


class StaticLoads(Part):
    """The joints' static reactions as a stiffness ``F = -K_g q`` (module docstring),
    reported in ``F_hydrostatic``; ``K_g`` is set by :func:`bind_static_loads` when the
    simulator has assembled the constraints (zero and inactive before)."""

    kind = "joint.static_load"
    channel = "F_hydrostatic"
    active = False

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        self.stiffness = np.zeros((model.n, model.n))
        self.names = list(model.names)
        self.report = model.report

    def bind(self, stiffness: NDArray[np.float64]) -> None:
        """Set ``K_g`` (n, n), N/m, N and N m/rad; the part acts where it is non-zero."""
        self.stiffness = np.asarray(stiffness, dtype=float)
        self.active = bool(np.any(self.stiffness))
        for k, name in enumerate(self.names):
            block = self.stiffness[6 * k + 3 : 6 * k + 6, 6 * k + 3 : 6 * k + 6]
            if np.any(block):
                self.report.append(
                    f"joints: the static reactions on body '{name}' turn with it: "
                    f"{np.round(np.diag(block), 1).tolist()} N m/rad about x, y, z "
                    "(joint.static_load)")

    def force(self, ctx: Context) -> NDArray[np.float64] | None:
        return -self.stiffness @ ctx.q

    def linear_matrices(self):
        return self.stiffness, np.zeros_like(self.stiffness), np.zeros(self.n)
