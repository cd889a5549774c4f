"""Identification of one group of radiation-kernel entries (build time; numpy only).

ERA (Kung) poles from the Hankel matrices of the kernel samples, then residues by linear
least squares with ``K_ss(s=0) = 0``; real modal realisation per entry. See
:mod:`hydrofmu.statespace` for the method, its reasons and the checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..runtime.errors import ConfigError, HydroDataError, as_finite
from ..runtime.hydrodata.model import DOF_NAMES

# --------------------------------------------------------------------------------------
# One entry
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntryFit:
    """The realisation of one kernel entry in real modal form.

    Attributes
    ----------
    row, col
        Influenced DOF ``i`` (force) and radiating DOF ``j`` (velocity).
    poles
        Continuous poles, one per real pole and one (``Im > 0``) per complex pair, 1/s.
    a, b, c
        Real modal realisation: ``a`` (r, r) block diagonal (1x1 real poles, 2x2
        ``[[s, -w], [w, s]]`` pairs), ``b`` (r,), ``c`` (r,) in units of K (N/(m s) ...).
    irf_error
        Relative L2 error of the impulse response on the kernel grid.
    kind
        ``"kernel"`` (a fitted entry) or ``"passivity"`` (the repair term of a diagonal
        entry, see :func:`hydrofmu.statespace.model.passivity_correction`; NaN ``irf_error``).
    notes
        Repairs made (reflected or dropped poles), empty if none.
    """

    row: int
    col: int
    poles: NDArray[np.complex128]
    a: NDArray[np.float64]
    b: NDArray[np.float64]
    c: NDArray[np.float64]
    irf_error: float
    notes: tuple[str, ...] = ()
    kind: str = "kernel"

    @property
    def order(self) -> int:
        """Number of states."""
        return int(self.b.size)

    def impulse(self, t: ArrayLike) -> NDArray[np.float64]:
        """Impulse response ``c^T exp(a t) b`` at times ``t`` (s), shape (nt,)."""
        return modal_basis(np.asarray(t, dtype=float), self.poles) @ self.c

    def transfer(self, omega: ArrayLike) -> NDArray[np.complex128]:
        """``K_ss(i w) = c^T (i w I - a)^-1 b`` at ``omega`` (rad/s), shape (nw,)."""
        return transfer_basis(np.asarray(omega, dtype=float), self.poles) @ self.c


def transfer_basis(
    omega: NDArray[np.float64], poles: NDArray[np.complex128]
) -> NDArray[np.complex128]:
    """Laplace transforms at ``s = i omega`` of the :func:`modal_basis` columns, (nw, r)."""
    s = 1j * omega
    cols = []
    for p in poles:
        if p.imag > 0.0:
            den = (s - p.real) ** 2 + p.imag**2
            cols += [(s - p.real) / den, p.imag / den]
        else:
            cols.append(1.0 / (s - p.real))
    if not cols:
        return np.zeros((omega.size, 0), dtype=complex)
    return np.column_stack(cols)


def modal_basis(t: NDArray[np.float64], poles: NDArray[np.complex128]) -> NDArray[np.float64]:
    """Columns e^{st} (real pole) or e^{st} cos wt, e^{st} sin wt (pair), shape (nt, r)."""
    cols = []
    for p in poles:
        e = np.exp(p.real * t)
        if p.imag > 0.0:
            cols += [e * np.cos(p.imag * t), e * np.sin(p.imag * t)]
        else:
            cols.append(e)
    if not cols:
        return np.zeros((t.size, 0))
    return np.column_stack(cols)


def modal_matrices(
    poles: NDArray[np.complex128],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``a`` (r, r) and ``b`` (r,) of the modal form whose states are the basis columns."""
    r = sum(2 if p.imag > 0.0 else 1 for p in poles)
    a = np.zeros((r, r))
    b = np.zeros(r)
    k = 0
    for p in poles:
        if p.imag > 0.0:
            # x1 = e^{st} cos wt, x2 = e^{st} sin wt for x(0) = b = (1, 0)
            a[k : k + 2, k : k + 2] = [[p.real, -p.imag], [p.imag, p.real]]
            b[k] = 1.0
            k += 2
        else:
            a[k, k] = p.real
            b[k] = 1.0
            k += 1
    return a, b


