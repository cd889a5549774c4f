"""The model's linear part assembled from the parts' declarations, in reduced coordinates.

With the state vector of the simulator, ``y = [q_r, v_r, x_1, x_2, ...]`` (``q = T q_r``,
``x_k`` the states of part k), every part that declares a
:class:`~hydrofmu.runtime.parts.linear.LinearSystem` contributes to::

    y' = F y + G u + c + E w(t)

- ``q_r' = v_r``;
- ``v_r' = L_r^-1 T^T (sum of the forces)`` (the left side ``L = M + A_inf + ...`` as the
  simulator factorised it, constraints and joints included);
- ``x_k'`` = the part's own state equation;

``u`` the FMU inputs (held over a step), ``c`` the constant forces (imbalance, pretension)
and ``w(t) = ramp(t - t0) Re(sum_k c_k e^{i w_k t})`` the parts' sinusoidal forcing (the
internal wave's excitation), lifted by ``E`` (the ``v_r`` rows: ``L_r^-1 T^T``).

No force is named here: a part without a linear form makes the model nonlinear
(:attr:`LinearModel.nonlinear` lists why, from
:meth:`~hydrofmu.runtime.parts.part.Part.why_not_linear`).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError


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
    channel_force
        The linear parts' forces summed per output channel (``None``: parts reported in
        no channel), each as a map of ``z = [y, u, 1]``, shape (n, N + m + 1).
    channel_sines
        The same channels' sinusoidal forces, complex amplitudes at :attr:`omega`, shape
        (n, k) each (``Re(S e^{i w t})`` times the ramp).
    sine_columns
        The columns of :attr:`omega` each part's
        :meth:`~hydrofmu.runtime.parts.part.Part.sinusoidal_forcing`
        occupies, by the part's index in the simulator's parts.
    """

    f: NDArray[np.float64]
    g: NDArray[np.float64]
    c: NDArray[np.float64]
    omega: NDArray[np.float64]
    forcing: NDArray[np.complex128]
    ramp_time: float = 0.0
    nonlinear: list[str] = field(default_factory=list)
    channel_force: dict[str | None, NDArray[np.float64]] = field(default_factory=dict)
    channel_sines: dict[str | None, NDArray[np.complex128]] = field(default_factory=dict)
    sine_columns: dict[int, slice] = field(default_factory=dict)

    @property
    def linear(self) -> bool:
        """Every part declared a linear form."""
        return not self.nonlinear


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


def assemble(asm: Any) -> LinearModel:
    """The linear part of a model assembled by the simulator
    (:class:`~hydrofmu.runtime.simulator.assembly.Assembly`).

    Uses its parts (their slices), ``constraints.basis`` (T), ``acc_map``
    (``L_r^-1 T^T``), ``nr``, ``n``, the input count and the state size.
    """
    n, nr = asm.n, asm.nr
    big_n = asm.n_states
    m = asm.n_inputs
    nz = big_n + m + 1
    basis = asm.constraints.basis
    acc = asm.acc_map  # (nr, n): the reduced acceleration of a full force
    # Each channel's force as a linear map of z = [y, u, 1] (+ sinusoids).
    channel_force: dict[str | None, NDArray[np.float64]] = {}
    f = np.zeros((big_n, big_n))
    g = np.zeros((big_n, m))
    q_cols, v_cols = slice(0, nr), slice(nr, 2 * nr)
    u_cols = slice(big_n, big_n + m)
    omegas: list[NDArray[np.float64]] = []
    sines: list[tuple[str | None, NDArray[np.complex128]]] = []
    sine_columns: dict[int, slice] = {}
    ramps: set[float] = set()
    nonlinear: list[str] = []
    k_total = 0
    for index, part in enumerate(asm.parts):
        lin = part.linear_system()
        if lin is None:
            nonlinear.append(part.why_not_linear())
            continue
        xs, us = part.state_slice, part.input_slice
        pf = channel_force.setdefault(part.channel, np.zeros((n, nz)))
        _add(pf, slice(None), q_cols, lin.force_q, basis)
        _add(pf, slice(None), v_cols, lin.force_v, basis)
        _add(pf, slice(None), xs, lin.force_x)
        _add(pf, slice(None), slice(big_n + us.start, big_n + us.stop), lin.force_u)
        _add(pf, slice(None), nz - 1, lin.f0)
        _add(f, xs, q_cols, lin.state_q, basis)
        _add(f, xs, v_cols, lin.state_v, basis)
        _add(f, xs, xs, lin.state_x)
        _add(g, xs, us, lin.state_u)
        sine = part.sinusoidal_forcing()
        if sine is not None and np.asarray(sine.omega).size:
            w = np.asarray(sine.omega, dtype=float).reshape(-1)
            omegas.append(w)
            sines.append((part.channel,
                          np.asarray(sine.coefficients, dtype=complex).reshape(-1, n)))
            sine_columns[index] = slice(k_total, k_total + w.size)
            k_total += w.size
            ramps.add(float(sine.ramp_time))
    if len(ramps) > 1:
        raise ConfigError(f"the parts' sinusoidal forcings have different ramp times "
                          f"{sorted(ramps)} s; one ramp is supported", value=sorted(ramps))
    channel_sines = {ch: np.zeros((n, k_total), dtype=complex) for ch in channel_force}
    for (ch, coef), cols in zip(sines, sine_columns.values(), strict=True):
        channel_sines[ch][:, cols] += coef.T
    total = sum(channel_force.values(), np.zeros((n, nz)))
    total_sines = sum(channel_sines.values(), np.zeros((n, k_total), dtype=complex))
    f[q_cols, v_cols] += np.eye(nr)
    f[v_cols] += acc @ total[:, :big_n]
    g[v_cols] += acc @ total[:, u_cols]
    c = np.zeros(big_n)
    c[v_cols] = acc @ total[:, -1]
    omega = np.concatenate(omegas) if omegas else np.zeros(0)
    forcing = np.zeros((omega.size, big_n), dtype=complex)
    forcing[:, v_cols] = (acc @ total_sines).T
    return LinearModel(f=f, g=g, c=c, omega=omega, forcing=forcing,
                       ramp_time=ramps.pop() if ramps else 0.0, nonlinear=nonlinear,
                       channel_force=channel_force, channel_sines=channel_sines,
                       sine_columns=sine_columns)


def refuse_nonlinear(model: LinearModel, scheme: str, method: str) -> None:
    """A :class:`ConfigError` when ``scheme`` needs a linear model and ``model`` is not,
    or when the added mass is not all on the left side (``method``, the
    ``added_mass.method``); naming the parts and the fixes."""
    reasons = list(model.nonlinear)
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
