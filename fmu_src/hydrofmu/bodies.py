"""Mass properties of rigid bodies: the 6x6 spatial mass matrix about the reference point."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import ConfigError


def skew(r: ArrayLike) -> NDArray[np.float64]:
    """Cross-product matrix ``S(r)`` with ``S(r) @ x == np.cross(r, x)``, shape (3, 3)."""
    x, y, z = np.asarray(r, dtype=float)
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def inertia_tensor(inertia: ArrayLike) -> NDArray[np.float64]:
    """Inertia tensor about the centre of gravity, shape (3, 3), kg m^2.

    Parameters
    ----------
    inertia
        Three principal moments ``[Ixx, Iyy, Izz]`` or a full symmetric 3x3 tensor, kg m^2.
    """
    arr = np.asarray(inertia, dtype=float)
    if arr.shape == (3,):
        arr = np.diag(arr)
    if arr.shape != (3, 3):
        raise ConfigError(
            f"inertia must be 3 principal moments or a 3x3 tensor (kg m^2), got shape "
            f"{arr.shape}",
            value=inertia,
        )
    if not np.all(np.isfinite(arr)):
        raise ConfigError(f"inertia has non-finite entries: {arr.tolist()}", value=inertia)
    if not np.allclose(arr, arr.T, rtol=1e-9, atol=0.0):
        raise ConfigError(f"inertia tensor is not symmetric: {arr.tolist()}", value=inertia)
    eig = np.linalg.eigvalsh(arr)
    if eig[0] <= 0.0:
        raise ConfigError(
            f"inertia tensor is not positive definite (smallest principal moment {eig[0]:.6g} "
            "kg m^2); give the moments about the centre of gravity, all > 0",
            value=inertia,
        )
    # Triangle inequality of principal moments: I1 + I2 >= I3 for any real mass distribution.
    if eig[0] + eig[1] < eig[2] * (1.0 - 1e-9):
        raise ConfigError(
            f"principal moments {eig.tolist()} violate I1 + I2 >= I3: no rigid body has them",
            value=inertia,
        )
    return arr


def spatial_mass_matrix(
    mass: float, inertia_cog: ArrayLike, cog: ArrayLike
) -> NDArray[np.float64]:
    """6x6 rigid-body mass matrix about the reference point.

    ``M = [[m I, -m S(r_g)], [m S(r_g), I_g - m S(r_g)^2]]`` (Fossen; SDFormat proposal),
    for velocities ``[v, w]`` of the reference point.

    Parameters
    ----------
    mass
        Mass, kg, > 0.
    inertia_cog
        Inertia tensor about the centre of gravity, (3, 3) or principal (3,), kg m^2.
    cog
        Centre of gravity relative to the reference point, (3,), m.
    """
    if not np.isfinite(mass) or mass <= 0.0:
        raise ConfigError(f"mass must be a finite positive number of kg, got {mass!r}", value=mass)
    ig = inertia_tensor(inertia_cog)
    s = skew(cog)
    m = np.zeros((6, 6))
    m[:3, :3] = mass * np.eye(3)
    m[:3, 3:] = -mass * s
    m[3:, :3] = mass * s
    m[3:, 3:] = ig - mass * s @ s
    return m
