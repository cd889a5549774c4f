"""The replay's compiled stepping: many time steps of the lines in one C call.

``hydrofmu mooring replay`` moves the coupled objects along a known interpolant, so a whole
sample interval can be integrated without returning to Python. ``line_kernel.c`` evaluates
the replay's Hermite motion (:class:`~hydrofmu.cosim.replay.HermiteMotion`: same
coefficients, same interval search, bodies' angular velocity as
:meth:`~hydrofmu.cosim.replay.Replay.kinematics`) and the lines' derivative at every
stage of the registered scheme, with the scheme's own constants:

- ``hf_line_advance_rk``: the public tableau ``A``, ``B``, ``C`` of the explicit Runge-Kutta
  schemes ``RUNGE_KUTTA`` of :mod:`~hydrofmu.runtime.schemes.runge_kutta` (``euler``,
  ``rk2``, ``rk2heun``, ``rk3``, ``rk4``);
- ``hf_line_advance_si``: MoorDyn's semi-implicit ``beulerN`` and ``midpointN``
  (:class:`~hydrofmu.runtime.schemes.semi_implicit.SemiImplicit`: stage fraction, the relaxation
  weights :meth:`~hydrofmu.runtime.schemes.semi_implicit.SemiImplicit.relax`, the derivative
  carried from step to step, read and handed back through the scheme's public
  ``get_state``/``set_state``).

Other schemes step in Python. The scheme's checks (a non-finite or exploding state) are
made once per call, at the end of the interval.

Build-side module (the replay of ``hydrofmu mooring replay``; not bundled in an FMU).
"""

from __future__ import annotations

import ctypes
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import IntegrationError
from ..runtime.moorings.lines import LineSystem
from ..runtime.schemes.base import ADVICE, GROWTH_LIMIT, TimeScheme
from ..runtime.schemes.runge_kutta import RUNGE_KUTTA
from ..runtime.schemes.semi_implicit import BackwardEuler, Midpoint


class SampledMotion(Protocol):
    """What the compiled stepper reads of the replay's motion
    (:class:`~hydrofmu.cosim.replay.HermiteMotion`): the samples and the cubic Hermite
    interpolant's coefficients, arrays handed to C."""

    t: NDArray[np.float64]
    y: NDArray[np.float64]
    intervals: NDArray[np.float64]
    coefficients: NDArray[np.float64]
    rate_coefficients: NDArray[np.float64]

Array = NDArray[np.float64]
_F64P = ctypes.POINTER(ctypes.c_double)
_P, _I, _D = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double


class HfMotion(ctypes.Structure):
    """``struct hf_motion`` of ``line_kernel.c``."""

    _fields_ = [("n_samples", ctypes.c_int64), ("n_dof", ctypes.c_int64),
                ("n_bodies", ctypes.c_int64), ("t", _F64P), ("h", _F64P), ("c", _F64P),
                ("dc", _F64P)]


def _kind(scheme: TimeScheme) -> str | None:
    """``"rk"``: an explicit Runge-Kutta scheme stepped by its tableau; ``"si"``:
    ``beulerN``/``midpointN``; None: no compiled stepper."""
    if type(scheme) in RUNGE_KUTTA:
        return "rk"
    if type(scheme) in (BackwardEuler, Midpoint):
        return "si"
    return None


