"""Radiation memory force by direct convolution of the IRF with the velocity history.

Convolution (Cummins): ``F_rad(t) = -int_0^T K(tau) v(t - tau) dtau``. The velocity history
is kept on a uniform grid of spacing ``dt`` (the simulator's internal step grid, so that in
the usual case every accepted step ends on a grid point and the history is exact). Inside a
step, at ``t = t_g + s`` (``t_g`` the newest grid time, ``0 <= s <= dt``), the integral is the
trapezoid rule on the nodes ``t``, ``t_n`` (start of the step), ``t_g``, ``t_g - dt``, ...
with ``K`` linearly interpolated between its samples.

Cost: the grid sums (the history part, ``G_m = sum_i K[i + m] v_i``, m = 0, 1) are one
batched product over the live kernel entries once per grid interval (the history is a
fixed double-length ring, ``history.py``: no copy, no growth); per stage offset ``s`` the
history part of the integral is one small product with scalar coefficients, cached for the
grid interval, so a later stage costs one 6x6 mat-vec (``tests/test_step_cost.py``).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .history import GridHistory

#: Kernel entries whose peak is below this fraction of sqrt(peak_ii * peak_jj) (their
#: diagonal scales) are BEM noise (e.g. roll-pitch coupling of an axisymmetric body) and
#: are left out of the convolution; a DOF whose own peak is below this fraction of the
#: largest of its kind (translations, rotations) is noise too (yaw of a sphere).
NEGLIGIBLE = 1e-6


def active_pairs(kernel: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Mask (n, n) of the kernel entries that are not numerical noise."""
    peak = np.max(np.abs(kernel), axis=0)
    diag = np.diag(peak).copy()
    n = diag.size
    live = np.zeros(n, dtype=bool)
    for start in range(0, n, 3):
        group = diag[start : start + 3]
        live[start : start + 3] = group > NEGLIGIBLE * max(group.max(), 1e-300)
    scale = np.sqrt(np.outer(diag, diag))
    mask = (peak > NEGLIGIBLE * scale) & np.outer(live, live)
    return mask


