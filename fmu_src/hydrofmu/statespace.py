"""State-space realisation of the radiation kernel (build/export time; scipy allowed).

Every radiation kernel entry ``K_ij(t)`` that is not numerical noise (every DOF pair of an
n x n kernel, cross-body blocks included) is realised as a stable, strictly proper SISO
system whose impulse response approximates it::

    K_ij(t) ~ c_ij^T exp(A_ij t) b_ij,      K_ij,ss(s) = c_ij^T (s I - A_ij)^-1 b_ij,

so that ``F_rad,i(t) = -sum_j c_ij^T x_ij(t)`` with ``x_ij' = A_ij x_ij + b_ij v_j``.
The run-time side is :class:`hydrofmu.forces.radiation_ss.StateSpaceRadiation`.

Method: time-domain realisation (ERA / Kung), poles then residues
-----------------------------------------------------------------
1. The kernel of one entry, sampled every ``delta`` s (``h_k = K(k delta)``), is put in a
   Hankel matrix ``H0[p, q] = h_{p+q}``; its SVD truncated to ``r`` singular values gives a
   balanced discrete realisation whose shifted-Hankel matrix ``Ad`` has the poles
   ``mu = exp(lambda delta)`` (the Eigensystem Realisation Algorithm that WEC-Sim's BEMIO
   uses, Kung 1978). The continuous poles are ``lambda = log(mu) / delta``.
2. With the poles fixed, the residues are a *linear* least-squares problem on the kernel
   samples (real parametrisation ``a e^{st} cos wt + b e^{st} sin wt`` per complex pair).
   This re-fit is what makes the realisation exact in continuous time: no bilinear
   (Tustin) conversion of a discrete system, hence no feed-through ``D`` and no warping.
3. The order ``r`` is the smallest in ``1 .. max_order`` whose relative L2 error of the
   IRF ``||K_ss - K|| / ||K||`` on the kernel's time grid is at most ``tolerance``.

Why this and not a frequency-domain fit of ``K(iw) = B(w) + i w (A(w) - A_inf)``:

- the criterion that matters for the simulator is the kernel itself (it is what the
  convolution uses); ERA minimises (an approximation of) exactly that error, and the
  Cauchy-Schwarz bound ``|F_ss - F_conv| <= ||K_ss - K||_2 ||v||_2`` turns the stated
  IRF tolerance into a bound on the force;
- it needs only B(w) (through K), not ``A_inf``, which is the least reliable quantity of
  BEM data (extrapolated for some sources, see ``HydroData.added_mass_inf_source``);
  a frequency-domain fit of ``A(w) - A_inf`` inherits every error of ``A_inf``;
- it is non-iterative (one SVD, one least squares per order): no starting poles, no
  convergence question as in vector fitting / Sanathanan-Koerner iterations.

The price: ERA fits the *truncated, band-limited* kernel (B cut at ``omega_max``), so the
realisation also reproduces part of the Gibbs ripple of the hard cut (use ``taper``), and
its B(w) beyond the data range is whatever the fitted poles give. Both are measured: the
report gives, per entry, the B(w) error against the BEM data on its frequency range, and
the passivity check covers a dense grid far beyond it.

Checks and repairs
------------------
- *Common poles per coupled group*: the DOFs linked by non-negligible entries (for one
  axisymmetric body: surge-pitch, sway-roll, heave) share one pole set, from ERA on the
  stacked Hankel matrices of the group's entries; each entry has its own residues (and
  its own states). The surge-pitch block of B(w) of an axisymmetric body has rank one
  (both DOFs radiate the same ``cos theta`` far-field mode, ``B_15^2 = B_11 B_55``, exactly
  so for the BEMIO sphere); residues are linear in the data, so common poles keep that
  relation in the realisation. Independent per-entry fits do not, and made the realised
  B indefinite by up to 2 % of the largest damping (measured, BEMIO sphere).
- ``B_ss(0) = int K_ss dt = 0`` is imposed exactly in the residue fit (no radiation
  damping at zero frequency), which removes the low-frequency violations.
- *Stability*: a fitted pole with ``Re lambda >= 0`` (ERA on a kernel that has not
  decayed) is reflected to ``-|Re lambda| + i Im lambda`` and the residues are re-fitted;
  the entry's notes say so. A pole ``mu <= 0`` on the negative real axis (no real
  logarithm: a mode at the Nyquist frequency of ``delta``) is dropped.
- *Passivity*: the realised damping matrix ``B_ss(w) = Re K_ss(iw)`` (n x n, from the
  symmetrised kernel, so it is symmetric and equal to the Hermitian part of ``K_ss(iw)``)
  must be positive semi-definite on a dense grid (log-spaced up to ``PASSIVITY_SPAN``
  times the fastest of omega_max and the poles, the BEM frequencies, and 161 points
  around every pole). Its eigenvalues, after scaling ``D^-1/2 B D^-1/2`` by the largest
  BEM diagonal damping of each DOF (units differ), are compared with
  ``-passivity_tolerance`` (1e-9, round-off). On failure the group's order is first
  raised (up to ``max_order``, keeping the best margin); what remains is repaired by a
  passive high-pass damping ``K_c(s) = D s / (s + a)`` on the diagonal
  (:func:`_passivity_correction`, one extra state and a feed-through per DOF, reported as
  its own entry), or refused with :class:`~hydrofmu.errors.HydroDataError` naming the
  entry when it would change B(w) on the data's range by more than
  :data:`PASSIVITY_REPAIR_LIMIT`, or when ``repair=False``.

  What remains after the order raise (measured): -0.2 % to -1 % of the largest damping,
  just above ``omega_max``, where the realisation continues the Gibbs ripple of the hard
  cut of B at ``omega_max`` (largest for the default sphere, whose B is cut at 5 rad/s
  while still large). A residue-perturbation repair (a quadratic programme on the output
  vectors) was tried first; it needed minutes per body on this machine and did not always
  converge, so it was dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import ConfigError, HydroDataError, as_finite
from .forces.radiation import active_pairs
from .forces.radiation_ss import StateSpaceRadiation
from .hydrodata.model import DOF_NAMES, HydroData
from .kernels import (
    ROUNDTRIP_BAND_FRACTION,
    default_irf_time,
    radiation_irf,
    radiation_irf_from_arrays,
)

__all__ = [
    "DEFAULT_MAX_ORDER",
    "DEFAULT_PASSIVITY_TOLERANCE",
    "DEFAULT_TOLERANCE",
    "EntryFit",
    "RadiationRealisation",
    "fit_entry",
    "realise_kernel",
    "realise_radiation",
]

#: Default relative L2 error of each entry's IRF. 1 %: the convolution's own round trip
#: (kernel -> A(w), B(w)) is good to ~0.3-1 % on the bundled data (``irf_roundtrip_error``),
#: so a tighter fit buys nothing, and a 1 % kernel error bounds the force error to 1 % of
#: ``||K|| ||v||`` (Cauchy-Schwarz).
DEFAULT_TOLERANCE: float = 0.01
#: Default largest order (states) per entry. WEC-Sim's BEMIO allows up to 10; the bundled
#: bodies need 2-8 at 1 % (see the report).
DEFAULT_MAX_ORDER: int = 10
#: Default passivity tolerance: smallest allowed eigenvalue of the scaled realised damping
#: ``D^-1/2 B_ss(w) D^-1/2`` (1 = the largest BEM damping of the DOF). 1e-9 is round-off of
#: the assembly (sums of ~10 residue terms of order 1, double precision) with a wide margin.
DEFAULT_PASSIVITY_TOLERANCE: float = 1e-9
#: Rounds of the passivity repair (each re-linearises the eigenvalue constraints).
REPAIR_ROUNDS: int = 30
#: The repair asks for scaled eigenvalues >= this margin at the constrained frequencies,
#: so that the re-linearised constraints hold on the dense grid in between.
REPAIR_MARGIN: float = 1e-6
#: Largest change of B(w) on the data's range, relative to each DOF's largest damping,
#: that the passivity repair may make (at the top of the range; in the wave band, below
#: a, it is under a fifth of that). Measured need: 0.2-0.3 % (BEMIO sphere, Capytaine
#: cylinder), 1.0 % (default sphere, whose B is cut at 5 rad/s while still large).
PASSIVITY_REPAIR_LIMIT: float = 0.02
#: The passivity grid extends to this multiple of max(omega_max, fastest |pole|).
PASSIVITY_SPAN: float = 20.0
#: Number of points of the passivity grid (log-spaced plus the BEM frequencies).
PASSIVITY_POINTS: int = 2000


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
        entry, see :func:`_passivity_correction`; NaN ``irf_error``).
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
        return _basis(np.asarray(t, dtype=float), self.poles) @ self.c

    def transfer(self, omega: ArrayLike) -> NDArray[np.complex128]:
        """``K_ss(i w) = c^T (i w I - a)^-1 b`` at ``omega`` (rad/s), shape (nw,)."""
        return _transfer_basis(np.asarray(omega, dtype=float), self.poles) @ self.c


def _transfer_basis(
    omega: NDArray[np.float64], poles: NDArray[np.complex128]
) -> NDArray[np.complex128]:
    """Laplace transforms at ``s = i omega`` of the :func:`_basis` columns, (nw, r)."""
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


def _basis(t: NDArray[np.float64], poles: NDArray[np.complex128]) -> NDArray[np.float64]:
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


def _modal_matrices(
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
    basis = _basis(t, poles)
    g = _transfer_basis(np.zeros(1), poles)[0].real
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
            f"kernel entry {_entry_name(row, col)} is identically zero: nothing to realise",
            value=(row, col),
        )
    step = max(1, math.ceil((tv.size - 1) / (2 * HANKEL_ROWS)))
    svd = _era_svd(kv[::step] / scale) if _svd is None else _svd
    poles = _era_poles(svd, float(tv[step] - tv[0]), order)
    poles, notes = _stabilise(poles)
    c = _residues(tv, kv, poles)
    a, b = _modal_matrices(poles)
    fit = _basis(tv, poles) @ c
    err = float(np.linalg.norm(fit - kv) / np.linalg.norm(kv))
    return EntryFit(row=row, col=col, poles=poles, a=a, b=b, c=c, irf_error=err,
                    notes=tuple(notes))


def _entry_name(i: int, j: int) -> str:
    def dof(k: int) -> str:
        body, d = divmod(k, 6)
        return f"{DOF_NAMES[d]}" if body == 0 else f"body{body}.{DOF_NAMES[d]}"

    return f"K[{i},{j}] ({dof(i)} <- {dof(j)})"


def _coupled_groups(mask: NDArray[np.bool_]) -> list[list[int]]:
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


def _fit_group(
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
    orders = [order] if order is not None else range(2, max_order + 1)
    best: dict[tuple[int, int], EntryFit] = {}
    accepted: tuple[float, dict[tuple[int, int], EntryFit]] | tuple[()] = ()
    for r in orders:
        poles, notes = _stabilise(_era_poles(svd, delta, r))
        a, b = _modal_matrices(poles)
        basis = _basis(t, poles)
        fits = {}
        for i, j in pairs:
            kv = ksym[:, i, j]
            c = _residues(t, kv, poles)
            err = float(np.linalg.norm(basis @ c - kv) / np.linalg.norm(kv))
            fits[(i, j)] = EntryFit(row=i, col=j, poles=poles, a=a, b=b, c=c,
                                    irf_error=err, notes=tuple(notes))
        worst = max(f.irf_error for f in fits.values())
        if order is not None:
            return fits
        if worst <= tolerance:
            margin = margin_of(fits) if margin_of is not None else 0.0
            if not accepted or margin > accepted[0]:
                accepted = (margin, fits)
            if margin >= 0.0:
                break
        if not best or worst < max(f.irf_error for f in best.values()):
            best = fits
    if accepted:
        return accepted[1]
    bad = max(best.values(), key=lambda f: f.irf_error)
    raise HydroDataError(
        f"state-space radiation: entry {_entry_name(bad.row, bad.col)} reaches only "
        f"{bad.irf_error:.3g} relative IRF error with up to {max_order} states, above "
        f"ss_tolerance={tolerance:g}; raise radiation.ss_max_order or loosen "
        "radiation.ss_tolerance",
        value=(bad.row, bad.col),
    )


# --------------------------------------------------------------------------------------
# The whole kernel
# --------------------------------------------------------------------------------------


@dataclass
class RadiationRealisation:
    """State-space realisation of an n x n radiation kernel.

    Attributes
    ----------
    fits
        One :class:`EntryFit` per realised entry ``(i, j)``, rows then columns; ``(i, j)``
        and ``(j, i)`` share the fit of the symmetrised kernel (separate states).
    n
        Number of DOFs (velocity inputs, force outputs).
    tolerance, max_order
        The identification settings.
    damping_error
        Per entry ``(i, j)``: ``max_w |B_ss,ij - B_ij| / sqrt(max|B_ii| max|B_jj|)`` over
        the BEM frequencies up to ``ROUNDTRIP_BAND_FRACTION`` (0.8) of the last one
        (dimensionless). Above that the kernel itself, cut at ``omega_max``, misses B by
        up to half its value at the cut (8 % on the default sphere), whatever the fit.
    passivity_margin
        Smallest eigenvalue of ``D^-1/2 B_ss(w) D^-1/2`` over the passivity grid.
    asymmetry
        Largest ``|K_ij - K_ji| / sqrt(max|K_ii| max|K_jj|)`` of the data (removed by the
        symmetrisation).
    feedthrough
        Diagonal feed-through ``D`` (n,), N s/m, N m s (the passivity repair; zeros when
        none was needed): ``F_rad = -C x - D v``.
    notes
        Repairs made.
    """

    def __post_init__(self) -> None:
        if self.feedthrough is None:
            self.feedthrough = np.zeros(self.n)

    fits: list[EntryFit]
    n: int
    tolerance: float
    max_order: int
    damping_error: dict[tuple[int, int], float] = field(default_factory=dict)
    passivity_margin: float = float("nan")
    passivity_grid: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    asymmetry: float = 0.0
    feedthrough: NDArray[np.float64] | None = None
    notes: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ assembled system
    @property
    def n_states(self) -> int:
        """Total number of states."""
        return sum(f.order for f in self.fits)

    def matrices(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Dense ``A`` (ns, ns), ``B`` (ns, n), ``C`` (n, ns): ``x' = A x + B v``,
        ``F_rad = -C x``. Block diagonal ``A``; for large models use :meth:`runtime`."""
        ns = self.n_states
        a = np.zeros((ns, ns))
        b = np.zeros((ns, self.n))
        c = np.zeros((self.n, ns))
        k = 0
        for f in self.fits:
            r = f.order
            a[k : k + r, k : k + r] = f.a
            b[k : k + r, f.col] = f.b
            c[f.row, k : k + r] = f.c
            k += r
        return a, b, c

    def runtime_arrays(self) -> dict[str, Any]:
        """The sparse per-state arrays of :class:`StateSpaceRadiation` (see there)."""
        diag, off, partner, bvec, inp, cvec, out = [], [], [], [], [], [], []
        k = 0
        for f in self.fits:
            r = f.order
            for q in range(r):
                diag.append(f.a[q, q])
                # the modal form has at most one off-diagonal entry per row
                nz = [p for p in range(r) if p != q and f.a[q, p] != 0.0]
                off.append(f.a[q, nz[0]] if nz else 0.0)
                partner.append(k + (nz[0] if nz else q))
                bvec.append(f.b[q])
                inp.append(f.col)
                cvec.append(f.c[q])
                out.append(f.row)
            k += r
        return {
            "n": self.n,
            "diag": np.array(diag, dtype=float),
            "off": np.array(off, dtype=float),
            "partner": np.array(partner, dtype=np.intp),
            "b": np.array(bvec, dtype=float),
            "inputs": np.array(inp, dtype=np.intp),
            "c": np.array(cvec, dtype=float),
            "outputs": np.array(out, dtype=np.intp),
            "feedthrough": np.array(self.feedthrough, dtype=float),
        }

    def runtime(self) -> StateSpaceRadiation:
        """The run-time force model (numpy only)."""
        return StateSpaceRadiation(**self.runtime_arrays())

    # ------------------------------------------------------------------ responses
    def impulse(self, t: ArrayLike) -> NDArray[np.float64]:
        """Realised kernel ``K_ss(t)``, shape (nt, n, n)."""
        tv = np.asarray(t, dtype=float)
        out = np.zeros((tv.size, self.n, self.n))
        for f in self.fits:
            out[:, f.row, f.col] += f.impulse(tv)
        return out

    def transfer(self, omega: ArrayLike) -> NDArray[np.complex128]:
        """``K_ss(i w) = B_ss(w) + i w (A_ss(w) - A_inf)``, shape (nw, n, n)."""
        w = np.atleast_1d(np.asarray(omega, dtype=float))
        out = np.zeros((w.size, self.n, self.n), dtype=complex)
        for f in self.fits:
            out[:, f.row, f.col] += f.transfer(w)
        return out

    def damping(self, omega: ArrayLike) -> NDArray[np.float64]:
        """Realised ``B_ss(w) = Re K_ss(i w) + D``, shape (nw, n, n), N s/m ..."""
        return self.transfer(omega).real + np.diag(self.feedthrough)[None]

    def added_mass(self, omega: ArrayLike, a_inf: ArrayLike) -> NDArray[np.float64]:
        """Realised ``A_ss(w) = A_inf + Im K_ss(i w) / w``, shape (nw, n, n), kg ..."""
        w = np.atleast_1d(np.asarray(omega, dtype=float))
        return np.asarray(a_inf, dtype=float)[None] + self.transfer(w).imag / w[:, None, None]

    # ------------------------------------------------------------------ report
    def entries(self) -> list[dict[str, Any]]:
        """Per entry: ``row``, ``col``, ``name``, ``order``, ``irf_error``,
        ``damping_error``, ``poles``, ``notes``."""
        return [
            {
                "row": f.row,
                "col": f.col,
                "name": _entry_name(f.row, f.col),
                "order": f.order,
                "irf_error": f.irf_error,
                "damping_error": self.damping_error.get((f.row, f.col), float("nan")),
                "max_pole_real": float(np.max(f.poles.real)),
                "notes": f.notes,
            }
            for f in self.fits
        ]

    def report(self) -> str:
        """Printable report: one line per entry and the checks."""
        lines = [
            f"state-space radiation: {len(self.fits)} entries, {self.n_states} states; "
            f"tolerance {self.tolerance:g} (relative L2 IRF error), max order "
            f"{self.max_order}",
            f"{'entry':<34} {'order':>5} {'IRF err':>9} {'B(w) err':>9} {'max Re(pole)':>13}",
        ]
        for e in self.entries():
            lines.append(
                f"{e['name']:<34} {e['order']:>5d} {e['irf_error']:>9.2e} "
                f"{e['damping_error']:>9.2e} {e['max_pole_real']:>13.3e}"
                + (f"  ({'; '.join(e['notes'])})" if e["notes"] else "")
            )
        lines.append(
            "stable: every pole in the open left half-plane; passive: smallest scaled "
            f"eigenvalue of B_ss(w) {self.passivity_margin:.3e} on "
            f"{self.passivity_grid.size} frequencies 0-{self.passivity_grid.max(initial=0):.4g}"
            " rad/s"
        )
        lines.append(f"kernel asymmetry removed by symmetrisation: {self.asymmetry:.2e}")
        lines += self.notes
        return "\n".join(lines)