class CompiledSteps:
    """Steps of the lines through a Hermite motion, in C.

    Parameters
    ----------
    system
        Lines running the C kernel.
    scheme
        The scheme object (one that :meth:`applies`); a semi-implicit scheme's carried
        derivative is read from it and written back to it.
    motion
        The replay's ``HermiteMotion``.
    n_bodies
        Coupled bodies (the first ``6 n_bodies`` coupled coordinates).
    """

    def __init__(self, *, system: LineSystem, scheme: TimeScheme, motion: SampledMotion,
                 n_bodies: int) -> None:
        kind = _kind(scheme)
        ck = system.compiled
        if kind is None or ck is None:
            raise ValueError(f"no compiled stepping for scheme {scheme.label!r}")
        self.system, self.scheme, self._ck, self._kind = system, scheme, ck, kind
        lib = ck.lib
        size = lib.hf_line_motion_struct_size
        size.restype, size.argtypes = ctypes.c_int64, []
        if size() != ctypes.sizeof(HfMotion):
            raise ValueError("the line kernel's motion structure does not match")
        if kind == "rk":
            self._fn = lib.hf_line_advance_rk
            self._fn.argtypes = [_P, _P, _P, _I, _D, _D, _I, _P, _P, _P, _D, _I, _P, _P, _P, _P]
        else:
            self._fn = lib.hf_line_advance_si
            self._fn.argtypes = [_P, _P, _P, _I, _D, _D, _D, _I, _P, _D, _I, _P, _I, _P, _P,
                                 _P, _P, _P]
        self._fn.restype = ctypes.c_int
        m = motion.y.shape[1]
        n = max(system.n_states, 1)
        keep = {"t": np.ascontiguousarray(motion.t, dtype=float),
                "h": np.ascontiguousarray(motion.intervals, dtype=float),  # the interpolant's
                "c": np.ascontiguousarray(motion.coefficients, dtype=float),
                "dc": np.ascontiguousarray(motion.rate_coefficients, dtype=float),
                "ytmp": np.zeros(n), "cp": np.zeros(max(m, 1)), "cv": np.zeros(max(m, 1)),
                "y": np.zeros(n), "z": np.zeros(n), "g": np.zeros(n), "d": np.zeros(n)}
        if kind == "rk":
            keep.update(A=np.ascontiguousarray(scheme.A, dtype=float),
                        B=np.ascontiguousarray(scheme.B, dtype=float),
                        C=np.ascontiguousarray(scheme.C, dtype=float),
                        k=np.zeros((scheme.B.size, n)))
        else:
            keep["relax"] = np.array([scheme.relax(i) for i in range(scheme.substeps)]
                                     + [0.0])
        self._keep = keep
        mo = HfMotion(n_samples=motion.t.size, n_dof=m, n_bodies=n_bodies)
        for name in ("t", "h", "c", "dc"):
            setattr(mo, name, keep[name].ctypes.data_as(_F64P))
        self._motion = mo
        self._n = system.n_states

    @staticmethod
    def applies(system: LineSystem, scheme: TimeScheme) -> bool:
        """Whether ``scheme`` has a compiled stepper and the system runs C."""
        return system.compiled is not None and _kind(scheme) is not None

    def advance(self, x: Array, t0: float, h: float, n_steps: int) -> Array:
        """``n_steps`` steps of ``h`` from ``t0``; returns the new state (a new array).

        Raises
        ------
        IntegrationError
            The state became non-finite or exploded, as the scheme's own check says.
        numpy.linalg.LinAlgError
            A free point's mass matrix is singular.
        """
        k, n, sysm, sch = self._keep, self._n, self.system, self.scheme
        y = k["y"][:n]
        y[:] = x
        common = (self._ck.struct_address, ctypes.addressof(self._motion), y.ctypes.data,
                  n_steps, t0, h)
        work = (k["ytmp"].ctypes.data, k["cp"].ctypes.data, k["cv"].ctypes.data)
        if self._kind == "rk":
            rc = self._fn(*common, sch.B.size, k["A"].ctypes.data, k["B"].ctypes.data,
                          k["C"].ctypes.data, sysm.drag_scale, sysm.compression,
                          k["k"].ctypes.data, *work)
        else:
            # the scheme's carried derivative, when it belongs to t0 (as its own test)
            carried = sch.get_state()
            d = carried.get("d")
            have = (d is not None and d.shape == y.shape
                    and abs(float(carried["t"][0]) - t0) <= 1e-9 * max(h, abs(t0)))
            if have:
                k["d"][:n] = d
            rc = self._fn(*common, sch.STAGE, sch.substeps, k["relax"].ctypes.data,
                          sysm.drag_scale, sysm.compression, k["d"].ctypes.data, int(have),
                          k["z"].ctypes.data, k["g"].ctypes.data, *work)
        if rc:
            raise np.linalg.LinAlgError("a free point's mass matrix is singular")
        out = y.copy()
        if not np.all(np.isfinite(out)):
            what = "a non-finite state"
        elif float(np.max(np.abs(out), initial=0.0)) > GROWTH_LIMIT * max(
                1.0, float(np.max(np.abs(x), initial=0.0))):
            what = f"an exploding state (grown more than {GROWTH_LIMIT:.0e} times)"
        else:
            if self._kind == "si":
                sch.set_state({"d": k["d"][:n], "t": np.array([t0 + n_steps * h])})
            return out
        t1 = t0 + n_steps * h
        raise IntegrationError(
            f"time scheme '{sch.label}' produced {what} between t = {t0:.6g} s and "
            f"{t1:.6g} s (h = {h:.3g} s): the step is too large for this scheme or the model "
            f"diverges; {ADVICE}", value=t0)
