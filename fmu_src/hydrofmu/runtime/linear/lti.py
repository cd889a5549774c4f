"""Exact stepping of a linear time-invariant system driven by sinusoids and sampled inputs.

For ``x' = F x + G_u u(t) + G_w w(t)`` with

- ``u(t)`` sampled inputs (PTO forces, an excitation force evaluated at the step ends), held
  constant (zero-order hold) or linearly interpolated (first-order hold) over a step, and
- ``w(t) = Re(sum_k c_k e^{i w_k t})`` a sum of sinusoids (the wave excitation of the
  internal wave model, its half-cosine ramp included, see :func:`ramped_components`),

the step from ``t`` to ``t + h`` is exact (to round-off; the stepping itself is
:mod:`hydrofmu.runtime.linear.stepper`)::

    x(t + h) = x_p(t + h) + Phi (x(t) - x_p(t)) + Gamma_0 u_0 + Gamma_1 (u_1 - u_0)

with ``Phi = e^{F h}``, ``Gamma_0 = int_0^h e^{F (h - s)} G_u ds``,
``Gamma_1 = int_0^h e^{F (h - s)} G_u s / h ds`` (Van Loan's block exponential) and the
particular solution ``x_p(t) = Re(sum_k X_k e^{i w_k t})``, ``(i w_k I - F) X_k = G_w c_k``.

Run-time module: numpy and the standard library only (the matrix exponential is computed
here, not by scipy, so that the FMU never imports scipy).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError

# Pade(13) coefficients and the 1-norm bound theta_13 of Higham (2005), "The scaling and
# squaring method for the matrix exponential revisited", SIAM J. Matrix Anal. Appl. 26(4).
_PADE13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
    40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)
_THETA13 = 5.371920351148152

#: Significant digits a step length keeps before it is discretised (see
#: :func:`quantized_step`): 1e-12 relative, far below any step an importer means to vary.
STEP_DIGITS = 12


def quantized_step(h: float) -> float:
    """``h`` rounded to :data:`STEP_DIGITS` significant digits, s.

    A step computed as a difference of two times carries a few ulps of noise; rounding
    makes equal steps equal, so one discretisation serves them all. The change of the
    propagator, ``|F| h 1e-12``, is far below the truncation error of any other scheme.
    """
    return float(f"{h:.{STEP_DIGITS - 1}e}")


def expm(a: ArrayLike) -> NDArray[np.float64]:
    """Matrix exponential by scaling and squaring with the [13/13] Pade approximant.

    Parameters
    ----------
    a
        Square real matrix, shape (n, n).

    Returns
    -------
    numpy.ndarray
        ``e^a``, shape (n, n). Accurate to a few ulps of ``||e^a||`` for the well-behaved
        (stable, moderately non-normal) matrices of a linear equation of motion.
    """
    a = np.asarray(a, dtype=float)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ConfigError(f"expm needs a square matrix, got shape {a.shape}", value=a.shape)
    if not np.all(np.isfinite(a)):
        raise ConfigError("expm of a matrix with non-finite entries", value=None)
    n = a.shape[0]
    if n == 0:
        return np.zeros((0, 0))
    norm = float(np.max(np.sum(np.abs(a), axis=0)))
    s = max(0, math.ceil(math.log2(norm / _THETA13))) if norm > _THETA13 else 0
    a = a / (2.0**s)
    b = _PADE13
    ident = np.eye(n)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
        + b[0] * ident
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


def discretize(
    f: ArrayLike, g: ArrayLike, h: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Exact discretisation of ``x' = F x + G u`` over a step ``h`` with a linear ``u``.

    Parameters
    ----------
    f
        System matrix, shape (n, n), 1/s.
    g
        Input matrix, shape (n, m).
    h
        Step, s, > 0.

    Returns
    -------
    phi, gamma0, gamma1
        ``e^{F h}`` (n, n); the response to a held input (n, m); the extra response to an
        input rising linearly from 0 to 1 over the step (n, m). For a held input use
        ``phi @ x + gamma0 @ u0``; for a linearly interpolated one add ``gamma1 @ (u1 - u0)``.
    """
    f = np.asarray(f, dtype=float)
    g = np.asarray(g, dtype=float)
    if not (math.isfinite(h) and h > 0.0):
        raise ConfigError(f"the step must be a finite number > 0 s, got {h!r}", value=h)
    n = f.shape[0]
    if g.ndim != 2 or g.shape[0] != n:
        raise ConfigError(f"input matrix has shape {g.shape}, needs ({n}, m)", value=g.shape)
    m = g.shape[1]
    big = np.zeros((n + 2 * m, n + 2 * m))
    big[:n, :n] = f
    big[:n, n : n + m] = g
    big[n : n + m, n + m :] = np.eye(m) / h
    e = expm(big * h)
    return e[:n, :n].copy(), e[:n, n : n + m].copy(), e[:n, n + m :].copy()


