"""Semi-implicit members with N substeps: ``beulerN``, ``midpointN``, ``andersonN``,
``acaN``, ``wilsonN`` (MoorDyn-C v2 names, any integer N >= 1).

What is iterated (as MoorDyn does): the derivative ``z`` of the WHOLE state over the step.
Each of the N iterations evaluates the derivative once at a stage state built from ``z``,
``g = f(t + c h, Y(z))``; every iteration but the last is relaxed, ``z <- (1 - r) g + r z``,
and the last one is not, so the step is ``y_{n+1} = Y_final(z)`` with the last ``g``.
MoorDyn's relaxation weight of the previous iterate (``ImplicitSchemeBase::Relax``,
source/Time.cpp of MoorDyn-C v2.7.1, commit 319ff99), for iteration i = 0 .. N-2::

    r(i) = C0 (1 - 1/N) + C1 (1 - (tanh(4 ((i + 1)/N - 1/2)) + 1) / 2)

with the constants of that source (the seed's tanh/constant discussion is the same idea
in another parametrization): implicit Euler family (``beuler``, ``midpoint``, and here
``anderson``) C0 = 0.9, C1 = 0; Newmark (``aca``) C0 = 0.9, C1 = 0.15; Wilson C0 = 0.015,
C1 = 0. Wilson's theta = 1.37 and Newmark's gamma = 1/2, beta = 1/4 are MoorDyn's too.

The stages (c, Y(z)) and the final update, with d0 = f(t, y)::

    beuler    c = 1      Y = y + h z                       y1 = y + h z
    midpoint  c = 1/2    Y = y + h/2 z                     y1 = y + h z
    anderson  as beuler, the relaxed iterations replaced by damped Anderson mixing
    aca       c = 1      Y = y + h/2 (d0 + z)              y1 = Y (trapezoid)
    wilson    c = theta  Y = y + theta h/2 (d0 + z)        y1 = y + h ((1 - 1/(2 theta)) d0
                                                                    + 1/(2 theta) z)

For a state of positions q and velocities v with q' = v, ``aca``'s trapezoid on the whole
state is exactly Newmark's average constant acceleration (q1 = q0 + h v0 + h^2/4 (a0 + a1)),
and ``wilson`` is the Wilson-theta linear-acceleration assumption applied to the whole
derivative (second order, c = theta, b = 1/(2 theta)). Deviations from MoorDyn's code,
on purpose: MoorDyn's Wilson relaxes into the start-of-step derivative (which makes its
extra iterations nearly idle) and scales the final position increment by an extra theta;
neither is reproduced.

Initial iterate: ``beuler``/``midpoint``/``anderson`` start from the derivative of the
previous step's last iteration (MoorDyn's choice: N evaluations per step; memory ``d``
and ``t`` in ``get_state``), or from f(t, y) after a restart; ``aca``/``wilson`` need
d0 = f(t, y) anyway and start from it (N + 1 evaluations per step).

Nominal orders (global): the last, unrelaxed iteration makes the error of ``z`` O(h) times
that of the previous iterate, which is O(h) already, so for every N >= 1 the step is as
accurate as the converged implicit method to the order of that method: beuler 1,
midpoint 2, anderson 1, aca 2, wilson 2 (with N = 1 midpoint is a two-step variant of
the explicit midpoint rule, aca is Heun's trapezoid and wilson a two-stage RK2). N buys
stability, not order.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from .right_hand_side import RightHandSide
from .stagewise import CarriedDerivative


class SemiImplicit(CarriedDerivative):
    """MoorDyn's relaxed fixed-point iteration on the derivative, N evaluations a step.

    Parameters
    ----------
    substeps
        Number of iterations N (the integer suffix of the name), >= 1.

    Attributes
    ----------
    C0, C1
        Relaxation constants (see the module docstring).
    STAGE
        Stage time as a fraction of the step.
    NEEDS_D0
        True if the stage states use f(t, y) (then it is also the initial iterate).
    """

    C0: ClassVar[float] = 0.9
    C1: ClassVar[float] = 0.0
    STAGE: ClassVar[float] = 1.0
    NEEDS_D0: ClassVar[bool] = False

    def __init__(self, *, substeps: int) -> None:
        if isinstance(substeps, bool) or not isinstance(substeps, int) or substeps < 1:
            raise ValueError(f"substeps must be an integer >= 1, got {substeps!r}")
        super().__init__()
        self.substeps = substeps
        #: Last step's ``|g - z| / max(|g|, tiny)`` before the final iteration (diagnostics).
        self.last_residual = 0.0

    @property
    def label(self) -> str:
        return f"{self.name}{self.substeps}"

    def relax(self, i: int) -> float:
        """Relaxation weight of the previous iterate at iteration ``i`` (0-based)."""
        n = self.substeps
        y1 = 0.5 * (math.tanh(4.0 * ((i + 1.0) / n - 0.5)) + 1.0)
        return self.C0 * (1.0 - 1.0 / n) + self.C1 * (1.0 - y1)

    def _stage_state(self, y: NDArray[np.float64], h: float, d0: NDArray[np.float64],
                     z: NDArray[np.float64]) -> NDArray[np.float64]:
        return y + (self.STAGE * h) * z

    def _final(self, y: NDArray[np.float64], h: float, d0: NDArray[np.float64],
               z: NDArray[np.float64]) -> NDArray[np.float64]:
        return y + h * z

    def _mix(self, i: int, z: NDArray[np.float64], g: NDArray[np.float64]) -> NDArray[np.float64]:
        r = self.relax(i)
        return (1.0 - r) * g + r * z

    def _step_impl(
        self, f: RightHandSide, t: float, y: NDArray[np.float64], h: float
    ) -> NDArray[np.float64]:
        self._begin()
        if self.NEEDS_D0:
            d0 = f(t, y)
        else:
            carried = self.carried(t, y.shape, h)
            d0 = f(t, y) if carried is None else carried
        z = d0
        ts = t + self.STAGE * h
        g = z
        for i in range(self.substeps):
            g = f(ts, self._stage_state(y, h, d0, z))
            if i < self.substeps - 1:
                z = self._mix(i, z, g)
            else:
                scale = max(float(np.max(np.abs(g), initial=0.0)), 1e-300)
                self.last_residual = float(np.max(np.abs(g - z), initial=0.0)) / scale
        y_new = self._final(y, h, d0, g)
        if np.all(np.isfinite(y_new)) and not self.NEEDS_D0:
            self.carry(g, t + h)
        return y_new

    def _begin(self) -> None:
        """Hook: reset per-step iteration memory."""


class BackwardEuler(SemiImplicit):
    """Backward Euler, N relaxed iterations (``beulerN``), first order."""

    name = "beuler"
    order = 1


class Midpoint(SemiImplicit):
    """Implicit midpoint, N relaxed iterations (``midpointN``), second order."""

    name = "midpoint"
    order = 2
    STAGE = 0.5


class Anderson(BackwardEuler):
    """Backward Euler with damped Anderson acceleration of the iteration (``andersonN``).

    Anderson mixing of depth ``DEPTH`` (Walker & Ni, SIAM J. Numer. Anal. 49, 2011) with
    damping 1 - r(i), r the backward-Euler relaxation; the last iteration is plain.
    """

    name = "anderson"
    order = 1
    DEPTH: ClassVar[int] = 3

    def _begin(self) -> None:
        self._zs: list[NDArray[np.float64]] = []
        self._rs: list[NDArray[np.float64]] = []

    def _mix(self, i: int, z: NDArray[np.float64], g: NDArray[np.float64]) -> NDArray[np.float64]:
        beta = 1.0 - self.relax(i)
        r = g - z
        self._zs.append(z)
        self._rs.append(r)
        m = min(len(self._zs) - 1, self.DEPTH)
        if m == 0:
            return z + beta * r
        dz = np.array([self._zs[-k] - self._zs[-k - 1] for k in range(1, m + 1)]).T
        dr = np.array([self._rs[-k] - self._rs[-k - 1] for k in range(1, m + 1)]).T
        if not (np.all(np.isfinite(dr)) and np.all(np.isfinite(r))):
            return z + beta * r
        try:
            gamma = np.linalg.lstsq(dr, r, rcond=None)[0]
        except np.linalg.LinAlgError:  # pragma: no cover - SVD failure on finite data
            return z + beta * r
        return (z - dz @ gamma) + beta * (r - dr @ gamma)


class AverageConstantAcceleration(SemiImplicit):
    """Newmark gamma = 1/2, beta = 1/4 on the whole state (trapezoid), ``acaN``."""

    name = "aca"
    order = 2
    C0 = 0.9
    C1 = 0.15
    NEEDS_D0 = True

    def _stage_state(self, y: NDArray[np.float64], h: float, d0: NDArray[np.float64],
                     z: NDArray[np.float64]) -> NDArray[np.float64]:
        return y + (0.5 * h) * (d0 + z)

    def _final(self, y: NDArray[np.float64], h: float, d0: NDArray[np.float64],
               z: NDArray[np.float64]) -> NDArray[np.float64]:
        return y + (0.5 * h) * (d0 + z)


class WilsonTheta(SemiImplicit):
    """Wilson-theta, theta = 1.37, on the whole state (``wilsonN``), second order."""

    name = "wilson"
    order = 2
    C0 = 0.015
    C1 = 0.0
    THETA: ClassVar[float] = 1.37
    STAGE = THETA
    NEEDS_D0 = True

    def _stage_state(self, y: NDArray[np.float64], h: float, d0: NDArray[np.float64],
                     z: NDArray[np.float64]) -> NDArray[np.float64]:
        return y + (0.5 * self.THETA * h) * (d0 + z)

    def _final(self, y: NDArray[np.float64], h: float, d0: NDArray[np.float64],
               z: NDArray[np.float64]) -> NDArray[np.float64]:
        b = 0.5 / self.THETA
        return y + h * ((1.0 - b) * d0 + b * z)


SEMI_IMPLICIT: tuple[type[SemiImplicit], ...] = (
    BackwardEuler, Midpoint, Anderson, AverageConstantAcceleration, WilsonTheta,
)