class ConvolutionRadiation:
    """Radiation memory force by direct convolution.

    Parameters
    ----------
    kernel
        ``K(j dt)``, j = 0..nk-1, shape (nk, n, n), for the stacked DOFs, SI.
    dt
        Sample spacing of the kernel and of the velocity history, s.
    """

    def __init__(self, kernel: NDArray[np.float64], dt: float) -> None:
        kernel = np.asarray(kernel, dtype=float)
        self.dt = float(dt)
        nk, n, _ = kernel.shape
        self.n = n
        self.nk = nk
        self.mask = active_pairs(kernel)
        kernel = np.where(self.mask[None], kernel, 0.0)
        # Kernel padded with zeros beyond its truncation time.
        kp = np.concatenate([kernel, np.zeros((2, n, n))])
        self._k = kp
        # Per velocity column j: the rows it drives and K[rows, j] over time, contiguous,
        # for the grid sums G_m = sum_i K[i + m] v_i (m = 0, 1).
        # Both grid sums of every velocity column j in one batched product: block j holds
        # K[i, rows_j, j] then K[i + 1, rows_j, j] (rows_j: the live entries of column j,
        # zero-padded to the longest column), shape (n, 2 R, nk); a 0/1 matrix scatters
        # the products to [G_0; G_1], shape (2 n,).
        rows_of = [np.flatnonzero(self.mask[:, j]) for j in range(n)]
        r_max = max(1, max(r.size for r in rows_of))
        self._kt = np.zeros((n, 2 * r_max, nk))
        self._scatter = np.zeros((2 * n, n * 2 * r_max))
        for j, rows in enumerate(rows_of):
            for q, r in enumerate(rows):
                self._kt[j, q] = kp[0:nk, r, j]
                self._kt[j, r_max + q] = kp[1 : nk + 1, r, j]
                self._scatter[r, j * 2 * r_max + q] = 1.0
                self._scatter[n + r, j * 2 * r_max + r_max + q] = 1.0
        self._prod = np.zeros((n, 2 * r_max, 1))
        # History stored transposed (one contiguous row per DOF).
        self.history = GridHistory(nk, n, transposed=True)
        self._kernel_cache: dict[float, NDArray[np.float64]] = {}
        self._cache_version = -1
        self._g = (np.zeros(n), np.zeros(n))
        # Per stage offset s (grid-aligned steps): the history part of the integral and
        # the matrix on the current velocity, both with the force's sign; valid for one
        # history version (the stage offsets of a scheme recur at every step).
        self._stage: dict[float, tuple[NDArray[np.float64], NDArray[np.float64] | None]] = {}
        self._stage_version = -1
        self._basis = np.zeros((6, n))
        self._basis_version = -1
        self._k4 = np.ascontiguousarray(kp[0:4].reshape(4 * n, n))  # K(0..3 dt), stacked
        self._coef = np.zeros(6)

    @property
    def padded_kernel(self) -> NDArray[np.float64]:
        """``K(j dt)`` as the force uses it, j = 0..nk + 1: the entries outside :attr:`mask`
        zeroed and two zero samples after the truncation, shape (nk + 2, n, n), SI; a
        read-only view (what the native FMU's convolution is assembled from)."""
        view = self._k.view()
        view.flags.writeable = False
        return view

    def kernel_at(self, tau: float) -> NDArray[np.float64]:
        """``K(tau)`` for ``0 <= tau <= 2 dt`` by linear interpolation, shape (n, n).

        The few stage offsets of a scheme recur every step: the results are cached.
        """
        k = self._kernel_cache.get(tau)
        if k is None:
            x = tau / self.dt
            i = min(int(x), self.nk)
            a = x - i
            k = (1.0 - a) * self._k[i] + a * self._k[i + 1]
            if len(self._kernel_cache) > 64:
                self._kernel_cache.clear()
            self._kernel_cache[tau] = k
        return k

    def start(self, v0: NDArray[np.float64]) -> None:
        """Start from rest in the past and velocity ``v0`` at the first grid time."""
        self.history.fill(np.zeros(self.n))
        self.history.push(np.asarray(v0, dtype=float))

    def _grid_sums(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if self._cache_version != self.history.version:
            h = self.history.view()  # (n, nk), one contiguous row per DOF
            np.matmul(self._kt, h[:, :, None], out=self._prod)
            g = self._scatter @ self._prod.reshape(-1)
            self._g = (g[: self.n], g[self.n :])
            self._cache_version = self.history.version
        return self._g

    def force(
        self, s: float, sn: float, v: NDArray[np.float64], vn: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Radiation force at ``t = t_g + s``.

        Parameters
        ----------
        s
            Time since the newest grid sample, s, ``0 <= s <= dt``.
        sn
            Time of the step start since the newest grid sample, s, ``0 <= sn <= s``.
        v
            Velocity at ``t``, shape (n,).
        vn
            Velocity at the step start, shape (n,).
        """
        # The step starts on the grid (usual case; an importer's communication points drift
        # from the grid by round-off of t, far below 1e-9 dt): vn is v0.
        if abs(sn) <= 1e-9 * self.dt:
            if self._stage_version != self.history.version:
                self._stage.clear()
                self._stage_version = self.history.version
            stage = self._stage.get(s)
            if stage is None:
                stage = self._stage_terms(s)
            rest, k_v = stage
            return rest.copy() if k_v is None else rest + k_v @ v
        dt = self.dt
        g0, g1 = self._grid_sums()
        a = s / dt
        v0 = self.history.newest()
        ks = self.kernel_at(s)
        integral = dt * ((1.0 - a) * g0 + a * g1) - 0.5 * dt * (ks @ v0)
        k_mid = self.kernel_at(s - sn)
        integral += 0.5 * (s - sn) * (self._k[0] @ v + k_mid @ vn)
        integral += 0.5 * sn * (k_mid @ vn + ks @ v0)
        return -integral

    def _stage_terms(
        self, s: float
    ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
        """For a step starting on the grid, ``F = rest + k_v @ v`` at offset ``s``: ``rest``
        (n,) the trapezoid over the grid nodes, ``k_v`` (n, n) ``-s/2 K(0)`` (``None`` at
        ``s = 0``), both for the current history; cached."""
        dt = self.dt
        if self._basis_version != self.history.version:
            # Per history version: G_0, G_1 and K(j dt) v_0 for j = 0..3, so that every
            # stage offset is one small product with scalar coefficients.
            g0, g1 = self._grid_sums()
            basis = self._basis
            basis[0], basis[1] = g0, g1
            np.dot(self._k4, self.history.newest(), out=basis[2:].reshape(-1))
            self._basis_version = self.history.version
        a = s / dt
        i = min(int(a), self.nk)  # K(s) interpolated between samples i and i + 1
        if a > -1.0 and i <= 2:  # int() truncates: i = 0 for a round-off below 0
            b = a - i
            coef = self._coef
            coef[:] = 0.0
            coef[0], coef[1] = -dt * (1.0 - a), -dt * a
            c = -(0.5 * s - 0.5 * dt)
            coef[2 + i], coef[3 + i] = c * (1.0 - b), c * b
            rest = coef @ self._basis
        else:  # pragma: no cover - outside 0 <= s <= 2 dt (round-off at the grid ends)
            g0, g1 = self._grid_sums()
            rest = -(dt * ((1.0 - a) * g0 + a * g1)
                     + (0.5 * s - 0.5 * dt) * (self.kernel_at(s) @ self.history.newest()))
        k_v = -0.5 * s * self._k[0] if s > 0.0 else None
        if len(self._stage) > 64:
            self._stage.clear()
        self._stage[s] = (rest, k_v)
        return rest, k_v

    def commit(self, v: NDArray[np.float64]) -> None:
        """Record the velocity at a new grid time (called once the step is accepted)."""
        self.history.push(np.asarray(v, dtype=float))

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """Every internal array (the velocity history)."""
        return self.history.get_state("radiation")

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore from :meth:`get_state`."""
        self.history.set_state("radiation", state)
        self._cache_version = -1
        self._stage_version = -1
        self._basis_version = -1
