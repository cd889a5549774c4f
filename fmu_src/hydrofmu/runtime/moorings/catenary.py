"""The quasi-static elastic catenary with seabed contact: its one solve, in C.

One uniform line hangs between an anchor end A and a fairlead end B. In the vertical plane of
the line, with ``XF >= 0`` the horizontal span and ``ZF`` the height of B above A, the line is
described by the horizontal and vertical fairlead tensions ``HF``, ``VF`` (N), the unstretched
length ``L`` (m), the axial stiffness ``EA`` (N) and the submerged weight per length ``w``
(N/m). Two closed-form equations (Irvine 1981; Jonkman 2007, the formulation that MoorDyn and
FAST use) give ``XF(HF, VF)`` and ``ZF(HF, VF)``:

* fully suspended (no seabed, or ``VF >= w L``)::

      XF = HF/w [asinh(VF/HF) - asinh(VA/HF)] + HF L/EA,          VA = VF - w L
      ZF = HF/w [sqrt(1 + (VF/HF)^2) - sqrt(1 + (VA/HF)^2)] + (VF L - w L^2/2)/EA

* partly on the seabed (``LB = L - VF/w`` lies on the bottom, friction coefficient ``CB``)::

      XF = LB + HF/w asinh(VF/HF) + HF L/EA
           + CB w/(2 EA) [-LB^2 + (LB - HF/(CB w)) max(LB - HF/(CB w), 0)]
      ZF = HF/w [sqrt(1 + (VF/HF)^2) - 1] + VF^2/(2 EA w)

The pair is solved by a damped Newton iteration on ``(log HF, VF)``; when it does not converge a
nested bisection (``ZF`` is monotonic in ``VF`` at fixed ``HF``, ``XF`` in ``HF`` along that
curve) takes over, so slack, taut and fully lifted lines are all found. Every solve starts
from the same point (no warm start: a solve is a function of its arguments).

The equations and the solve live once, in ``catenary_kernel.c``, compiled into the library
of the line kernel (:mod:`.kernel_files`) and called here by :mod:`ctypes`; the native FMU
includes the same file. Without a usable library a solve raises
:class:`CatenaryKernelUnavailable` (with the fix). The line's profile (:meth:`Catenary.profile`:
positions and tensions along it, for a MoorDyn line's initial nodes) stays in numpy.

Run-time module: numpy, ctypes and the standard library only.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..errors import CatenaryError

__all__ = [
    "SOLUTION_SIZE",
    "Catenary",
    "CatenaryError",
    "CatenaryKernelUnavailable",
    "CatenarySolution",
    "HfCatenary",
    "catenary_library",
]

#: Version of the C interface (``struct hf_catenary``, ``hf_cat_*``); must equal
#: ``HF_CATENARY_ABI`` of the compiled library.
ABI_VERSION = 1

#: Doubles of a solution (``HF_CAT_SOL``): HF, VF, HA, VA, LB, XF, ZF, two quoted values.
SOLUTION_SIZE = 9

_F64P = ctypes.POINTER(ctypes.c_double)
_loaded: dict[str, ctypes.CDLL] = {}


class CatenaryKernelUnavailable(CatenaryError):
    """No usable compiled catenary solve; the message says why and the fix."""


class HfCatenary(ctypes.Structure):
    """``struct hf_catenary`` of ``catenary_kernel.c`` (same fields, same order)."""

    _fields_ = [("length", ctypes.c_double), ("weight", ctypes.c_double),
                ("ea", ctypes.c_double), ("cb", ctypes.c_double),
                ("max_strain", ctypes.c_double), ("tol", ctypes.c_double),
                ("anchor", ctypes.c_double * 3), ("fairlead", ctypes.c_double * 3),
                ("seabed", ctypes.c_int64)]


def catenary_library() -> ctypes.CDLL:
    """The compiled solve: the line kernel's library
    (:func:`~hydrofmu.runtime.moorings.kernel_loader.load_library`), checked for the
    catenary's entry points and ABI; kept for the process once loaded.

    Raises
    ------
    CatenaryKernelUnavailable
        No library, or one without the catenary (an older build): the message names the fix.
    """
    if "lib" in _loaded:
        return _loaded["lib"]
    from .kernel_loader import KernelUnavailable, load_library

    fix = ("; fix: install a C compiler (or pip install 'hydrofmu[native]') and build the "
           "model again (hydrofmu compiles the mooring kernel, which holds the catenary "
           "solve, when it builds a model with moorings, and into every FMU that has them)")
    try:
        lib = load_library()
        abi, size = lib.hf_catenary_abi, lib.hf_catenary_struct_size
        lib.hf_cat_span, lib.hf_cat_solve, lib.hf_cat_message, lib.hf_cat_body  # noqa: B018
    except KernelUnavailable as exc:
        raise CatenaryKernelUnavailable(f"catenary moorings need the compiled mooring "
                                        f"kernel: {exc}{fix}", value="catenary") from exc
    except AttributeError as exc:
        raise CatenaryKernelUnavailable(f"the compiled mooring kernel has no catenary solve "
                                        f"(an older build: {exc}){fix}",
                                        value="catenary") from exc
    abi.restype = size.restype = ctypes.c_int64
    abi.argtypes = size.argtypes = []
    if abi() != ABI_VERSION or size() != ctypes.sizeof(HfCatenary):
        raise CatenaryKernelUnavailable(
            f"the compiled catenary has ABI {abi()} ({size()} bytes); this hydrofmu needs "
            f"ABI {ABI_VERSION} ({ctypes.sizeof(HfCatenary)} bytes){fix}", value="catenary")
    ptr = ctypes.c_void_p
    lib.hf_cat_span.restype = None
    lib.hf_cat_span.argtypes = [ptr, ctypes.c_double, ctypes.c_double, ptr]
    lib.hf_cat_solve.restype = ctypes.c_int
    lib.hf_cat_solve.argtypes = [ptr, ctypes.c_double, ctypes.c_double, ptr]
    lib.hf_cat_message.restype = None
    lib.hf_cat_message.argtypes = [ptr, ctypes.c_int, ptr, ctypes.c_char_p, ctypes.c_int64]
    lib.hf_cat_body.restype = ctypes.c_int
    lib.hf_cat_body.argtypes = [ptr, ctypes.c_int64, ptr, ptr, ptr, ptr, ptr]
    _loaded["lib"] = lib
    return lib


def message(line: ctypes.Array | HfCatenary, code: int, sol: NDArray[np.float64]) -> str:
    """The kernel's words for ``code`` (of ``hf_cat_solve`` or ``hf_cat_body``, its
    solution ``sol``) about ``line`` (one :class:`HfCatenary`, or the failed one)."""
    buf = ctypes.create_string_buffer(512)
    catenary_library().hf_cat_message(ctypes.byref(line), code, sol.ctypes.data, buf, 512)
    return buf.value.decode("utf-8", "replace")


def error_value(code: int, sol: NDArray[np.float64]) -> object:
    """The value a :class:`CatenaryError` of ``code`` carries (the span, the height, the
    chord)."""
    xf, zf = float(sol[5]), float(sol[6])
    return {2: xf, 3: zf, 4: float(sol[7])}.get(code, (xf, zf))


def solution_of(sol: NDArray[np.float64]) -> CatenarySolution:
    """The :class:`CatenarySolution` of the kernel's solution array."""
    return CatenarySolution(HF=float(sol[0]), VF=float(sol[1]), HA=float(sol[2]),
                            VA=float(sol[3]), LB=float(sol[4]), XF=float(sol[5]),
                            ZF=float(sol[6]))


