"""Radiation force: memory convolution of the IRF, or constant coefficients.

Convolution (Cummins): ``F_rad(t) = -int_0^T K(tau) v(t - tau) dtau``. The velocity history
is kept on a uniform grid of spacing ``dt`` (the simulator's internal step grid, so that in
the usual case every accepted step ends on a grid point and the history is exact). Inside a
step, at ``t = t_g + s`` (``t_g`` the newest grid time, ``0 <= s <= dt``), the integral is the
trapezoid rule on the nodes ``t``, ``t_n`` (start of the step), ``t_g``, ``t_g - dt``, ...
with ``K`` linearly interpolated between its samples. The grid part is two matrix-vector
products computed once per grid interval, not once per stage.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..hydrodata.model import HydroData
from ..kernels import radiation_irf, radiation_irf_from_arrays
from ..parameters import check_positive, irf_options
from ..parts import Context, LinearSystem, ModelInfo, Part
from .history import GridHistory
from .radiation_ss import StateSpaceRadiation, stored_realisation

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


class ConstantRadiation:
    """``F_rad = -B(w) v`` at one frequency (added mass A(w) goes on the left side).

    Parameters
    ----------
    damping
        ``B(w)``, shape (n, n), SI.
    """

    def __init__(self, damping: NDArray[np.float64]) -> None:
        self.damping = np.asarray(damping, dtype=float)

    def force(
        self, s: float, sn: float, v: NDArray[np.float64], vn: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Radiation force for velocity ``v``, shape (n,); the other arguments are unused."""
        return -self.damping @ v

    def start(self, v0: NDArray[np.float64]) -> None:
        """Nothing to remember."""

    def commit(self, v: NDArray[np.float64]) -> None:
        """Nothing to remember."""

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """No internal arrays."""
        return {}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """No internal arrays."""


def check_in_range(hd: HydroData, omega: float, what: str) -> None:
    """A :class:`ConfigError` if ``omega`` (rad/s) is outside the body's BEM frequencies."""
    if not (hd.omega[0] <= omega <= hd.omega[-1]):
        raise ConfigError(
            f"{what}: wave frequency {omega:.6g} rad/s (period {2 * math.pi / omega:.6g} s) "
            f"is outside the data of body '{hd.name}' ({hd.omega[0]:.6g}.."
            f"{hd.omega[-1]:.6g} rad/s); choose a period in "
            f"{2 * math.pi / hd.omega[-1]:.4g}..{2 * math.pi / hd.omega[0]:.4g} s",
            value=omega,
        )


def coupling_blocks(model: ModelInfo):
    """The body-to-body radiation blocks of the configuration, ``(k, j, arrays)`` per
    ordered pair of bodies sharing one multi-body data file (none when ``b2b`` is off).

    ``arrays`` has ``added_mass_inf`` (6, 6), ``added_mass`` and ``radiation_damping``
    (nw, 6, 6), SI, the force on body ``k`` from the motion of body ``j``
    (:func:`hydrofmu.config.resolve` stores them in ``config["coupling"]``).
    """
    if not bool(model.config.get("multibody", {}).get("b2b", True)):
        return []
    out = []
    for c in model.config.get("coupling") or []:
        k, j = (int(x) for x in c["bodies"])
        out.append((k, j, {key: np.asarray(c[key], dtype=float)
                           for key in ("added_mass_inf", "added_mass", "radiation_damping")}))
    return out


