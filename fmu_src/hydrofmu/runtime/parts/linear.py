"""The linear declarations a part may make (:mod:`hydrofmu.runtime.parts.part`): its force and
states (:class:`LinearSystem`), its force terms that are ramped sinusoids of time
(:class:`SinusoidalForcing`) and its extra outputs (:class:`LinearOutputs`). The simulator
assembles them into the linear model (:mod:`hydrofmu.runtime.linear.model`) and its output map
(:mod:`hydrofmu.runtime.simulator.outputs`).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass
class LinearSystem:
    """A part's force and state derivative as linear maps (all SI; ``None`` is zero)::

        force = f0 + force_q q + force_v v + force_x x + force_u u      shape (n,)
        x'    =      state_q q + state_v v + state_x x + state_u u      shape (n_states,)

    with ``q``, ``v`` every body DOF (n,), ``x`` the part's own states (n_states,) and ``u``
    its own inputs (the :attr:`Part.input_slice` of the FMU input vector, m values). A
    part's force is this plus its :meth:`Part.sinusoidal_forcing`, exactly.

    Attributes
    ----------
    f0
        Constant force, shape (n,), N and N m.
    force_q, force_v, force_x, force_u
        Shapes (n, n), (n, n), (n, n_states), (n, m).
    state_q, state_v, state_x, state_u
        Shapes (n_states, n), (n_states, n), (n_states, n_states), (n_states, m).
    """

    f0: NDArray[np.float64] | None = None
    force_q: NDArray[np.float64] | None = None
    force_v: NDArray[np.float64] | None = None
    force_x: NDArray[np.float64] | None = None
    force_u: NDArray[np.float64] | None = None
    state_q: NDArray[np.float64] | None = None
    state_v: NDArray[np.float64] | None = None
    state_x: NDArray[np.float64] | None = None
    state_u: NDArray[np.float64] | None = None


@dataclass
class SinusoidalForcing:
    """A force that is a ramped sum of sinusoids of time (the internal wave's excitation)::

        F(t) = ramp(t - t0) Re(sum_k c_k e^{i w_k t}),  ramp(s) = (1 - cos(pi s / T)) / 2
                                                         for 0 <= s < T, else 1

    with ``t0`` the start of the run (:attr:`Context.t0`).

    Attributes
    ----------
    omega
        Frequencies ``w_k``, shape (k,), rad/s.
    coefficients
        ``c_k``, shape (k, n), complex, N and N m.
    ramp_time
        ``T``, s; 0 for no ramp.
    """

    omega: NDArray[np.float64]
    coefficients: NDArray[np.complex128]
    ramp_time: float = 0.0


def ramp_factor(s: float, ramp_time: float) -> float:
    """The half-cosine ramp of :class:`SinusoidalForcing` at ``s`` seconds after the start
    of the run: 0 before it, ``(1 - cos(pi s / T)) / 2`` up to ``T = ramp_time``, 1 after
    (1 everywhere when ``ramp_time <= 0``). Scalar, for the evaluation of a step."""
    if ramp_time <= 0.0 or s >= ramp_time:
        return 1.0
    if s <= 0.0:
        return 0.0
    return 0.5 * (1.0 - math.cos(math.pi * s / ramp_time))


@dataclass
class LinearOutputs:
    """A part's extra outputs (:meth:`Part.outputs`) as linear maps (``None`` is zero)::

        outputs = y0 + out_q q + out_v v + out_x x + out_u u
                  + ramp(t - t0) Re(sum_k d_k e^{i w_k t})

    with ``q``, ``v``, ``x``, ``u`` as in :class:`LinearSystem` and ``w_k``, the ramp those of
    the part's own :meth:`Part.sinusoidal_forcing`.

    Attributes
    ----------
    y0
        Constant, shape (p,) for the part's p outputs.
    out_q, out_v, out_x, out_u
        Shapes (p, n), (p, n), (p, n_states), (p, m).
    sinusoids
        ``d_k``, shape (k, p), complex.
    """

    y0: NDArray[np.float64] | None = None
    out_q: NDArray[np.float64] | None = None
    out_v: NDArray[np.float64] | None = None
    out_x: NDArray[np.float64] | None = None
    out_u: NDArray[np.float64] | None = None
    sinusoids: NDArray[np.complex128] | None = None
