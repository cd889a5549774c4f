"""The model's linear part assembled from the parts' declarations, in reduced coordinates.

With the state vector of the simulator, ``y = [q_r, v_r, x_1, x_2, ...]`` (``q = T q_r``,
``x_k`` the states of part k), every part that declares a
:class:`~hydrofmu.parts.LinearSystem` contributes to::

    y' = F y + G u + c + E w(t)

- ``q_r' = v_r``;
- ``v_r' = L_r^-1 T^T (sum of the forces)`` (the left side ``L = M + A_inf + ...`` as the
  simulator factorised it, constraints and joints included);
- ``x_k' = `` the part's own state equation;

``u`` the FMU inputs (held over a step), ``c`` the constant forces (imbalance, pretension)
and ``w(t) = ramp(t - t0) Re(sum_k c_k e^{i w_k t})`` the parts' sinusoidal forcing (the
internal wave's excitation), lifted by ``E`` (the ``v_r`` rows: ``L_r^-1 T^T``).

No force is named here: a part without a linear form makes the model nonlinear
(:attr:`LinearModel.nonlinear` lists why, from :meth:`~hydrofmu.parts.Part.why_not_linear`).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .errors import ConfigError


@dataclass
class LinearModel:
    """``y' = F y + G u + c + E w(t)`` of a simulator (see the module docstring).

    Attributes
    ----------
    f
        System matrix, shape (N, N), N = len(y), 1/s.
    g
        Input matrix, shape (N, m), m the number of FMU inputs.
    c
        Constant term, shape (N,).
    omega
        Frequencies of the sinusoidal forcing, shape (k,), rad/s.
    forcing
        Its complex amplitudes in state space, ``E c_k``, shape (k, N).
    ramp_time
        Half-cosine ramp of the sinusoidal forcing from the run's start, s (0: none).
    nonlinear
        One line per part without a linear form (why, and the fix); empty when the whole
        model is linear. Those parts are left out of ``F``, ``G``, ``c``.
    """

    f: NDArray[np.float64]
    g: NDArray[np.float64]
    c: NDArray[np.float64]
    omega: NDArray[np.float64]
    forcing: NDArray[np.complex128]
    ramp_time: float = 0.0
    nonlinear: list[str] = field(default_factory=list)


def _add(target: NDArray[Any], rows: slice, cols: slice | None, value: Any,
         right: NDArray[np.float64] | None = None) -> None:
    """``target[rows, cols] += value @ right`` when ``value`` is given."""
    if value is None:
        return
    m = np.asarray(value, dtype=float)
    if right is not None:
        m = m @ right
    if cols is None:
        target[rows] += m
    else:
        target[rows, cols] += m


def assemble(sim: Any) -> LinearModel:
    """The linear part of a :class:`~hydrofmu.system.Simulator` (built, any state).

    Uses the simulator's parts (their slices), ``constraints.basis`` (T), ``_acc_map``
    (``L_r^-1 T^T``), ``nr``, ``n``, the input count and the state size.
    """
    n, nr = sim.n, sim.nr
    big_n = sim.y.size
    m = sim.u.size
    basis = sim.constraints.basis
    acc = sim._acc_map  # (nr, n): the reduced acceleration of a full force
    # The force as a linear map of y and u: force = pf @ y + hf @ u + f0 (+ sinusoids).
    pf = np.zeros((n, big_n))
    hf = np.zeros((n, m))
    f0 = np.zeros(n)
    f = np.zeros((big_n, big_n))
    g = np.zeros((big_n, m))
    q_cols, v_cols = slice(0, nr), slice(nr, 2 * nr)
    omegas: list[NDArray[np.float64]] = []
    coefs: list[NDArray[np.complex128]] = []
    ramps: set[float] = set()
    nonlinear: list[str] = []
    for part in sim.parts:
        lin = part.linear_system()
        if lin is None:
            nonlinear.append(part.why_not_linear())
            continue
        xs, us = part.state_slice, part.input_slice
        _add(pf, slice(None), q_cols, lin.force_q, basis)
        _add(pf, slice(None), v_cols, lin.force_v, basis)
        _add(pf, slice(None), xs, lin.force_x)
        _add(hf, slice(None), us, lin.force_u)
        _add(f0, slice(None), None, lin.f0)
        _add(f, xs, q_cols, lin.state_q, basis)
        _add(f, xs, v_cols, lin.state_v, basis)
        _add(f, xs, xs, lin.state_x)
        _add(g, xs, us, lin.state_u)
        sine = part.sinusoidal_forcing()
        if sine is not None and np.asarray(sine.omega).size:
            omegas.append(np.asarray(sine.omega, dtype=float).reshape(-1))
            coefs.append(np.asarray(sine.coefficients, dtype=complex).reshape(-1, n))
            ramps.add(float(sine.ramp_time))
    if len(ramps) > 1:
        raise ConfigError(f"the parts' sinusoidal forcings have different ramp times "
                          f"{sorted(ramps)} s; one ramp is supported", value=sorted(ramps))
    f[q_cols, v_cols] += np.eye(nr)
    f[v_cols] += acc @ pf
    g[v_cols] += acc @ hf
    c = np.zeros(big_n)
    c[v_cols] = acc @ f0
    omega = np.concatenate(omegas) if omegas else np.zeros(0)
    force_c = np.concatenate(coefs) if coefs else np.zeros((0, n), dtype=complex)
    forcing = np.zeros((omega.size, big_n), dtype=complex)
    forcing[:, v_cols] = force_c @ acc.T
    return LinearModel(f=f, g=g, c=c, omega=omega, forcing=forcing,
                       ramp_time=ramps.pop() if ramps else 0.0, nonlinear=nonlinear)


def refuse_nonlinear(model: LinearModel, scheme: str, sim: Any) -> None:
    """A :class:`ConfigError` when ``scheme`` needs a linear model and ``model`` is not,
    or when the added mass is not all on the left side; naming the parts and the fixes."""
    reasons = list(model.nonlinear)
    method = getattr(sim, "added_mass_method", "implicit")
    if method != "implicit":
        reasons.append(f"added_mass.method = {method} moves part of the added mass to the "
                       "previous step's acceleration (a scheme-dependent delay): use "
                       "added_mass.method = implicit")
    if reasons:
        raise ConfigError(
            f"time_scheme = '{scheme}' steps the linear model exactly and this model is not "
            f"linear: {'; '.join(reasons)}. Otherwise choose time_scheme = 'etdrk4' (linear "
            "part exact, the rest by Runge-Kutta stages) or 'rk4'",
            value=scheme,
        )