class RadiationPart(Part):
    """Radiation of every body, reported as ``F_radiation``; the added mass it declares
    (``A_inf``, or ``A(w)`` for the constant method) goes on the left side.

    ``radiation.method``: ``convolution`` (:class:`ConvolutionRadiation`, memory committed
    on the grid), ``constant`` (:class:`ConstantRadiation` at ``2 pi / wave.period``) or
    ``state_space`` (:class:`~hydrofmu.forces.radiation_ss.StateSpaceRadiation`, the
    realisation stored in ``config["radiation"]["state_space"]`` at build time; its states
    join the model's state vector, ``F_rad = -C x - D v``, ``A_inf`` on the left side as
    for the convolution).
    """

    kind = "radiation"
    channel = "F_radiation"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        p = model.parameters
        n = model.n
        dt = model.dt
        self.method = p["radiation.method"]
        added = np.zeros((n, n))
        self.ss: StateSpaceRadiation | None = None
        if self.method == "state_space":
            self.ss = stored_realisation(model.config["radiation"].get("state_space"),
                                         model.names)
            self.n_states = self.ss.n_states
            for k, hd in enumerate(model.bodies):
                sl = slice(6 * k, 6 * k + 6)
                added[sl, sl] = hd.added_mass_inf
            for k, j, blocks in coupling_blocks(model):  # realised with the kernel's too
                added[6 * k:6 * k + 6, 6 * j:6 * j + 6] = blocks["added_mass_inf"]
            entry = model.config["radiation"]["state_space"]
            model.report.append(
                f"radiation: state space, {self.n_states} states (tolerance "
                f"{entry.get('tolerance')}, max order {entry.get('max_order')}), A_inf from "
                f"{', '.join(hd.added_mass_inf_source for hd in model.bodies)}"
            )
            model.report.extend(entry.get("report", []))
            self.model = None
        elif self.method == "convolution":
            duration = model.config["radiation"]["irf_duration"]
            duration = 30.0 if duration is None else duration
            duration = check_positive("radiation.irf_duration", duration)
            nk = round(duration / dt) + 1
            t = np.arange(nk) * dt
            kernel = np.zeros((nk, n, n))
            opts = irf_options(model.config, "radiation")
            for k, hd in enumerate(model.bodies):
                sl = slice(6 * k, 6 * k + 6)
                added[sl, sl] = hd.added_mass_inf
                kernel[:, sl, sl] = radiation_irf(hd, t, **opts)
            for k, j, blocks in coupling_blocks(model):
                rows, cols = slice(6 * k, 6 * k + 6), slice(6 * j, 6 * j + 6)
                added[rows, cols] = blocks["added_mass_inf"]
                kernel[:, rows, cols] = radiation_irf_from_arrays(
                    model.bodies[k].omega, blocks["radiation_damping"], t, **opts)
            self.model: ConvolutionRadiation | ConstantRadiation | None = ConvolutionRadiation(
                kernel, dt
            )
            model.report.append(
                f"radiation: convolution, IRF {t[-1]:.3g} s at dt = {dt:.3g} s "
                f"({nk} samples), A_inf from "
                f"{', '.join(hd.added_mass_inf_source for hd in model.bodies)}"
            )
        else:
            omega = 2.0 * math.pi / float(p["wave.period"])
            damping = np.zeros((n, n))
            for k, hd in enumerate(model.bodies):
                sl = slice(6 * k, 6 * k + 6)
                check_in_range(hd, omega, "radiation.method = constant")
                added[sl, sl], damping[sl, sl] = hd.coefficients_at(omega)
            for k, j, blocks in coupling_blocks(model):
                rows, cols = slice(6 * k, 6 * k + 6), slice(6 * j, 6 * j + 6)
                w = model.bodies[k].omega
                for arr, name in ((added, "added_mass"), (damping, "radiation_damping")):
                    data = blocks[name].reshape(w.size, 36)
                    arr[rows, cols] = np.array(
                        [np.interp(omega, w, data[:, i]) for i in range(36)]).reshape(6, 6)
            self.model = ConstantRadiation(damping)
            model.report.append(f"radiation: constant A(w), B(w) at w = {omega:.6g} rad/s")
        self.added = added

    def added_mass(self) -> NDArray[np.float64]:
        return self.added

    def force(self, ctx: Context) -> NDArray[np.float64]:
        if self.ss is not None:
            return self.ss.force(ctx.y[self.state_slice], ctx.v)
        return self.model.force(ctx.s, ctx.sn, ctx.v, ctx.vn)

    def initial_states(self) -> NDArray[np.float64]:
        if self.ss is not None:
            return self.ss.initial_state()
        return np.zeros(0)

    def derivative(self, ctx: Context) -> NDArray[np.float64]:
        return self.ss.derivative(ctx.y[self.state_slice], ctx.v)

    def linear_states(self):
        if self.ss is None:
            return None
        a, b, c = self.ss.dense()
        return a, b, -c, -np.diag(self.ss.feedthrough)

    def linear_matrices(self):
        if isinstance(self.model, ConstantRadiation):
            d = self.model.damping
            return np.zeros_like(d), d, np.zeros(self.n)
        return None

    def linear_system(self) -> LinearSystem | None:
        if self.ss is not None:  # x' = A x + B v, F = -C x - D v
            a, b, c = self.ss.dense()
            return LinearSystem(force_x=-c, force_v=-np.diag(self.ss.feedthrough),
                                state_x=a, state_v=b)
        return super().linear_system()  # constant: linear_matrices; convolution: None

    def why_not_linear(self) -> str:
        return ("radiation.method = convolution is linear but not finite-dimensional (its "
                "memory is a convolution over the IRF, not a state vector): use radiation = "
                "state_space (FMU parameter radiation.method = 'state_space')")

    def start(self, ctx: Context) -> None:
        if self.model is not None:
            self.model.start(ctx.v)

    def commit(self, ctx: Context) -> None:
        if self.model is not None:
            self.model.commit(ctx.v)

    def get_memory(self) -> dict[str, NDArray[np.float64]]:
        return {} if self.model is None else self.model.get_state()

    def set_memory(self, state: dict[str, NDArray[np.float64]]) -> None:
        if self.model is not None:
            self.model.set_state(state)
