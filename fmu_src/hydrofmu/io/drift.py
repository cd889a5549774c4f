"""Second-order wave-load data: mean drift coefficients and QTFs (build time).

The readers (:mod:`~hydrofmu.io.wamit_drift`, :mod:`~hydrofmu.io.nemoh_qtf`,
:mod:`~hydrofmu.io.bemio_drift`) return these records, dimensional and in SI units, with the
project's conventions (docs/ARCHITECTURE.md "Conventions"):

- DOF order surge, sway, heave, roll, pitch, yaw about the body reference point of the file;
- wave directions in radians, the direction the waves travel to (0 = along +x);
- time dependence ``e^{+i omega t}``.

Mean drift. In a regular wave of amplitude ``A`` (m), frequency ``omega`` and heading
``beta`` the time-averaged load is ``F_mean = A**2 * D(omega, beta)``, so ``D`` is in N/m^2
(forces) and N m/m^2 = N/m (moments).

QTF. For a sea ``eta(t) = Re(sum_i a_i exp(i omega_i t))`` (complex amplitudes ``a_i`` in m,
all at one heading pair) the second-order load is::

    F2(t) = Re( sum_i sum_j a_i conj(a_j) Qm(omega_i, omega_j) exp(i (omega_i - omega_j) t) )
          + Re( sum_i sum_j a_i a_j       Qp(omega_i, omega_j) exp(i (omega_i + omega_j) t) )

(the double sums over all i, j), so ``Qm`` and ``Qp`` are in N/m^2 and N/m like ``D``.
The difference QTF is Hermitian, ``Qm(w2, w1) = conj(Qm(w1, w2))``, the sum QTF symmetric;
its diagonal ``Qm(w, w)`` (real) is the mean drift ``D(w)`` of a regular wave.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import HydroDataError
from ..runtime.hydrodata.model import DOF_NAMES

__all__ = ["DRIFT_METHODS", "QTF", "MeanDrift", "assemble_qtf"]

#: Names of the ways a BEM code computes the mean drift: WAMIT's ``.8`` (``momentum``,
#: far field: surge, sway, yaw only), ``.9`` (``pressure``, near field) and ``.7``
#: (``control_surface``), and a QTF's diagonal (``qtf_diagonal``).
DRIFT_METHODS: tuple[str, ...] = ("momentum", "pressure", "control_surface", "qtf_diagonal")


@dataclass(frozen=True, kw_only=True)
class MeanDrift:
    """Mean drift coefficients of one body, dimensional.

    Attributes
    ----------
    omega
        Angular frequencies, shape (nw,), rad/s, strictly increasing, > 0.
    direction
        Wave headings, shape (nb,), rad (direction of travel).
    values
        ``D(omega, beta)``, shape (nw, nb, 6), real: N/m^2 for surge, sway, heave, N/m for
        roll, pitch, yaw (load per squared wave amplitude). NaN where the source has no
        value (the momentum method gives surge, sway and yaw only).
    method
        One of :data:`DRIFT_METHODS`.
    rho
        Water density used to make the values dimensional, kg/m^3.
    g
        Gravitational acceleration, m/s^2.
    source
        Path or description of the file read.
    notes
        Remarks made while reading (normalisation undone, rows dropped).
    """

    omega: NDArray[np.float64]
    direction: NDArray[np.float64]
    values: NDArray[np.float64]
    method: str
    rho: float
    g: float
    source: str = ""
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        nw, nb = self.omega.size, self.direction.size
        if self.values.shape != (nw, nb, 6):
            raise HydroDataError(f"{self.source}: mean drift values have shape "
                                 f"{self.values.shape}, expected ({nw}, {nb}, 6)",
                                 value=self.values.shape)
        if self.method not in DRIFT_METHODS:
            raise HydroDataError(f"unknown mean drift method {self.method!r}; one of "
                                 f"{DRIFT_METHODS}", value=self.method)

    @property
    def dofs(self) -> NDArray[np.bool_]:
        """Which of the 6 DOFs the source gives (not all NaN), shape (6,)."""
        return ~np.all(np.isnan(self.values), axis=(0, 1))

    def to_dataset(self) -> Any:
        """The data as an ``xarray.Dataset`` with dims ``omega``, ``direction``, ``dof``."""
        import xarray as xr

        return xr.Dataset(
            {"mean_drift": (("omega", "direction", "dof"), self.values,
                            {"units": "N/m^2 (forces), N/m (moments)",
                             "description": "mean load per squared wave amplitude"})},
            coords={"omega": ("omega", self.omega, {"units": "rad/s"}),
                    "direction": ("direction", self.direction, {"units": "rad"}),
                    "dof": list(DOF_NAMES)},
            attrs={"method": self.method, "rho": self.rho, "g": self.g,
                   "source": self.source, "convention": "exp(+i omega t)"})


@dataclass(frozen=True, kw_only=True)
class QTF:
    """Quadratic transfer function (difference or sum frequency) of one body, dimensional.

    Attributes
    ----------
    kind
        ``"difference"`` or ``"sum"``.
    omega
        Angular frequencies of the grid, shape (nw,), rad/s, strictly increasing.
    directions
        Heading pairs (beta1, beta2), shape (nh, 2), rad.
    values
        ``Q[h, i, j, dof]`` = Q(omega_i, omega_j) at heading pair h, shape (nh, nw, nw, 6),
        complex, N/m^2 (forces) and N/m (moments); the full square (the half a file omits
        is filled by the Hermitian / symmetric relation), ``e^{+i omega t}``.
    rho, g
        Water density (kg/m^3) and gravity (m/s^2) used to make the values dimensional.
    source
        Path or description of the file read.
    notes
        Remarks made while reading.
    present
        Which entries the file itself gave (before the symmetry fill), shape
        (nh, nw, nw, 6), bool.
    """

    kind: str
    omega: NDArray[np.float64]
    directions: NDArray[np.float64]
    values: NDArray[np.complex128]
    rho: float
    g: float
    source: str = ""
    notes: tuple[str, ...] = ()
    present: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))

    def __post_init__(self) -> None:
        nw, nh = self.omega.size, self.directions.shape[0]
        if self.kind not in ("difference", "sum"):
            raise HydroDataError(f"QTF kind {self.kind!r}: 'difference' or 'sum'",
                                 value=self.kind)
        if self.values.shape != (nh, nw, nw, 6):
            raise HydroDataError(f"{self.source}: QTF values have shape {self.values.shape}, "
                                 f"expected ({nh}, {nw}, {nw}, 6)", value=self.values.shape)

    def mean_drift(self) -> MeanDrift:
        """The diagonal of a difference QTF at the heading pairs with beta1 = beta2.

        Returns
        -------
        MeanDrift
            Method ``"qtf_diagonal"``, values ``Re Q(omega, omega)`` (N/m^2, N/m).
        """
        if self.kind != "difference":
            raise HydroDataError("the mean drift is the diagonal of the difference QTF, "
                                 "not of the sum QTF", value=self.kind)
        same = np.flatnonzero(np.isclose(self.directions[:, 0], self.directions[:, 1],
                                         rtol=0.0, atol=1e-9))
        if same.size == 0:
            raise HydroDataError(f"{self.source}: no heading pair with beta1 = beta2",
                                 value=self.source)
        diag = np.einsum("hiid->ihd", self.values[same])
        return MeanDrift(omega=self.omega.copy(), direction=self.directions[same, 0].copy(),
                         values=np.ascontiguousarray(diag.real), method="qtf_diagonal",
                         rho=self.rho, g=self.g, source=self.source,
                         notes=(*self.notes, "mean drift = Re of the difference QTF's "
                                "diagonal"))

    def to_dataset(self) -> Any:
        """The data as an ``xarray.Dataset`` with dims ``pair``, ``omega1``, ``omega2``, ``dof``."""
        import xarray as xr

        return xr.Dataset(
            {"qtf": (("pair", "omega1", "omega2", "dof"), self.values,
                     {"units": "N/m^2 (forces), N/m (moments)",
                      "description": f"{self.kind}-frequency QTF"})},
            coords={"omega1": ("omega1", self.omega, {"units": "rad/s"}),
                    "omega2": ("omega2", self.omega, {"units": "rad/s"}),
                    "beta1": ("pair", self.directions[:, 0], {"units": "rad"}),
                    "beta2": ("pair", self.directions[:, 1], {"units": "rad"}),
                    "dof": list(DOF_NAMES)},
            attrs={"kind": self.kind, "rho": self.rho, "g": self.g, "source": self.source,
                   "convention": "exp(+i omega t)"})


def assemble_qtf(kind: str, rows: NDArray[np.float64], scale: NDArray[np.float64], *,
                 rho: float, g: float, source: str, notes: list[str],
                 conjugate: bool = False) -> QTF:
    """Build a :class:`QTF` from table rows ``w1, w2, beta1, beta2, dof, re, im``.

    Parameters
    ----------
    kind
        ``"difference"`` or ``"sum"``.
    rows
        Shape (n, 7): w1, w2 (rad/s), beta1, beta2 (rad), DOF (1-6), Re, Im (as in the file).
    scale
        Per-DOF factor, shape (6,), that makes Re, Im dimensional.
    rho, g, source, notes
        Stored on the record.
    conjugate
        Conjugate the values (a file in the ``e^{-i omega t}`` convention).

    Returns
    -------
    QTF
        The full square, the missing half filled by ``Qm(w2, w1) = conj(Qm(w1, w2))``
        (difference) or ``Qp(w2, w1) = Qp(w1, w2)`` (sum).
    """
    both = np.concatenate([rows[:, 0], rows[:, 1]])
    keys, first = np.unique(np.round(both, 9), return_index=True)
    w = both[first]                   # the file's values (rounded keys only match them)
    pairs = np.unique(np.round(rows[:, 2:4], 9), axis=0)
    nw, nh = w.size, pairs.shape[0]
    vals = np.zeros((nh, nw, nw, 6), dtype=np.complex128)
    present = np.zeros((nh, nw, nw, 6), dtype=bool)
    i1 = np.searchsorted(keys, np.round(rows[:, 0], 9))
    i2 = np.searchsorted(keys, np.round(rows[:, 1], 9))
    ih = np.array([int(np.flatnonzero(np.all(pairs == np.round(r, 9), axis=1))[0])
                   for r in rows[:, 2:4]])
    dof = rows[:, 4].astype(int) - 1
    if np.any((dof < 0) | (dof > 5)):
        raise HydroDataError(f"{source}: DOF index outside 1-6 (one body only)", value=source)
    v = (rows[:, 5] + 1j * rows[:, 6]) * scale[dof]
    if conjugate:
        v = np.conj(v)
    vals[ih, i1, i2, dof] = v
    present[ih, i1, i2, dof] = True
    # Q(w2, w1; b2, b1) from Q(w1, w2; b1, b2): the mirror of pair h is the reversed pair
    rev = [np.flatnonzero(np.all(pairs == p[::-1], axis=1)) for p in pairs]
    mh = np.array([int(r[0]) if r.size else -1 for r in rev])
    has = mh >= 0
    mirror = np.zeros_like(vals)
    mirror_present = np.zeros_like(present)
    mirror[has] = np.swapaxes(vals[mh[has]], 1, 2)
    mirror_present[has] = np.swapaxes(present[mh[has]], 1, 2)
    if kind == "difference":
        mirror = np.conj(mirror)
    fill = ~present & mirror_present
    vals = np.where(fill, mirror, vals)
    missing = ~(present | fill)
    if np.any(missing):
        notes.append(f"{int(missing.sum())} entries absent from the file and from its "
                     "mirror half: set to 0")
    return QTF(kind=kind, omega=w, directions=pairs, values=vals, rho=rho, g=g,
               source=source, notes=tuple(notes), present=present)