def particular_solution(
    f: ArrayLike, g: ArrayLike, omega: ArrayLike, coefficients: ArrayLike
) -> NDArray[np.complex128]:
    """Steady response amplitudes to sinusoidal forcing.

    Parameters
    ----------
    f
        System matrix, shape (n, n), 1/s.
    g
        Matrix of the forcing, shape (n, m).
    omega
        Component frequencies, shape (k,), rad/s.
    coefficients
        Complex forcing amplitudes ``c_k``, shape (k, m): ``w(t) = Re(sum c_k e^{i w_k t})``.

    Returns
    -------
    numpy.ndarray
        ``X_k`` with ``(i w_k I - F) X_k = G c_k``, shape (k, n), complex.

    Raises
    ------
    ConfigError
        A component resonates with an undamped mode of ``F`` (``i w_k`` an eigenvalue).
    """
    f = np.asarray(f, dtype=float)
    g = np.asarray(g, dtype=float)
    omega = np.asarray(omega, dtype=float).reshape(-1)
    c = np.asarray(coefficients, dtype=complex).reshape(omega.size, g.shape[1])
    n = f.shape[0]
    if omega.size == 0:
        return np.zeros((0, n), dtype=complex)
    # Resonance: i w_k within 1e-12 ||F|| of an eigenvalue of F (the matrix i w - F is then
    # singular to working precision; the eigenvalues once, not a condition number per
    # component: an SVD per component costs seconds for a few hundred components).
    eig = np.linalg.eigvals(f) if n else np.zeros(0, dtype=complex)
    scale = max(1.0, float(np.max(np.sum(np.abs(f), axis=0), initial=0.0)))
    dist = (np.min(np.abs(1j * omega[:, None] - eig[None, :]), axis=1) if n
            else np.full(omega.size, np.inf))
    bad = np.flatnonzero(dist <= 1e-12 * scale)
    if bad.size:
        w = float(omega[bad[0]])
        raise ConfigError(
            f"the wave component at {w:.6g} rad/s resonates with an undamped mode of the "
            "linear model (i w is an eigenvalue of its system matrix): the steady response "
            "is unbounded; add damping or use a Runge-Kutta time scheme",
            value=w,
        )
    mats = 1j * omega[:, None, None] * np.eye(n)[None] - f[None]
    rhs = (c @ g.T)[..., None]
    return np.linalg.solve(mats, rhs)[..., 0]


def ramped_components(
    omega: ArrayLike, coefficients: ArrayLike, t0: float, ramp_time: float
) -> tuple[NDArray[np.float64], NDArray[np.complex128]]:
    """Components of ``ramp(t) w(t)`` on the ramp interval ``t0 <= t <= t0 + ramp_time``.

    With ``ramp(t) = (1 - cos(pi (t - t0) / T)) / 2`` (the half-cosine ramp of the
    excitation) and ``w(t) = Re(sum c_k e^{i w_k t})``, the product is again a sum of
    sinusoids, ``c_k / 2`` at ``w_k`` and ``-c_k e^{-+i pi t0 / T} / 4`` at
    ``w_k +- pi / T``. So a ramped sea is stepped exactly too.

    Returns
    -------
    omega, coefficients
        Shapes (3k,) and (3k, m).
    """
    omega = np.asarray(omega, dtype=float).reshape(-1)
    c = np.asarray(coefficients, dtype=complex)
    c = c.reshape(omega.size, -1)
    if not (math.isfinite(ramp_time) and ramp_time > 0.0):
        raise ConfigError(f"ramp_time must be > 0 s here, got {ramp_time!r}", value=ramp_time)
    nu = math.pi / ramp_time
    up = np.exp(-1j * nu * t0)
    w_all = np.concatenate([omega, omega + nu, omega - nu])
    c_all = np.concatenate([0.5 * c, -0.25 * up * c, -0.25 * np.conj(up) * c])
    return w_all, c_all
