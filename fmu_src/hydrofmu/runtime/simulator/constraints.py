"""Constraints as a constant matrix: ``q = T q_r`` (null-space reduction).

Today's fixed DOFs select columns of the identity; joints between bodies (prismatic, planar,
fixed) add their own columns later (each joint a function that returns the basis of the
motions it allows), without touching the force parts. The reaction that keeps the motion in
the range of ``T`` is ``F_c = P (L q'' - F)`` with ``P = I - T (T^T T)^-1 T^T`` the
projector onto the constrained directions: what the left side needs beyond the applied
forces.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError


class Constraints:
    """A constant constraint basis ``T``, shape (n, n_r), full column rank.

    Parameters
    ----------
    basis
        ``T``: the generalized coordinates are ``q = T q_r``.
    """

    def __init__(self, *, basis: NDArray[np.float64]) -> None:
        t = np.asarray(basis, dtype=float)
        if t.ndim != 2 or t.shape[1] == 0:
            raise ConfigError("no free degree of freedom: set 'dofs' of at least one body",
                              value=t.shape)
        if np.linalg.matrix_rank(t) != t.shape[1]:
            raise ConfigError("the constraint basis is rank deficient (redundant joints?)",
                              value=t.shape)
        self.basis = t
        self.n, self.nr = t.shape
        gram = t.T @ t
        self.pseudo_inverse = np.linalg.solve(gram, t.T)
        self.projector = np.eye(self.n) - t @ self.pseudo_inverse
        # A selection of DOFs (fixed DOFs only) expands by indexing, cheaper than T @ x.
        unit = (t == 1.0).sum(axis=0) == 1
        selection = bool(np.all(unit) and np.count_nonzero(t) == self.nr)
        self._index = np.argmax(t, axis=0) if selection else None

    @classmethod
    def fixed_dofs(cls, free: NDArray[np.bool_]) -> Constraints:
        """The DOFs where ``free`` is False are held at equilibrium."""
        free = np.asarray(free, dtype=bool)
        return cls(basis=np.eye(free.size)[:, free])

    @classmethod
    def from_rows(cls, rows: NDArray[np.float64]) -> Constraints:
        """The motions allowed by ``G q = 0`` (rows of fixed DOFs and joints), shape (m, n):
        ``T`` an orthonormal basis of the null space of ``G`` (SVD), entries below
        1e-14 (round-off of the decomposition) set to zero."""
        g = np.asarray(rows, dtype=float)
        _, sv, vt = np.linalg.svd(g)
        tol = max(g.shape) * np.finfo(float).eps * (sv[0] if sv.size else 0.0)
        rank = int(np.sum(sv > tol))
        t = vt[rank:].T.copy()
        t[np.abs(t) < 1e-14] = 0.0
        return cls(basis=t)

    @property
    def free(self) -> NDArray[np.bool_]:
        """DOFs that move (a nonzero row of ``T``), shape (n,)."""
        return np.any(self.basis != 0.0, axis=1)

    def expand(self, x_r: NDArray[np.float64]) -> NDArray[np.float64]:
        """``T x_r``: full coordinates from reduced ones, shape (n,)."""
        return self.basis @ x_r

    def expand_pair(
        self, y: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``T y[:n_r]`` and ``T y[n_r:2 n_r]`` (positions and velocities), each (n,)."""
        nr = self.nr
        if self._index is not None:
            q = np.zeros(self.n)
            v = np.zeros(self.n)
            q[self._index] = y[:nr]
            v[self._index] = y[nr : 2 * nr]
            return q, v
        return self.basis @ y[:nr], self.basis @ y[nr : 2 * nr]

    def reduce(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Reduced coordinates of a full vector in the range of ``T``, shape (n_r,)."""
        return self.pseudo_inverse @ x

    def reaction(self, lhs_acc_minus_force: NDArray[np.float64]) -> NDArray[np.float64]:
        """Constraint force from ``L q'' - F`` (full vectors), shape (n,)."""
        return self.projector @ lhs_acc_minus_force


def assemble_constraints(
    free: NDArray[np.bool_], parts: Sequence[Any],
    initial: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
) -> tuple[Constraints, NDArray[np.float64] | None]:
    """The constraint basis of a model and the map from its reaction to the multipliers.

    Parameters
    ----------
    free
        Free DOFs of the bodies' ``dofs``, shape (n,).
    parts
        The model's parts; those with a ``constraint_rows()`` method (the joints,
        :mod:`hydrofmu.runtime.forces.joints`) add rows ``G`` of ``G q = 0`` and get their
        ``row_slice`` in the stacked rows (fixed DOFs first, then the joints in order).
    initial
        The model's initial pose and velocity, each (n,), which every joint checks
        against its rows; ``None``: the joints read their parameters.

    Returns
    -------
    constraints, multiplier_map
        ``multiplier_map`` (m, n) gives the multipliers ``lambda`` of the stacked rows with
        ``F_c = G^T lambda``; ``None`` when there are no joints (then ``T`` selects the
        free DOFs, as before joints existed). Redundant rows (a body's fixed DOF that a
        joint also holds, two joints on one DOF) get no multiplier: the joints' rows come
        first, in configuration order, then the bodies' fixed DOFs.
    """
    n = free.size
    rows = [np.eye(n)[~free]]
    for part in parts:
        get_rows = getattr(part, "constraint_rows", None)
        if get_rows is None:
            continue
        g = np.asarray(get_rows() if initial is None else get_rows(*initial), dtype=float)
        start = sum(r.shape[0] for r in rows)
        part.row_slice = slice(start, start + g.shape[0])
        rows.append(g)
    if len(rows) == 1:
        return Constraints.fixed_dofs(free), None
    stacked = np.vstack(rows)
    n_fixed = rows[0].shape[0]
    keep: list[int] = []
    for i in [*range(n_fixed, stacked.shape[0]), *range(n_fixed)]:
        if np.linalg.matrix_rank(stacked[[*keep, i]]) == len(keep) + 1:
            keep.append(i)
    multiplier_map = np.zeros((stacked.shape[0], n))
    multiplier_map[keep] = np.linalg.pinv(stacked[keep].T)
    return Constraints.from_rows(stacked), multiplier_map
