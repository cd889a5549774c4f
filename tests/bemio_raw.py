"""The Task 10 sphere's BEMIO file read with h5py alone, for checks that must not go
through hydrofmu's reader: BEMIO stores WAMIT's normalisation (added mass / rho, damping /
(rho omega), excitation and hydrostatic stiffness / (rho g)), rows of each coefficient as
``[row, column, frequency]`` (``[dof, heading, frequency]`` for the excitation), ``cg`` and
``cb`` absolute, and the coefficients about ``cg`` (WEC-Sim's reference point)."""

from __future__ import annotations

from dataclasses import dataclass

import h5py
import numpy as np
from numpy.typing import NDArray

from paths import BEMIO_SPHERE


@dataclass(frozen=True)
class RawSphere:
    """Dimensional values of ``sphere_bemio.h5`` (one body, heading 0), SI units.

    Attributes
    ----------
    rho, g
        Water density (kg/m^3) and gravity (m/s^2) of the file.
    omega
        Frequencies, rad/s, shape (nw,).
    added_mass, damping
        A and B, shape (6, 6, nw): kg, kg m, kg m^2 and N s/m, N s, N m s.
    excitation
        X at heading 0, shape (6, nw), complex, N/m and N m/m, ``e^{+i omega t}``.
    stiffness
        The file's hydrostatic (and gravity) stiffness about ``cg``, shape (6, 6).
    volume
        Displaced volume, m^3.
    cg, cb
        Centres of gravity and buoyancy, absolute, m.
    """

    rho: float
    g: float
    omega: NDArray[np.float64]
    added_mass: NDArray[np.float64]
    damping: NDArray[np.float64]
    excitation: NDArray[np.complex128]
    stiffness: NDArray[np.float64]
    volume: float
    cg: NDArray[np.float64]
    cb: NDArray[np.float64]


def read_raw_sphere() -> RawSphere:
    """The file's arrays, made dimensional (see the module's docstring)."""
    with h5py.File(BEMIO_SPHERE, "r") as f:
        rho = float(np.ravel(f["simulation_parameters/rho"])[0])
        g = float(np.ravel(f["simulation_parameters/g"])[0])
        omega = np.ravel(f["simulation_parameters/w"]).astype(float)
        body = f["body1"]
        coeffs = body["hydro_coeffs"]
        excitation = (np.asarray(coeffs["excitation/re"])[:6, 0, :]
                      + 1j * np.asarray(coeffs["excitation/im"])[:6, 0, :]) * (rho * g)
        return RawSphere(
            rho=rho, g=g, omega=omega,
            added_mass=np.asarray(coeffs["added_mass/all"])[:6, :6, :] * rho,
            damping=np.asarray(coeffs["radiation_damping/all"])[:6, :6, :] * rho * omega,
            excitation=excitation,
            stiffness=np.asarray(coeffs["linear_restoring_stiffness"])[:6, :6] * (rho * g),
            volume=float(np.ravel(body["properties/disp_vol"])[0]),
            cg=np.ravel(body["properties/cg"]).astype(float),
            cb=np.ravel(body["properties/cb"]).astype(float),
        )