def _check_settings(tolerance: float, max_order: int, order: int | None) -> tuple[float, int]:
    tol = as_finite(tolerance, "ss_tolerance")
    if not 0.0 < tol < 1.0:
        raise ConfigError(
            f"ss_tolerance={tolerance!r} must be a relative error in (0, 1), e.g. 0.01",
            value=tolerance,
        )
    if isinstance(max_order, bool) or not isinstance(max_order, int | np.integer) or not (
        1 <= max_order <= 50
    ):
        raise ConfigError(
            f"ss_max_order={max_order!r} must be an integer in 1..50 (states per entry)",
            value=max_order,
        )
    if order is not None and (
        isinstance(order, bool) or not isinstance(order, int | np.integer) or order < 1
    ):
        raise ConfigError(f"order={order!r} must be a positive integer or None", value=order)
    return tol, int(max_order)


def _passivity_grid(real: RadiationRealisation, omega: NDArray[np.float64]) -> NDArray[np.float64]:
    poles = np.concatenate([f.poles for f in real.fits]) if real.fits else np.zeros(1)
    top = PASSIVITY_SPAN * max(float(omega.max()), float(np.abs(poles).max()))
    # around every lightly damped pole the response changes over |Re p|: 161 points
    # within +-8 |Re p| of its frequency (a log grid alone misses those peaks)
    local = (poles.imag[:, None] + np.abs(poles.real)[:, None] * np.linspace(-8.0, 8.0, 161))
    local = local[(poles.imag > 0.0)].ravel()
    return np.unique(np.concatenate([
        [0.0], np.geomspace(omega.min() * 1e-2, top, PASSIVITY_POINTS), omega,
        np.abs(poles), local[local > 0.0],
    ]))


