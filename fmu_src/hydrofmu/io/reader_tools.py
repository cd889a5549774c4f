"""What the BEM file readers share (build time): the corrupt-file errors, the body
selection, the file check, the infinite-frequency added-mass estimate used when a file has
none, and the removal of failed frequencies.

The format readers (``bemio``, ``capytaine``, ``wamit``) and the
dispatcher (:mod:`hydrofmu.io.readers`) import from here; nothing here imports them.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import HydroDataError

# Measured in tests/test_readers.py::test_bemio_extrapolated_ainf_error: the estimate below
# applied to the WAMIT sphere examples/data/sphere_bemio.h5 (240 frequencies, 0.05-12
# rad/s) against the A_inf stated in that file. The value at the highest frequency is off
# by -1.2 % (surge, pitch) to +1.5 % (heave) there; the Ogilvie estimate by +0.57 % on
# every diagonal term.
OGILVIE_MEASURED_ERROR: str = (
    "+0.57 % on every diagonal term of the WAMIT sphere examples/data/sphere_bemio.h5 (the "
    "last-frequency value: -1.2 % to +1.5 %)"
)


class UnsupportedFormatError(HydroDataError, NotImplementedError):
    """A file format that is recognised but not (yet) supported."""


#: What a third-party parser (h5py, netCDF4, h5netcdf, xarray, a text parser) raises on a
#: truncated or corrupt file; :func:`read_hydro` turns them into a HydroDataError.
CORRUPT_FILE_ERRORS: tuple[type[BaseException], ...] = (
    OSError, RuntimeError, KeyError, ValueError, TypeError, IndexError, EOFError,
    OverflowError, UnicodeError, struct.error, zlib.error,
)


def check_file(path: str | Path) -> Path:
    """Return ``path`` as a :class:`Path` or raise if it is not an existing file."""
    p = Path(path)
    if not p.exists():
        raise HydroDataError(f"{p}: no such file", value=str(p))
    if not p.is_file():
        raise HydroDataError(f"{p}: not a file", value=str(p))
    return p


def select_body(available: Sequence[str], body: str | None, path: Path,
                aliases: Sequence[Sequence[str]] | None = None) -> int:
    """Index of the requested body among those of a file.

    Parameters
    ----------
    available
        Body names in the file's order.
    body
        Requested name, or ``None`` (only allowed when the file has one body).
    path
        The file, for the messages.
    aliases
        Other accepted names of each body (e.g. BEMIO's ``"body2"``), same order.

    Raises
    ------
    HydroDataError
        ``body`` is ``None`` with several bodies, or matches none of them; the message
        lists the available names.
    """
    listing = ", ".join(
        f"'{n}'" + (f" ({'/'.join(aliases[i])})" if aliases else "")
        for i, n in enumerate(available))
    if body is None:
        if len(available) == 1:
            return 0
        raise HydroDataError(
            f"{path}: the file holds {len(available)} bodies ({listing}); choose one with "
            "body=... (Python), --body (hydrofmu info) or hydro_body = ... (a [[bodies]] "
            "entry)", value=list(available))
    for i, n in enumerate(available):
        if body == n or (aliases and body in aliases[i]):
            return i
    raise HydroDataError(f"{path}: no body '{body}' in the file; available: {listing}",
                         value=body)


def estimate_added_mass_inf(
    omega: NDArray[np.float64],
    added_mass: NDArray[np.float64],
    damping: NDArray[np.float64],
) -> tuple[NDArray[np.float64], str]:
    """Estimate A_inf from A(omega) and B(omega) with Ogilvie's relation.

    ``A(w) = A_inf - (1/w) int_0^T K(t) sin(w t) dt`` with the radiation kernel
    ``K(t) = (2/pi) int_0^w_max B(w) cos(w t) dw`` (B taken as 0 at w = 0 and beyond the
    last frequency). Each frequency of the upper third of the range gives an estimate
    ``A(w) + (1/w) int K sin``; their mean is returned. The horizon ``T = min(pi / dw_min,
    200 s)`` stays below the alias period ``2 pi / dw`` of the discrete cosine transform;
    ``dt = pi / (4 w_max)``.

    Measured on the WAMIT sphere ``examples/data/sphere_bemio.h5``, whose file states
    A_inf: this estimate is +0.57 % off on every diagonal term, independent of T between 20
    and 200 s; the value at the highest frequency (the other usual choice) is off by -1.2 %
    to +1.5 %.

    Parameters
    ----------
    omega
        Frequencies, shape (nw,), rad/s, increasing, > 0.
    added_mass
        A(omega), shape (nw, n, n).
    damping
        B(omega), shape (nw, n, n).

    Returns
    -------
    a_inf
        Estimated A_inf, shape (n, n), units of ``added_mass``.
    note
        A sentence for :attr:`HydroData.notes` stating the method and its measured error.
    """
    w = np.asarray(omega, dtype=float)
    nw = w.size
    shape = added_mass.shape[1:]
    if nw < 3:
        return (added_mass[-1].copy(),
                f"A_inf extrapolated as A at the highest frequency ({w[-1]:.4g} rad/s): only "
                f"{nw} frequencies, too few for the Ogilvie estimate (error unknown, typically "
                "1-2 %)")
    b = damping.reshape(nw, -1)
    w0 = np.concatenate([[0.0], w])
    b0 = np.concatenate([np.zeros((1, b.shape[1])), b])
    wq = _trapezoid_weights(w0)                       # (nw+1,)
    t_end = min(np.pi / float(np.min(np.diff(w0))), 200.0)
    dt = np.pi / (4.0 * w[-1])
    t = np.arange(0.0, t_end + 0.5 * dt, dt)
    kernel = (2.0 / np.pi) * np.cos(np.outer(t, w0)) @ (wq[:, None] * b0)  # (nt, n*n)
    tq = _trapezoid_weights(t)
    upper = np.arange(nw - max(nw // 3, 1), nw)
    sin_int = np.sin(np.outer(w[upper], t)) @ (tq[:, None] * kernel)     # (nu, n*n)
    estimates = added_mass[upper].reshape(upper.size, -1) + sin_int / w[upper, None]
    a_inf = estimates.mean(axis=0).reshape(shape)
    note = (f"A_inf extrapolated (not in the file): Ogilvie estimate A(w) + (1/w) int_0^T K(t) "
            f"sin(w t) dt averaged over {upper.size} frequencies {w[upper[0]]:.4g}-{w[-1]:.4g} "
            f"rad/s, T = {t_end:.4g} s; measured error {OGILVIE_MEASURED_ERROR}")
    return a_inf, note


def _trapezoid_weights(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Weights q with ``sum(q * f) == trapezoid(f, x)``, shape (n,)."""
    q = np.zeros_like(x)
    dx = np.diff(x)
    q[:-1] += 0.5 * dx
    q[1:] += 0.5 * dx
    return q


def drop_failed_frequencies(
    omega: NDArray[np.float64], *arrays: NDArray
) -> tuple[NDArray[np.bool_], list[float]]:
    """Rows (frequencies) where any of ``arrays`` is NaN: a failed BEM problem.

    Returns
    -------
    keep
        Boolean mask, shape (nw,).
    dropped
        The dropped frequencies, rad/s.
    """
    bad = np.zeros(omega.size, dtype=bool)
    for arr in arrays:
        bad |= np.isnan(arr).reshape(omega.size, -1).any(axis=1)
    return ~bad, [float(x) for x in omega[bad]]
