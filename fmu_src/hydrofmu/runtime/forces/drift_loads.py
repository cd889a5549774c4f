"""Second-order wave loads from the first-order wave components: the numbers of the drift
part (:mod:`~hydrofmu.runtime.forces.drift`), without the configuration.

For a sea ``eta(t) = Re(sum_i a_i e^{i w_i t})`` (complex amplitudes ``a_i``, m, at the
body's reference point) the second-order load is (``hydrofmu.io.drift``)::

    F2(t) = Re sum_ij a_i conj(a_j) Qm(w_i, w_j) e^{i (w_i - w_j) t}
          + Re sum_ij a_i a_j Qp(w_i, w_j) e^{i (w_i + w_j) t}

with the double sums over all ``i, j``. Three ways to evaluate it, by cost per evaluation
(``N`` components):

- ``mean``: the diagonal only, ``sum_i |a_i|^2 D(w_i)``, a constant (O(1));
- ``newman``: Newman's approximation with the arithmetic mean
  ``Qm(w_i, w_j) ~ (D(w_i) + D(w_j)) / 2`` (real). It factorises exactly:
  ``F = Re(P_D(t) conj(P(t)))`` with ``P = sum_i a_i e^{i w_i t}`` and
  ``P_D = sum_i a_i D_i e^{i w_i t}``: O(N) per evaluation, and valid for a ``D`` of
  either sign (the geometric-mean form ``sign(D) sqrt(D_i D_j)`` factorises only when ``D``
  keeps one sign);
- ``qtf``: the full difference-frequency QTF at the component pairs, with the pair
  coefficients ``C_ij = a_i conj(a_j) Qm_ij`` precomputed: ``F = Re(p^T C conj(p))`` with
  the phasors ``p_i = e^{i w_i t}``, O(N^2) multiply-adds per DOF, evaluated as
  ``sum_k lambda_k |u_k^T p|^2`` over the eigenpairs of the Hermitian ``C``
  (:func:`hermitian_factors`, exact to rounding), O(r N) with ``r <= N`` the eigenvalues
  kept; the optional sum-frequency part ``Re(p^T C+ p)`` directly, O(N^2).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["DRIFT_MODES", "DriftLoad", "bilinear", "interp_frequency"]

#: The evaluation modes of :class:`DriftLoad` (the configuration's ``drift`` values).
DRIFT_MODES: tuple[str, ...] = ("mean", "newman", "qtf")


def interp_frequency(omega: NDArray[np.float64], grid: NDArray[np.float64],
                     values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Linear interpolation of ``values`` (nw, ...) on ``grid`` (nw,), rad/s, at ``omega``;
    zero outside ``[grid[0], grid[-1]]`` (no extrapolation of a second-order load)."""
    flat = values.reshape(grid.size, -1)
    out = np.stack([np.interp(omega, grid, flat[:, c], left=0.0, right=0.0)
                    for c in range(flat.shape[1])], axis=-1)
    return out.reshape(omega.shape + values.shape[1:])


def bilinear(omega: NDArray[np.float64], grid: NDArray[np.float64],
             values: NDArray[np.complex128]) -> NDArray[np.complex128]:
    """Bilinear interpolation of a QTF ``values`` (nw, nw, m) on the square ``grid`` (rad/s)
    at every pair of ``omega`` (N,): shape (N, N, m); zero for a pair outside the square.

    At grid nodes the values are returned exactly (weights 0 and 1).
    """
    inside = (omega >= grid[0]) & (omega <= grid[-1])
    k = np.clip(np.searchsorted(grid, omega, side="right") - 1, 0, grid.size - 2)
    f = np.clip((omega - grid[k]) / (grid[k + 1] - grid[k]), 0.0, 1.0)
    w0 = np.where(inside, 1.0 - f, 0.0)
    w1 = np.where(inside, f, 0.0)
    out = np.zeros((omega.size, omega.size, values.shape[2]), dtype=np.complex128)
    for di, wi in ((0, w0), (1, w1)):
        for dj, wj in ((0, w0), (1, w1)):
            out += (wi[:, None] * wj[None, :])[:, :, None] * values[(k + di)[:, None],
                                                                    (k + dj)[None, :]]
    return out


#: Eigenvalues of the pair matrices below this fraction of the largest (over the DOFs) are
#: dropped by :func:`hermitian_factors`: each dropped term ``lambda_k |u_k^T p|^2`` is at
#: most ``EIGEN_RTOL max|lambda| N`` (``|u_k^T p|^2 <= N``), rounding-level.
EIGEN_RTOL = 1e-13


