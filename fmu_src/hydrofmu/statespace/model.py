"""The assembled state-space realisation of a radiation kernel and its passivity check
(build time). See :mod:`hydrofmu.statespace`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..runtime.errors import HydroDataError
from ..runtime.forces.radiation_ss import StateSpaceRadiation
from .fit import EntryFit, entry_name

#: The repair asks for scaled eigenvalues >= this margin, see :func:`passivity_correction`.
REPAIR_MARGIN: float = 1e-6
#: Largest change of B(w) on the data's range, relative to each DOF's largest damping,
#: that the passivity repair may make (at the top of the range; in the wave band, below
#: a, it is under a fifth of that). Measured need: 0.2-0.3 % (BEMIO sphere, Capytaine
#: cylinder), 1.0 % (default sphere, whose B is cut at 5 rad/s while still large).
PASSIVITY_REPAIR_LIMIT: float = 0.02
#: The passivity grid extends to this multiple of ``max(omega_max, fastest |pole|)``.
PASSIVITY_SPAN: float = 20.0
#: Number of points of the passivity grid (log-spaced plus the BEM frequencies).
PASSIVITY_POINTS: int = 2000


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
    def _state_blocks(self) -> list[tuple[EntryFit, list[EntryFit]]]:
        """Entries that share poles and input (same group, same radiating DOF) share
        their states: one block per (pole set, input), with every entry's output row."""
        blocks: dict[tuple[int, bytes], tuple[EntryFit, list[EntryFit]]] = {}
        for f in self.fits:
            key = (f.col, f.poles.tobytes())
            if key in blocks:
                blocks[key][1].append(f)
            else:
                blocks[key] = (f, [f])
        return list(blocks.values())

    @property
    def n_states(self) -> int:
        """Number of states of the assembled system (shared states counted once)."""
        return sum(first.order for first, _ in self._state_blocks())

    def matrices(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Dense ``A`` (ns, ns), ``B`` (ns, n), ``C`` (n, ns): ``x' = A x + B v``,
        ``F_rad = -C x - D v`` (``D`` = :attr:`feedthrough`). Block diagonal ``A``; for
        large models use :meth:`runtime`."""
        ns = self.n_states
        a = np.zeros((ns, ns))
        b = np.zeros((ns, self.n))
        c = np.zeros((self.n, ns))
        k = 0
        for first, members in self._state_blocks():
            r = first.order
            a[k : k + r, k : k + r] = first.a
            b[k : k + r, first.col] = first.b
            for f in members:
                c[f.row, k : k + r] += f.c
            k += r
        return a, b, c

    def runtime_arrays(self) -> dict[str, Any]:
        """The sparse arrays of :class:`StateSpaceRadiation` (see there)."""
        diag, off, partner, bvec, inp = [], [], [], [], []
        cvec, out, ostate = [], [], []
        k = 0
        for first, members in self._state_blocks():
            r = first.order
            for q in range(r):
                diag.append(first.a[q, q])
                # the modal form has at most one off-diagonal entry per row
                nz = [p for p in range(r) if p != q and first.a[q, p] != 0.0]
                off.append(first.a[q, nz[0]] if nz else 0.0)
                partner.append(k + (nz[0] if nz else q))
                bvec.append(first.b[q])
                inp.append(first.col)
                for f in members:
                    if f.c[q] != 0.0:
                        cvec.append(f.c[q])
                        out.append(f.row)
                        ostate.append(k + q)
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
            "output_states": np.array(ostate, dtype=np.intp),
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
        """``K_ss(i w) = C (i w I - A)^-1 B + D = B_ss(w) + i w (A_ss(w) - A_inf)``, shape
        (nw, n, n), the feed-through ``D`` included."""
        w = np.atleast_1d(np.asarray(omega, dtype=float))
        out = np.zeros((w.size, self.n, self.n), dtype=complex)
        for f in self.fits:
            out[:, f.row, f.col] += f.transfer(w)
        return out + np.diag(self.feedthrough)[None]

    def damping(self, omega: ArrayLike) -> NDArray[np.float64]:
        """Realised ``B_ss(w) = Re K_ss(i w)`` (with ``D``), shape (nw, n, n), N s/m ..."""
        return self.transfer(omega).real

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
                "name": entry_name(f.row, f.col),
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


def passivity_grid(real: RadiationRealisation, omega: NDArray[np.float64]) -> NDArray[np.float64]:
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


def scaled_eig(
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


def passivity(
    real: RadiationRealisation, scale: NDArray[np.float64], omega: NDArray[np.float64],
    active: NDArray[np.bool_],
) -> tuple[float, float, NDArray[np.float64]]:
    """Smallest scaled eigenvalue, the frequency where it occurs, its eigenvector."""
    grid = passivity_grid(real, omega)
    real.passivity_grid = grid
    ev, vec = scaled_eig(real, scale, grid, active)
    k = int(np.argmin(ev[:, 0]))
    full = np.zeros(real.n)
    full[np.flatnonzero(active)] = vec[k, :, 0]
    return float(ev[k, 0]), float(grid[k]), full


def passivity_correction(
    real: RadiationRealisation, scale: NDArray[np.float64], omega: NDArray[np.float64],
    active: NDArray[np.bool_], tol: float, worst: tuple[int, int], *,
    above: float | None = None,
) -> tuple[RadiationRealisation, float]:
    """Add ``K_c(s) = D s / (s + a)`` on the diagonal, ``D = delta diag(scale)``.

    With ``above`` (rad/s, the data's last frequency), only the violations at and above
    it are lifted, with the pole above the wave band at ``a = above``: the
    low-frequency added mass it adds, ``D / a``, is then small (the in-band violations
    are left to :func:`hydrofmu.statespace.passivity.enforce_passivity`). Without it
    (the fallback), ``a`` is half the lowest violating frequency.

    ``Re K_c(iw) = D w^2 / (w^2 + a^2) >= 0`` (positive real, so passive by itself), ~0
    below ``a`` and ~``D`` above: it lifts the scaled eigenvalues by
    ``delta w^2 / (w^2 + a^2)`` where they are negative (mostly just above
    ``omega_max``) while leaving the wave band almost untouched. ``a`` is half the lowest
    violating frequency, ``delta`` the smallest that clears every violation on the grid.
    Realised as a feed-through ``D`` plus one state per DOF: ``D - D a / (s + a)``.
    """
    grid = passivity_grid(real, omega)
    ev, _ = scaled_eig(real, scale, grid, active)
    lmin = ev[:, 0]
    bad = (lmin < 0.0) & (grid > 0.0)
    before = float(lmin.min())
    if not bad.any():
        return real, before
    if above is not None:
        bad &= grid >= above
        wv = float(grid[bad].min()) if bad.any() else float(above)
        a = float(above)
    else:
        # the significant violations (round-off-level ones near w = 0, where B_ss ~
        # -k w^2, cost only k a^2 and do not set a)
        wv = float(grid[bad & (lmin < 0.1 * before)].min())
        a = 0.5 * wv
    # 2 % slack: the grid samples the eigenvalue curve; between its points the minimum
    # can be a little deeper (measured: 0.3 % of delta on a 10x finer grid)
    delta = 1.02 * float(np.max(-lmin[bad] * (grid[bad] ** 2 + a * a) / grid[bad] ** 2,
                                initial=0.0))
    delta += REPAIR_MARGIN
    in_band = delta * omega.max() ** 2 / (omega.max() ** 2 + a * a)
    if in_band > PASSIVITY_REPAIR_LIMIT:
        raise HydroDataError(
            f"state-space radiation is not passive: the realised damping B_ss(w) has a "
            f"negative eigenvalue {before:.3e} (scaled) from w = {wv:.4g} rad/s, carried "
            f"most by entry {entry_name(*worst)}; the repair would change B(w) by "
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
                               feedthrough=real.feedthrough
                               + np.where(active, delta * scale, 0.0),
                               notes=[f"delta = {delta:.3g}, a = {a:.4g} rad/s, B(w) changed"
                                      f" by at most {in_band:.3g} of the largest damping "
                                      "on the data's range"])
    return out, before


def worst_pair(pairs: list[tuple[int, int]], vec: NDArray[np.float64]) -> tuple[int, int]:
    return max(pairs, key=lambda p: abs(vec[p[0]] * vec[p[1]]))
