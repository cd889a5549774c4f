"""In-memory model of the frequency-domain hydrodynamic data of one body.

Conventions (all readers convert to these):

- SI units, dimensional (BEMIO's normalisation undone).
- DOF order surge, sway, heave, roll, pitch, yaw about the body reference point
  (the BEM rotation centre); radiation matrices indexed ``[omega, influenced, radiating]``
  i.e. ``F_i = -A[i, j] * a_j`` (symmetric in practice).
- Time dependence ``e^{+i omega t}`` (WAMIT, BEMIO): a wave elevation at the reference point
  ``eta(t) = Re(a e^{i omega t})`` gives the excitation force
  ``F(t) = Re(X(omega, beta) a e^{i omega t})``. Capytaine's ``e^{-i omega t}`` values are
  complex-conjugated by its reader.
- Wave directions in radians, the direction the waves travel to (0 = along +x).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from ..errors import HydroDataError

DOF_NAMES: tuple[str, ...] = ("surge", "sway", "heave", "roll", "pitch", "yaw")


@dataclass(frozen=True, kw_only=True)
class HydroData:
    """Frequency-domain hydrodynamic coefficients of one rigid body.

    Attributes
    ----------
    name
        Body name as written in the source file.
    omega
        Angular frequencies, shape (nw,), rad/s, strictly increasing, all > 0.
    added_mass
        A(omega), shape (nw, 6, 6), kg / kg m / kg m^2.
    radiation_damping
        B(omega), shape (nw, 6, 6), N s/m / N s / N m s.
    added_mass_inf
        A_inf, shape (6, 6), same units as ``added_mass``.
    added_mass_inf_source
        Where A_inf came from: ``"file"`` or ``"extrapolated"`` (the last frequency's A,
        or the Ogilvie estimate; see :attr:`notes`).
    wave_direction
        Headings of the excitation data, shape (nb,), rad.
    excitation
        X(omega, beta), shape (nw, nb, 6), complex, N/m and N m/m (force per metre of
        wave amplitude), ``e^{+i omega t}`` convention, phase relative to the elevation at
        the reference point.
    hydrostatic_stiffness
        K_hs, shape (6, 6), N/m, N, N m/rad. Includes the gravity terms of the mass and
        centre of gravity stated by the source (WAMIT / Capytaine convention).
    displaced_volume
        Displaced volume at equilibrium, m^3 (NaN when the source does not state it).
    center_of_buoyancy
        Centre of buoyancy relative to the reference point, shape (3,), m (NaN if unknown).
    center_of_gravity
        Centre of gravity relative to the reference point, shape (3,), m (NaN if unknown).
    reference_point
        Reference point (rotation centre) in the body's BEM frame, shape (3,), m.
    rho
        Water density, kg/m^3.
    g
        Gravitational acceleration, m/s^2.
    water_depth
        Water depth, m; ``inf`` for deep water.
    inertia_matrix
        6x6 rigid-body mass matrix stated by the source, or ``None``.
    source
        Path or description of the file the data was read from.
    notes
        Human-readable remarks made while reading (extrapolations, conversions).
    """

    name: str
    omega: NDArray[np.float64]
    added_mass: NDArray[np.float64]
    radiation_damping: NDArray[np.float64]
    added_mass_inf: NDArray[np.float64]
    added_mass_inf_source: str
    wave_direction: NDArray[np.float64]
    excitation: NDArray[np.complex128]
    hydrostatic_stiffness: NDArray[np.float64]
    displaced_volume: float
    center_of_buoyancy: NDArray[np.float64]
    center_of_gravity: NDArray[np.float64]
    reference_point: NDArray[np.float64] = field(default_factory=lambda: np.zeros(3))
    rho: float = 1025.0
    g: float = 9.81
    water_depth: float = float("inf")
    inertia_matrix: NDArray[np.float64] | None = None
    source: str = ""
    notes: tuple[str, ...] = ()

    @property
    def nw(self) -> int:
        """Number of frequencies."""
        return int(self.omega.size)

    def with_changes(self, **changes: object) -> HydroData:
        """Return a copy with some fields replaced (the data model is immutable)."""
        return replace(self, **changes)

    def excitation_at(self, omega: float, direction: float = 0.0) -> NDArray[np.complex128]:
        """X at one frequency and heading, linearly interpolated, shape (6,), N/m.

        Parameters
        ----------
        omega
            Angular frequency, rad/s, inside the data's range.
        direction
            Heading, rad; must be one of :attr:`wave_direction` (no interpolation in
            heading) within 1e-6 rad.
        """
        ib = self.direction_index(direction)
        x = self.excitation[:, ib, :]
        return np.array([
            np.interp(omega, self.omega, x[:, i].real)
            + 1j * np.interp(omega, self.omega, x[:, i].imag)
            for i in range(6)
        ])

    def coefficients_at(self, omega: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """A(omega) and B(omega), each (6, 6), linearly interpolated in frequency."""
        a = np.empty((6, 6))
        b = np.empty((6, 6))
        for i in range(6):
            for j in range(6):
                a[i, j] = np.interp(omega, self.omega, self.added_mass[:, i, j])
                b[i, j] = np.interp(omega, self.omega, self.radiation_damping[:, i, j])
        return a, b

    def direction_index(self, direction: float) -> int:
        """Index of a heading in :attr:`wave_direction`, rad; raises if absent."""
        d = np.angle(np.exp(1j * (self.wave_direction - direction)))
        ib = int(np.argmin(np.abs(d)))
        if abs(d[ib]) > 1e-6:
            hint = ""
            if abs(direction) > 2.0 * np.pi:
                hint = (f" ({direction!r} looks like degrees: {direction!r} deg = "
                        f"{np.radians(direction):.6g} rad)")
            raise HydroDataError(
                f"wave direction {direction!r} rad is not in the data of body '{self.name}'"
                f"{hint} (available: {np.round(self.wave_direction, 6).tolist()} rad); "
                "choose one of them or recompute the BEM data for that heading",
                value=direction,
            )
        return ib
