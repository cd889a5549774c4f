"""A steady current: uniform or power-law over depth, from the ``[current]`` section.

The water velocity is horizontal, toward ``direction`` (rad, 0 = +x, as the wave heading),
of speed ``U(z)`` at the height ``z`` (m, 0 at the still surface, negative below):

- ``uniform``: ``U(z) = speed``;
- ``power``: ``U(z) = speed ((z + h) / h)^exponent`` for ``-h <= z <= 0`` (``h`` the water
  depth, the seabed's ``U = 0``; the usual tidal profile has ``exponent = 1/7``), ``speed``
  above the surface, 0 below the seabed.

Where it acts: on the MoorDyn lines (node and point drag on the velocity relative to the
water, as MoorDyn-C's ``Currents = 1``: a table of depths, linear in between; the
power law is tabulated by :meth:`Current.table` on levels fine enough that the table is
the law to 2e-4 of ``speed``), and on the bodies' quadratic drag
(:mod:`~hydrofmu.runtime.forces.current_drag`) at the reference point's ``z = 0``, i.e.
``speed``. ``speed = 0`` (the default) or ``profile = "none"`` is still water.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, as_finite

__all__ = ["CURRENT_PROFILES", "Current", "current_from_config"]

#: The values of ``[current] profile``.
CURRENT_PROFILES: tuple[str, ...] = ("none", "uniform", "power")
#: Ratio of consecutive levels of the power-law table in ``s = (z + h) / h``: linear
#: interpolation of ``s^a`` between ``s`` and ``r s`` errs by at most
#: ``a (1 - a) (r - 1)^2 / 8`` of the local value (~1.5e-4 for r = 1.1, a = 1/7).
_LEVEL_RATIO = 1.1
#: The lowest tabulated level above the seabed, as a fraction of the depth (below it the
#: table goes linearly to 0 at the seabed).
_LOWEST_LEVEL = 1e-4


@dataclass(frozen=True)
class Current:
    """A steady current.

    Parameters
    ----------
    profile
        ``"uniform"`` or ``"power"``.
    speed
        Speed at the surface, m/s (>= 0).
    direction
        Direction the water flows to, rad (0 = +x).
    exponent
        Exponent of the power law, > 0 (``power``).
    """

    profile: str
    speed: float
    direction: float = 0.0
    exponent: float = 1.0 / 7.0

    def __post_init__(self) -> None:
        if self.profile not in CURRENT_PROFILES[1:]:
            raise ConfigError(f"current.profile = {self.profile!r}: choose one of "
                              f"{', '.join(CURRENT_PROFILES)}", value=self.profile)
        speed = as_finite(self.speed, "current.speed")
        if speed < 0.0:
            raise ConfigError(f"current.speed = {self.speed!r} m/s must be >= 0 (the direction "
                              "says where the water flows)", value=self.speed)
        exponent = as_finite(self.exponent, "current.exponent")
        if exponent <= 0.0:
            raise ConfigError(f"current.exponent = {self.exponent!r} must be > 0 (1/7 is the "
                              "usual tidal profile)", value=self.exponent)
        object.__setattr__(self, "speed", speed)
        object.__setattr__(self, "direction", as_finite(self.direction, "current.direction"))
        object.__setattr__(self, "exponent", exponent)

    @property
    def unit(self) -> NDArray[np.float64]:
        """The horizontal unit vector of the flow, shape (3,)."""
        return np.array([math.cos(self.direction), math.sin(self.direction), 0.0])

    def speed_at(self, z: ArrayLike, depth: float) -> NDArray[np.float64]:
        """``U(z)``, m/s, at the heights ``z`` (m) in water ``depth`` deep (m; a power law
        needs a finite depth)."""
        z = np.asarray(z, dtype=float)
        if self.profile == "uniform":
            return np.full(z.shape, self.speed)
        h = self._depth(depth)
        s = np.clip((z + h) / h, 0.0, 1.0)
        return self.speed * s**self.exponent

    def table(self, depth: float) -> list[tuple[float, float, float, float]]:
        """The current as MoorDyn-C's ``Currents = 1`` table: rows ``(z, ux, uy, uz)``, m and
        m/s, ascending in ``z`` (one row for a uniform current; the power law on levels
        geometric in ``(z + h) / h`` from :data:`_LOWEST_LEVEL` to 1, plus the seabed)."""
        ux, uy, _ = self.unit
        if self.profile == "uniform":
            return [(0.0, self.speed * ux, self.speed * uy, 0.0)]
        h = self._depth(depth)
        n = math.ceil(math.log(1.0 / _LOWEST_LEVEL) / math.log(_LEVEL_RATIO))
        s = np.concatenate([[0.0], np.geomspace(_LOWEST_LEVEL, 1.0, n + 1)])
        z = h * (s - 1.0)
        z[-1] = 0.0
        u = self.speed * s**self.exponent
        return [(float(zk), float(uk * ux), float(uk * uy), 0.0) for zk, uk in zip(z, u,
                                                                                  strict=True)]

    def _depth(self, depth: float) -> float:
        h = float(depth)
        if not (math.isfinite(h) and h > 0.0):
            raise ConfigError(
                f"current.profile = 'power' needs a finite water depth (got {depth!r} m): "
                "give the MoorDyn file's WtrDpth, or use profile = 'uniform'", value=depth)
        return h

    def describe(self) -> str:
        """One line for the model report."""
        law = ("uniform" if self.profile == "uniform"
               else f"power law (exponent {self.exponent:.4g})")
        return (f"current: {law}, {self.speed:.4g} m/s at the surface toward "
                f"{math.degrees(self.direction):.4g} deg")


def current_from_config(config: Mapping[str, Any]) -> Current | None:
    """The current of a resolved configuration's ``[current]`` section; ``None`` for still
    water (no section, ``profile = "none"`` or ``speed = 0``)."""
    section = config.get("current") or {}
    profile = str(section.get("profile", "none") or "none").strip().lower()
    if profile not in CURRENT_PROFILES:
        raise ConfigError(f"current.profile = {section.get('profile')!r}: choose one of "
                          f"{', '.join(CURRENT_PROFILES)}", value=section.get("profile"))
    speed = section.get("speed", 0.0) or 0.0
    if profile == "none" or as_finite(speed, "current.speed") == 0.0:
        return None
    return Current(profile=profile, speed=speed, direction=section.get("direction", 0.0),
                   exponent=section.get("exponent", 1.0 / 7.0))
