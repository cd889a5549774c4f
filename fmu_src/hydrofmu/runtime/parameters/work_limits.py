"""Work and memory estimates made before any work: a call too large is refused, not run.

This module is run time (bundled in the FMU): standard library only.

- :func:`step_refusal`: the arguments of one ``fmi2DoStep`` (finite, the FMU's time, a
  positive step) and the number of internal steps it would take against the
  ``max_internal_steps_per_call`` parameter.
- :func:`memory_estimate`: bytes the simulator allocates for a wave of ``n_components``
  components, computed from the parameters before anything is allocated.
"""

from __future__ import annotations

import math

#: Largest memory estimate (bytes) of a model's wave tables accepted at initialization.
MEMORY_LIMIT = 2 * 1024**3

#: Bytes per wave component and per DOF: the complex excitation coefficients (16 B), the
#: interpolation temporaries of the data (real and imaginary parts, 2 x 8 B) and the
#: per-evaluation cos/sin and product arrays (about 4 x 8 B) -- 64 B in all.
BYTES_PER_COMPONENT_DOF = 64
#: Bytes per wave component independent of the DOFs (frequency, amplitude, phase and the
#: spectrum evaluation, ~10 arrays of 8 B).
BYTES_PER_COMPONENT = 80


def internal_steps(step_size: float, max_internal_step: float) -> float:
    """Number of internal steps of one communication step (an upper bound).

    The simulator takes steps of at most ``max_internal_step`` on a grid anchored at the
    start time, so a communication step not aligned with the grid adds one partial step.

    Returns
    -------
    float
        ``ceil(step_size / max_internal_step) + 1`` (a float: it may exceed any integer;
        ``inf`` when the quotient overflows, e.g. a step of 1e308 s).
    """
    steps = step_size / max_internal_step
    return math.ceil(steps) + 1.0 if math.isfinite(steps) else math.inf


def step_refusal(
    current_time: float,
    step_size: float,
    *,
    fmu_time: float,
    max_internal_step: float,
    limit: int,
) -> str | None:
    """Why a ``fmi2DoStep(current_time, step_size)`` is refused before any work, or None.

    Parameters
    ----------
    current_time
        ``currentCommunicationPoint``, s: must be finite and equal to the FMU's time within
        1e-9 of the step (and 8 ulps of the time, for long runs).
    step_size
        ``communicationStepSize``, s: finite and > 0.
    fmu_time
        The FMU's time, s.
    max_internal_step
        The simulator's internal step, s (> 0).
    limit
        The ``max_internal_steps_per_call`` parameter.
    """
    if not math.isfinite(current_time):
        return (
            f"fmi2DoStep refused: currentCommunicationPoint = {current_time!r} is not a "
            f"finite time; the FMU is at t = {fmu_time!r} s"
        )
    if not (math.isfinite(step_size) and step_size > 0.0):
        return (
            f"fmi2DoStep refused: communicationStepSize = {step_size!r} must be a finite "
            "number > 0 s"
        )
    tolerance = max(1e-9 * step_size, 8.0 * math.ulp(abs(fmu_time)))
    if abs(current_time - fmu_time) > tolerance:
        return (
            f"fmi2DoStep refused: currentCommunicationPoint = {current_time!r} s but the FMU "
            f"is at t = {fmu_time!r} s (steps must follow each other; use "
            "fmi2SetFMUstate to go back)"
        )
    n = internal_steps(step_size, max_internal_step)
    if n > limit:
        return (
            f"fmi2DoStep refused before any work: a step of {step_size!r} s takes {n:.3g} "
            f"internal steps of {max_internal_step!r} s, above the limit "
            f"max_internal_steps_per_call = {limit}; take shorter communication steps or "
            "raise the parameter max_internal_steps_per_call (or [simulation] "
            "max_internal_steps_per_call in the configuration)"
        )
    return None


def memory_estimate(n_components: int, n_dof: int) -> float:
    """Bytes the wave tables of ``n_components`` components and ``n_dof`` DOFs take.

    Parameters
    ----------
    n_components
        Number of regular wave components.
    n_dof
        Number of DOFs of the system (6 per body).

    Returns
    -------
    float
        The estimate, bytes (a float: it may exceed any integer).
    """
    return float(n_components) * (BYTES_PER_COMPONENT_DOF * n_dof + BYTES_PER_COMPONENT)
