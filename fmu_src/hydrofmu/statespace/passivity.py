"""Passivity enforcement of a state-space radiation realisation by residue perturbation
(build time; numpy and scipy).

The realised damping ``B_ss(w) = Re K_ss(iw)`` is linear in the residues (output vectors)
``c_f`` of the fitted entries, the poles fixed. Where its scaled smallest eigenvalue is
negative, the residues are moved by the *smallest change of the realised kernel* that
makes every eigenvalue on the dense passivity grid at least :data:`TARGET_MARGIN`
(the standard passivity enforcement by perturbation of the residues / of ``C``,
Grivet-Talocia 2004, Gustavsen 2008), keeping ``B_ss(0) = int K_ss dt = 0`` exact (the
change stays in the null space of that constraint).

The objective is the change of each entry's impulse response in units of its *error
budget*: ``sum_f ||dK_f||^2 / (||K_f||^2 (tol^2 - e_f^2))`` on the kernel's time grid,
``e_f`` the entry's relative L2 IRF error before the repair and ``tol`` the
``ss_tolerance``. The fit is a least-squares fit on the same grid and the change stays
in the span of its basis, so the change is orthogonal to the fit's residual and the new
error is exactly ``sqrt(e_f^2 + ||dK_f||^2 / ||K_f||^2)``: an entry stays within the
tolerance while it uses less than its whole budget. An entry that exceeds it is made
more expensive (weight x 4) and the repair redone, at most :data:`BUDGET_ROUNDS` times.
By Parseval the objective is also the L2 change of ``K_ss(iw)`` over all frequencies,
so the low-frequency added mass ``A_ss(0) = A_inf - int t K_ss dt`` moves little (the
caller reports by how much). It is not held exactly: where ``B_ss`` is singular (the
rank-one surge-pitch block of an axisymmetric body) every admissible change is positive
real, and a positive-real change with ``dK(0) = dK'(0) = 0`` is zero.

With the eigenvalues linearised (``d lambda = v^T dB v`` for the eigenvector ``v``),
every step is a least-distance problem ``min ||y|| s.t. G y >= h`` solved exactly by
Lawson and Hanson's reduction to non-negative least squares; the eigenvalues are then
recomputed and the step repeated with the new violations until none is left.

The repair fails (returns ``None``) when an entry has no free residue (one real pole),
when the linearised problem is infeasible, or when an entry stays over its budget; the
caller then falls back to the high-pass damping
(:func:`hydrofmu.statespace.model.passivity_correction`) and says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import scipy.optimize
from numpy.typing import NDArray

from .fit import EntryFit, coupled_groups, entry_name, modal_basis, transfer_basis
from .model import RadiationRealisation, passivity, passivity_correction, passivity_grid

#: The repair asks for scaled eigenvalues of ``D^-1/2 B_ss D^-1/2`` at least this fraction
#: of the sum of their absolute values at the same frequency.
TARGET_MARGIN: float = 1e-6
#: Grid points whose smallest scaled eigenvalue is below this are constrained (those
#: above are far from any violation a small step could create).
CONSTRAIN_BELOW: float = 2e-2
#: Violations of passivity from this fraction of the data's last frequency up are lifted
#: by the high-pass damping ``D s / (s + a)`` with its pole there (above the wave band);
#: those below by the residue perturbation.
HIGH_PASS_FROM: float = 0.5
#: Largest number of re-weightings of entries that exceed their error budget.
BUDGET_ROUNDS: int = 5
#: Largest number of linearise-and-solve iterations.
MAX_ITERATIONS: int = 30


def _least_distance(g: NDArray[np.float64], h: NDArray[np.float64]
                    ) -> NDArray[np.float64] | None:
    """``argmin ||y|| s.t. g y >= h`` (Lawson & Hanson, LDP via NNLS); None if infeasible."""
    n = g.shape[1]
    e = np.vstack([g.T, h[None, :]])
    f = np.zeros(n + 1)
    f[-1] = 1.0
    u, _ = scipy.optimize.nnls(e, f, maxiter=50 * e.shape[1])
    r = e @ u - f
    if abs(r[-1]) < 1e-12:
        return None
    return -r[:n] / r[-1]


def enforce_passivity(
    fits: dict[tuple[int, int], EntryFit], *, t: NDArray[np.float64],
    ksym: NDArray[np.float64], grid: NDArray[np.float64], scale: NDArray[np.float64],
    active: NDArray[np.bool_], tolerance: float, fixed: NDArray[np.float64] | None = None,
) -> tuple[dict[tuple[int, int], EntryFit], float] | None:
    """Perturb the residues of ``fits`` until the realised damping is passive on ``grid``.

    Parameters
    ----------
    fits
        One fit per entry ``(i, j)``, ``i <= j`` (the entry ``(j, i)`` shares it).
    t, ksym
        The kernel's time grid (nt,), s, and the symmetrised kernel (nt, n, n): the
        norms of the objective and the entries' new IRF errors.
    grid
        Frequencies of the passivity check, rad/s.
    scale
        Per DOF, the largest BEM diagonal damping (the eigenvalue scaling).
    active
        DOFs checked.
    tolerance
        The relative L2 IRF error every entry must keep (``ss_tolerance``).
    fixed
        Damping of the realisation's other terms (the high-pass term above the band),
        shape (ngrid, n, n), not perturbed but part of the checked ``B_ss``.

    Returns
    -------
    (fits, margin) or None
        The perturbed fits (``irf_error`` recomputed, a note added) and the smallest
        scaled eigenvalue reached; None when no such change was found (see the module
        docstring).
    """
    idx = np.flatnonzero(active)
    pos = {int(d): k for k, d in enumerate(idx)}
    keys = [key for key in fits if key[0] in pos and key[1] in pos]
    sinv = 1.0 / np.sqrt(scale[idx])
    # per entry: the free directions (null space of B(0) = 0), the real transfer basis
    # on the grid, the Gram matrix of the relative IRF change, the error budget
    free, retr, gram, budget = {}, {}, {}, {}
    for key in keys:
        f = fits[key]
        g0 = transfer_basis(np.zeros(1), f.poles)[0].real
        null = np.linalg.svd(g0[None, :])[2][1:].T
        if null.shape[1] == 0:
            return None
        basis = modal_basis(t, f.poles) @ null
        gram[key] = basis.T @ basis / float(np.sum(ksym[:, key[0], key[1]] ** 2))
        budget[key] = tolerance**2 - f.irf_error**2
        if budget[key] <= 0.0:
            return None
        free[key] = null
        retr[key] = transfer_basis(grid, f.poles).real
    base = np.zeros((grid.size, idx.size, idx.size))
    if fixed is not None:
        base = fixed[:, idx][:, :, idx] * sinv[None, :, None] * sinv[None, None, :]
    weight = {key: 1.0 / budget[key] for key in keys}
    for _ in range(BUDGET_ROUNDS):
        solved = _perturb(fits, keys, pos, sinv, free, retr, gram, weight, base, grid)
        if solved is None:
            return None
        c, margin = solved
        errors = {}
        for key in keys:
            k = ksym[:, key[0], key[1]]
            errors[key] = float(np.linalg.norm(modal_basis(t, fits[key].poles) @ c[key] - k)
                                / np.linalg.norm(k))
        over = [key for key in keys if errors[key] > tolerance]
        if not over:
            out = dict(fits)
            for key in keys:
                if np.array_equal(c[key], fits[key].c):
                    continue
                out[key] = replace(fits[key], c=c[key], irf_error=errors[key],
                                   notes=(*fits[key].notes, "residues perturbed for passivity"))
            return out, margin
        for key in over:
            weight[key] *= 4.0
    return None


def _perturb(fits, keys, pos, sinv, free, retr, gram, weight, base, grid):
    """The linearise-and-solve iterations for one set of weights: the residues and the
    smallest scaled eigenvalue reached (the caller checks it), or None if infeasible."""
    chol, offs = {}, [0]
    for key in keys:
        h = weight[key] * gram[key]
        try:
            chol[key] = np.linalg.cholesky(h + 1e-14 * np.trace(h) * np.eye(h.shape[0]))
        except np.linalg.LinAlgError:
            return None
        offs.append(offs[-1] + h.shape[0])
    c = {key: fits[key].c.copy() for key in keys}

    def scaled_damping() -> NDArray[np.float64]:
        b = base.copy()
        for key in keys:
            i, j = pos[key[0]], pos[key[1]]
            col = retr[key] @ c[key] * (sinv[i] * sinv[j])
            b[:, i, j] += col
            if i != j:
                b[:, j, i] += col
        return b

    for _ in range(MAX_ITERATIONS):
        ev, vec = np.linalg.eigh(scaled_damping())
        # a relative margin: B_ss(0) = 0 exactly, B_ss ~ w^2 below the data and ~ 1/w^2
        # far above it (strictly proper), so an absolute one would be unreachable there
        size = np.abs(ev).sum(axis=1)
        kk, ee = np.nonzero((ev < CONSTRAIN_BELOW) & (grid[:, None] > 0.0))
        need = TARGET_MARGIN * size[kk] - ev[kk, ee]
        if need.size == 0 or float(need.max()) <= 0.5 * TARGET_MARGIN * float(size.max()):
            return c, float(ev.min())
        rows = np.zeros((kk.size, offs[-1]))
        for n_key, key in enumerate(keys):
            i, j = pos[key[0]], pos[key[1]]
            coef = vec[kk, i, ee] * vec[kk, j, ee] * (sinv[i] * sinv[j])
            if i != j:
                coef = 2.0 * coef
            # d lambda per free coordinate z: coef Re T(grid) null; with y = L^T z
            d = (retr[key][kk] @ free[key]) * coef[:, None]
            rows[:, offs[n_key]:offs[n_key + 1]] = np.linalg.solve(chol[key], d.T).T
        y = _least_distance(rows, need)
        if y is None:
            return None
        for n_key, key in enumerate(keys):
            z = np.linalg.solve(chol[key].T, y[offs[n_key]:offs[n_key + 1]])
            c[key] = c[key] + free[key] @ z
    return c, float(np.linalg.eigvalsh(scaled_damping()).min())


def repair_passivity(
    real: RadiationRealisation, fits: dict[tuple[int, int], EntryFit],
    build: Callable[[], RadiationRealisation], notes: list[str], *,
    mask: NDArray[np.bool_], active: NDArray[np.bool_], scale: NDArray[np.float64],
    omega: NDArray[np.float64], t: NDArray[np.float64], ksym: NDArray[np.float64],
    tolerance: float, passivity_tolerance: float, worst: tuple[int, int],
) -> tuple[RadiationRealisation, float]:
    """Repair a realisation that is not passive; the repaired one and its margin.

    1. From :data:`HIGH_PASS_FROM` ``omega_max`` up (the Gibbs ripple of the cut of B at
       ``omega_max``, out of reach of small residue changes): the high-pass damping
       ``D s / (s + a)`` per DOF with its pole ``a`` there, above the wave band, so that
       the low-frequency added mass it adds, ``D / a``, is small.
    2. Below: the residues, coupled group by group (:func:`enforce_passivity`), with the
       high-pass term as a fixed part of ``B_ss``.
    3. A group whose residues cannot be moved within its IRF tolerance (or whose
       iterations stop a little short, at round-off level): the high-pass damping on its
       DOFs with the pole below the violations (the fallback; its ``D / a`` is reported).

    ``fits`` is updated in place and ``build()`` makes the realisation of its current
    content; ``notes`` (the realisation's) receive one line per step and the measured
    changes of B(w) on the data's range and of ``A_ss(0) - A_inf``.
    """
    n = real.n
    w = omega
    ptol = passivity_tolerance
    tol = tolerance
    max_ord = real.max_order
    before = passivity(real, scale, w, active)[0]
    high = passivity_correction(real, scale, w, active, tol, worst,
                                above=HIGH_PASS_FROM * float(w[-1]))[0]
    extra = [f for f in high.fits if f.kind != "kernel"]
    grid = passivity_grid(real, w)
    fixed = RadiationRealisation(fits=extra, n=n, tolerance=tol, max_order=max_ord,
                                 feedthrough=high.feedthrough).damping(grid)
    failed: list[np.ndarray] = []
    for group in coupled_groups(mask):
        gmask = np.zeros(n, dtype=bool)
        gmask[group] = True
        gmask &= active
        gfits = {key: f for key, f in fits.items() if key[0] in group}
        if not gmask.any() or not gfits:
            continue
        out = enforce_passivity(gfits, t=t, ksym=ksym, grid=grid, scale=scale,
                                active=gmask, tolerance=tol, fixed=fixed)
        if out is not None:
            fits.update(out[0])
        if out is None or out[1] < -ptol:
            failed.append(gmask)
    unrepaired = real
    real = build()
    real.fits += extra
    real.feedthrough = high.feedthrough.copy()
    notes.append(f"passivity repaired: from {HIGH_PASS_FROM * float(w[-1]):.4g} rad/s up "
                 f"by the high-pass damping D s/(s + a) per DOF ({high.notes[-1]})")
    perturbed = sorted({entry_name(*k) for k, f in fits.items()
                        if "residues perturbed for passivity" in f.notes})
    if perturbed:
        notes.append("below it by perturbing the residues of " + ", ".join(perturbed)
                     + " (smallest change of the realised kernel within each entry's IRF"
                     " tolerance, B_ss(0) = 0 kept)")
    for gmask in failed:
        real = passivity_correction(real, scale, w, gmask, tol, worst)[0]
        notes.append(
            "what remains (residues that could not be moved within the IRF "
            "tolerance, or the last round-off of their iterations) by the high-pass "
            f"damping on DOFs {[int(i) for i in np.flatnonzero(gmask)]} "
            f"({real.notes[-1]})")
    margin = passivity(real, scale, w, active)[0]
    change = _damping_change(real, unrepaired, scale, w, active)
    mass = _low_frequency_mass_change(real, unrepaired, w)
    notes.append(f"smallest scaled eigenvalue {before:.2e} -> {margin:.2e}; B(w) changed "
                 f"by at most {change:.3g} of the largest damping on the data's range, "
                 f"A_ss(0) - A_inf by at most {mass:.3g} of itself")
    real.notes = notes
    return real, margin


def _damping_change(new: RadiationRealisation, old: RadiationRealisation,
                    scale: NDArray[np.float64], omega: NDArray[np.float64],
                    active: NDArray[np.bool_]) -> float:
    """Largest ``|B_new - B_old|`` on the data's frequencies, relative to the DOFs'
    largest damping (``sqrt(scale_i scale_j)``)."""
    idx = np.flatnonzero(active)
    d = np.abs(new.damping(omega) - old.damping(omega))[:, idx][:, :, idx]
    s = np.sqrt(np.outer(scale[idx], scale[idx]))
    return float(np.max(d / s[None], initial=0.0))


def _low_frequency_mass_change(new: RadiationRealisation, old: RadiationRealisation,
                               omega: NDArray[np.float64]) -> float:
    """Largest relative change of the diagonal of ``A_ss(w) - A_inf`` at
    ``w = omega[0] / 1000`` (the zero-frequency limit of ``Im K_ss(iw) / w``)."""
    w0 = np.array([1e-3 * float(omega[0])])
    a_new = np.diag(new.transfer(w0)[0].imag) / w0[0]
    a_old = np.diag(old.transfer(w0)[0].imag) / w0[0]
    live = np.abs(a_old) > 0.0
    return float(np.max(np.abs(a_new - a_old)[live] / np.abs(a_old[live]), initial=0.0))


def data_margin(bsym: NDArray[np.float64], scale: NDArray[np.float64],
                active: NDArray[np.bool_]) -> float:
    """Smallest eigenvalue of the scaled BEM damping ``D^-1/2 B(w) D^-1/2`` (active DOFs)
    over the data's frequencies."""
    idx = np.flatnonzero(active)
    if idx.size == 0:
        return 0.0
    s = 1.0 / np.sqrt(scale[idx])
    b = bsym[:, idx][:, :, idx] * s[None, :, None] * s[None, None, :]
    return float(np.linalg.eigvalsh(b).min())