def hermitian_factors(pairs: NDArray[np.complex128]
                      ) -> tuple[NDArray[np.complex128], NDArray[np.float64], NDArray[np.intp]]:
    """Factorise the difference-frequency pair matrices for an O(r N) evaluation.

    ``Re(p^T C_d conj(p)) = p^T H_d conj(p)`` with ``H_d`` the Hermitian part of ``C_d``
    (``C_d`` itself is Hermitian when the QTF is: ``a_j conj(a_i) conj(Q_ij)``). With
    ``H_d = U diag(lambda) U^H``, ``p^T H_d conj(p) = sum_k lambda_k |U[:, k]^T p|^2``.

    Parameters
    ----------
    pairs
        ``C[d, i, j] = a_i conj(a_j) Qm_ij``, shape (6, N, N).

    Returns
    -------
    rows, eigenvalues, row_dof
        ``U^T`` rows kept (r, N), their eigenvalues (r,), and the DOF of each row (r,):
        the load is ``bincount(row_dof, eigenvalues |rows @ p|^2)``.
    """
    herm = 0.5 * (pairs + np.conj(np.swapaxes(pairs, 1, 2)))
    lam, vec = np.linalg.eigh(herm)                     # (6, N), (6, N, N)
    scale = np.abs(lam).max() if lam.size else 0.0
    keep = np.abs(lam) > EIGEN_RTOL * scale
    dof, k = np.nonzero(keep)
    rows = np.ascontiguousarray(vec[dof, :, k])         # (r, N): column k of U_d
    return rows, lam[dof, k], dof.astype(np.intp)


class DriftLoad:
    """The second-order load of one body from its wave components.

    Parameters
    ----------
    omega
        Component frequencies, shape (N,), rad/s.
    amplitude
        Complex amplitudes ``a_i`` at the body's reference point, shape (N,), m.
    mode
        One of :data:`DRIFT_MODES`.
    mean
        ``D(w_i)`` at the components, shape (N, 6), N/m^2 and N/m (``mean``, ``newman``).
    difference
        ``Qm(w_i, w_j)`` at the component pairs, shape (N, N, 6) (``qtf``).
    total_sum
        ``Qp(w_i, w_j)`` at the component pairs, shape (N, N, 6), or ``None`` (no
        sum-frequency part).
    """

    def __init__(self, omega: NDArray[np.float64], amplitude: NDArray[np.complex128], mode: str,
                 *, mean: NDArray[np.float64] | None = None,
                 difference: NDArray[np.complex128] | None = None,
                 total_sum: NDArray[np.complex128] | None = None) -> None:
        if mode not in DRIFT_MODES:
            raise ValueError(f"drift mode {mode!r}: one of {DRIFT_MODES}")
        self.mode = mode
        self.omega = np.asarray(omega, dtype=float)
        a = np.asarray(amplitude, dtype=complex)
        self.amplitude = a
        if mode in ("mean", "newman"):
            if mean is None:
                raise ValueError(f"drift mode {mode!r} needs the mean drift")
            d = np.asarray(mean, dtype=float)
            #: The constant part ``sum_i |a_i|^2 D_i``, shape (6,).
            self.constant = (np.abs(a) ** 2) @ d
            self.weighted = a[:, None] * d  # a_i D_i, (N, 6)
            self.pairs = None
        else:
            if difference is None:
                raise ValueError("drift mode 'qtf' needs the difference QTF")
            q = np.asarray(difference, dtype=complex)
            # C[d, i, j] = a_i conj(a_j) Qm_ij
            pairs = np.moveaxis(a[:, None, None] * np.conj(a)[None, :, None] * q, 2, 0)
            self.constant = np.einsum("dii->d", pairs).real
            self.rows, self.eigenvalues, self.row_dof = hermitian_factors(pairs)
        self.sum_pairs = None
        if total_sum is not None:
            qp = np.asarray(total_sum, dtype=complex)
            self.sum_pairs = np.ascontiguousarray(
                np.moveaxis(a[:, None, None] * a[None, :, None] * qp, 2, 0).reshape(-1, a.size))

    def force(self, t: float) -> NDArray[np.float64]:
        """The load at time ``t`` (s), shape (6,), N and N m (unramped)."""
        if self.mode == "mean" and self.sum_pairs is None:
            return self.constant.copy()
        phasor = np.exp(1j * self.omega * t)
        if self.mode == "mean":
            out = self.constant.copy()
        elif self.mode == "newman":
            p = self.amplitude @ phasor
            pd = phasor @ self.weighted
            out = (pd * np.conj(p)).real
        else:
            z = self.rows @ phasor
            out = np.bincount(self.row_dof, self.eigenvalues * (z.real**2 + z.imag**2),
                              minlength=6)
        if self.sum_pairs is not None:
            n = phasor.size
            out = out + ((self.sum_pairs @ phasor).reshape(6, n) @ phasor).real
        return out