#: Largest number of Hankel rows of ERA (the SVD is the cost of the identification).
HANKEL_ROWS: int = 80


def _era_svd(h: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
    """SVD of the Hankel matrix of samples ``h`` and the shifted Hankel matrix."""
    m = (h.size - 1) // 2
    idx = np.arange(m)[:, None] + np.arange(m)[None, :]
    u, s, vt = np.linalg.svd(h[idx])
    return u, s, vt, h[idx + 1]


def _era_poles(
    svd: tuple[NDArray[np.float64], ...], delta: float, order: int
) -> NDArray[np.complex128]:
    """Continuous poles ``log(mu) / delta`` of an order-``order`` ERA realisation
    (negative-real ``mu`` dropped, see the module docstring)."""
    u, s, vt, h1 = svd
    r = min(order, int(np.count_nonzero(s > s[0] * 1e-13)))
    sr = 1.0 / np.sqrt(s[:r])
    ad = (sr[:, None] * (u[:, :r].T @ h1 @ vt[:r].T)) * sr[None, :]
    mu = np.linalg.eigvals(ad)
    keep = ~((np.abs(mu.imag) <= 1e-12 * np.abs(mu)) & (mu.real <= 0.0))
    mu = mu[keep]
    lam = np.log(mu.astype(complex)) / delta
    # one representative per conjugate pair (Im > 0), real poles with Im = 0
    real = np.abs(lam.imag) <= 1e-9 * np.maximum(np.abs(lam), 1e-300)
    return np.concatenate([lam[real].real.astype(complex), lam[~real & (lam.imag > 0.0)]])


def _residues(
    t: NDArray[np.float64], k: NDArray[np.float64], poles: NDArray[np.complex128]
) -> NDArray[np.float64]:
    """Least-squares output vector ``c`` for fixed poles, with ``K_ss(0) = int K_ss dt = 0``
    imposed exactly (``B(0) = 0``: no radiation damping at zero frequency; without it the
    fitted ``B_ss(0)`` takes either sign at the level of the fit error)."""
    basis = modal_basis(t, poles)
    g = transfer_basis(np.zeros(1), poles)[0].real
    _, _, vt = np.linalg.svd(g[None, :])
    null = vt[1:].T
    if null.shape[1] == 0:
        return np.zeros(g.size)
    z, *_ = np.linalg.lstsq(basis @ null, k, rcond=None)
    return null @ z


def _stabilise(poles: NDArray[np.complex128]) -> tuple[NDArray[np.complex128], list[str]]:
    notes = []
    out = poles.copy()
    bad = out.real >= 0.0
    for p in out[bad]:
        notes.append(f"unstable pole {p:.4g} 1/s reflected to the left half-plane")
    # a pole exactly on the axis is moved to a tiny damping relative to its frequency
    out[bad] = -np.maximum(np.abs(out[bad].real), 1e-3 * np.abs(out[bad]) + 1e-6) + 1j * out[
        bad
    ].imag
    return out, notes


def fit_entry(
    t: ArrayLike,
    k: ArrayLike,
    *,
    order: int,
    row: int = 0,
    col: int = 0,
    _svd: tuple[NDArray[np.float64], ...] | None = None,
) -> EntryFit:
    """Realise one kernel entry with (at most) ``order`` states.

    Parameters
    ----------
    t
        Uniform times ``0, delta, ..., T``, shape (nt,), s.
    k
        ``K_ij(t)``, shape (nt,), N/(m s), N/s or N m/s.
    order
        Number of states requested (ERA truncation); a complex pole pair counts two.
        The result may have fewer (dropped Nyquist poles).
    row, col
        DOF indices, recorded in the result.

    Returns
    -------
    EntryFit
        Stable realisation (unstable poles reflected, see ``notes``).
    """
    tv = np.asarray(t, dtype=float)
    kv = np.asarray(k, dtype=float)
    scale = float(np.max(np.abs(kv)))
    if scale == 0.0:
        raise HydroDataError(
            f"kernel entry {entry_name(row, col)} is identically zero: nothing to realise",
            value=(row, col),
        )
    step = max(1, math.ceil((tv.size - 1) / (2 * HANKEL_ROWS)))
    svd = _era_svd(kv[::step] / scale) if _svd is None else _svd
    poles = _era_poles(svd, float(tv[step] - tv[0]), order)
    poles, notes = _stabilise(poles)
    c = _residues(tv, kv, poles)
    a, b = modal_matrices(poles)
    fit = modal_basis(tv, poles) @ c
    err = float(np.linalg.norm(fit - kv) / np.linalg.norm(kv))
    return EntryFit(row=row, col=col, poles=poles, a=a, b=b, c=c, irf_error=err,
                    notes=tuple(notes))


def entry_name(i: int, j: int) -> str:
    def dof(k: int) -> str:
        body, d = divmod(k, 6)
        return f"{DOF_NAMES[d]}" if body == 0 else f"body{body}.{DOF_NAMES[d]}"

    return f"K[{i},{j}] ({dof(i)} <- {dof(j)})"


def coupled_groups(mask: NDArray[np.bool_]) -> list[list[int]]:
    """Connected components of the DOFs linked by non-negligible kernel entries."""
    n = mask.shape[0]
    seen = np.zeros(n, dtype=bool)
    groups = []
    for start in range(n):
        if seen[start] or (not mask[start, start] and not mask[start].any()):
            continue
        stack, comp = [start], []
        seen[start] = True
        while stack:
            i = stack.pop()
            comp.append(i)
            for j in np.flatnonzero(mask[i] & ~seen):
                seen[j] = True
                stack.append(int(j))
        groups.append(sorted(comp))
    return groups


def pick_order(orders: Any, fit_at: Callable[[int], Any], fixed: bool, tolerance: float,
               margin_of: Callable[[Any], float] | None) -> tuple[Any, EntryFit | None]:
    """The order ladder of a group's fit (kernel and impedance): ``(fits, None)`` at the
    first order within ``tolerance`` whose ``margin_of`` is not negative (else the largest
    margin; the first order when ``fixed``), or ``(best, worst entry)`` when none is."""
    best: dict[tuple[int, int], EntryFit] = {}
    accepted: tuple[float, dict[tuple[int, int], EntryFit]] | tuple[()] = ()
    for r in orders:
        fits = fit_at(r)
        worst = max(f.irf_error for f in fits.values())
        if fixed:
            return fits, None
        if worst <= tolerance:
            margin = margin_of(fits) if margin_of is not None else 0.0
            if not accepted or margin > accepted[0]:
                accepted = (margin, fits)
            if margin >= 0.0:
                break
        if not best or worst < max(f.irf_error for f in best.values()):
            best = fits
    if accepted:
        return accepted[1], None
    return best, max(best.values(), key=lambda f: f.irf_error)


def fit_group(
    t: NDArray[np.float64], ksym: NDArray[np.float64], pairs: list[tuple[int, int]], *,
    tolerance: float, max_order: int, order: int | None, omega_max: float,
    margin_of: Any = None,
) -> dict[tuple[int, int], EntryFit]:
    """Fit every entry of a coupled group with common poles (multi-output ERA).

    ERA sees the kernel at ``delta = pi / (4 omega_max)`` (decimated if the grid is
    finer) and its first ``2 HANKEL_ROWS`` samples (the poles are set by the early,
    large part; the residues are then fitted on every sample of the whole kernel).
    The order is the smallest that meets ``tolerance``; if ``margin_of(fits)`` (the
    group's passivity margin) is then negative, the order is raised while it stays so,
    keeping the order with the best margin (the remaining violation is repaired or
    refused by the caller).

    The Hankel matrices of the group's entries (each normalised by its peak) are stacked;
    their common shift-invariant realisation gives one pole set, and each entry gets its
    own residues. The residues are linear in the kernel, so exact relations of the data
    survive: for an axisymmetric body ``K_15 = c K_11`` and ``K_55 = c^2 K_11`` (one
    far-field mode: the surge-pitch block of B(w) has rank one) hold for the realisation
    too, and the realised block stays positive semi-definite. Entry-by-entry fits with
    different poles break that and make B_ss indefinite (measured: -2 % on the BEMIO
    sphere).
    """
    step = max(1, math.floor(math.pi / (4.0 * omega_max) / float(t[1] - t[0]) + 1e-9))
    delta = float(t[step] - t[0])
    m = min(HANKEL_ROWS, (t[::step].size - 1) // 2)
    idx = np.arange(m)[:, None] + np.arange(m)[None, :]
    h0, h1 = [], []
    for i, j in pairs:
        k = ksym[::step, i, j]
        k = k / float(np.max(np.abs(k)))
        h0.append(k[idx])
        h1.append(k[idx + 1])
    u, sv, vt = np.linalg.svd(np.vstack(h0), full_matrices=False)
    svd = (u, sv, vt, np.vstack(h1))
    # from 2 states (one complex pair: the oscillating kernel), or 1 if that is the limit
    orders = [order] if order is not None else range(min(2, max_order), max_order + 1)

    def fit_at(r: int) -> dict[tuple[int, int], EntryFit]:
        poles, notes = _stabilise(_era_poles(svd, delta, r))
        a, b = modal_matrices(poles)
        basis = modal_basis(t, poles)
        fits = {}
        for i, j in pairs:
            kv = ksym[:, i, j]
            c = _residues(t, kv, poles)
            err = float(np.linalg.norm(basis @ c - kv) / np.linalg.norm(kv))
            fits[(i, j)] = EntryFit(row=i, col=j, poles=poles, a=a, b=b, c=c,
                                    irf_error=err, notes=tuple(notes))
        return fits

    fits, bad = pick_order(orders, fit_at, order is not None, tolerance, margin_of)
    if bad is None:
        return fits
    raise HydroDataError(
        f"state-space radiation: entry {entry_name(bad.row, bad.col)} reaches only "
        f"{bad.irf_error:.3g} relative IRF error with up to {max_order} states, above "
        f"ss_tolerance={tolerance:g}; raise radiation.ss_max_order or loosen "
        "radiation.ss_tolerance",
        value=(bad.row, bad.col),
    )


# --------------------------------------------------------------------------------------
# The whole kernel
# --------------------------------------------------------------------------------------


#: Realising a kernel, entries whose peak is below this fraction of
#: ``sqrt(peak_ii peak_jj)``, and DOFs whose own peak is below it times the largest of
#: their kind (translations, rotations), are left out. The convolution's threshold
#: (1e-6) keeps the rounding noise of 4-digit WAMIT data (RM3: the yaw of the
#: axisymmetric bodies, 1e-3 of their pitch, couples to everything at 1e-2..1e-1 of its
#: own tiny scale), which would chain every DOF into one group of unfittable entries.
#: The physical couplings of RM3 are above 0.5; the largest entry left out is below
#: 1e-2 of its scale, so the force it carries is within the realisation's tolerance.
REALISATION_NEGLIGIBLE: float = 1e-2


def drop_noise(kernel: NDArray[np.float64]) -> tuple[NDArray[np.float64], list[str]]:
    """The kernel (nt, n, n) with the entries below :data:`REALISATION_NEGLIGIBLE`
    zeroed, and the names of the ones so left out that are not round-off (1e-6)."""
    peak = np.abs(kernel).max(axis=0)
    diag = np.diag(peak).copy()
    n = diag.size
    live = np.zeros(n, dtype=bool)
    for kind in (np.arange(n) % 6 < 3, np.arange(n) % 6 >= 3):
        live[kind] = diag[kind] >= REALISATION_NEGLIGIBLE * diag[kind].max()
    keep = (peak >= REALISATION_NEGLIGIBLE * np.sqrt(np.outer(diag, diag))) & np.outer(live, live)
    dropped = [entry_name(i, j) for i in range(n) for j in range(i, n)
               if not keep[i, j] and peak[i, j] > 1e-6 * math.sqrt(diag[i] * diag[j])]
    return np.where(keep[None], kernel, 0.0), dropped


def check_realisation_settings(
    tolerance: float, max_order: int, order: int | None
) -> tuple[float, int]:
    tol = as_finite(tolerance, "ss_tolerance")
    if not 0.0 < tol < 1.0:
        raise ConfigError(
            f"ss_tolerance={tolerance!r} must be a relative error in (0, 1), e.g. 0.01",
            value=tolerance,
        )
    if isinstance(max_order, bool) or not isinstance(max_order, int | np.integer) or not (
        1 <= max_order <= 100
    ):
        raise ConfigError(
            f"ss_max_order={max_order!r} must be an integer in 1..100 (states per entry)",
            value=max_order,
        )
    if order is not None and (
        isinstance(order, bool) or not isinstance(order, int | np.integer) or order < 1
    ):
        raise ConfigError(f"order={order!r} must be a positive integer or None", value=order)
    return tol, int(max_order)
