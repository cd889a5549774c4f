"""The simulator's right-hand side ``y' = f(t, y)``: the sum over the parts, or its assembled
linear form when every part declares itself linear.

The state is ``y = [q_r, v_r, x_1, x_2...]`` (reduced coordinates ``q = T q_r``, then every
stateful part's states). The general form (:func:`part_sum_rhs`) asks each part for its
force and derivative at every stage. When every active part is linear (its force is
``f0 - K q - C v``, :meth:`~hydrofmu.runtime.parts.part.Part.linear_matrices`; or its states and
force are ``x' = A x + B v``, ``F = F_x x + F_v v``, :func:`state_matrices` from
:meth:`~hydrofmu.runtime.parts.part.Part.linear_system`)
or a pure forcing (:attr:`~hydrofmu.runtime.parts.part.Part.forcing`: its force depends on time, the
inputs and its memory only), the same right-hand side is

    y' = J y + E g(t),    g(t) = f0 + sum of the forcing parts' forces - lagged added mass,

with ``J`` assembled once (:class:`LinearForm`): one matrix-vector product per stage instead
of a Python loop over the parts. Both give the same derivative to round-off (the sums are
associated differently). Both are
:class:`~hydrofmu.runtime.schemes.right_hand_side.RightHandSide` objects
(:class:`PartSumRHS`, :class:`LinearFormRHS`), the type every scheme integrates.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from ..parts.part import Context, Part
from ..schemes.right_hand_side import RightHandSide


def state_matrices(part: Part, n: int) -> tuple[NDArray[np.float64], ...] | None:
    """``(A, B, F_x, F_v)`` of a part with states whose
    :meth:`~hydrofmu.runtime.parts.part.Part.linear_system`
    is exactly ``x' = A x + B v``, ``F = F_x x + F_v v``: shapes (ns, ns), (ns, n), (n, ns),
    (n, n) for ``n`` body DOFs. ``None`` when the part is not linear, or when its form also
    has q, input or constant terms (such a part stays with the part sum)."""
    lin = part.linear_system()
    if lin is None:
        return None
    for extra in (lin.f0, lin.force_q, lin.force_u, lin.state_q, lin.state_u):
        if extra is not None and np.any(extra):
            return None
    ns = part.n_states

    def dense(m: NDArray[np.float64] | None, shape: tuple[int, int]) -> NDArray[np.float64]:
        return np.zeros(shape) if m is None else np.asarray(m, dtype=float).reshape(shape)

    return (dense(lin.state_x, (ns, ns)), dense(lin.state_v, (ns, n)),
            dense(lin.force_x, (n, ns)), dense(lin.force_v, (n, n)))

#: Largest ``J`` (entries) multiplied as a dense matrix. OpenBLAS runs a mat-vec of more
#: than 2304 x 4 = 9216 entries on several threads, whose spinning between the many small
#: numpy calls of a step costs ~8x on a shared 2-core machine (measured: four spheres with
#: state-space radiation, 268 states, 15.8 ms vs 2.0 ms per 0.1 s step); a larger ``J``
#: (several bodies with state-space radiation: sparse) is applied from its nonzeros.
DENSE_LIMIT = 9216


def stage_context(ctx: Context, t: float, t_grid: float, y: NDArray[np.float64],
                  expand: Callable) -> None:
    """Fill ``ctx`` for a stage at time ``t`` (s) with state ``y``."""
    ctx.t = t
    ctx.s = t - t_grid
    ctx.q, ctx.v = expand(y)
    ctx.y = y


def force_sum(forces: Sequence[Callable], ctx: Context) -> NDArray[np.float64] | None:
    """Sum of the forces ``force(ctx)`` that are not ``None`` (a new array), or ``None``."""
    total = None
    for force in forces:
        f = force(ctx)
        if f is not None:
            if total is None:
                total = f.copy()
            else:
                total += f
    return total


class PartSumRHS(RightHandSide):
    """The right-hand side by summing the parts' forces at every stage
    (:func:`part_sum_rhs` builds it; the attributes are its parameters)."""

    def __init__(self, ctx: Context, expand: Callable, forces: Sequence[Callable],
                 stateful: Sequence[Part], acc_map: NDArray[np.float64], nr: int,
                 t_grid: float, lag: NDArray[np.float64] | None) -> None:
        self.ctx, self.expand, self.forces, self.stateful = ctx, expand, forces, stateful
        self.acc_map, self.nr, self.t_grid, self.lag = acc_map, nr, t_grid, lag

    def __call__(self, t: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        ctx, acc_map, nr, lag = self.ctx, self.acc_map, self.nr, self.lag
        stage_context(ctx, t, self.t_grid, y, self.expand)
        total = force_sum(self.forces, ctx)
        if total is None:
            total = np.zeros(acc_map.shape[1])
        if lag is not None:
            total -= lag
        out = np.empty_like(y)
        out[:nr] = y[nr : 2 * nr]
        out[nr : 2 * nr] = acc_map @ total
        for part in self.stateful:
            out[part.state_slice] = part.derivative(ctx)
        return out


def part_sum_rhs(ctx: Context, expand: Callable, forces: Sequence[Callable],
                 stateful: Sequence[Part], acc_map: NDArray[np.float64], nr: int,
                 t_grid: float, lag: NDArray[np.float64] | None) -> PartSumRHS:
    """The right-hand side by summing the parts' forces at every stage.

    Parameters
    ----------
    ctx
        The shared context, with ``t0``, ``sn``, ``vn`` and ``u`` already set for the step.
    expand
        ``y -> (q, v)``, full coordinates from the state, shape (n,) each.
    forces
        The active parts' ``force`` methods, in summation order.
    stateful
        The parts with states (their ``state_slice`` in ``y``).
    acc_map
        ``L_r^-1 T^T``, force sum -> reduced accelerations, shape (nr, n).
    nr
        Number of reduced coordinates.
    t_grid
        Time of the newest history sample, s.
    lag
        The lagged added-mass force ``A_lag q''_prev``, shape (n,), or ``None``.
    """
    return PartSumRHS(ctx, expand, forces, stateful, acc_map, nr, t_grid, lag)


class LinearForm:
    """``y' = J y + E g(t)`` assembled from linear parts (see the module docstring).

    Attributes
    ----------
    jacobian
        ``J``, shape (ny, ny), 1/s and 1/s^2.
    acc_map
        ``E`` restricted to its nonzero rows: ``L_r^-1 T^T``, shape (nr, n), 1/kg...
    f0
        Constant force of the linear parts (pretension, static imbalance), shape (n,), N.
    forcing
        The forcing parts' ``force`` methods.
    others
        The ``force`` methods of the parts without states that are neither linear nor a
        forcing (the convolution, quadratic drag, a catenary mooring), evaluated at every
        stage on top of the linear form (``()``: the model is linear, :attr:`linear`).
    """

    def __init__(self, *, jacobian: NDArray[np.float64], acc_map: NDArray[np.float64],
                 f0: NDArray[np.float64], forcing: Sequence[Callable], nr: int,
                 others: Sequence[Callable] = ()) -> None:
        self.jacobian = np.ascontiguousarray(jacobian, dtype=float)
        self.acc_map = np.ascontiguousarray(acc_map, dtype=float)
        self.f0 = np.asarray(f0, dtype=float)
        self.forcing = tuple(forcing)
        self.others = tuple(others)
        self.nr = int(nr)
        rows, cols = np.nonzero(self.jacobian)
        self._sparse = self.jacobian.size > DENSE_LIMIT
        self._rows, self._cols = rows, cols
        self._vals = self.jacobian[rows, cols]

    def apply(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """``J y``, shape (ny,): dense below :data:`DENSE_LIMIT` entries, else from the
        nonzeros (same products, summed in another order)."""
        if not self._sparse:
            return self.jacobian @ y
        return np.bincount(self._rows, weights=self._vals * y[self._cols],
                           minlength=y.size)

    @property
    def linear(self) -> bool:
        """Every part is linear or a forcing: ``y' = J y + E g(t)`` exactly."""
        return not self.others

    @classmethod
    def assemble(cls, parts: Sequence[Part], basis: NDArray[np.float64],
                 acc_map: NDArray[np.float64], ny: int) -> LinearForm | None:
        """The linear form of a model, or ``None`` if a part with states is not linear
        (a part without states that is not linear goes to :attr:`others`).

        Parameters
        ----------
        parts
            The model's parts (their ``state_slice`` already in ``y``).
        basis
            Constraint basis ``T``, shape (n, nr).
        acc_map
            ``L_r^-1 T^T``, shape (nr, n).
        ny
            Length of the state vector.
        """
        n, nr = basis.shape
        k_tot = np.zeros((n, n))
        c_tot = np.zeros((n, n))
        f0 = np.zeros(n)
        forcing: list[Callable] = []
        others: list[Callable] = []
        jac = np.zeros((ny, ny))
        jac[:nr, nr : 2 * nr] = np.eye(nr)
        for part in parts:
            if not part.active:
                continue
            if part.forcing and not part.n_states:
                forcing.append(part.force)
                continue
            if part.n_states:
                lin = state_matrices(part, n)
                if lin is None:
                    return None
                a, b, fx, fv = lin
                sl = part.state_slice
                jac[sl, sl] = a
                jac[sl, nr : 2 * nr] = b @ basis
                jac[nr : 2 * nr, sl] = acc_map @ fx
                c_tot -= fv
                continue
            lin = part.linear_matrices()
            if lin is None:
                others.append(part.force)
                continue
            k, c, f = lin
            k_tot += k
            c_tot += c
            f0 += f
        jac[nr : 2 * nr, :nr] = -acc_map @ k_tot @ basis
        jac[nr : 2 * nr, nr : 2 * nr] = -acc_map @ c_tot @ basis
        return cls(jacobian=jac, acc_map=acc_map, f0=f0, forcing=forcing, nr=nr,
                   others=others)

    def rhs(self, ctx: Context, t_grid: float, lag: NDArray[np.float64] | None,
            expand: Callable) -> LinearFormRHS:
        """The right-hand side for one internal step (``ctx.u``, ``ctx.t0``, ``ctx.sn`` and,
        with :attr:`others`, ``ctx.vn`` set); ``t_grid`` the newest history time, s;
        ``lag`` the lagged added-mass force (n,) or ``None``; ``expand``: ``y -> (q, v)``."""
        return LinearFormRHS(self, ctx, t_grid, lag, expand)


