"""An explicit Runge-Kutta scheme on a linear model: its own map over a communication step.

For ``y' = J y + f(t)`` one step of length ``h`` of an explicit Runge-Kutta scheme of
tableau ``(A, b, c)`` is linear in ``y`` and in the forcing at the stage times::

    y_{j+1} = R y_j + sum_i W_i f(t_j + c_i h)

(:func:`stage_maps`; for RK4 ``R = I + Z + Z^2/2 + Z^3/6 + Z^4/24``, ``Z = h J``). With the
simulator's linear model ``f(t) = G u + c + E w(t)`` (:mod:`hydrofmu.runtime.linear.model`), the
held input gives ``S = (sum_i W_i) [G, c]`` per step, and a sinusoid ``Re(F_k e^{i w t})``
has the *discrete* particular solution ``Y_k = (e^{i w h} I - R)^{-1} sum_i e^{i w c_i h}
W_i F_k``: the deviation from it obeys ``d_{j+1} = R d_j + S [u; 1]``, so ``m`` internal
steps are ``P = R^m``, ``Q = sum_{i<m} R^i S`` (:mod:`hydrofmu.runtime.linear.stepper`). This is the
same scheme, to round-off, as its stagewise steps (``4 m`` evaluations of the part sum for
RK4), at the cost of one product per communication step.

An interval stepper (:class:`~hydrofmu.runtime.schemes.base.IntervalStepper`), chosen by the
simulator when its model is linear (every part declares its linear form), the added mass
is all on the left side and no local time step runs. A communication step that does not
start on the simulator's grid of ``max_internal_step`` or is not a whole number of
internal steps, or that would cross the ramp's end between two grid times, is not taken
(``advance`` returns ``None``) and the simulator steps it stagewise, as every step when a
wave component sits on an undamped discrete mode (no particular solution).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from ..linear.lti import ramped_components
from ..linear.model import LinearModel
from ..linear.stepper import LinearStepper, OffGrid, SinusoidBank, SinusoidSegment
from .base import DIVERGENCE_LIMIT, Interval, diverged


class ExplicitTableau(Protocol):
    """What the linear map reads of an explicit Runge-Kutta scheme
    (:class:`~hydrofmu.runtime.schemes.runge_kutta.ExplicitRungeKutta`): its Butcher tableau
    and the name it reports divergence under."""

    A: NDArray[np.float64]
    B: NDArray[np.float64]
    C: NDArray[np.float64]

    @property
    def label(self) -> str: ...

#: Why an explicit scheme diverges on a linear model, and the fix.
ADVICE = ("the step is beyond the scheme's stability limit for the model's fastest mode, or "
          "the model is unstable: reduce max_internal_step or use an implicit scheme (e.g. "
          "midpoint5), and check the mass, stiffness and damping data")


def stage_maps(a: NDArray[np.float64], b: NDArray[np.float64], jac: NDArray[np.float64],
               h: float) -> tuple[NDArray[np.float64], list[NDArray[np.float64]]]:
    """``R`` and ``[W_i]`` of one explicit Runge-Kutta step of ``y' = J y + f(t)``.

    Parameters
    ----------
    a, b
        Butcher tableau: stage coefficients (s, s), strictly lower triangular; weights (s,).
    jac
        ``J``, shape (n, n), 1/s.
    h
        Step, s.

    Returns
    -------
    r, w
        ``y_{j+1} = R y_j + sum_i W_i f(t_j + c_i h)``; each (n, n).
    """
    n, s = jac.shape[0], b.size
    eye = np.eye(n)
    hj = h * jac
    k_y: list[NDArray[np.float64]] = []  # stage i = k_y[i] y + sum_l k_f[i][l] f_l
    k_f: list[list[NDArray[np.float64]]] = []
    for i in range(s):
        sum_y = np.zeros((n, n))
        sum_f = [np.zeros((n, n)) for _ in range(s)]
        for j in range(i):
            if a[i, j]:
                sum_y += a[i, j] * k_y[j]
                for ell in range(s):
                    sum_f[ell] += a[i, j] * k_f[j][ell]
        k_y.append(jac + hj @ sum_y)
        k_f.append([hj @ sum_f[ell] + (eye if ell == i else 0.0) for ell in range(s)])
    r = eye + h * sum(b[i] * k_y[i] for i in range(s))
    w = [h * sum(b[i] * k_f[i][ell] for i in range(s)) for ell in range(s)]
    return r, w


def power_sum(r: NDArray[np.float64], s: NDArray[np.float64], m: int
              ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(R^m, sum_{i<m} R^i S)`` by binary powering (``O(log m)`` products)."""
    p, q = np.eye(r.shape[0]), np.zeros_like(s)  # the result so far: m' steps
    pk, qk = r, s  # 2^k steps
    while m:
        if m & 1:
            p, q = pk @ p, pk @ q + qk
        m >>= 1
        if m:
            pk, qk = pk @ pk, pk @ qk + qk
    return p, q


