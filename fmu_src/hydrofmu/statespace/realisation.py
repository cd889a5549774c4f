"""State-space realisation of the radiation kernel (build/export time; scipy allowed).

Every radiation kernel entry ``K_ij(t)`` that is not numerical noise (every DOF pair of an
n x n kernel, cross-body blocks included) is realised as a stable, strictly proper SISO
system whose impulse response approximates it::

    K_ij(t) ~ c_ij^T exp(A_ij t) b_ij,      K_ij,ss(s) = c_ij^T (s I - A_ij)^-1 b_ij,

so that ``F_rad,i(t) = -sum_j c_ij^T x_ij(t)`` with ``x_ij' = A_ij x_ij + b_ij v_j``.
The run-time side is :class:`hydrofmu.runtime.forces.radiation_ss.StateSpaceRadiation`.

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
   ``K_ss(s=0) = 0`` (``B(0) = 0``) is imposed as an exact linear constraint.
3. The order ``r`` is the smallest in ``2 .. max_order`` whose relative L2 error of the
   IRF ``||K_ss - K|| / ||K||`` on the kernel's time grid is at most ``tolerance`` for
   every entry of the coupled group (see below); the passivity check may raise it.

ERA sees the kernel at ``delta = pi / (4 omega_max)`` and its first ``2 HANKEL_ROWS``
samples (the SVD is the whole cost: 80 rows keep it under a second per group); the
residues are fitted on the whole kernel. The kernel is the convolution's own
(:func:`hydrofmu.runtime.irf.transforms.radiation_irf`, same ``omega_max``, ``taper``, duration).

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

The option ``ss_fit = "impedance"`` fits the same realisation to ``K(iw)`` instead, by
vector fitting (:mod:`hydrofmu.statespace.impedance`): for data whose ``B`` is too coarsely
sampled for the kernel to rebuild ``A`` (resonances narrower than the frequency step).

The price: ERA fits the *truncated, band-limited* kernel (B cut at ``omega_max``), so the
realisation also reproduces part of the Gibbs ripple of the hard cut (use ``taper``), and
its B(w) beyond the data range is whatever the fitted poles give. Both are measured: the
report gives, per entry, the B(w) error against the BEM data on its frequency range, and
the passivity check covers a dense grid far beyond it.

Checks and repairs
------------------
- *Common poles per coupled group*: the DOFs linked by non-negligible entries (for one
  axisymmetric body: surge-pitch, sway-roll, heave) share one pole set, from ERA on the
  stacked Hankel matrices of the group's entries; each entry has its own residues.
  Entries with the same poles and the same input velocity share their states in the
  assembled system (one block per group and radiating DOF, several output rows).
  The surge-pitch block of B(w) of an axisymmetric body has rank one
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
  raised (up to ``max_order``, keeping the best margin); what remains is repaired
  (:func:`hydrofmu.statespace.passivity.repair_passivity`), or refused with
  :class:`~hydrofmu.runtime.errors.HydroDataError` naming the entry when ``repair=False``:

  1. violations from half the data's last frequency up (the realisation continues the
     Gibbs ripple of the hard cut of B at ``omega_max``: -1 % of the largest damping on
     the default sphere, whose B is cut at 5 rad/s while still large) are lifted by a
     passive high-pass damping ``D s / (s + a)`` per DOF with its pole ``a`` there,
     above the wave band, so that the low-frequency added mass it adds, ``D / a``,
     stays small;
  2. the violations below (in the wave band: -0.1 to -0.3 %, where the surge-pitch
     block is nearly singular and the fit's 0.5 % errors make it indefinite) are
     removed by perturbing the residues: the smallest change of each entry's impulse
     response, within the entry's IRF tolerance, with ``B_ss(0) = 0`` kept
     (:func:`hydrofmu.statespace.passivity.enforce_passivity`, the standard passivity
     enforcement);
  3. a coupled group whose residues cannot be moved within the tolerance gets the
     high-pass damping on its own DOFs with the pole below its violations (the
     previous repair, whose ``D / a`` adds 4-7 % to the surge zero-frequency mass).

  When the BEM damping itself is not passive beyond ``ss_tolerance`` (its smallest
  scaled eigenvalue on the data's frequencies; RM3's coupled surge-pitch block, 4-digit
  WAMIT data: -3.9 %), the realisation is allowed 1.5 times that, so that it models the
  same kernel as the convolution; the report says so.
- *Noise*: entries below ``REALISATION_NEGLIGIBLE`` (1 %) of ``sqrt(peak_ii peak_jj)``,
  and DOFs below 1 % of the largest of their kind, are left out of the realisation
  (listed in the report): the rounding noise of 4-digit WAMIT data (RM3's yaw) would
  otherwise chain every DOF into one group of unfittable entries.

  The report states each step and the measured changes of B(w) and of
  ``A_ss(0) - A_inf``. Measured (default tolerance): default sphere B(w) changed by at
  most 1.2 % of the largest damping, BEMIO sphere 0.2 %, Capytaine cylinder 0.7 %
  (its sway-roll group takes step 3).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..runtime.errors import ConfigError, HydroDataError, as_finite
from ..runtime.forces.radiation import active_pairs
from ..runtime.hydrodata.model import HydroData
from ..runtime.irf.checks import ROUNDTRIP_BAND_FRACTION
from ..runtime.irf.transforms import radiation_irf
from .fit import (
    REALISATION_NEGLIGIBLE,
    EntryFit,
    check_realisation_settings,
    coupled_groups,
    drop_noise,
    entry_name,
    fit_entry,
    fit_group,
)
from .impedance import fit_group_impedance, impedance_mask
from .impedance import impedance as impedance_of
from .irf_duration import default_irf_time
from .model import PASSIVITY_REPAIR_LIMIT, RadiationRealisation, passivity, worst_pair
from .passivity import data_margin, repair_passivity

__all__ = [
    "DEFAULT_MAX_ORDER",
    "DEFAULT_PASSIVITY_TOLERANCE",
    "DEFAULT_TOLERANCE",
    "PASSIVITY_REPAIR_LIMIT",
    "EntryFit",
    "RadiationRealisation",
    "fit_entry",
    "realise_kernel",
    "realise_radiation",
]

DEFAULT_TOLERANCE: float = 0.01
#: Default largest order (states) per entry. WEC-Sim's BEMIO allows up to 10; the bundled
#: bodies need 2-8 at 1 % (see the report).
DEFAULT_MAX_ORDER: int = 10
#: Default passivity tolerance: smallest allowed eigenvalue of the scaled realised damping
#: ``D^-1/2 B_ss(w) D^-1/2`` (1 = the largest BEM damping of the DOF). 1e-9 is round-off of
#: the assembly (sums of ~10 residue terms of order 1, double precision) with a wide margin.
DEFAULT_PASSIVITY_TOLERANCE: float = 1e-9


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
    impedance: ArrayLike | None = None,
    moving: ArrayLike | None = None,
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
        If given, every coupled group gets this ERA order (no tolerance check, no order
        raise for passivity): to study or test a too-low order. Stability and passivity
        are still checked (and repaired unless ``repair=False``).
    passivity_tolerance
        Allowed negative eigenvalue of the scaled realised damping, see
        :data:`DEFAULT_PASSIVITY_TOLERANCE`.
    repair
        Repair a non-passive realisation (default; see the module docstring);
        ``False`` refuses it instead.
    impedance
        ``K(i w)`` at ``omega`` (nw, n, n) (``ss_fit = "impedance"``): the entries are
        chosen from it and fitted to it (:mod:`hydrofmu.statespace.impedance`).
    moving
        With ``impedance``: the DOFs that can move (n,), the others not fitted.

    Returns
    -------
    RadiationRealisation

    Raises
    ------
    HydroDataError
        An entry that does not reach ``tolerance`` within ``max_order``, or a realisation
        that is not passive and cannot be repaired; the message names the entry.
    """
    tol, max_ord = check_realisation_settings(tolerance, max_order, order)
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
    was = active_pairs(kv)
    kv, dropped = drop_noise(kv)
    n = kv.shape[1]
    mask = active_pairs(kv)
    # report only what the convolution keeps and the realisation leaves out
    dropped = [entry_name(i, j) for i in range(n) for j in range(i, n)
               if was[i, j] and not mask[i, j]]
    mask = mask | mask.T
    peak = np.max(np.abs(kv), axis=0)
    dscale = np.sqrt(np.outer(np.diag(peak), np.diag(peak)))
    with np.errstate(invalid="ignore", divide="ignore"):
        asym = np.where(mask, np.abs(kv - np.swapaxes(kv, 1, 2)).max(axis=0) / dscale, 0.0)
    ksym = 0.5 * (kv + np.swapaxes(kv, 1, 2))
    bsym = 0.5 * (bw + np.swapaxes(bw, 1, 2))
    if impedance is not None:
        kw = np.asarray(impedance, dtype=complex)
        kw = 0.5 * (kw + np.swapaxes(kw, 1, 2))
        mask = impedance_mask(w, kw, moving)
        dropped = [entry_name(i, j) for i in range(n) for j in range(i, n)
                   if was[i, j] and not mask[i, j]]

    fits: dict[tuple[int, int], EntryFit] = {}
    pairs = [(i, j) for i in range(n) for j in range(i, n) if mask[i, j]]
    scale = np.diag(np.max(np.abs(bw), axis=0)).copy()
    active = np.diag(mask).copy() & (scale > 0.0)

    own_note = ""
    own = data_margin(bsym, scale, active)
    if own < -tol:
        # the data itself is not passive beyond the identification's tolerance (RM3's
        # coupled surge-pitch block: -3.9 %): the realisation may be as little passive
        # as the data (x 1.5: the dense grid sees between the data's frequencies), so
        # that it models the same kernel as the convolution; said in the report
        ptol = ptol - 1.5 * own
        own_note = (f"the BEM damping itself is not passive: smallest scaled eigenvalue "
                     f"{own:.3e} on the data's frequencies; the realisation is allowed "
                     f"{-ptol:.3e}")

    def group_margin(gfits: dict[tuple[int, int], EntryFit]) -> float:
        flist = list(gfits.values())
        flist += [EntryFit(row=f.col, col=f.row, poles=f.poles, a=f.a, b=f.b, c=f.c,
                           irf_error=f.irf_error) for f in flist if f.row != f.col]
        trial = RadiationRealisation(fits=flist, n=n, tolerance=tol, max_order=max_ord)
        sub = np.zeros(n, dtype=bool)
        for f in flist:
            sub[f.row] = True
        return passivity(trial, scale, w, active & sub)[0] + ptol

    for group in coupled_groups(mask):
        gp = [p for p in pairs if p[0] in group]
        fits.update(fit_group(tv, ksym, gp, tolerance=tol, max_order=max_ord, order=order,
                              omega_max=float(w[-1]), margin_of=group_margin)
                    if impedance is None else fit_group_impedance(
                        w, kw, gp, tolerance=tol, max_order=max_ord, order=order,
                        margin_of=group_margin))

    notes: list[str] = [own_note] if own_note else []
    if impedance is not None:
        notes.append("fitted to the impedance K(iw) (ss_fit): 'IRF err' is the RMS of the "
                     "errors of A and B relative to their largest values")
    if dropped:
        notes.append(f"left out as noise (peak below {REALISATION_NEGLIGIBLE:g} of its "
                     f"diagonal scale, or a DOF below {REALISATION_NEGLIGIBLE:g} of the "
                     f"largest of its kind): {', '.join(dropped)}")

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
    margin, w_bad, vec = passivity(real, scale, w, active)
    if margin < -ptol:
        worst = worst_pair(pairs, vec)
        if not repair:
            raise HydroDataError(
                f"state-space radiation is not passive: the realised damping B_ss(w) has a "
                f"negative eigenvalue {margin:.3e} (scaled; allowed -{ptol:g}) at "
                f"w = {w_bad:.4g} rad/s, carried most by entry {entry_name(*worst)} "
                f"(order {fits[worst].order}); allow the passivity repair or change the order",
                value=worst,
            )
        real, margin = repair_passivity(
            real, fits, build, notes, mask=mask, active=active, scale=scale, omega=w, t=tv,
            ksym=ksym, tolerance=tol, passivity_tolerance=ptol, worst=worst)
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
            raise HydroDataError(f"entry {entry_name(f.row, f.col)} is unstable",
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
    fit: str = "kernel",
    moving: ArrayLike | None = None,
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
        maximum (:func:`hydrofmu.statespace.irf_duration.default_irf_time`, capped at 60 s).
    delta
        Sample spacing of the fitted kernel, s; default ``pi / (4 omega_max)`` (four
        samples per half period of the fastest oscillation in K).
    omega_max, taper
        As in :func:`hydrofmu.runtime.irf.transforms.radiation_irf_from_arrays` (the same values as
        the convolution's, so that both model the same kernel).
    fit
        ``"kernel"`` or ``"impedance"`` (``ss_fit``: fitted to ``B + i w (A - A_inf)``,
        the DOFs that can move, ``moving`` (6,), alone).
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
        repair=repair, impedance=None if fit == "kernel" else impedance_of(
            w, hd.added_mass, hd.radiation_damping, hd.added_mass_inf), moving=moving)
