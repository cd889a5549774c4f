"""Mass properties of rigid bodies: the 6x6 spatial mass matrix about the reference point."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..runtime.errors import ConfigError


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


#: DOF letters of the SDFormat added-mass proposal: x, y, z translations, p, q, r rotations.
SDF_DOF_LETTERS: str = "xyzpqr"
#: The 21 unique terms of a symmetric 6x6 added-mass matrix, SDFormat proposal naming
#: (``xx``, ``xy``, ... ``rr``), row by row of the upper triangle.
ADDED_MASS_TERMS: tuple[str, ...] = tuple(
    SDF_DOF_LETTERS[i] + SDF_DOF_LETTERS[j] for i in range(6) for j in range(i, 6))
#: Relative tolerances of the added-mass checks: symmetry (``|M - M^T|`` against ``max |M|``),
#: and the smallest eigenvalue accepted as zero (against the largest): float round-off of
#: numbers typed in a configuration file with ~10 significant digits.
SYMMETRY_RTOL: float = 1e-9
PSD_RTOL: float = 1e-12


def rotation_matrix(roll: float, pitch: float, yaw: float) -> NDArray[np.float64]:
    """Rotation from the body frame to the world frame, shape (3, 3).

    ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (z-y'-x'' Tait-Bryan angles, the usual marine
    convention), angles in rad; a vector with body components ``v'`` has world components
    ``R v'``.
    """
    cr, sr = np.cos(roll), np.sin(roll)
    cp, sp = np.cos(pitch), np.sin(pitch)
    cy, sy = np.cos(yaw), np.sin(yaw)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cr, -sr], [0.0, sr, cr]])
    ry = np.array([[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]])
    rz = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]])
    return rz @ ry @ rx


def added_mass_matrix(value: object, *, what: str = "added_mass") -> NDArray[np.float64]:
    """A 6x6 added-mass matrix from a configuration value, checked.

    Parameters
    ----------
    value
        Either a table of the SDFormat proposal's unique terms (``{"xx": ..., "zz": ...,
        "xq": ...}``; keys from :data:`ADDED_MASS_TERMS`, a term left out is zero), or a
        6x6 nested list. Units: kg (translation-translation), kg m (translation-rotation),
        kg m^2 (rotation-rotation); DOF order surge, sway, heave, roll, pitch, yaw.
    what
        Name used in the messages.

    Returns
    -------
    ndarray
        Symmetric positive semi-definite matrix, shape (6, 6).

    Raises
    ------
    ConfigError
        Unknown term (with the closest valid one), a term given twice in both orders, a
        wrong shape, non-finite entries, an asymmetric matrix, a negative eigenvalue.
    """
    from ..runtime.errors import did_you_mean

    if isinstance(value, dict):
        if not value:
            raise ConfigError(f"{what} is an empty table; give some of the terms "
                              f"{', '.join(ADDED_MASS_TERMS)}", value=value)
        m = np.zeros((6, 6))
        for key, v in value.items():
            k = str(key)
            if k not in ADDED_MASS_TERMS:
                if len(k) == 2 and k[::-1] in ADDED_MASS_TERMS:
                    hint = f" (the matrix is symmetric: write it as '{k[::-1]}')"
                else:
                    hint = did_you_mean(k, list(ADDED_MASS_TERMS))
                raise ConfigError(f"{what}: unknown term '{k}'{hint}; terms: "
                                  f"{', '.join(ADDED_MASS_TERMS)}", value=k)
            if isinstance(v, bool) or not isinstance(v, int | float) or not np.isfinite(v):
                raise ConfigError(f"{what}.{k} must be a finite number, got {v!r}", value=v)
            i, j = SDF_DOF_LETTERS.index(k[0]), SDF_DOF_LETTERS.index(k[1])
            m[i, j] = m[j, i] = float(v)
    else:
        try:
            m = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ConfigError(f"{what} must be a table of SDFormat terms (xx, xy, ... rr) or "
                              f"a 6x6 list of numbers, got {value!r}", value=value) from None
        if m.shape != (6, 6):
            raise ConfigError(f"{what} must be a 6x6 matrix (or a table of SDFormat terms), "
                              f"got shape {m.shape}", value=value)
        if not np.all(np.isfinite(m)):
            raise ConfigError(f"{what} has non-finite entries", value=value)
    check_added_mass(m, what=what)
    return m


def check_added_mass(m: NDArray[np.float64], *, what: str = "added_mass") -> None:
    """Raise :class:`ConfigError` unless ``m`` (6N x 6N) is symmetric and PSD.

    An added-mass matrix is the Hessian of the fluid's kinetic energy in the body
    velocities: symmetric, and positive semi-definite (the fluid's kinetic energy is never
    negative).
    """
    scale = float(np.max(np.abs(m))) if m.size else 0.0
    asym = float(np.max(np.abs(m - m.T))) if m.size else 0.0
    if asym > SYMMETRY_RTOL * scale:
        i, j = np.unravel_index(int(np.argmax(np.abs(m - m.T))), m.shape)
        raise ConfigError(
            f"{what} is not symmetric: [{i},{j}] = {m[i, j]:.6g} but [{j},{i}] = "
            f"{m[j, i]:.6g}; an added-mass matrix is symmetric (give each pair once)",
            value=m.tolist())
    eig = np.linalg.eigvalsh(0.5 * (m + m.T))
    if eig[0] < -PSD_RTOL * max(scale, 1e-300):
        raise ConfigError(
            f"{what} is not positive semi-definite (smallest eigenvalue {eig[0]:.6g}, "
            f"largest {eig[-1]:.6g}): the fluid's kinetic energy 1/2 v^T A v would be "
            "negative for some motion; check the signs of the coupling terms",
            value=m.tolist())


def frame_to_world(matrix: ArrayLike, rotations: list[NDArray[np.float64]] | NDArray[np.float64]
                   ) -> NDArray[np.float64]:
    """Transform a 6N x 6N matrix given in the bodies' frames to the world frame.

    Block ``(i, j)`` becomes ``T_i M'_ij T_j^T`` with ``T_k = diag(R_k, R_k)`` and ``R_k``
    body ``k``'s body-to-world rotation: the force on body ``i`` in world components from
    the world acceleration of body ``j``, ``F_i = T_i M'_ij T_j^T a_j``. This is AGX's
    ``R^T M' R`` for a diagonal block and ``R_i^T A'_ij R_j`` for the off-diagonal ones
    written with column vectors (AGX multiplies row vectors, ``v R``).

    Parameters
    ----------
    matrix
        Shape (6N, 6N), body frames.
    rotations
        One (3, 3) body-to-world rotation per body (or a single (3, 3) for N = 1).
    """
    m = np.asarray(matrix, dtype=float)
    rots = np.asarray(rotations, dtype=float).reshape(-1, 3, 3)
    n = rots.shape[0]
    if m.shape != (6 * n, 6 * n):
        raise ConfigError(f"matrix of shape {m.shape} for {n} bodies: expected "
                          f"({6 * n}, {6 * n})", value=m.shape)
    t = np.zeros((6 * n, 6 * n))
    for k, r in enumerate(rots):
        if not np.allclose(r @ r.T, np.eye(3), atol=1e-12) or np.linalg.det(r) < 0.0:
            raise ConfigError(f"rotation {k} is not a proper rotation matrix", value=r.tolist())
        t[6 * k:6 * k + 3, 6 * k:6 * k + 3] = r
        t[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6] = r
    return t @ m @ t.T
