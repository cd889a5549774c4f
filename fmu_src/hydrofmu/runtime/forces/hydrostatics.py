"""Linear hydrostatic restoring force with the buoyancy-minus-weight imbalance."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..parts.part import Context, ModelInfo, Part


def gravity_stiffness_correction(
    mass_old: float, cog_old: NDArray[np.float64], mass_new: float, cog_new: NDArray[np.float64],
    g: float,
) -> NDArray[np.float64]:
    """Change of the 6x6 stiffness when the body's weight or centre of gravity changes.

    BEM stiffness matrices (WAMIT, Capytaine) include the gravity terms of the mass and
    centre of gravity they were computed with: ``K44, K55 += -m g z_g``,
    ``K46 += m g x_g``, ``K56 += m g y_g``. This returns ``dK`` to add for other values.

    Parameters
    ----------
    mass_old, cog_old
        Mass (kg) and centre of gravity (m, reference-point frame) the BEM data assumed.
    mass_new, cog_new
        The body's actual mass and centre of gravity.
    g
        Gravitational acceleration, m/s^2.
    """

    def terms(m: float, c: NDArray[np.float64]) -> NDArray[np.float64]:
        k = np.zeros((6, 6))
        k[3, 3] = k[4, 4] = -m * g * c[2]
        k[3, 5] = m * g * c[0]
        k[4, 5] = m * g * c[1]
        return k

    return terms(mass_new, np.asarray(cog_new)) - terms(mass_old, np.asarray(cog_old))


def static_imbalance(
    rho: float, g: float, volume: float, cob: NDArray[np.float64], mass: float,
    cog: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Constant force at the equilibrium position where buoyancy and weight do not balance.

    Returns ``[0, 0, g (rho V - m), g (rho V y_b - m y_g), -g (rho V x_b - m x_g), 0]``,
    N and N m, at the reference point; zero for a freely floating body at equilibrium.
    """
    f = np.zeros(6)
    b = rho * volume
    f[2] = g * (b - mass)
    f[3] = g * (b * cob[1] - mass * cog[1])
    f[4] = -g * (b * cob[0] - mass * cog[0])
    return f


class Hydrostatics:
    """``F_hs = f0 - K q`` for the stacked DOFs of all bodies.

    Parameters
    ----------
    stiffness
        Block-diagonal stiffness, shape (n, n), SI.
    offset
        Constant imbalance force ``f0``, shape (n,), N and N m.
    """

    def __init__(self, stiffness: NDArray[np.float64], offset: NDArray[np.float64]) -> None:
        self.stiffness = np.asarray(stiffness, dtype=float)
        self.offset = np.asarray(offset, dtype=float)

    def force(self, q: NDArray[np.float64]) -> NDArray[np.float64]:
        """Hydrostatic force for displacement ``q`` from equilibrium, shape (n,)."""
        return self.offset - self.stiffness @ q


class HydrostaticsPart(Part):
    """The hydrostatic restoring force of every body, reported as ``F_hydrostatic``."""

    kind = "hydrostatics"
    channel = "F_hydrostatic"

    @classmethod
    def motion_kind(cls, config: dict[str, Any], options: dict[str, Any]) -> str:
        return "constant"  # offset - K q, K from the data

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        n = model.n
        stiffness = np.zeros((n, n))
        offset = np.zeros(n)
        for k, bc in enumerate(model.config["bodies"]):
            sl = slice(6 * k, 6 * k + 6)
            stiffness[sl, sl] = np.asarray(bc["hydrostatic_stiffness"], dtype=float)
            offset[sl] = np.asarray(bc["hydrostatic_offset"], dtype=float)
        self.model = Hydrostatics(stiffness, offset)
        self.stiffness = self.model.stiffness
        self.offset = self.model.offset

    def force(self, ctx: Context) -> NDArray[np.float64]:
        return self.offset - self.stiffness @ ctx.q  # Hydrostatics.force, one call less

    def linear_matrices(self):
        return self.model.stiffness, np.zeros_like(self.model.stiffness), self.model.offset