@dataclass(frozen=True)
class CatenarySolution:
    """The static state of one line.

    Attributes
    ----------
    HF, VF
        Horizontal and vertical tension at the fairlead, N (``VF`` > 0 pulls the fairlead down).
    HA, VA
        Horizontal and vertical tension at the anchor, N (``VA`` > 0 pulls the anchor up).
    LB
        Unstretched length lying on the seabed, m (0 when fully suspended).
    """

    HF: float
    VF: float
    HA: float
    VA: float
    LB: float
    XF: float = math.nan
    ZF: float = math.nan

    @property
    def fairlead_tension(self) -> float:
        """Tension magnitude at the fairlead, N."""
        return math.hypot(self.HF, self.VF)

    @property
    def anchor_tension(self) -> float:
        """Tension magnitude at the anchor, N."""
        return math.hypot(self.HA, self.VA)


class Catenary:
    """An elastic catenary line, anchor at end A, fairlead at end B.

    Parameters
    ----------
    length
        Unstretched length L, m, > 0.
    weight
        Submerged weight per unit length w, N/m, > 0 (``(mass/m - rho A) g``).
    ea
        Axial stiffness EA, N, > 0; ``math.inf`` for an inextensible line.
    seabed
        Whether the anchor lies on a seabed the line may rest on.
    cb
        Seabed friction coefficient CB (>= 0); only used with ``seabed``.
    max_strain
        Largest mean strain accepted before the line is declared unable to reach.
    tol
        Relative tolerance of the solution on ``XF`` and ``ZF``.

    Attributes
    ----------
    struct
        The line as the C solve reads it (:class:`HfCatenary`; anchor and fairlead zero).
    """

    def __init__(
        self,
        *,
        length: float,
        weight: float,
        ea: float,
        seabed: bool = True,
        cb: float = 0.0,
        max_strain: float = 0.2,
        tol: float = 1e-10,
    ) -> None:
        for name, value in (("length", length), ("weight", weight), ("ea", ea)):
            if not (value > 0):
                raise CatenaryError(f"catenary {name}={value!r} must be > 0", value=value)
        if not (math.isfinite(length) and math.isfinite(weight)):
            raise CatenaryError("catenary length and weight must be finite", value=(length, weight))
        if not (cb >= 0 and math.isfinite(cb)):
            raise CatenaryError(f"catenary seabed friction cb={cb!r} must be >= 0", value=cb)
        if not (math.isfinite(max_strain) and max_strain >= 0 and tol > 0):
            raise CatenaryError(f"catenary max_strain={max_strain!r} must be >= 0 and "
                                f"tol={tol!r} > 0", value=(max_strain, tol))
        self.length = float(length)
        self.weight = float(weight)
        self.ea = float(ea)
        self.seabed = bool(seabed)
        self.cb = float(cb)
        self.max_strain = float(max_strain)
        self.tol = float(tol)
        self.struct = HfCatenary(self.length, self.weight, self.ea, self.cb, self.max_strain,
                                 self.tol, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), int(self.seabed))

    def span(self, hf: float, vf: float) -> tuple[float, float]:
        """``(XF, ZF)`` in m for fairlead tensions ``hf`` > 0, ``vf`` (N)."""
        xz = np.zeros(2)
        catenary_library().hf_cat_span(ctypes.byref(self.struct), float(hf), float(vf),
                                       xz.ctypes.data)
        return float(xz[0]), float(xz[1])

    def solve(self, xf: float, zf: float) -> CatenarySolution:
        """Fairlead and anchor tensions for a horizontal span ``xf`` and a height ``zf``, m.

        Raises
        ------
        CatenaryError
            The line cannot reach (it would need more than ``max_strain``), the span is not
            positive or not finite, the fairlead is below an anchor on the seabed, or no
            solution is found.
        """
        sol = np.zeros(SOLUTION_SIZE)
        code = catenary_library().hf_cat_solve(ctypes.byref(self.struct), float(xf),
                                               float(zf), sol.ctypes.data)
        if code:
            raise CatenaryError(message(self.struct, code, sol), value=error_value(code, sol))
        return solution_of(sol)

    # -- the profile ----------------------------------------------------------------------
    def profile(
        self, sol: CatenarySolution, s: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Position and tension along the line.

        Parameters
        ----------
        sol
            A solution of :meth:`solve`.
        s
            Unstretched arc length from the anchor, m, shape (n,), in ``[0, L]``.

        Returns
        -------
        x, z, tension
            Horizontal distance from the anchor and height above it, m, and tension, N;
            each shape (n,).
        """
        s = np.asarray(s, dtype=float)
        w, ea, hf, vf = self.weight, self.ea, sol.HF, sol.VF
        lb = sol.LB
        if hf == 0.0:
            # slack: the bed part is spread uniformly over the span, the rest hangs vertically
            v = np.clip(s - lb, 0.0, self.length - lb)
            z = v + w * v * v / (2 * ea)
            return np.minimum(s, lb) * (sol.XF / lb), z, w * v
        x = np.empty_like(s)
        z = np.empty_like(s)
        t = np.empty_like(s)
        if lb > 0:
            bed = s <= lb
            sb = s[bed]
            if self.cb > 0:
                tb = np.maximum(hf + self.cb * w * (sb - lb), 0.0)
                s0 = max(lb - hf / (self.cb * w), 0.0)
                # stretch accumulated from the anchor: integral of tb/EA
                stretch = np.where(
                    sb > s0,
                    (hf * (sb - s0) + self.cb * w * ((sb - lb) ** 2 - (s0 - lb) ** 2) / 2) / ea,
                    0.0,
                )
            else:
                tb = np.full_like(sb, hf)
                stretch = hf * sb / ea
            x[bed], z[bed], t[bed] = sb + stretch, 0.0, tb
            if self.cb > 0:
                s0 = max(lb - hf / (self.cb * w), 0.0)
                bed_end = lb + (hf * (lb - s0) - self.cb * w * (s0 - lb) ** 2 / 2) / ea
            else:
                bed_end = lb + hf * lb / ea
            sus = ~bed
            v = w * (s[sus] - lb)
            x[sus] = bed_end + hf / w * np.arcsinh(v / hf) + hf * (s[sus] - lb) / ea
            z[sus] = hf / w * (np.sqrt(1 + (v / hf) ** 2) - 1) + v * v / (2 * ea * w)
            t[sus] = np.hypot(hf, v)
            return x, z, t
        va = vf - w * self.length
        v = va + w * s
        x = hf / w * (np.arcsinh(v / hf) - math.asinh(va / hf)) + hf * s / ea
        z = hf / w * (np.sqrt(1 + (v / hf) ** 2) - math.sqrt(1 + (va / hf) ** 2)) + (
            va * s + w * s * s / 2
        ) / ea
        return x, z, np.hypot(hf, v)

