"""The F3OF's decay tests in the frequency domain (for tests/test_f3of_decay.py).

Each decay test moves the three bodies along a constraint basis ``T`` (18, m) of the joints
it sets up (DT1: surge of the whole device; DT2: pitch of the whole device about the base's
origin; DT3: each flap's angle about its hinge, the base held). With the configuration's
own mass matrices ``M`` and stiffness ``K`` (hydrostatics with the gravity terms of the given
masses, the joints' static loads) and the radiation's ``A(w)``, ``B(w)``, a free decay rings
at the complex frequencies ``s`` of

    s^2 T^T M T + T^T H(s) T + T^T K T = 0,     H(i w) = i w B(w) - w^2 A(w),

``H`` the radiation impedance (times ``s``) continued off the real axis. A decay is damped
(``Re s < 0``), so ``H`` is needed at ``s = sigma + i w``: its first-order continuation
``H(i w) + sigma H'(i w)``, ``H' = dH/ds = B + w B' + i (2 w A + w^2 A')``, solved by a
fixed point on ``w = Im s`` (:func:`decay_poles`). ``A``, ``B`` and their derivatives come
from the file's data by cubic splines (smooth at the decays' 0.4..0.8 rad/s), or from the
time-domain model's own radiation (``A_inf`` and the IRF of ``B`` by Ogilvie's relations,
:func:`irf_coefficients`), which tells the method's error from the IRF's.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.interpolate import CubicSpline
from scipy.linalg import block_diag

from hydrofmu.runtime.irf.checks import added_mass_from_irf, damping_from_irf
from hydrofmu.runtime.irf.transforms import radiation_irf_from_arrays

#: ``w -> (A, B, dA/dw, dB/dw)``, each reduced (m, m).
Coefficients = Callable[[float], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]


def pitch_basis(offsets: list[np.ndarray]) -> np.ndarray:
    """Columns moving body k by a unit rotation about y through a point at ``-offsets[k]``
    from its reference point (m): ``x = u x d``, ``theta = u``; shape (6 n, 1)."""
    u = np.array([0.0, 1.0, 0.0])
    col = np.zeros(6 * len(offsets))
    for k, d in enumerate(offsets):
        col[6 * k:6 * k + 3] = np.cross(u, d)
        col[6 * k + 3:6 * k + 6] = u
    return col[:, None]


def spline_coefficients(t: np.ndarray, omega: np.ndarray, added_mass: np.ndarray,
                        damping: np.ndarray) -> Coefficients:
    """The data's ``T^T A T``, ``T^T B T`` (``added_mass``, ``damping``: (nw, 18, 18) at
    ``omega``) and their derivatives, by not-a-knot cubic splines in omega."""
    a = CubicSpline(omega, np.einsum("ia,wij,jb->wab", t, added_mass, t), axis=0)
    b = CubicSpline(omega, np.einsum("ia,wij,jb->wab", t, damping, t), axis=0)
    return lambda w: (a(w), b(w), a(w, 1), b(w, 1))


def irf_coefficients(t: np.ndarray, omega: np.ndarray, damping: np.ndarray,
                     added_mass_inf: np.ndarray, duration: float, dt: float) -> Coefficients:
    """``T^T A T``, ``T^T B T`` as the time-domain model realises them: the kernel of
    ``B`` (data to its last frequency, linear between them) over ``duration`` s sampled
    every ``dt`` s, ``A = A_inf - int K sin / w``, ``B = int K cos`` (Ogilvie); the
    derivatives by central differences of 1e-4 rad/s."""
    times = np.arange(round(duration / dt) + 1) * dt
    kernel = radiation_irf_from_arrays(omega, damping, times)
    reduced = np.einsum("ia,tij,jb->tab", t, kernel, t)
    a_inf = t.T @ added_mass_inf @ t
    h = 1e-4

    def at(w: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        ws = np.array([w - h, w, w + h])
        a = added_mass_from_irf(reduced, times, a_inf, ws)
        b = damping_from_irf(reduced, times, ws)
        return a[1], b[1], (a[2] - a[0]) / (2 * h), (b[2] - b[0]) / (2 * h)

    return at


def state_space_coefficients(t: np.ndarray, arrays: dict, added_mass_inf: np.ndarray
                             ) -> Coefficients:
    """``T^T A T``, ``T^T B T`` as a state-space radiation realises them (``arrays``: the
    run-time arrays of :class:`~hydrofmu.runtime.forces.radiation_ss.StateSpaceRadiation`,
    as the payload stores them): ``K(i w) = C (i w - A)^-1 B + D``, ``B = Re K``,
    ``A = A_inf + Im K / w``; the derivatives by central differences of 1e-4 rad/s."""
    ns = len(arrays["diag"])
    n = int(arrays["n"])
    a = np.zeros((ns, ns))
    a[np.arange(ns), np.arange(ns)] = arrays["diag"]
    a[np.arange(ns), np.asarray(arrays["partner"])] += np.asarray(arrays["off"])
    b = np.zeros((ns, n))
    b[np.arange(ns), np.asarray(arrays["inputs"])] = arrays["b"]
    c = np.zeros((n, ns))
    np.add.at(c, (np.asarray(arrays["outputs"]), np.asarray(arrays["output_states"])),
              np.asarray(arrays["c"]))
    d = np.diag(np.asarray(arrays["feedthrough"], dtype=float))
    a_inf = t.T @ added_mass_inf @ t
    h = 1e-4

    def reduced(w: float) -> np.ndarray:
        k = c @ np.linalg.solve(1j * w * np.eye(ns) - a, b) + d
        return t.T @ k @ t

    def at(w: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        ks = [reduced(x) for x in (w - h, w, w + h)]
        am = [a_inf + k.imag / x for k, x in zip(ks, (w - h, w, w + h), strict=True)]
        return am[1], ks[1].real, (am[2] - am[0]) / (2 * h), (ks[2].real - ks[0].real) / (2 * h)

    return at


def decay_poles(t: np.ndarray, mass: np.ndarray, stiffness: np.ndarray,
                coefficients: Coefficients, guesses: list[float]) -> np.ndarray:
    """The complex frequencies ``s`` (1/s) of the reduced decay (module docstring), one per
    guess of its ``Im s`` (rad/s): the fixed point of ``w = Im s`` with ``s`` the root
    nearest ``i w`` of ``s^2 M_r + H(i w) + (s - i w) H'(i w) + K_r = 0``."""
    m = t.shape[1]
    m_r, k_r = t.T @ mass @ t, t.T @ stiffness @ t
    inv = np.linalg.inv(m_r)
    out = []
    for w in guesses:
        s = 1j * w
        for _ in range(200):
            a, b, da, db = coefficients(w)
            s0 = 1j * w
            h0 = s0 * b + s0**2 * a
            h1 = b + w * db + 1j * (2 * w * a + w * w * da)
            state = np.block([[np.zeros((m, m)), np.eye(m)],
                              [-inv @ (h0 - s0 * h1 + k_r), -inv @ h1]])
            roots = np.linalg.eigvals(state)
            s = roots[np.argmin(np.abs(roots - s0))]
            if abs(s.imag - w) < 1e-12:
                break
            w = float(s.imag)
        out.append(s)
    return np.array(out)


def model_matrices(config: dict) -> tuple[np.ndarray, np.ndarray]:
    """The 18 x 18 mass and stiffness matrices of a resolved configuration (bodies in its
    order)."""
    bodies = config["bodies"]
    mass = block_diag(*[np.asarray(b["mass_matrix"], dtype=float) for b in bodies])
    stiffness = block_diag(*[np.asarray(b["hydrostatic_stiffness"], dtype=float)
                             for b in bodies])
    return mass, stiffness


def crossing_intervals(t: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The intervals (s) between the upward zero crossings of ``x``, the crossings located
    by linear interpolation."""
    i = np.flatnonzero((x[:-1] < 0) & (x[1:] >= 0))
    times = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    return np.diff(times)


def decay_period(t: np.ndarray, x: np.ndarray) -> float:
    """The period (s) a free decay rings at: the mean interval between its upward zero
    crossings from the second one on (the first interval holds the release, which also
    excites the radiation memory's fast-decaying terms: DT2's first is 8.06 s, the next
    ones 8.18-8.21 s)."""
    return float(np.mean(crossing_intervals(t, x)[1:]))
