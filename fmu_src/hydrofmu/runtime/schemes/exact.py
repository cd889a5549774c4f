"""``exact``: the linear model stepped by its exact discretisation.

When every part of the model declares a linear form (state-space radiation, hydrostatics,
linear damping, linear moorings, linear PTOs, the PTO inputs, joints, the internal wave's
excitation), the simulator's state ``y = [q_r, v_r, x...]`` obeys the linear
time-invariant system assembled by :mod:`hydrofmu.runtime.linear.model`::

    y' = F y + G u + c + E w(t),   w(t) = ramp(t - t0) Re(sum_k c_k e^{i w_k t})

and a communication step from ``t`` to ``t + h``, of any length, is
(:mod:`hydrofmu.runtime.linear.lti`)::

    y(t + h) = y_p(t + h) + e^{F h} (y(t) - y_p(t)) + Gamma_0 [u; 1]

with ``Gamma_0 = int_0^h e^{F s} ds [G, c]`` and ``y_p`` the particular solution of the
sinusoids (the half-cosine ramp is itself a sum of three sinusoids per component on the
ramp interval, :func:`~hydrofmu.runtime.linear.lti.ramped_components`; the step is split where the
ramp ends). No truncation error: the result is the same whatever the communication step, to
round-off, and there are no internal steps (``max_internal_step`` is not used by it).

Inputs are held constant over the communication step (zero-order hold): FMI 2.0
co-simulation without ``canInterpolateInputs`` gives the slave one value per input per
step, and it is the same input the other schemes hold over their internal steps, so the
exact scheme and a converged Runge-Kutta run of the same FMU agree. A first-order hold
would need input derivatives (``fmi2SetRealInputDerivatives``) that the FMU does not
declare.

The discretisation ``(e^{F h}, Gamma_0)`` is computed once per step length (one matrix
exponential of size ``N + 2 (m + 1)``) and cached; the particular solutions at
initialisation (one complex solve per component). Per step: one mat-vec of size N, the
sinusoids' phasors at the step's end (k complex exponentials and a k x N product).

A model with a nonlinear part, a convolution radiation, the elevation-input wave or an
added mass off the left side is refused when the simulator is built (a
:class:`~hydrofmu.runtime.errors.ConfigError` naming each part and its fix; inside the FMU at
``fmi2ExitInitializationMode``).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, IntegrationError
from ..linear.lti import particular_solution, ramped_components
from ..linear.model import LinearModel, refuse_nonlinear
from ..linear.stepper import ExactStepper, SinusoidBank, SinusoidSegment
from .base import DIVERGENCE_LIMIT, Interval, SteppedSystem, TimeScheme, diverged

#: Why a linear model stepped exactly diverges, and what to check.
DIVERGENCE_ADVICE = ("either the model is unstable (its system matrix has an eigenvalue "
                     "with a positive real part) or, over a long step, a DOF without a "
                     "restoring force drifts this far; check the mass, stiffness and damping "
                     "data, or take shorter communication steps")


def segments(model: LinearModel, t0: float, bank: SinusoidBank | None = None
             ) -> list[SinusoidSegment]:
    """The particular solutions of the forcing from the start of the run ``t0`` (s): on the
    ramp interval and after it (one segment when there is no ramp or no forcing). The one
    after the ramp is evaluated in ``bank`` (the simulator's, of ``model.omega``) if given."""
    f = model.f
    eye = np.eye(f.shape[0])
    if model.omega.size == 0:
        return [SinusoidSegment(t_start=t0, t_end=math.inf, omega=np.zeros(0),
                                amplitudes=np.zeros((0, f.shape[0]), dtype=complex))]
    steady = particular_solution(f, eye, model.omega, model.forcing)
    after = SinusoidSegment(t_start=t0 + model.ramp_time, t_end=math.inf, omega=model.omega,
                            amplitudes=steady, bank=bank, key="state")
    if model.ramp_time <= 0.0:
        return [after]
    w, c = ramped_components(model.omega, model.forcing, t0, model.ramp_time)
    try:
        amplitudes = particular_solution(f, eye, w, c)
    except ConfigError as exc:
        raise ConfigError(
            f"{exc}. On the ramp the half-cosine of wave.ramp_time = {model.ramp_time:g} s "
            f"shifts every wave frequency by +-pi/ramp_time = {math.pi / model.ramp_time:.6g} "
            "rad/s, here onto a mode of the model (e.g. 0 rad/s: a DOF without restoring "
            "force); choose a slightly different wave.ramp_time", value=model.ramp_time,
        ) from None
    ramped = SinusoidSegment(t_start=t0, t_end=t0 + model.ramp_time, omega=w,
                             amplitudes=amplitudes)
    return [ramped, after]


class Exact(TimeScheme):
    """``exact``: it integrates no ``f``; :meth:`bind` makes the exact discretisation of the
    system's linear model (:class:`ExactInterval`), and :meth:`advance` steps by it."""

    name: ClassVar[str] = "exact"
    #: No truncation error; ``order`` is not a convergence order here.
    order: ClassVar[int] = 0
    one_step: ClassVar[bool] = True

    def bind(self, model: LinearModel, *, dt: float, bank: SinusoidBank, t0: float,
             added_mass_method: str, local_steps: bool) -> None:
        """The exact discretisation of ``model`` (arguments:
        :meth:`~hydrofmu.runtime.schemes.base.TimeScheme.bind`; ``local_steps`` is not
        used: the linear model has no part with its own step).

        Raises
        ------
        ConfigError
            A model it cannot step (a nonlinear part, an added mass off the left side, a
            wave on an undamped mode), naming the parts and the fixes.
        """
        self.interval_map = ExactInterval(model, dt=dt, bank=bank, t0=t0,
                                          added_mass_method=added_mass_method)

    def advance(self, system: SteppedSystem, t_end: float) -> None:
        """One exact step of ``system`` to ``t_end`` (s), committed in it.

        Raises
        ------
        IntegrationError
            The state diverges (the system unchanged), or no linear model was bound
            (``TimeScheme.interval_map`` is ``None``).
        """
        if not self.advance_by_map(system, t_end):
            raise IntegrationError(
                "time scheme 'exact' steps a bound linear model over whole communication "
                "steps (Exact.bind), and none is bound", value=system.time)


class ExactInterval:
    """The exact discretisation of a linear model over whole communication steps (module
    docstring): an interval stepper (:class:`~hydrofmu.runtime.schemes.base.IntervalStepper`).

    Parameters
    ----------
    model
        The simulator's linear model; :class:`ConfigError` if it is not linear (naming the
        parts and the fixes) or if a wave component resonates with an undamped mode (the
        particular solutions are computed here, from ``t0``).
    dt
        The simulator's history grid step, s (the grid follows the time).
    bank
        The simulator's sinusoids of ``model.omega``.
    t0
        Start of the run, s.
    added_mass_method
        ``added_mass.method``: anything but ``implicit`` is refused.
    """

    def __init__(self, model: LinearModel, *, dt: float, bank: SinusoidBank, t0: float,
                 added_mass_method: str) -> None:
        refuse_nonlinear(model, Exact.name, added_mass_method)
        self._model = model
        self._dt = float(dt)
        self._bank = bank
        self._stepper: ExactStepper | None = None
        self._t0 = math.nan
        self._stepper_for(t0)  # particular solutions now: a resonance is refused here

    def _stepper_for(self, t0: float) -> ExactStepper:
        if self._stepper is None or self._t0 != t0:
            m = self._model
            g = np.concatenate([m.g, m.c[:, None]], axis=1)
            self._stepper = ExactStepper(f=m.f, g_u=g, segments=segments(m, t0, self._bank),
                                         hold="constant")
            self._t0 = t0
            self._u = np.zeros(g.shape[1])
            self._u[-1] = 1.0
        return self._stepper

    def advance(self, y: NDArray[np.float64], u: NDArray[np.float64], *, t0: float,
                time: float, grid_index: int, t_end: float, eps: float) -> Interval:
        """From ``(time, y)`` to ``t_end`` (s) in one exact step with the inputs ``u`` held;
        :class:`IntegrationError` if the state diverges. The history grid is kept behind
        the time, as the internal steps would (no part of a linear model keeps grid memory;
        the outputs' context reads it)."""
        stepper = self._stepper_for(t0)
        w = self._u
        w[:-1] = u
        y_new = stepper.step(time, y, t_end - time, w, t_end=t_end)
        if not float(y_new @ y_new) <= DIVERGENCE_LIMIT**2:  # >= max|y|^2, false for NaN
            diverged(y_new, t_end, Exact.name, DIVERGENCE_ADVICE)
        return Interval(y_new, t_end,
                        max(grid_index, math.floor((t_end - t0) / self._dt + 1e-9)))