def _scaled_eig(
    real: RadiationRealisation, scale: NDArray[np.float64], grid: NDArray[np.float64],
    active: NDArray[np.bool_],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Eigenvalues (nw, m) and eigenvectors (nw, m, m) of ``D^-1/2 B_ss D^-1/2``, active
    DOFs only."""
    idx = np.flatnonzero(active)
    bss = real.damping(grid)[:, idx][:, :, idx]
    s = 1.0 / np.sqrt(scale[idx])
    bs = bss * s[None, :, None] * s[None, None, :]
    bs = 0.5 * (bs + np.swapaxes(bs, 1, 2))
    return np.linalg.eigh(bs)


def _passivity(
    real: RadiationRealisation, scale: NDArray[np.float64], omega: NDArray[np.float64],
    active: NDArray[np.bool_],
) -> tuple[float, float, NDArray[np.float64]]:
    """Smallest scaled eigenvalue, the frequency where it occurs, its eigenvector."""
    grid = _passivity_grid(real, omega)
    real.passivity_grid = grid
    ev, vec = _scaled_eig(real, scale, grid, active)
    k = int(np.argmin(ev[:, 0]))
    full = np.zeros(real.n)
    full[np.flatnonzero(active)] = vec[k, :, 0]
    return float(ev[k, 0]), float(grid[k]), full


def _passivity_correction(
    real: RadiationRealisation, scale: NDArray[np.float64], omega: NDArray[np.float64],
    active: NDArray[np.bool_], tol: float, worst: tuple[int, int],
) -> tuple[RadiationRealisation, float]:
    """Add ``K_c(s) = D s / (s + a)`` on the diagonal, ``D = delta diag(scale)``.

    ``Re K_c(iw) = D w^2 / (w^2 + a^2) >= 0`` (positive real, so passive by itself), ~0
    below ``a`` and ~``D`` above: it lifts the scaled eigenvalues by
    ``delta w^2 / (w^2 + a^2)`` where they are negative (mostly just above
    ``omega_max``) while leaving the wave band almost untouched. ``a`` is half the lowest
    violating frequency, ``delta`` the smallest that clears every violation on the grid.
    Realised as a feed-through ``D`` plus one state per DOF: ``D - D a / (s + a)``.
    """
    grid = _passivity_grid(real, omega)
    ev, _ = _scaled_eig(real, scale, grid, active)
    lmin = ev[:, 0]
    bad = (lmin < 0.0) & (grid > 0.0)
    before = float(lmin.min())
    # the significant violations (round-off-level ones near w = 0, where B_ss ~ -k w^2,
    # cost only k a^2 and do not set a)
    wv = float(grid[bad & (lmin < 0.1 * before)].min())
    a = 0.5 * wv
    # 2 % slack: the grid samples the eigenvalue curve; between its points the minimum
    # can be a little deeper (measured: 0.3 % of delta on a 10x finer grid)
    delta = 1.02 * float(np.max(-lmin[bad] * (grid[bad] ** 2 + a * a) / grid[bad] ** 2))
    delta += REPAIR_MARGIN
    in_band = delta * omega.max() ** 2 / (omega.max() ** 2 + a * a)
    if in_band > PASSIVITY_REPAIR_LIMIT:
        raise HydroDataError(
            f"state-space radiation is not passive: the realised damping B_ss(w) has a "
            f"negative eigenvalue {before:.3e} (scaled) from w = {wv:.4g} rad/s, carried "
            f"most by entry {_entry_name(*worst)}; the repair would change B(w) by "
            f"{in_band:.3g} of the largest damping, above {PASSIVITY_REPAIR_LIMIT:g}; use "
            "radiation.taper or change radiation.ss_max_order",
            value=worst,
        )
    fits = list(real.fits)
    pole = np.array([-a + 0j])
    for i in np.flatnonzero(active):
        d = delta * scale[i]
        fits.append(EntryFit(row=int(i), col=int(i), poles=pole, a=np.array([[-a]]),
                             b=np.ones(1), c=np.array([-d * a]), irf_error=float("nan"),
                             notes=("passivity correction",), kind="passivity"))
    out = RadiationRealisation(fits=fits, n=real.n, tolerance=real.tolerance,
                               max_order=real.max_order, asymmetry=real.asymmetry,
                               feedthrough=np.where(active, delta * scale, 0.0),
                               notes=[f"delta = {delta:.3g}, a = {a:.4g} rad/s, B(w) changed"
                                      f" by at most {in_band:.3g} of the largest damping "
                                      "on the data's range"])
    return out, before


def _worst_pair(pairs: list[tuple[int, int]], vec: NDArray[np.float64]) -> tuple[int, int]:
    return max(pairs, key=lambda p: abs(vec[p[0]] * vec[p[1]]))


def realise_kernel(
    k: ArrayLike,
    t: ArrayLike,
    *,
    omega: ArrayLike,
    damping: ArrayLike,
    tolerance: float = DEFAULT_TOLERANCE,
    max_order: int = DEFAULT_MAX_ORDER,
    order: int | None = None,
    passivity_tolerance: float = DEFAULT_PASSIVITY_TOLERANCE,
    repair: bool = True,
) -> RadiationRealisation:
    """Realise every non-negligible entry of a sampled radiation kernel.

    Parameters
    ----------
    k
        ``K(t)``, shape (nt, n, n), indexed ``[t, influenced, radiating]``, N/(m s) ...
    t
        Uniform times ``0, delta, ..., T``, shape (nt,), s. ``delta`` should resolve the
        fastest oscillation of K (``delta <= pi / (2 omega_max)``); ERA's Hankel matrix
        has ``nt / 2`` rows, so a few hundred samples are enough.
    omega, damping
        The BEM frequencies (nw,), rad/s and ``B(w)`` (nw, n, n), N s/m ..., for the
        B(w) error and the scaling of the passivity check.
    tolerance
        Relative L2 error of each entry's IRF to reach (the ``ss_tolerance``).
    max_order
        Largest number of states per entry (``ss_max_order``).
    order
        If given, every entry gets exactly this order (no tolerance check): to study or
        test a too-low order. Stability and passivity are still checked; passivity is
        then not repaired.
    passivity_tolerance
        Allowed negative eigenvalue of the scaled realised damping, see
        :data:`DEFAULT_PASSIVITY_TOLERANCE`.
    repair
        Repair a non-passive realisation by residue perturbation (default); ``False``
        refuses it instead.

    Returns
    -------
    RadiationRealisation

    Raises
    ------
    HydroDataError
        An entry that does not reach ``tolerance`` within ``max_order``, or a realisation
        that is not passive and cannot be repaired; the message names the entry.
    """
    tol, max_ord = _check_settings(tolerance, max_order, order)
    ptol = as_finite(passivity_tolerance, "passivity_tolerance")
    kv = np.asarray(k, dtype=float)
    tv = np.asarray(t, dtype=float)
    w = np.asarray(omega, dtype=float)
    bw = np.asarray(damping, dtype=float)
    if kv.ndim != 3 or kv.shape[1] != kv.shape[2] or kv.shape[0] != tv.size:
        raise HydroDataError(
            f"kernel of shape {kv.shape} must be (nt, n, n) with nt = {tv.size} times",
            value=kv.shape,
        )
    if tv.size < 8 or not np.allclose(np.diff(tv), tv[1] - tv[0], rtol=1e-9, atol=0.0) or (
        abs(tv[0]) > 1e-12 * tv[-1]
    ):
        raise HydroDataError(
            "the kernel times must be uniform, start at 0 s and hold at least 8 samples",
            value=tv[:3],
        )
    n = kv.shape[1]
    mask = active_pairs(kv)
    mask = mask | mask.T
    peak = np.max(np.abs(kv), axis=0)
    dscale = np.sqrt(np.outer(np.diag(peak), np.diag(peak)))
    with np.errstate(invalid="ignore", divide="ignore"):
        asym = np.where(mask, np.abs(kv - np.swapaxes(kv, 1, 2)).max(axis=0) / dscale, 0.0)
    ksym = 0.5 * (kv + np.swapaxes(kv, 1, 2))
    bsym = 0.5 * (bw + np.swapaxes(bw, 1, 2))

    fits: dict[tuple[int, int], EntryFit] = {}
    pairs = [(i, j) for i in range(n) for j in range(i, n) if mask[i, j]]
    scale = np.diag(np.max(np.abs(bw), axis=0)).copy()
    active = np.diag(mask).copy() & (scale > 0.0)

    def group_margin(gfits: dict[tuple[int, int], EntryFit]) -> float:
        flist = list(gfits.values())
        flist += [EntryFit(row=f.col, col=f.row, poles=f.poles, a=f.a, b=f.b, c=f.c,
                           irf_error=f.irf_error) for f in flist if f.row != f.col]
        trial = RadiationRealisation(fits=flist, n=n, tolerance=tol, max_order=max_ord)
        sub = np.zeros(n, dtype=bool)
        for f in flist:
            sub[f.row] = True
        return _passivity(trial, scale, w, active & sub)[0] + ptol

    for group in _coupled_groups(mask):
        gp = [p for p in pairs if p[0] in group]
        fits.update(_fit_group(tv, ksym, gp, tolerance=tol, max_order=max_ord, order=order,
                               omega_max=float(w[-1]),
                               margin_of=group_margin))

    notes: list[str] = []

    def build() -> RadiationRealisation:
        flist = []
        for i in range(n):
            for j in range(n):
                key = (min(i, j), max(i, j))
                if key in fits:
                    f = fits[key]
                    flist.append(EntryFit(row=i, col=j, poles=f.poles, a=f.a, b=f.b, c=f.c,
                                          irf_error=f.irf_error, notes=f.notes,
                                          kind=f.kind))
        return RadiationRealisation(fits=flist, n=n, tolerance=tol, max_order=max_ord,
                                    asymmetry=float(np.max(asym, initial=0.0)), notes=notes)

    real = build()
    margin, w_bad, vec = _passivity(real, scale, w, active)
    if margin < -ptol:
        worst = _worst_pair(pairs, vec)
        if not repair:
            raise HydroDataError(
                f"state-space radiation is not passive: the realised damping B_ss(w) has a "
                f"negative eigenvalue {margin:.3e} (scaled; allowed -{ptol:g}) at "
                f"w = {w_bad:.4g} rad/s, carried most by entry {_entry_name(*worst)} "
                f"(order {fits[worst].order}); allow the passivity repair or change the order",
                value=worst,
            )
        real, before = _passivity_correction(real, scale, w, active, tol, worst)
        margin, w_bad, vec = _passivity(real, scale, w, active)
        notes.append(
            f"passivity repaired by the high-pass damping D s/(s + a) per DOF ({real.notes[-1]}):"
            f" smallest scaled eigenvalue {before:.2e} -> {margin:.2e}"
        )
        real.notes = notes
    real.passivity_margin = margin
    band = w <= ROUNDTRIP_BAND_FRACTION * w[-1]
    bss = real.damping(w[band])
    for f in real.fits:
        i, j = f.row, f.col
        if f.kind != "kernel":
            continue
        real.damping_error[(i, j)] = float(
            np.max(np.abs(bss[:, i, j] - bsym[band, i, j])) / math.sqrt(scale[i] * scale[j])
        )
    for f in real.fits:
        if np.any(f.poles.real >= 0.0):  # pragma: no cover - _stabilise guarantees it
            raise HydroDataError(f"entry {_entry_name(f.row, f.col)} is unstable",
                                 value=(f.row, f.col))
    return real


def realise_radiation(
    hd: HydroData,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    max_order: int = DEFAULT_MAX_ORDER,
    order: int | None = None,
    duration: float | None = None,
    delta: float | None = None,
    omega_max: float | None = None,
    taper: float = 0.0,
    passivity_tolerance: float = DEFAULT_PASSIVITY_TOLERANCE,
    repair: bool = True,
) -> RadiationRealisation:
    """Realise the radiation kernel of a body (see :func:`realise_kernel`).

    Parameters
    ----------
    hd
        Hydrodynamic data.
    tolerance, max_order, order, passivity_tolerance, repair
        As in :func:`realise_kernel`.
    duration
        Length of the kernel fitted, s; default: where it decays below 1e-3 of its
        maximum (:func:`hydrofmu.kernels.default_irf_time`, capped at 60 s).
    delta
        Sample spacing of the fitted kernel, s; default ``pi / (4 omega_max)`` (four
        samples per half period of the fastest oscillation in K).
    omega_max, taper
        As in :func:`hydrofmu.kernels.radiation_irf_from_arrays` (the same values as the
        convolution's, so that both model the same kernel).
    """
    w = np.asarray(hd.omega, dtype=float)
    wc = float(w[-1]) if omega_max is None else min(as_finite(omega_max, "omega_max"), w[-1])
    dl = math.pi / (4.0 * wc) if delta is None else as_finite(delta, "delta")
    if dl <= 0.0:
        raise ConfigError(f"delta={delta!r} s must be > 0", value=delta)
    grid = default_irf_time(hd, dl, duration, omega_max=omega_max, taper=taper)
    k = radiation_irf(hd, grid.t, omega_max=omega_max, taper=taper)
    return realise_kernel(
        k, grid.t, omega=w, damping=hd.radiation_damping, tolerance=tolerance,
        max_order=max_order, order=order, passivity_tolerance=passivity_tolerance,
        repair=repair,
    )


def kernel_from_arrays(
    omega: ArrayLike, damping: ArrayLike, *, duration: float, delta: float,
    omega_max: float | None = None, taper: float = 0.0,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(K, t)`` on ``0, delta, ..., duration`` from BEM arrays (multi-body kernels)."""
    n = max(8, round(as_finite(duration, "duration") / as_finite(delta, "delta")))
    t = np.arange(n + 1) * delta
    return radiation_irf_from_arrays(omega, damping, t, omega_max=omega_max, taper=taper), t