class LinearFormRHS(RightHandSide):
    """``f(t, y) = J y + E g(t)`` (plus the :attr:`LinearForm.others`) for one internal step.

    Within one internal step the inputs and memories are fixed, so the forcing is a function
    of ``t`` alone: stages at the same time (RK4's two midpoints) share it.

    Parameters
    ----------
    form
        The assembled linear form.
    ctx
        The shared context, set for the step.
    t_grid
        Time of the newest history sample, s.
    lag
        The lagged added-mass force ``A_lag q''_prev``, shape (n,), N, or ``None``.
    expand
        ``y -> (q, v)``.
    """

    def __init__(self, form: LinearForm, ctx: Context, t_grid: float,
                 lag: NDArray[np.float64] | None, expand: Callable) -> None:
        self.form, self.ctx, self.t_grid, self.expand = form, ctx, t_grid, expand
        self.base = form.f0 if lag is None else form.f0 - lag
        self._t_last: float | None = None
        self._forced = np.zeros(0)

    def __call__(self, t: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        form, ctx = self.form, self.ctx
        lo, hi = form.nr, 2 * form.nr
        if t != self._t_last:
            ctx.t = t
            ctx.s = t - self.t_grid
            total = self.base
            for force in form.forcing:
                f = force(ctx)
                if f is not None:
                    total = total + f
            self._t_last, self._forced = t, form.acc_map @ total
        out = form.apply(y)
        out[lo:hi] += self._forced
        if form.others:
            stage_context(ctx, t, self.t_grid, y, self.expand)
            total = force_sum(form.others, ctx)
            if total is not None:
                out[lo:hi] += form.acc_map @ total
        return out
