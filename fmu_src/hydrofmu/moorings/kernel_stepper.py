"""The replay's compiled stepping: many explicit Runge-Kutta steps in one C call.

``hydrofmu mooring replay`` moves the coupled objects along a known interpolant, so a whole
sample interval can be integrated without returning to Python: ``hf_line_advance_rk`` of
``line_kernel.c`` evaluates the replay's Hermite motion
(:class:`~hydrofmu.moorings.replay.HermiteMotion`, same coefficients, same interval search,
bodies' angular velocity as :meth:`~hydrofmu.moorings.replay.Replay.kinematics`) and the
lines' derivative at every stage of the registered scheme's own tableau (``A``, ``B``,
``C`` of :class:`~hydrofmu.schemes.runge_kutta.ExplicitRungeKutta`: ``euler``, ``rk2``,
``rk2heun``, ``rk3``, ``rk4``). Other schemes step in Python. The scheme's checks (a
non-finite or exploding state) are made once per call, at the end of the interval.

Build-time/CLI module (not bundled in an FMU).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import IntegrationError
from ..schemes.base import ADVICE, GROWTH_LIMIT
from ..schemes.runge_kutta import ExplicitRungeKutta

Array = NDArray[np.float64]
_F64P = ctypes.POINTER(ctypes.c_double)


class HfMotion(ctypes.Structure):
    """``struct hf_motion`` of ``line_kernel.c``."""

    _fields_ = [("n_samples", ctypes.c_int64), ("n_dof", ctypes.c_int64),
                ("n_bodies", ctypes.c_int64), ("t", _F64P), ("h", _F64P), ("c", _F64P),
                ("dc", _F64P)]


class CompiledRK:
    """Explicit RK steps of the lines through a Hermite motion, in C.

    Parameters
    ----------
    system
        A ``LineSystem`` running the C kernel.
    scheme
        An :class:`ExplicitRungeKutta` scheme.
    motion
        The replay's ``HermiteMotion``.
    n_bodies
        Coupled bodies (the first ``6 n_bodies`` coupled coordinates).
    """

    def __init__(self, *, system: Any, scheme: ExplicitRungeKutta, motion: Any,
                 n_bodies: int) -> None:
        ck = system._ck
        self.system, self.scheme, self._ck = system, scheme, ck
        lib = ck.lib
        size = lib.hf_line_motion_struct_size
        size.restype, size.argtypes = ctypes.c_int64, []
        if size() != ctypes.sizeof(HfMotion):
            raise ValueError("the line kernel's motion structure does not match")
        self._fn = lib.hf_line_advance_rk
        self._fn.restype = ctypes.c_int
        self._fn.argtypes = ([ctypes.c_void_p] * 3 + [ctypes.c_int64, ctypes.c_double,
                                                      ctypes.c_double, ctypes.c_int64]
                             + [ctypes.c_void_p] * 3 + [ctypes.c_double, ctypes.c_int64]
                             + [ctypes.c_void_p] * 4)
        m = motion.y.shape[1]
        keep = {
            "t": np.ascontiguousarray(motion.t, dtype=float),
            "h": np.ascontiguousarray(motion._h, dtype=float),  # the interpolant's own
            "c": np.ascontiguousarray(motion._c, dtype=float),
            "dc": np.ascontiguousarray(motion._dc, dtype=float),
            "A": np.ascontiguousarray(scheme.A, dtype=float),
            "B": np.ascontiguousarray(scheme.B, dtype=float),
            "C": np.ascontiguousarray(scheme.C, dtype=float),
        }
        s, n = scheme.B.size, system.n_states
        keep.update(k=np.zeros((s, max(n, 1))), ytmp=np.zeros(max(n, 1)),
                    cp=np.zeros(max(m, 1)), cv=np.zeros(max(m, 1)), y=np.zeros(max(n, 1)))
        self._keep = keep
        mo = HfMotion(n_samples=motion.t.size, n_dof=m, n_bodies=n_bodies)
        for name in ("t", "h", "c", "dc"):
            setattr(mo, name, keep[name].ctypes.data_as(_F64P))
        self._motion = mo
        self._stages = s
        self._n = n

    @classmethod
    def applies(cls, system: Any, scheme: Any) -> bool:
        """Whether ``scheme`` is a plain explicit RK tableau and the system runs C."""
        return (getattr(system, "_ck", None) is not None
                and isinstance(scheme, ExplicitRungeKutta)
                and type(scheme)._step_impl is ExplicitRungeKutta._step_impl)

    def advance(self, x: Array, t0: float, h: float, n_steps: int) -> Array:
        """``n_steps`` steps of ``h`` from ``t0``; returns the new state (a new array).

        Raises
        ------
        IntegrationError
            The state became non-finite or exploded, as the scheme's own check says.
        numpy.linalg.LinAlgError
            A free point's mass matrix is singular.
        """
        k = self._keep
        y = k["y"][:self._n]
        y[:] = x
        sysm = self.system
        rc = self._fn(self._ck._struct_ptr, ctypes.addressof(self._motion), y.ctypes.data,
                      n_steps, t0, h, self._stages, k["A"].ctypes.data, k["B"].ctypes.data,
                      k["C"].ctypes.data, sysm.drag_scale, sysm._compression,
                      k["k"].ctypes.data, k["ytmp"].ctypes.data, k["cp"].ctypes.data,
                      k["cv"].ctypes.data)
        if rc:
            raise np.linalg.LinAlgError("a free point's mass matrix is singular")
        out = y.copy()
        if not np.all(np.isfinite(out)):
            what = "a non-finite state"
        elif float(np.max(np.abs(out), initial=0.0)) > GROWTH_LIMIT * max(
                1.0, float(np.max(np.abs(x), initial=0.0))):
            what = f"an exploding state (grown more than {GROWTH_LIMIT:.0e} times)"
        else:
            return out
        t1 = t0 + n_steps * h
        raise IntegrationError(
            f"time scheme '{self.scheme.label}' produced {what} between t = {t0:.6g} s and "
            f"{t1:.6g} s (h = {h:.3g} s): the step is too large for this scheme or the model "
            f"diverges; {ADVICE}", value=t0)
