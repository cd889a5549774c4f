"""Wave models: regular and irregular (PM / JONSWAP) long-crested waves, and the ramp.

Run-time module: numpy and the standard library only, project imports relative.

Conventions (see ``docs/ARCHITECTURE.md``): heading ``beta`` is the direction the waves
travel to, rad, 0 = +x; a component of amplitude ``a``, frequency ``w``, wave number
``k`` and phase ``phi`` has the elevation at (x, y)::

    eta = Re(a exp(i (w t - k (x cos beta + y sin beta)) + i phi))
        = a cos(w t - k (x cos beta + y sin beta) + phi)

so that at the reference point the excitation force is ``Re(X(w, beta) a e^{i(w t + phi)})``
with the BEM data's ``e^{+i w t}`` excitation ``X``. Wave numbers follow the linear
dispersion relation ``w^2 = g k tanh(k h)`` (``k = w^2 / g`` in deep water).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, as_finite
from .kinematics import (
    check_choice,
    check_depth,
    elevation_of_components,
    ramp,
    readonly,
    wave_number,
)
from .spectra import (
    check_positive_value,
    check_sea_state,
    jonswap,
    jonswap_normalisation,
    pierson_moskowitz,
)

__all__ = [
    "DEFAULT_N_COMPONENTS",
    "DEFAULT_RANGE_FACTORS",
    "DISCRETIZATIONS",
    "SPECTRA",
    "IrregularWave",
    "RegularWave",
    "internal_wave",
    "jonswap",
    "jonswap_normalisation",
    "pierson_moskowitz",
    "ramp",
    "wave_number",
]

#: Spectrum names accepted by :class:`IrregularWave`.
SPECTRA: tuple[str, ...] = ("jonswap", "pm")
#: Frequency discretisations accepted by :class:`IrregularWave`.
DISCRETIZATIONS: tuple[str, ...] = ("equal_energy", "equal_width")
#: Default number of components of an irregular sea.
DEFAULT_N_COMPONENTS: int = 200
#: Default frequency range of an irregular sea, as multiples of the peak frequency
#: ``2 pi / tp``. For PM it keeps all but ``exp(-1.25 * 16) + 1.25 / 6**4 ~ 1.0e-3`` of
#: m0 (Hs 0.05 % low); JONSWAP (gamma 3.3) loses less, ~0.6e-3 of m0.
DEFAULT_RANGE_FACTORS: tuple[float, float] = (0.5, 6.0)

# Points of the fine grid on which the cumulative spectrum is integrated (trapezoid).
_FINE_POINTS = 2**15 + 1

@dataclass(frozen=True, eq=False)
class RegularWave:
    """A regular (monochromatic) long-crested wave.

    Parameters
    ----------
    height
        Wave height H (crest to trough), m, >= 0; amplitude ``H / 2``.
    period
        Wave period, s, > 0.
    direction
        Heading, rad (direction the waves travel to, 0 = +x).
    phase
        Phase at the origin, rad: ``eta(0, 0, 0) = H/2 cos(phase)``.
    water_depth
        Depth, m (``inf``, default, for deep water), for the wave number.
    g
        Gravitational acceleration, m/s^2.
    """

    height: float
    period: float
    direction: float = 0.0
    phase: float = 0.0
    _: KW_ONLY
    water_depth: float = math.inf
    g: float = 9.81
    _omega: NDArray[np.float64] = field(init=False, repr=False)
    _amplitude: NDArray[np.float64] = field(init=False, repr=False)
    _phase: NDArray[np.float64] = field(init=False, repr=False)
    _k: NDArray[np.float64] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        h = as_finite(self.height, "height")
        if h < 0.0:
            raise ConfigError(f"height={self.height!r} m must be >= 0", value=self.height)
        period = check_positive_value(self.period, "period", "s")
        direction = as_finite(self.direction, "direction")
        phase = as_finite(self.phase, "phase")
        depth = check_depth(self.water_depth)
        g = check_positive_value(self.g, "g", "m/s^2")
        omega = np.array([2.0 * np.pi / period])
        for name, value in (
            ("height", h), ("period", period), ("direction", direction), ("phase", phase),
            ("water_depth", depth), ("g", g),
            ("_omega", readonly(omega)),
            ("_amplitude", readonly(np.array([0.5 * h]))),
            ("_phase", readonly(np.array([phase]))),
            ("_k", readonly(wave_number(omega, depth, g))),
        ):
            object.__setattr__(self, name, value)

    @property
    def omega(self) -> float:
        """Angular frequency, rad/s."""
        return float(self._omega[0])

    @property
    def amplitude(self) -> float:
        """Amplitude H/2, m."""
        return float(self._amplitude[0])

    @property
    def wave_numbers(self) -> NDArray[np.float64]:
        """Wave number, shape (1,), rad/m (read-only)."""
        return self._k

    def components(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """The single component: (omega rad/s, amplitude m, phase rad), each shape (1,)."""
        return self._omega, self._amplitude, self._phase

    def elevation(self, t: ArrayLike, x: float = 0.0, y: float = 0.0) -> NDArray[np.float64]:
        """Free-surface elevation at (x, y), m, same shape as ``t`` (s); no ramp applied."""
        return elevation_of_components(
            t, x, y, self._omega, self._amplitude, self._phase, self._k, self.direction
        )


@dataclass(frozen=True, eq=False)
class IrregularWave:
    """A long-crested irregular sea from a PM or JONSWAP spectrum, seeded random phases.

    The range ``omega_range`` is cut into ``n_components`` bins; each bin gives one
    component with a random phase (``numpy.random.default_rng(seed)``, phases drawn first,
    uniform in [0, 2 pi)) and the amplitude ``a_k = sqrt(2 E_k)``, ``E_k = int_bin S dw``
    the bin's exact energy. This is ``sqrt(2 S(w_k) dw_k)`` to the midpoint rule; using the
    bin integral makes ``sum a_k^2 / 2`` equal the spectrum's m0 over the range for any
    number of components, and keeps the amplitudes independent of the random frequency
    offsets below.

    Discretisations:

    - ``"equal_energy"`` (default): bin edges at equal fractions of the energy in the
      range, so every bin carries ``m0_range / n``; the frequency is the bin's energy
      centroid ``int_bin w S dw / E_k``. Frequencies are not commensurate, no repeat
      period; the top bin is wide (the ``w^-5`` tail).
    - ``"equal_width"``: bins of equal width ``dw``; the frequency is drawn uniformly
      within its bin (seeded, after the phases), so the record does not repeat with the
      period ``2 pi / dw`` of bin-centre frequencies.

    Parameters
    ----------
    hs
        Significant wave height (of the full spectrum), m, > 0.
    tp
        Peak period, s, > 0.
    spectrum
        ``"jonswap"`` (default) or ``"pm"``.
    gamma
        JONSWAP peak enhancement, >= 1 (ignored for PM).
    direction
        Heading, rad (direction of travel, 0 = +x).
    seed
        Seed of the phases (and equal-width frequency offsets), integer >= 0.
    n_components
        Number of components, >= 1 (default :data:`DEFAULT_N_COMPONENTS`).
    omega_range
        (w_min, w_max), rad/s, 0 < w_min < w_max; default
        :data:`DEFAULT_RANGE_FACTORS` times ``2 pi / tp``. Energy outside is dropped (not
        redistributed): see :attr:`energy_fraction`. Keep it inside the frequency range
        of the hydrodynamic data.
    discretization
        ``"equal_energy"`` (default) or ``"equal_width"``.
    water_depth
        Depth, m (``inf``, default, for deep water), for the wave numbers.
    g
        Gravitational acceleration, m/s^2.
    """

    hs: float
    tp: float
    _: KW_ONLY
    spectrum: str = "jonswap"
    gamma: float = 3.3
    direction: float = 0.0
    seed: int = 0
    n_components: int = DEFAULT_N_COMPONENTS
    omega_range: tuple[float, float] | None = None
    discretization: str = "equal_energy"
    water_depth: float = math.inf
    g: float = 9.81
    _omega: NDArray[np.float64] = field(init=False, repr=False)
    _amplitude: NDArray[np.float64] = field(init=False, repr=False)
    _phase: NDArray[np.float64] = field(init=False, repr=False)
    _k: NDArray[np.float64] = field(init=False, repr=False)
    _edges: NDArray[np.float64] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        hs, tp = check_sea_state(self.hs, self.tp)
        spectrum = check_choice(self.spectrum, "spectrum", SPECTRA)
        discretization = check_choice(self.discretization, "discretization", DISCRETIZATIONS)
        gamma = as_finite(self.gamma, "gamma")
        if spectrum == "jonswap":
            jonswap_normalisation(gamma)  # validates gamma
        direction = as_finite(self.direction, "direction")
        try:
            seed = operator.index(self.seed)
            n = operator.index(self.n_components)
        except TypeError as exc:
            raise ConfigError(
                f"seed={self.seed!r} and n_components={self.n_components!r} must be integers",
                value=(self.seed, self.n_components),
            ) from exc
        if seed < 0:
            raise ConfigError(f"seed={self.seed!r} must be >= 0", value=self.seed)
        if n < 1:
            raise ConfigError(
                f"n_components={self.n_components!r} must be >= 1", value=self.n_components
            )
        wp = 2.0 * np.pi / tp
        if self.omega_range is None:
            lo, hi = DEFAULT_RANGE_FACTORS[0] * wp, DEFAULT_RANGE_FACTORS[1] * wp
        else:
            try:
                lo, hi = (as_finite(v, "omega_range") for v in self.omega_range)
            except (TypeError, ValueError) as exc:
                raise ConfigError(
                    f"omega_range={self.omega_range!r} must be a pair (w_min, w_max) in rad/s",
                    value=self.omega_range,
                ) from exc
            if not 0.0 < lo < hi:
                raise ConfigError(
                    f"omega_range={self.omega_range!r} must satisfy 0 < w_min < w_max (rad/s)",
                    value=self.omega_range,
                )
        depth = check_depth(self.water_depth)
        g = check_positive_value(self.g, "g", "m/s^2")

        # fine-grid cumulative energy and first moment over the range
        fine = np.linspace(lo, hi, _FINE_POINTS)
        s_fine = self._density(fine, spectrum, hs, tp, gamma)
        m0_cum = _cumtrapz(s_fine, fine)
        m1_cum = _cumtrapz(fine * s_fine, fine)
        if m0_cum[-1] <= 0.0:
            raise ConfigError(
                f"omega_range=({lo:.6g}, {hi:.6g}) rad/s holds no energy of the spectrum "
                f"(peak at {wp:.6g} rad/s)",
                value=self.omega_range,
            )
        rng = np.random.default_rng(seed)
        phase = rng.uniform(0.0, 2.0 * np.pi, n)
        if discretization == "equal_energy":
            targets = np.linspace(0.0, m0_cum[-1], n + 1)
            edges = np.interp(targets, m0_cum, fine)
            edges[0], edges[-1] = lo, hi
            e_edges = targets
            m1_edges = np.interp(edges, fine, m1_cum)
            energy = np.diff(e_edges)
            omega = np.diff(m1_edges) / energy
        else:
            edges = np.linspace(lo, hi, n + 1)
            energy = np.diff(np.interp(edges, fine, m0_cum))
            omega = edges[:-1] + rng.uniform(0.0, 1.0, n) * np.diff(edges)
        omega = np.clip(omega, edges[:-1], edges[1:])
        amplitude = np.sqrt(2.0 * np.maximum(energy, 0.0))
        for name, value in (
            ("hs", hs), ("tp", tp), ("spectrum", spectrum), ("gamma", gamma),
            ("direction", direction), ("seed", seed), ("n_components", n),
            ("omega_range", (float(lo), float(hi))), ("discretization", discretization),
            ("water_depth", depth), ("g", g),
            ("_omega", readonly(omega)),
            ("_amplitude", readonly(amplitude)),
            ("_phase", readonly(phase)),
            ("_k", readonly(wave_number(omega, depth, g))),
            ("_edges", readonly(edges)),
        ):
            object.__setattr__(self, name, value)

    @staticmethod
    def _density(
        omega: NDArray[np.float64], spectrum: str, hs: float, tp: float, gamma: float
    ) -> NDArray[np.float64]:
        if spectrum == "pm":
            return pierson_moskowitz(omega, hs, tp)
        return jonswap(omega, hs, tp, gamma)

    def spectral_density(self, omega: ArrayLike) -> NDArray[np.float64]:
        """The sea's spectrum S(omega), m^2 s/rad (full, not clipped to the range)."""
        return self._density(
            np.asarray(omega, dtype=float), self.spectrum, self.hs, self.tp, self.gamma
        )

    @property
    def bin_edges(self) -> NDArray[np.float64]:
        """Edges of the frequency bins, shape (n_components + 1,), rad/s (read-only)."""
        return self._edges

    @property
    def wave_numbers(self) -> NDArray[np.float64]:
        """Wave numbers of the components, shape (n,), rad/m (read-only)."""
        return self._k

    @property
    def m0(self) -> float:
        """Zeroth moment of the discretised sea, ``sum a_k^2 / 2``, m^2."""
        return float(0.5 * np.sum(self._amplitude**2))

    @property
    def energy_fraction(self) -> float:
        """Fraction of the spectrum's ``Hs^2 / 16`` kept inside ``omega_range``."""
        return self.m0 / (self.hs**2 / 16.0)

    def components(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Components (omega rad/s, amplitude m, phase rad), each shape (n,) (read-only)."""
        return self._omega, self._amplitude, self._phase

    def elevation(self, t: ArrayLike, x: float = 0.0, y: float = 0.0) -> NDArray[np.float64]:
        """Free-surface elevation at (x, y), m, same shape as ``t`` (s); no ramp applied."""
        return elevation_of_components(
            t, x, y, self._omega, self._amplitude, self._phase, self._k, self.direction
        )


def internal_wave(parameters: Mapping[str, Any], *, height: float,
                  omega_range: tuple[float, float], discretization: str
                  ) -> RegularWave | IrregularWave:
    """The FMU's internal wave from its ``wave.*`` parameters: the one construction that
    every part driven by it (the excitation, the drift loads) uses, so that they see the
    same components.

    Parameters
    ----------
    parameters
        The FMU parameter values by name (``wave.type``, ``wave.period``,
        ``wave.direction``, and for an irregular sea ``wave.spectrum``, ``wave.gamma``,
        ``wave.seed``, ``wave.n_components``).
    height
        The height to build with, m (H of a regular wave, Hs of a sea).
    omega_range
        The frequencies an irregular sea's components are drawn in, rad/s (the data's).
    discretization
        One of :data:`DISCRETIZATIONS`.
    """
    period = float(parameters["wave.period"])
    direction = float(parameters["wave.direction"])
    if parameters["wave.type"] == "regular":
        return RegularWave(height=height, period=period, direction=direction)
    return IrregularWave(
        hs=height, tp=period, spectrum=parameters["wave.spectrum"],
        gamma=float(parameters["wave.gamma"]), direction=direction,
        seed=int(parameters["wave.seed"]), n_components=int(parameters["wave.n_components"]),
        omega_range=omega_range, discretization=discretization,
    )


def _cumtrapz(f: NDArray[np.float64], x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Cumulative trapezoid integral, shape of ``x``, starting at 0."""
    return np.concatenate([[0.0], np.cumsum(0.5 * (f[1:] + f[:-1]) * np.diff(x))])
