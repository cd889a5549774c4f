"""Which interval stepper of the linear model steps the simulator's communication steps.

The simulator's decision, from its linear model and the scheme the user named (the schemes
themselves only integrate ``f``, ``schemes/base.py``):

- ``exact``: the exact discretisation (``schemes/exact.py``), always; a model it cannot
  step (a nonlinear part, an added mass off the left side, a wave on an undamped mode) is
  refused here, with the parts and the fixes;
- an explicit Runge-Kutta scheme on a linear model with all the added mass on the left side
  and no local time step: the scheme's own linear map (``schemes/linear_rk.py``), equal to
  its stagewise steps to round-off;
- otherwise none: the simulator's internal steps with the scheme.

An interval the stepper does not take (``advance`` returns ``None``: off the internal-step
grid) is stepped stagewise by the simulator.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from ..linear.model import LinearModel
from ..linear.stepper import SinusoidBank
from ..schemes.base import IntervalStepper, TimeScheme
from ..schemes.exact import Exact, ExactInterval
from ..schemes.linear_rk import LinearRungeKutta
from ..schemes.runge_kutta import ExplicitRungeKutta


def interval_stepper(scheme: TimeScheme, model: LinearModel, *, dt: float,
                     bank: SinusoidBank, t0: float, added_mass_method: str,
                     local_steps: bool) -> IntervalStepper | None:
    """The interval stepper of the simulator (module docstring), or ``None``.

    Parameters
    ----------
    scheme
        The simulator's time scheme.
    model
        Its linear model.
    dt
        ``max_internal_step``, s.
    bank
        The simulator's sinusoids of ``model.omega``.
    t0
        Start of the run, s.
    added_mass_method
        ``added_mass.method``.
    local_steps
        A local-time-step partition runs.

    Raises
    ------
    ConfigError
        ``exact`` on a model it cannot step.
    """
    if isinstance(scheme, Exact):
        return ExactInterval(model, dt=dt, bank=bank, t0=t0,
                             added_mass_method=added_mass_method)
    if isinstance(scheme, ExplicitRungeKutta) and added_mass_method == "implicit" \
            and not local_steps:
        return LinearRungeKutta.build(scheme, model, dt=dt, bank=bank)
    return None
