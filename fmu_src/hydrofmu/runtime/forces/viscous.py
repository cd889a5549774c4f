"""Linear and quadratic viscous damping (Morison-type drag on the body's DOFs)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..parts.part import Context, ModelInfo, Part
from .current_drag import current_drag_needed


class ViscousDamping:
    """``F = -B_lin v - B_quad v |v|`` (quadratic term per DOF).

    Parameters
    ----------
    linear
        Linear damping, shape (n, n), N s/m, N s, N m s.
    quadratic
        Quadratic damping per DOF, shape (n,), N s^2/m^2, N m s^2.
    """

    def __init__(self, linear: NDArray[np.float64], quadratic: NDArray[np.float64]) -> None:
        self.linear = np.asarray(linear, dtype=float)
        self.quadratic = np.asarray(quadratic, dtype=float)
        self.active = bool(np.any(self.linear) or np.any(self.quadratic))

    def force(self, v: NDArray[np.float64]) -> NDArray[np.float64]:
        """Damping force for velocity ``v``, shape (n,)."""
        if not self.active:
            return np.zeros_like(v)
        return -self.linear @ v - self.quadratic * v * np.abs(v)


class ViscousPart(Part):
    """The configured linear and quadratic damping of every body, reported as ``F_viscous``.

    In a current (``[current]``) the quadratic term is the
    :class:`~hydrofmu.runtime.forces.current_drag.CurrentDragPart`'s (on the velocity
    relative to the water) and this part keeps the linear term only."""

    kind = "viscous"
    channel = "F_viscous"

    @classmethod
    def motion_kind(cls, config: dict[str, Any], options: dict[str, Any]) -> str:
        # -B v, unless a quadratic damping term is configured
        quadratic = any(float(c) != 0.0 for b in config.get("bodies") or []
                        for c in b.get("quadratic_damping") or ())
        return "dependent" if quadratic else "constant"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        n = model.n
        lin = np.zeros((n, n))
        quad = np.zeros(n)
        for k, bc in enumerate(model.config["bodies"]):
            sl = slice(6 * k, 6 * k + 6)
            lin[sl, sl] = np.asarray(bc["linear_damping"], dtype=float)
            quad[sl] = np.asarray(bc["quadratic_damping"], dtype=float)
        if current_drag_needed(model.config):
            quad[:] = 0.0  # the current_drag part's, on the relative velocity
        self.model = ViscousDamping(lin, quad)
        self.names = list(model.names)
        self.linear = self.model.linear
        self.active = self.model.active

    def force(self, ctx: Context) -> NDArray[np.float64] | None:
        if not self.model.active:
            return None
        return self.model.force(ctx.v)

    def linear_matrices(self):
        if np.any(self.model.quadratic):
            return None
        return np.zeros_like(self.linear), self.linear, np.zeros(self.n)

    def why_not_linear(self) -> str:
        dofs = [f"{self.names[i // 6]}.quadratic_damping[{i % 6 + 1}]"
                for i in np.flatnonzero(self.model.quadratic)]
        return (f"viscous: quadratic drag is nonlinear ({', '.join(dofs)} != 0): set "
                "quadratic_damping to zero (a linearised drag goes in linear_damping) or "
                "use time_scheme = 'etdrk4' (exponential integrator, drag by its stages)")
