"""The bodies' quadratic drag in a steady current: ``F = -B_quad (v - u) |v - u|`` per DOF,
with ``u`` the current's velocity at the reference point (``[current]``,
:mod:`~hydrofmu.runtime.waves.current`: surge and sway components of the surface speed;
heave and the rotations see no current), reported in ``F_viscous`` with the linear damping.

The part exists only when the configuration has a current and a body has quadratic
damping; :class:`~hydrofmu.runtime.forces.viscous.ViscousPart` then keeps the linear term
only (the quadratic term moves here, with the relative velocity). In a uniform current
``U`` a body on a spring ``k`` settles at ``x = B_quad U^2 / k`` (``B_quad = rho Cd A / 2``:
``0.5 rho Cd A U^2 / k``).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..parts.part import Context, ModelInfo, Part
from ..waves.current import Current, current_from_config

__all__ = ["CurrentDragPart", "body_current", "current_drag_needed"]


def body_current(current: Current, n_bodies: int) -> NDArray[np.float64]:
    """The current's velocity on the stacked DOFs of ``n_bodies`` bodies, shape
    (6 n_bodies,): ``U (cos d, sin d)`` on surge and sway, m/s, zero elsewhere."""
    u = np.zeros(6 * n_bodies)
    ux, uy, _ = current.speed * current.unit
    u[0::6] = ux
    u[1::6] = uy
    return u


def current_drag_needed(config: dict[str, Any]) -> bool:
    """Whether the configuration has a current and some body has quadratic damping."""
    if current_from_config(config) is None:
        return False
    return any(np.any(np.asarray(b.get("quadratic_damping", np.zeros(6)), dtype=float))
               for b in config.get("bodies") or [])


class CurrentDragPart(Part):
    """Quadratic drag on the velocity relative to the current (``F_viscous``)."""

    kind = "current_drag"
    channel = "F_viscous"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        current = current_from_config(model.config)
        quad = np.zeros(model.n)
        for k, bc in enumerate(model.config["bodies"]):
            quad[6 * k: 6 * k + 6] = np.asarray(bc["quadratic_damping"], dtype=float)
        self.quadratic = quad
        self.names = list(model.names)
        self.current = (np.zeros(model.n) if current is None
                        else body_current(current, len(model.names)))
        self.active = bool(np.any(quad)) and current is not None
        if current is not None:
            model.report.append(current.describe() + "; on the bodies' quadratic drag at "
                                "the reference point (surface speed)")

    def force(self, ctx: Context) -> NDArray[np.float64] | None:
        if not self.active:
            return None
        rel = ctx.v - self.current
        return -self.quadratic * rel * np.abs(rel)

    def why_not_linear(self) -> str:
        return ("current_drag: the bodies' quadratic drag in a current (on the velocity "
                "relative to the water) is nonlinear: use a Runge-Kutta time_scheme ('rk4'), "
                "MoorDyn's semi-implicit ones or 'etdrk4', or set [current] speed = 0")
