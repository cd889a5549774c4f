"""The F3OF's decay tests in the frequency domain (for tests/test_f3of_decay.py).

Each decay test moves the three bodies along a constraint basis ``T`` (18, m) of the joints
it sets up (DT1: surge of the whole device; DT2: pitch of the whole device about the base's
origin; DT3: each flap's angle about its hinge, the base held). With the configuration's
own mass matrices ``M`` and stiffness ``K`` (hydrostatics with the gravity terms of the given
masses, the hinges' static loads) and the file's coupled ``A(w)``, the undamped natural
frequencies solve ``det(T^T (K - w^2 (M + A(w))) T) = 0``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import block_diag, eigh


def pitch_basis(offsets: list[np.ndarray]) -> np.ndarray:
    """Columns moving body k by a unit rotation about y through a point at ``-offsets[k]``
    from its reference point (m): ``x = u x d``, ``theta = u``; shape (6 n, 1)."""
    u = np.array([0.0, 1.0, 0.0])
    col = np.zeros(6 * len(offsets))
    for k, d in enumerate(offsets):
        col[6 * k:6 * k + 3] = np.cross(u, d)
        col[6 * k + 3:6 * k + 6] = u
    return col[:, None]


def natural_frequencies(t: np.ndarray, mass: np.ndarray, stiffness: np.ndarray,
                        omega: np.ndarray, added_mass: np.ndarray) -> np.ndarray:
    """The undamped natural frequencies (rad/s) of ``T^T (K - w^2 (M + A(w))) T``: for each
    mode, the fixed point of ``w^2 = lambda(w)`` with ``A`` interpolated linearly in omega
    (the file's frequencies 0.1 apart)."""
    m = t.shape[1]
    k_r = t.T @ stiffness @ t
    out = []
    for mode in range(m):
        w = 0.5
        for _ in range(200):
            a = np.array([[np.interp(w, omega, added_mass[:, i, j]) for j in range(18)]
                          for i in range(18)])
            lam = eigh(k_r, t.T @ (mass + a) @ t, eigvals_only=True)
            w_new = float(np.sqrt(lam[mode]))
            if abs(w_new - w) < 1e-12:
                break
            w = w_new
        out.append(w)
    return np.array(out)


def damped_frequencies(t: np.ndarray, mass: np.ndarray, stiffness: np.ndarray,
                       omega: np.ndarray, added_mass: np.ndarray, damping: np.ndarray
                       ) -> np.ndarray:
    """The damped natural frequencies (rad/s): for each mode, the fixed point of
    ``w = Im(s)`` with ``s`` the eigenvalues of ``s^2 (M + A(w)) + s B(w) + K = 0`` reduced
    on ``T`` (what a free decay oscillates at), ``A``, ``B`` interpolated linearly."""
    m = t.shape[1]
    k_r = t.T @ stiffness @ t

    def at(w: float, data: np.ndarray) -> np.ndarray:
        return np.array([[np.interp(w, omega, data[:, i, j]) for j in range(18)]
                         for i in range(18)])

    out = []
    for mode in range(m):
        w = float(natural_frequencies(t, mass, stiffness, omega, added_mass)[mode])
        for _ in range(200):
            m_r = t.T @ (mass + at(w, added_mass)) @ t
            b_r = t.T @ at(w, damping) @ t
            inv = np.linalg.inv(m_r)
            state = np.block([[np.zeros((m, m)), np.eye(m)], [-inv @ k_r, -inv @ b_r]])
            s = np.linalg.eigvals(state)
            s = np.sort(s[s.imag > 0].imag)
            w_new = float(s[mode])
            if abs(w_new - w) < 1e-12:
                break
            w = w_new
        out.append(w)
    return np.array(out)


def model_matrices(config: dict) -> tuple[np.ndarray, np.ndarray]:
    """The 18 x 18 mass and stiffness matrices of a resolved configuration (bodies in its
    order)."""
    bodies = config["bodies"]
    mass = block_diag(*[np.asarray(b["mass_matrix"], dtype=float) for b in bodies])
    stiffness = block_diag(*[np.asarray(b["hydrostatic_stiffness"], dtype=float)
                             for b in bodies])
    return mass, stiffness


def zero_crossing_period(t: np.ndarray, x: np.ndarray, start: float = 0.0) -> float:
    """Mean period between the upward zero crossings of ``x - mean`` after ``start`` (s),
    crossings located by linear interpolation."""
    keep = t >= start
    t, x = t[keep], x[keep] - np.mean(x[keep])
    i = np.flatnonzero((x[:-1] < 0) & (x[1:] >= 0))
    times = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    return float(np.mean(np.diff(times)))
