"""Several bodies with their hydrodynamic coupling (run time: numpy only).

A :class:`MultiBodyData` holds the bodies' own :class:`~hydrofmu.runtime.hydrodata.model.HydroData`
(each with its diagonal 6x6 blocks, as a single-body model uses them) and the full
6N x 6N radiation matrices, whose off-diagonal blocks are the body-to-body (b2b)
coupling: the force on body ``i`` from the acceleration of body ``j`` is
``-A[:, 6i:6i+6, 6j:6j+6] @ a_j``. The diagonal blocks of the full matrices are the
bodies' own arrays, bit for bit (checked on construction), so the two views cannot
drift apart.

``b2b = True`` keeps the off-diagonal blocks (hydrofmu's choice); ``b2b = False`` zeroes
them (WEC-Sim's default, ``simu.b2b = 0``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..errors import HydroDataError
from .model import HydroData

__all__ = ["MultiBodyData"]


@dataclass(frozen=True, kw_only=True)
class MultiBodyData:
    """N bodies and their coupled radiation coefficients.

    Attributes
    ----------
    bodies
        The bodies, in the order of the 6N DOFs, each with its own diagonal blocks.
    added_mass
        A(omega), shape (nw, 6N, 6N), ``[omega, influenced, radiating]``, SI.
    radiation_damping
        B(omega), shape (nw, 6N, 6N), SI.
    added_mass_inf
        A_inf, shape (6N, 6N), SI.
    added_mass_zero
        A(omega = 0), shape (6N, 6N), SI, when the source gives it (WAMIT's ``Wave period
        = infinite`` block), else ``None``.
    source
        Where the data came from.
    notes
        Remarks made while reading or assembling.
    """

    bodies: tuple[HydroData, ...]
    added_mass: NDArray[np.float64]
    radiation_damping: NDArray[np.float64]
    added_mass_inf: NDArray[np.float64]
    added_mass_zero: NDArray[np.float64] | None = None
    source: str = ""
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        bodies = tuple(self.bodies)
        object.__setattr__(self, "bodies", bodies)
        if not bodies or not all(isinstance(b, HydroData) for b in bodies):
            raise HydroDataError("MultiBodyData needs a non-empty sequence of HydroData",
                                 value=bodies)
        names = [b.name for b in bodies]
        if len(set(names)) != len(names):
            raise HydroDataError(f"body names must be unique, got {names}", value=names)
        first = bodies[0]
        for b in bodies[1:]:
            if not np.array_equal(b.omega, first.omega):
                raise HydroDataError(
                    f"bodies '{first.name}' and '{b.name}' have different frequencies; coupled "
                    "data needs one frequency set (take them from one BEM run)", value=b.name)
            if not np.array_equal(b.wave_direction, first.wave_direction):
                raise HydroDataError(
                    f"bodies '{first.name}' and '{b.name}' have different wave headings",
                    value=b.name)
        n = 6 * len(bodies)
        nw = first.nw
        for name, shape in (("added_mass", (nw, n, n)), ("radiation_damping", (nw, n, n)),
                            ("added_mass_inf", (n, n))):
            arr = np.asarray(getattr(self, name), dtype=float)
            if arr.shape != shape:
                raise HydroDataError(f"MultiBodyData.{name} has shape {arr.shape}, expected "
                                     f"{shape} for {len(bodies)} bodies and {nw} frequencies",
                                     value=arr.shape)
            object.__setattr__(self, name, arr)
        if self.added_mass_zero is not None:
            a0 = np.asarray(self.added_mass_zero, dtype=float)
            if a0.shape != (n, n):
                raise HydroDataError(f"MultiBodyData.added_mass_zero has shape {a0.shape}, "
                                     f"expected {(n, n)}", value=a0.shape)
            object.__setattr__(self, "added_mass_zero", a0)
        for k, b in enumerate(bodies):
            s = slice(6 * k, 6 * k + 6)
            for full, own in (("added_mass", "added_mass"),
                              ("radiation_damping", "radiation_damping"),
                              ("added_mass_inf", "added_mass_inf")):
                blk = getattr(self, full)[..., s, s]
                if not np.array_equal(blk, getattr(b, own)):
                    raise HydroDataError(
                        f"the diagonal block of {full} for body '{b.name}' differs from the "
                        "body's own data; build both from the same arrays", value=b.name)

    @classmethod
    def uncoupled(cls, bodies: Sequence[HydroData], *, source: str = "") -> MultiBodyData:
        """Bodies without coupling data (from separate files): zero off-diagonal blocks."""
        bodies = tuple(bodies)
        if not bodies:
            raise HydroDataError("uncoupled() needs at least one body", value=bodies)
        n = 6 * len(bodies)
        nw = bodies[0].nw
        a = np.zeros((nw, n, n))
        b = np.zeros((nw, n, n))
        ainf = np.zeros((n, n))
        for k, hd in enumerate(bodies):
            if hd.nw != nw:
                raise HydroDataError(f"body '{hd.name}' has {hd.nw} frequencies, body "
                                     f"'{bodies[0].name}' {nw}", value=hd.name)
            s = slice(6 * k, 6 * k + 6)
            a[:, s, s] = hd.added_mass
            b[:, s, s] = hd.radiation_damping
            ainf[s, s] = hd.added_mass_inf
        return cls(bodies=bodies, added_mass=a, radiation_damping=b, added_mass_inf=ainf,
                   source=source,
                   notes=("no body-to-body coupling data: off-diagonal blocks are zero",))

    @property
    def names(self) -> tuple[str, ...]:
        """Body names, in DOF order."""
        return tuple(b.name for b in self.bodies)

    @property
    def n_bodies(self) -> int:
        """Number of bodies N."""
        return len(self.bodies)

    @property
    def omega(self) -> NDArray[np.float64]:
        """Angular frequencies, shape (nw,), rad/s."""
        return self.bodies[0].omega

    @property
    def wave_direction(self) -> NDArray[np.float64]:
        """Headings, shape (nb,), rad."""
        return self.bodies[0].wave_direction

    @property
    def excitation(self) -> NDArray[np.complex128]:
        """X(omega, beta) of all bodies, shape (nw, nb, 6N), N/m and N m/m."""
        return np.concatenate([b.excitation for b in self.bodies], axis=-1)

    def index(self, name: str) -> int:
        """Position of a body by name; raises with the available names."""
        try:
            return self.names.index(name)
        except ValueError:
            raise HydroDataError(f"no body '{name}'; available: {list(self.names)}",
                                 value=name) from None

    def block(self, i: int | str, j: int | str, *, field: str = "added_mass_inf"
              ) -> NDArray[np.float64]:
        """Block ``(i, j)`` of a full matrix: the force on body ``i`` due to body ``j``.

        Parameters
        ----------
        i, j
            Body positions or names.
        field
            ``"added_mass_inf"`` (6, 6), ``"added_mass"`` or ``"radiation_damping"``
            (nw, 6, 6).
        """
        ii = self.index(i) if isinstance(i, str) else int(i)
        jj = self.index(j) if isinstance(j, str) else int(j)
        arr = getattr(self, field)
        return arr[..., 6 * ii:6 * ii + 6, 6 * jj:6 * jj + 6].copy()

    def _masked(self, arr: NDArray[np.float64], b2b: bool) -> NDArray[np.float64]:
        if b2b:
            return arr.copy()
        out = np.zeros_like(arr)
        for k in range(self.n_bodies):
            s = slice(6 * k, 6 * k + 6)
            out[..., s, s] = arr[..., s, s]
        return out

    def added_mass_inf_matrix(self, *, b2b: bool) -> NDArray[np.float64]:
        """The 6N x 6N A_inf; ``b2b=False`` zeroes the body-to-body blocks."""
        return self._masked(self.added_mass_inf, b2b)

    def added_mass_matrix(self, *, b2b: bool) -> NDArray[np.float64]:
        """A(omega), shape (nw, 6N, 6N); ``b2b=False`` zeroes the body-to-body blocks."""
        return self._masked(self.added_mass, b2b)

    def damping_matrix(self, *, b2b: bool) -> NDArray[np.float64]:
        """B(omega), shape (nw, 6N, 6N); ``b2b=False`` zeroes the body-to-body blocks."""
        return self._masked(self.radiation_damping, b2b)

    def subset(self, names: Sequence[str]) -> MultiBodyData:
        """The data of some bodies only, in the given order, with their mutual coupling."""
        idx = [self.index(n) for n in names]
        dofs = np.concatenate([np.arange(6 * k, 6 * k + 6) for k in idx])
        return MultiBodyData(
            bodies=tuple(self.bodies[k] for k in idx),
            added_mass=self.added_mass[:, dofs][:, :, dofs],
            radiation_damping=self.radiation_damping[:, dofs][:, :, dofs],
            added_mass_inf=self.added_mass_inf[np.ix_(dofs, dofs)],
            added_mass_zero=(None if self.added_mass_zero is None
                             else self.added_mass_zero[np.ix_(dofs, dofs)]),
            source=self.source, notes=self.notes)
