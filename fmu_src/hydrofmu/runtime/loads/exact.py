"""The load model's part states integrated exactly along the motion between two
communication points (``[simulation] time_scheme = "exact"``).

Between the committed sample and the current time (a step of ``H`` s) the load model's
motion is the quintic Hermite motion through both ends' pose, velocity and acceleration
(:func:`~hydrofmu.runtime.loads.model.hermite_motion`): with ``s = tau / H``,
``q(s) = sum_k s^k Q_k`` (k = 0..5) and ``v = dq/dtau``, polynomials. The linear part
states (state-space radiation) follow ``x' = F x + Gq q + Gv v + c`` (``c`` from the held
inputs and the constant), so over the step

    x(H) = e^{F H} x(0) + sum_k Psi_k b_k,   b_k = Gq Q_k + Gv V_k (+ c for k = 0),
    Psi_k = int_0^H e^{F (H - tau)} (tau / H)^k dtau = H k! phi_{k+1}(F H),

exactly, with the phi-functions from one matrix exponential of a block matrix (the blocks
``[F H, I, 0, ...]`` then a shift; its first block row is ``[e^{FH}, phi_1, ..., phi_6]``).
The only error left is the Hermite motion's against the importer's: with the motion FMU's
``exact`` scheme the load model returns its radiation force to rounding
(``tests/test_load_exact.py``), where RK4 along the same motion differs by the two RK4s'
truncation (fourth order in the step).

The native load FMU (``csrc/hfn_load.c``) evaluates the same formula from the blob's
``F``, ``G``.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..linear.lti import expm

__all__ = ["HERMITE", "ExactStates", "phi_blocks"]

#: Monomial coefficients (``s^0 .. s^5``) of the quintic Hermite basis, one row per datum
#: ``q0, H v0, H^2 a0, q1, H v1, H^2 a1`` (``hermite_motion``'s h00, h10, h20, h01, h11, h21).
HERMITE = np.array([[1.0, 0.0, 0.0, -10.0, 15.0, -6.0],
                    [0.0, 1.0, 0.0, -6.0, 8.0, -3.0],
                    [0.0, 0.0, 0.5, -1.5, 1.5, -0.5],
                    [0.0, 0.0, 0.0, 10.0, -15.0, 6.0],
                    [0.0, 0.0, 0.0, -4.0, 7.0, -3.0],
                    [0.0, 0.0, 0.0, 0.5, -1.0, 0.5]])
#: The polynomial's degree + 1.
TERMS = 6
#: Agreement of the probed affine rate with the rate at a random point and another time,
#: relative to the largest value compared: affine up to rounding (~1e-15).
AFFINE = 1e-9


def phi_blocks(f: NDArray[np.float64], h: float) -> NDArray[np.float64]:
    """``[e^{F h} | Psi_0 | ... | Psi_5]``, shape (n, 7 n), for the step ``h`` (s): ``Psi_k =
    int_0^h e^{F (h - tau)} (tau / h)^k dtau``."""
    n = f.shape[0]
    w = np.zeros(((TERMS + 1) * n, (TERMS + 1) * n))
    w[:n, :n] = f * h
    for j in range(TERMS):
        w[j * n:(j + 1) * n, (j + 1) * n:(j + 2) * n] = np.eye(n)
    e = expm(w)[:n]
    out = e.copy()
    for k in range(TERMS):
        out[:, (k + 1) * n:(k + 2) * n] *= h * math.factorial(k)
    return out


class ExactStates:
    """The exact step of the load model's linear part states along the Hermite motion.

    Parameters
    ----------
    rate
        ``rate(t, q, v, x, u)``: the part states' derivative (affine in q, v, x; checked).
    n_states, n_dofs
        Sizes of ``x`` and of the body DOFs ``q``.
    t
        A time to probe at, s.
    u
        The simulator's inputs to probe with.
    """

    def __init__(self, rate: Callable[..., NDArray[np.float64]], n_states: int, n_dofs: int,
                 t: float, u: NDArray[np.float64]) -> None:
        self.rate = rate
        zq, zx = np.zeros(n_dofs), np.zeros(n_states)
        d0 = rate(t, zq, zq, zx, u)
        self.f = np.array([rate(t, zq, zq, e, u) - d0 for e in np.eye(n_states)]).T
        self.gq = np.array([rate(t, e, zq, zx, u) - d0 for e in np.eye(n_dofs)]).T
        self.gv = np.array([rate(t, zq, e, zx, u) - d0 for e in np.eye(n_dofs)]).T
        rng = np.random.default_rng(29)
        q, v, x = (rng.standard_normal(k) for k in (n_dofs, n_dofs, n_states))
        want = self.f @ x + self.gq @ q + self.gv @ v
        for t_check in (t, t + 1.37):
            got = rate(t_check, q, v, x, u) - rate(t_check, zq, zq, zx, u)
            err = float(np.max(np.abs(got - want), initial=0.0))
            if err > AFFINE * max(float(np.max(np.abs(want), initial=0.0)), 1e-300):
                raise ConfigError("time_scheme = 'exact' in the load model needs part states "
                                  "linear in the motion and the states, and time-invariant "
                                  f"(a difference of {err:.3g}); choose time_scheme = 'rk4'",
                                  value=err)
        self._blocks: dict[float, NDArray[np.float64]] = {}

    def step(self, t: float, h: float, start: NDArray[np.float64], end: NDArray[np.float64],
             u: NDArray[np.float64], x: NDArray[np.float64]) -> NDArray[np.float64]:
        """The states ``h`` s after ``x`` at ``t`` (s), along the Hermite motion from
        ``start`` to ``end`` (rows q, v, a) with the inputs ``u`` held."""
        blocks = self._blocks.get(h)
        if blocks is None:
            if len(self._blocks) > 8:
                self._blocks.clear()
            blocks = self._blocks[h] = phi_blocks(self.f, h)
        data = np.stack([start[0], h * start[1], h * h * start[2],
                         end[0], h * end[1], h * h * end[2]])
        qk = HERMITE.T @ data  # (6 powers of s, n_dofs)
        vk = np.zeros_like(qk)
        vk[:-1] = np.arange(1, TERMS)[:, None] * qk[1:] / h
        b = self.gq @ qk.T + self.gv @ vk.T  # (n_states, 6)
        zq = np.zeros(start.shape[1])
        b[:, 0] += self.rate(t, zq, zq, np.zeros_like(x), u)
        return blocks @ np.concatenate([x, b.T.reshape(-1)])