def discrete_particular(r: NDArray[np.float64], w: list[NDArray[np.float64]],
                        c: NDArray[np.float64], h: float, omega: NDArray[np.float64],
                        forcing: NDArray[np.complex128]) -> NDArray[np.complex128] | None:
    """``Y_k`` of the module docstring, shape (k, n); ``None`` when ``e^{i w_k h}`` is an
    eigenvalue of ``R`` to working precision (a wave on an undamped discrete mode)."""
    n = r.shape[0]
    if omega.size == 0:
        return np.zeros((0, n), dtype=complex)
    z = np.exp(1j * omega * h)
    eig = np.linalg.eigvals(r)
    scale = max(1.0, float(np.max(np.sum(np.abs(r), axis=0))))
    if np.min(np.abs(z[:, None] - eig[None, :])) <= 1e-12 * scale:
        return None
    rhs = sum(np.exp(1j * omega * ci * h)[:, None] * (forcing @ wi.T)
              for ci, wi in zip(c, w, strict=True))
    mats = z[:, None, None] * np.eye(n)[None] - r[None]
    return np.linalg.solve(mats, rhs[..., None])[..., 0]


class LinearRungeKutta:
    """The map of an explicit Runge-Kutta scheme over communication steps of a simulator's
    linear model (module docstring). :meth:`build` gives ``None`` when the model has no
    discrete particular solution."""

    def __init__(self, scheme: ExplicitTableau, model: LinearModel, dt: float,
                 r: NDArray[np.float64], w: list[NDArray[np.float64]],
                 steady: SinusoidSegment) -> None:
        self.scheme = scheme
        self.model = model
        self.dt = float(dt)
        self.r = r
        self.w = w
        gc = np.concatenate([model.g, model.c[:, None]], axis=1)
        self.s = sum(w) @ gc
        self._u = np.zeros(gc.shape[1])
        self._u[-1] = 1.0
        self._t0 = math.nan
        self._stepper: LinearStepper | None = None
        self._steady = steady

    @classmethod
    def build(cls, scheme: ExplicitTableau, model: LinearModel, *, dt: float,
              bank: SinusoidBank) -> LinearRungeKutta | None:
        """The fused map for ``scheme`` (an explicit Runge-Kutta scheme, its tableau) on
        the linear ``model`` with internal steps ``dt`` (s; ``bank`` the simulator's
        sinusoids of ``model.omega``), or ``None`` when the model is not linear or a wave
        component has no discrete particular solution. Whether the model may be stepped so
        (the added mass, local time steps) is the simulator's decision."""
        if not model.linear:
            return None
        r, w = stage_maps(scheme.A, scheme.B, model.f, float(dt))
        amplitudes = discrete_particular(r, w, scheme.C, float(dt), model.omega,
                                         model.forcing)
        if amplitudes is None:
            return None
        steady = SinusoidSegment(t_start=-math.inf, t_end=math.inf, omega=model.omega,
                                 amplitudes=amplitudes, bank=bank, key="state")
        return cls(scheme, model, dt, r, w, steady)

    @property
    def stepper(self) -> LinearStepper | None:
        """The stepper of the current run (``None`` before the first interval, or when the
        ramp's components have no discrete particular solution)."""
        return self._stepper

    def _particular(self, omega: NDArray[np.float64], forcing: NDArray[np.complex128]
                    ) -> NDArray[np.complex128] | None:
        return discrete_particular(self.r, self.w, self.scheme.C, self.dt, omega, forcing)

    def _discretize(self, h: float) -> tuple[NDArray[np.float64], NDArray[np.float64], None]:
        m = round(h / self.dt)
        if m < 1 or abs(m * self.dt - h) > 1e-6 * self.dt:
            raise OffGrid(h)
        p, q = power_sum(self.r, self.s, m)
        return p, q, None

    def _stepper_for(self, t0: float) -> LinearStepper | None:
        """The stepper of a run started at ``t0`` (the ramp's segment depends on it);
        ``None`` when the ramp's components have no discrete particular solution."""
        if self._t0 == t0:
            return self._stepper
        model, steady = self.model, self._steady
        segments = [steady]
        steady.t_start = t0 + model.ramp_time
        if model.ramp_time > 0.0 and model.omega.size:
            w3, c3 = ramped_components(model.omega, model.forcing, t0, model.ramp_time)
            amplitudes = self._particular(w3, c3)
            segments = None if amplitudes is None else [SinusoidSegment(
                t_start=t0, t_end=t0 + model.ramp_time, omega=w3, amplitudes=amplitudes),
                steady]
        self._stepper = None if segments is None else LinearStepper(
            discretize=self._discretize, segments=segments, hold="constant")
        self._t0 = t0
        return self._stepper

    def advance(self, y: NDArray[np.float64], u: NDArray[np.float64], *, t0: float,
                time: float, grid_index: int, t_end: float, eps: float) -> Interval | None:
        """By the fused map when the interval from ``time`` to ``t_end`` (s) is a whole
        number of internal steps from grid time to grid time (within ``eps``, s), else
        ``None`` (:class:`~hydrofmu.runtime.schemes.base.IntervalStepper`)."""
        dt = self.dt
        grid = t0 + grid_index * dt
        m = round((t_end - grid) / dt)
        stepper = self._stepper_for(t0)
        if stepper is None or abs(time - grid) > eps or m < 1 \
                or abs(grid + m * dt - t_end) > eps:
            return None
        # From grid time to grid time, as the stagewise steps (the importer's times differ
        # by round-off, within the grid tolerance).
        end = t0 + (grid_index + m) * dt
        w = self._u
        w[:-1] = u
        try:
            y_new = stepper.step(grid, y, end - grid, w, t_end=end)
        except OffGrid:
            return None
        if not float(y_new @ y_new) <= DIVERGENCE_LIMIT**2:  # >= max|y|^2, false for NaN
            diverged(y_new, end, self.scheme.label, f"h = {dt:.3g} s; {ADVICE}")
        return Interval(y_new, end, grid_index + m)
