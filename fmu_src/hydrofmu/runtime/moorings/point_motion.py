"""Where the points of a set of lines are: coupled points, points on bodies (coupled or
fixed, rigid), free points (from the state) (numpy + standard library only)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from .frames import rotation
from .line_layout import LineArrays

Array = NDArray[np.float64]

_ZERO6 = np.zeros(6)  # a fixed body's velocity
_ZERO6.flags.writeable = False


def point_kinematics(la: LineArrays, x: Array, coupled_positions: Array,
                     coupled_velocities: Array) -> tuple[Array, Array]:
    """Positions and velocities of every point, m and m/s, shape (n_points, 3) each.

    Parameters
    ----------
    la
        The lines' arrays.
    x
        The lines' state (free points' positions and velocities), shape (n_states,).
    coupled_positions, coupled_velocities
        Coupled coordinates (bodies: position m, roll-pitch-yaw rad; velocities m/s and
        rad/s in global axes; then points, m and m/s), shape (n_coupled_dof,).

    Raises
    ------
    ConfigError
        Coupled coordinates of the wrong size.
    """
    cp = np.asarray(coupled_positions, dtype=float).ravel()
    cv = np.asarray(coupled_velocities, dtype=float).ravel()
    if cp.size != la.n_coupled_dof or cv.size != la.n_coupled_dof:
        raise ConfigError(
            f"the lines expect {la.n_coupled_dof} coupled positions and velocities, got "
            f"{cp.size} and {cv.size}", value=cp.size)
    r = la.point_r0.copy()
    v = np.zeros_like(r)
    if la.no_bodies:
        r[la.coupled_points] = cp.reshape(-1, 3)
        v[la.coupled_points] = cv.reshape(-1, 3)
    else:
        _body_kinematics(la, cp, cv, r, v)
    if la.n_free:
        nf = la.n_free
        base = 6 * la.n_internal
        r[la.free_points] = x[base:base + 3 * nf].reshape(nf, 3)
        v[la.free_points] = x[base + 3 * nf:base + 6 * nf].reshape(nf, 3)
    return r, v


def _body_kinematics(la: LineArrays, cp: Array, cv: Array, r: Array, v: Array) -> None:
    """Coupled points and the points of bodies into ``r``, ``v`` (in place)."""
    for group in la.body_groups:
        k, pose, idx, r0 = group.coupled, group.pose, group.points, group.r0
        vel = _ZERO6
        if k >= 0:  # a coupled body; otherwise fixed, at its pose from the file
            pose, vel = cp[6 * k:6 * k + 6], cv[6 * k:6 * k + 6]
        arm = r0 @ rotation(pose[3:]).T
        r[idx] = pose[:3] + arm
        w = vel[3:]
        # w x arm for every point of the body at once
        v[idx] = vel[:3] + np.column_stack([w[1] * arm[:, 2] - w[2] * arm[:, 1],
                                            w[2] * arm[:, 0] - w[0] * arm[:, 2],
                                            w[0] * arm[:, 1] - w[1] * arm[:, 0]])
    off = 6 * len(la.coupled_bodies)
    r[la.coupled_points] = cp[off:].reshape(-1, 3)
    v[la.coupled_points] = cv[off:].reshape(-1, 3)
