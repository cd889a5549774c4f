"""``etdrk4``: an exponential Runge-Kutta scheme, the linear part exact, the rest by stages.

The simulator's right-hand side is split as ``y' = F y + g(t, y)`` with ``F`` the linear
part its parts declare (:mod:`hydrofmu.runtime.linear.model`: state-space radiation, hydrostatics,
linear damping, moorings and PTOs, constraints and the left-side mass) and
``g = f - F y`` the rest: the nonlinear forces (quadratic drag, catenary and dynamic
moorings), the wave excitation, the inputs and constants. The stages (Krogstad, J. Comput.
Phys. 203, 2005; as written by Hochbruck & Ostermann, "Exponential integrators", Acta
Numerica 19, 2010)::

    Y_i     = e^{c_i h F} y_n + h sum_j a_ij(h F) g(t_n + c_j h, Y_j),  c = (0, 1/2, 1/2, 1)
    y_{n+1} = e^{h F} y_n + h sum_i b_i(h F) g(t_n + c_i h, Y_i)

    a21 = phi1(h F/2) / 2
    a31 = phi1(h F/2) / 2 - phi2(h F/2),  a32 = phi2(h F/2)
    a41 = phi1(h F) - 2 phi2(h F),        a43 = 2 phi2(h F)
    b1 = phi1 - 3 phi2 + 4 phi3,  b2 = b3 = 2 phi2 - 4 phi3,  b4 = 4 phi3 - phi2   (of h F)

with ``phi_k`` the entire functions ``phi_0 = exp``, ``phi_{k+1}(z) = (phi_k(z) - 1/k!) / z``.

Why this one: the stiff part of a hydrodynamic model is linear (the fast poles of the
radiation realisation, stiff linear moorings); the nonlinear forces are slow. Every
stage integrates ``F`` exactly, so the stability limit is set by ``g`` alone (the drag's
``dF/dv`` over the mass), not by the radiation poles that bound RK4's step. With ``F = 0``
the tableau is the classical RK4; it is fourth order for smooth ``g`` and, unlike the
Lawson (integrating-factor) RK4, it keeps the equilibria of ``F y + g`` exactly, and Krogstad's
coefficients satisfy more of the stiff order conditions than Cox and Matthews' ETDRK4
(Hochbruck & Ostermann 2005), so less order is lost when ``F`` is stiff. ``phi_k`` are taken
from one matrix exponential of an augmented matrix per step length (Saad 1992),
cached, so a step costs four evaluations of ``f`` and about a dozen mat-vecs of size N.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from ..linear.lti import expm, quantized_step
from .right_hand_side import RightHandSide
from .stagewise import StagewiseScheme


def phi_functions(a: NDArray[np.float64], order: int) -> list[NDArray[np.float64]]:
    """``[phi_0(a), ..., phi_order(a)]`` of a square matrix ``a`` (n, n), each (n, n).

    The top block row of ``exp`` of the augmented matrix
    ``[[a, I, 0..], [0, 0, I, ..], ..., [0, ..., 0]]`` (size ``(order + 1) n``).
    """
    n = a.shape[0]
    size = (order + 1) * n
    big = np.zeros((size, size))
    big[:n, :n] = a
    for k in range(order):
        big[k * n : (k + 1) * n, (k + 1) * n : (k + 2) * n] += np.eye(n)
    e = expm(big)
    return [e[:n, k * n : (k + 1) * n].copy() for k in range(order + 1)]


class ExponentialRK4(StagewiseScheme):
    """Krogstad's exponential Runge-Kutta scheme of order 4 (see the module docstring).

    ``F`` is the right-hand side's
    ``RightHandSide.linear_part`` (the
    simulator's assembled linear part); without it (or of another size) ``F = 0`` and it
    is the classical RK4.
    """

    name: ClassVar[str] = "etdrk4"
    order: ClassVar[int] = 4
    uses_linear_part: ClassVar[bool] = True

    def __init__(self) -> None:
        self.f: NDArray[np.float64] | None = None  # the linear part the cache is of
        self._zero = np.zeros((0, 0))
        self._cache: dict[float, tuple[NDArray[np.float64], ...]] = {}

    def _matrices(self, h: float) -> tuple[NDArray[np.float64], ...]:
        key = quantized_step(h)
        mats = self._cache.get(key)
        if mats is None:
            f = self.f
            e1, p11, p21, p31 = phi_functions(key * f, 3)
            e2, p12, p22 = phi_functions(0.5 * key * f, 2)
            mats = (e2, e1, 0.5 * p12, 0.5 * p12 - p22, p22, p11 - 2.0 * p21, 2.0 * p21,
                    p11 - 3.0 * p21 + 4.0 * p31, 2.0 * p21 - 4.0 * p31, 4.0 * p31 - p21)
            if len(self._cache) > 16:
                self._cache.clear()
            self._cache[key] = mats
        return mats

    def _step_impl(self, f: RightHandSide, t: float, y: NDArray[np.float64],
                   h: float) -> NDArray[np.float64]:
        lin = f.linear_part
        if lin is None or lin.shape != (y.size, y.size):
            if self._zero.shape != (y.size, y.size):
                self._zero = np.zeros((y.size, y.size))
            lin = self._zero
        if lin is not self.f:  # another linear part (a tunable parameter changed): new phi
            self.f = lin
            self._cache = {}
        e2, e1, a21, a31, a32, a41, a43, b1, b23, b4 = self._matrices(h)

        def g(tau: float, z: NDArray[np.float64]) -> NDArray[np.float64]:
            return f(tau, z) - lin @ z

        half = t + 0.5 * h
        ey = e2 @ y
        g1 = g(t, y)
        g2 = g(half, ey + h * (a21 @ g1))
        g3 = g(half, ey + h * (a31 @ g1 + a32 @ g2))
        g4 = g(t + h, e1 @ y + h * (a41 @ g1 + a43 @ g3))
        return e1 @ y + h * (b1 @ g1 + b23 @ (g2 + g3) + b4 @ g4)
