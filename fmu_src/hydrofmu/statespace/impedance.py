"""State-space radiation fitted to the radiation impedance (build time; numpy only).

The option ``[radiation] ss_fit = "impedance"`` of the state-space radiation: instead of
the kernel ``K(t)`` (which is computed from ``B(w)`` alone, :mod:`hydrofmu.statespace.fit`),
every realised entry is fitted to the data's impedance in complex form,

    K(i w) = B(w) + i w (A(w) - A_inf),

so that the realisation honours both the added mass and the damping of the data at the
data's frequencies, with the file's ``A_inf`` (``K`` strictly proper: ``A_ss(inf) = A_inf``).

Why: ``A(w)`` rebuilt from ``B(w)`` (Kramers-Kronig, which a kernel of ``B`` realises) is
only as good as the sampling of ``B``. A resonance narrower than the frequency step (the
F3OF's gap resonances between the base and its flaps, 0.03 rad/s wide, one sample each on
a 0.1 rad/s grid) gets a wrong area, and every ``A(w)`` below it a wrong offset: the F3OF's
flaps' reduced pitch 6 % high at 0.42 rad/s. The BEM's ``A(w)`` at those frequencies is
right; a fit of both parts uses it.

Method: vector fitting (Gustavsen and Semlyen 1999) with common poles per coupled group
(as :func:`hydrofmu.statespace.fit.fit_group`: common poles keep exact linear relations of
the data, and the group's realised ``B`` positive semi-definite where the data's is):

1. start poles: complex pairs ``-w_k / 100 + i w_k`` spread evenly over the data's range;
2. per iteration, the weighted linear least-squares problem
   ``sigma(s) f(s) ~ p(s)``, ``sigma(s) = 1 + sum c~_k phi_k(s)``, ``p(s) = sum c_k phi_k(s)``
   (``phi`` the real modal basis of :func:`hydrofmu.statespace.fit.transfer_basis`), the
   unknowns ``c~`` common to the group's entries (each entry's own ``c`` eliminated by a
   QR factorisation); the new poles are the zeros of ``sigma``, the eigenvalues of
   ``a - b c~^T``; unstable ones are reflected, and each complex one is widened until a
   sample lies in its half-power band (:func:`_seen`);
3. with the poles fixed, each entry's residues by linear least squares, ``K_ss(0) = 0``
   (no damping at zero frequency) held exactly.

The real part (``B``) is weighted by ``1 / s_B`` and the imaginary part
(``w (A - A_inf)``) by ``1 / (w s_A)``, ``s_B``, ``s_A`` the DOFs' largest ``|B|`` and
``|A - A_inf|`` (:func:`entry_weights`): an entry's error is then the RMS over the data's
frequencies of the errors of ``B`` and of ``A`` relative to those scales
(:attr:`EntryFit.irf_error` holds it for these fits). With the impedance unweighted the
low frequencies, where a decay rings, would weigh as ``w`` and their added mass hardly
at all (measured on the F3OF: the flaps' ``A`` 26 % off at 0.1 rad/s). The order is the
first of :func:`order_ladder` up to ``ss_max_order`` that meets ``ss_tolerance`` for every
entry of the group, raised while the group's passivity margin is negative (as the kernel
fit does); the passivity check and repair are the kernel fit's
(:mod:`hydrofmu.statespace.passivity`). The entries realised are chosen on the impedance
(:func:`impedance_mask`).

Measured on the F3OF (``examples/f3of``, 42 frequencies 0.1 rad/s apart, gap
resonances one sample each): fitted on the DOFs that move in its decay test DT3 (the
flaps in the x-z plane, the base held) at ``ss_tolerance = 0.02``, the realisation is
passive (the kernel fit's repair, B changed by at most 0.9 % of the largest damping) and
the decay rings within 0.26 % and 0.20 % of the data's poles (the kernel of ``B``:
4.6 %). The whole device's sway-roll-yaw group is not passive between the samples above
2.5 rad/s (2-28 % of the largest damping, for every order from 24 to 56 states), beyond
what the repair may change: that realisation is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import HydroDataError
from .fit import (
    REALISATION_NEGLIGIBLE,
    EntryFit,
    entry_name,
    modal_matrices,
    pick_order,
    transfer_basis,
)

__all__ = [
    "STRONG_COUPLING",
    "VF_ITERATIONS",
    "entry_weights",
    "fit_group_impedance",
    "impedance",
    "impedance_mask",
    "impedance_residues",
    "vector_fit_poles",
]

#: Vector-fitting iterations per order (the poles settle in 5-10 on the bundled data).
VF_ITERATIONS: int = 20
#: Couplings smaller than this (the RMS over the data of ``A`` and ``B`` relative to the
#: DOFs' largest values, :func:`entry_weights`) are left out of the impedance fit, and
#: named in the report. The F3OF's surge-sway couplings, 1.4-2.1 % (zero by the device's
#: mirror symmetry: the mesh's asymmetry), would otherwise chain both planes' 15 DOFs into
#: one group whose common poles must hold every resonance of both: 70 states per entry
#: for 2 % (measured, against 30-48 per plane), and not passive between the samples.
STRONG_COUPLING: float = 0.05


def impedance(omega: NDArray[np.float64], added_mass: NDArray[np.float64],
              damping: NDArray[np.float64], added_mass_inf: NDArray[np.float64]
              ) -> NDArray[np.complex128]:
    """``K(i w) = B(w) + i w (A(w) - A_inf)``, shape (nw, n, n), N s/m ... .

    Parameters
    ----------
    omega
        Frequencies (nw,), rad/s.
    added_mass, damping
        ``A(w)`` and ``B(w)``, (nw, n, n), kg ... and N s/m ... .
    added_mass_inf
        ``A_inf`` (n, n), kg ... .
    """
    w = np.asarray(omega, dtype=float)[:, None, None]
    return np.asarray(damping, dtype=float) + 1j * w * (
        np.asarray(added_mass, dtype=float) - np.asarray(added_mass_inf, dtype=float)[None])


def _start_poles(omega: NDArray[np.float64], pairs: int) -> NDArray[np.complex128]:
    w = np.linspace(float(omega.min()), float(omega.max()), pairs)
    return -w / 100.0 + 1j * w


def _clean(z: NDArray[np.complex128]) -> NDArray[np.complex128]:
    """One pole per real root and per conjugate pair (``Im > 0``), in the left half-plane."""
    z = np.where(z.real > 0.0, -z.real + 1j * z.imag, z)
    real = np.abs(z.imag) <= 1e-9 * np.maximum(np.abs(z), 1e-300)
    out = np.concatenate([z[real].real.astype(complex), z[~real & (z.imag > 0.0)]])
    # a pole exactly on the axis: a tiny damping relative to its frequency
    on_axis = out.real == 0.0
    out[on_axis] = -(1e-3 * np.abs(out[on_axis]) + 1e-6) + 1j * out[on_axis].imag
    return out


def _seen(poles: NDArray[np.complex128], omega: NDArray[np.float64]
          ) -> NDArray[np.complex128]:
    """The poles, each complex one widened until a sample lies in its half-power band:
    ``|Re p| >= min_k |Im p - omega_k|``. A peak that falls between the samples is not
    seen by them: its height there is free, and the fit makes it as tall as it likes
    (measured on the F3OF: a realised damping of -35 times the largest one between two
    samples). A resonance the data sampled (the F3OF's gap resonances, one sample each)
    keeps its width."""
    near = np.min(np.abs(poles.imag[:, None] - omega[None, :]), axis=1)
    real = np.where(poles.imag > 0.0, np.minimum(poles.real, -near), poles.real)
    return real + 1j * poles.imag


def entry_weights(omega: NDArray[np.float64], kw: NDArray[np.complex128], i: int, j: int
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The weights of the real and imaginary parts of entry ``(i, j)`` (each (nw,)):
    ``1 / s_B`` and ``1 / (w s_A)``, ``s_B = sqrt(max|B_ii| max|B_jj|)`` and ``s_A`` the
    same of ``|A - A_inf|``, over ``sqrt(2 nw)``: a weighted residual's norm is then the
    RMS over the frequencies of the errors of ``B`` and of ``A`` relative to the DOFs'
    largest values."""
    w = np.asarray(omega, dtype=float)
    b = np.max(np.abs(kw.real), axis=0)
    a = np.max(np.abs(kw.imag / w[:, None, None]), axis=0)
    sb = float(np.sqrt(b[i, i] * b[j, j]))
    sa = float(np.sqrt(a[i, i] * a[j, j]))
    root = float(np.sqrt(2.0 * w.size))
    return np.full(w.size, 1.0 / (root * sb)), 1.0 / (root * sa * w)


def _rows(z: NDArray[np.complex128], wr: NDArray[np.float64], wi: NDArray[np.float64]
          ) -> NDArray[np.float64]:
    """Weighted real rows ``[Re z * wr; Im z * wi]`` of ``z`` (nw, ...)."""
    shape = (-1,) + (1,) * (z.ndim - 1)
    return np.concatenate([z.real * wr.reshape(shape), z.imag * wi.reshape(shape)])


def vector_fit_poles(omega: NDArray[np.float64], responses: NDArray[np.complex128],
                     weights: list[tuple[NDArray[np.float64], NDArray[np.float64]]],
                     pairs: int, iterations: int = VF_ITERATIONS) -> NDArray[np.complex128]:
    """Common poles of the columns of ``responses`` (nw, k) by vector fitting.

    Parameters
    ----------
    omega
        Frequencies (nw,), rad/s.
    responses
        The entries' samples ``f_k(i w)``, (nw, k).
    weights
        Per entry, the weights of the real and imaginary parts (:func:`entry_weights`).
    pairs
        Number of complex pole pairs to start from (the order is ``2 pairs``).
    iterations
        Pole relocations.

    Returns
    -------
    numpy.ndarray
        The poles, 1/s: one per real pole, one (``Im > 0``) per complex pair, all with
        ``Re < 0`` and seen by the data (:func:`_seen`).
    """
    poles = _start_poles(omega, pairs)
    for _ in range(iterations):
        phi = transfer_basis(omega, poles)
        m = phi.shape[1]
        rows, rhs = [], []
        for f, (wr, wi) in zip(responses.T, weights, strict=True):
            lhs = _rows(np.hstack([phi, -phi * f[:, None]]), wr, wi)
            q, r = np.linalg.qr(lhs)
            y = q.T @ _rows(f, wr, wi)
            rows.append(r[m:, m:])
            rhs.append(y[m:])
        ct, *_ = np.linalg.lstsq(np.vstack(rows), np.concatenate(rhs), rcond=None)
        a, b = modal_matrices(poles)
        new = _seen(_clean(np.linalg.eigvals(a - np.outer(b, ct))), omega)
        if new.size == 0 or not np.all(np.isfinite(new)):
            break
        poles = new
    return poles


def impedance_residues(omega: NDArray[np.float64], f: NDArray[np.complex128],
                       poles: NDArray[np.complex128], wr: NDArray[np.float64],
                       wi: NDArray[np.float64]) -> NDArray[np.float64]:
    """The real residues ``c`` of one entry for fixed ``poles``: weighted least squares
    of ``transfer_basis(omega, poles) @ c ~ f`` (``wr``, ``wi``: the weights of the real
    and imaginary parts, :func:`entry_weights`), with ``K_ss(0) = 0`` held exactly."""
    phi = transfer_basis(omega, poles)
    g = transfer_basis(np.zeros(1), poles)[0].real
    null = np.linalg.svd(g[None, :])[2][1:].T
    if null.shape[1] == 0:
        return np.zeros(g.size)
    z, *_ = np.linalg.lstsq(_rows(phi, wr, wi) @ null, _rows(f, wr, wi), rcond=None)
    return null @ z


def order_ladder(max_order: int) -> list[int]:
    """The orders tried, smallest first: 2, 4, .., 10, then about 25 % more each (a
    group of many DOFs needs tens of states; every order is a vector fit of its own)."""
    out = [2]
    while out[-1] < max_order:
        out.append(min(max_order, out[-1] + max(2, 2 * round(out[-1] / 8))))
    return out


def _entry_fits(omega: NDArray[np.float64], kw: NDArray[np.complex128],
                pairs: list[tuple[int, int]], poles: NDArray[np.complex128]
                ) -> dict[tuple[int, int], EntryFit]:
    a, b = modal_matrices(poles)
    basis = transfer_basis(omega, poles)
    fits = {}
    for i, j in pairs:
        f = kw[:, i, j]
        wr, wi = entry_weights(omega, kw, i, j)
        c = impedance_residues(omega, f, poles, wr, wi)
        err = float(np.linalg.norm(_rows(basis @ c - f, wr, wi)))
        fits[(i, j)] = EntryFit(row=i, col=j, poles=poles, a=a, b=b, c=c, irf_error=err,
                                notes=("fitted to the impedance",))
    return fits


def fit_group_impedance(
    omega: NDArray[np.float64], kw: NDArray[np.complex128], pairs: list[tuple[int, int]],
    *, tolerance: float, max_order: int, order: int | None, margin_of: Any = None,
) -> dict[tuple[int, int], EntryFit]:
    """Fit every entry of a coupled group to the impedance with common poles.

    Parameters
    ----------
    omega
        The data's frequencies (nw,), rad/s.
    kw
        The symmetrised impedance ``K(i w)`` (nw, n, n) (:func:`impedance`).
    pairs
        The group's entries ``(i, j)``, ``i <= j``.
    tolerance, max_order, order, margin_of
        As in :func:`hydrofmu.statespace.fit.fit_group`; the error is the RMS of the
        errors of ``A`` and ``B`` relative to the DOFs' largest values (module docstring).

    Raises
    ------
    HydroDataError
        No order up to ``max_order`` meets ``tolerance``; the message names the entry.
    """
    w = np.asarray(omega, dtype=float)
    weights = [entry_weights(w, kw, i, j) for i, j in pairs]
    responses = np.column_stack([kw[:, i, j] for i, j in pairs])
    orders = [order] if order is not None else order_ladder(max_order)

    def fit_at(r: int) -> dict[tuple[int, int], EntryFit]:
        return _entry_fits(w, kw, pairs, vector_fit_poles(w, responses, weights,
                                                          max(1, r // 2)))

    fits, bad = pick_order(orders, fit_at, order is not None, tolerance, margin_of)
    if bad is None:
        return fits
    raise HydroDataError(
        f"state-space radiation fitted to the impedance: entry {entry_name(bad.row, bad.col)}"
        f" reaches only {bad.irf_error:.3g} RMS relative error of A(w), B(w) with up to "
        f"{max_order} states, above ss_tolerance={tolerance:g}; raise radiation.ss_max_order"
        " or loosen radiation.ss_tolerance", value=(bad.row, bad.col))


def impedance_mask(omega: NDArray[np.float64], kw: NDArray[np.complex128],
                   moving: NDArray[np.bool_] | None = None) -> NDArray[np.bool_]:
    """The entries realised: the diagonal of every moving DOF whose peak of
    ``|K(i w)| / w = |A - A_inf - i B / w|`` (kg, kg m^2) is at least
    :data:`hydrofmu.statespace.fit.REALISATION_NEGLIGIBLE` of the largest of its kind on
    its body (the kernel's rule, :func:`hydrofmu.statespace.fit.drop_noise`, on the
    impedance and per body: the kernel sees ``B`` alone and would leave out a deep body's
    heave, whose damping is small but whose added mass is not; and a flap's heave is not
    noise beside its base's surge), and the couplings of those whose size (RMS of ``A``
    and ``B`` relative to the DOFs' largest values, :func:`entry_weights`) is at least
    :data:`STRONG_COUPLING`.

    ``moving`` (n,): the DOFs that can move (the bodies' free DOFs). A DOF that cannot
    has no velocity to radiate and needs no force, so it is not fitted.
    """
    w = np.asarray(omega, dtype=float)
    diag = np.diag(np.max(np.abs(kw) / w[:, None, None], axis=0)).copy()
    n = diag.size
    live = np.ones(n, dtype=bool) if moving is None else np.asarray(moving, dtype=bool).copy()
    for start in range(0, n, 6):
        for kind in (slice(start, start + 3), slice(start + 3, min(n, start + 6))):
            live[kind] &= diag[kind] >= REALISATION_NEGLIGIBLE * diag[kind].max(initial=0.0)
    keep = np.diag(live).copy()
    for i, j in zip(*np.nonzero(np.triu(np.outer(live, live), 1)), strict=True):
        size = float(np.linalg.norm(_rows(kw[:, i, j], *entry_weights(w, kw, i, j))))
        keep[i, j] = keep[j, i] = size >= STRONG_COUPLING
    return keep
