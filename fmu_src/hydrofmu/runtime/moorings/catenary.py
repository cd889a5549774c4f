"""The quasi-static elastic catenary with seabed contact (numpy + standard library only).

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
curve) takes over, so slack, taut and fully lifted lines are all found.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..errors import CatenaryError

__all__ = ["Catenary", "CatenaryError", "CatenarySolution"]


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
        self.length = float(length)
        self.weight = float(weight)
        self.ea = float(ea)
        self.seabed = bool(seabed)
        self.cb = float(cb)
        self.max_strain = float(max_strain)
        self.tol = float(tol)

    # -- the closed form ------------------------------------------------------------------
    def _on_seabed(self, vf: float) -> bool:
        return self.seabed and vf < self.weight * self.length

    def span(self, hf: float, vf: float) -> tuple[float, float]:
        """``(XF, ZF)`` in m for fairlead tensions ``hf`` > 0, ``vf`` (N)."""
        L, w, ea = self.length, self.weight, self.ea
        if self._on_seabed(vf):
            vf = max(vf, 0.0)
            lb = L - vf / w
            xf = lb + hf / w * math.asinh(vf / hf) + hf * L / ea
            if self.cb > 0:
                s0 = lb - hf / (self.cb * w)
                xf += self.cb * w / (2 * ea) * (-lb * lb + s0 * max(s0, 0.0))
            zf = hf / w * (math.sqrt(1 + (vf / hf) ** 2) - 1) + vf * vf / (2 * ea * w)
            return xf, zf
        va = vf - w * L
        a, b = vf / hf, va / hf
        sa, sb = math.sqrt(1 + a * a), math.sqrt(1 + b * b)
        # differences of asinh and sqrt rewritten without cancellation (a - b = w L / HF is
        # tiny for a light, taut line)
        if a * b > 0:
            dx = math.asinh((w * L / hf) * (a + b) / (a * sb + b * sa))
        else:
            dx = math.asinh(a) - math.asinh(b)
        xf = hf / w * dx + hf * L / ea
        zf = L * (a + b) / (sa + sb) + (vf * L - w * L * L / 2) / ea
        return xf, zf

    # -- the solve ------------------------------------------------------------------------
    def solve(self, xf: float, zf: float) -> CatenarySolution:
        """Fairlead and anchor tensions for a horizontal span ``xf`` and a height ``zf``, m.

        Raises
        ------
        CatenaryError
            The line cannot reach (it would need more than ``max_strain``), the span is not
            positive, or no solution is found.
        """
        if not (math.isfinite(xf) and math.isfinite(zf)):
            raise CatenaryError(f"catenary span ({xf!r}, {zf!r}) must be finite", value=(xf, zf))
        if xf <= 1e-9 * self.length:
            raise CatenaryError(
                f"catenary horizontal span XF={xf:.6g} m must be > 0: a vertical line is not "
                "supported by the quasi-static model; use a dynamic (moordyn) line",
                value=xf,
            )
        if self.seabed and zf < 0:
            raise CatenaryError(
                f"the fairlead is {-zf:.6g} m below an anchor that lies on the seabed; "
                "swap the ends or set seabed = false for a line hanging between two points",
                value=zf,
            )
        chord = math.hypot(xf, zf)
        limit = self.length * (1 + self.max_strain) if math.isfinite(self.ea) else self.length
        if chord >= limit:
            raise CatenaryError(
                f"the line cannot reach: the ends are {chord:.6g} m apart and the line is "
                f"{self.length:.6g} m long (EA = {self.ea:.3g} N, at most {self.max_strain:.0%} "
                "strain accepted); lengthen the line or move the anchor closer",
                value=chord,
            )
        scale = max(self.length, 1.0)
        slack = self._slack(xf, zf)
        if slack is not None:
            return slack
        sol = self._newton(xf, zf)
        if sol is None:
            sol = self._bisection(xf, zf)
        hf, vf = sol
        rx, rz = self.span(hf, vf)
        if abs(rx - xf) + abs(rz - zf) > 1e3 * self.tol * scale:
            raise CatenaryError(
                f"no catenary solution found for XF={xf:.6g} m, ZF={zf:.6g} m "
                f"(residual {abs(rx - xf) + abs(rz - zf):.3g} m)",
                value=(xf, zf),
            )
        return self._solution(hf, vf, xf, zf)

    def _slack(self, xf: float, zf: float) -> CatenarySolution | None:
        """The solution with no horizontal tension, when the span is too short for any.

        With ``HF -> 0`` a seabed line hangs vertically over a suspended length ``Ls``
        (``ZF = Ls + w Ls^2 / (2 EA)``) and the rest lies on the bottom; a span below
        ``L - Ls`` leaves the line slack on the seabed, with ``HF = 0`` and ``VF = w Ls``.
        """
        if not self.seabed or zf <= 0:
            return None
        w, ea = self.weight, self.ea
        # positive root of (w / (2 EA)) Ls^2 + Ls - ZF = 0, written without cancellation
        ls = 2 * zf / (1 + math.sqrt(1 + 2 * w * zf / ea)) if math.isfinite(ea) else zf
        if ls >= self.length or xf > (self.length - ls) * (1 + 1e-9):
            return None
        return CatenarySolution(
            HF=0.0, VF=w * ls, HA=0.0, VA=0.0, LB=self.length - ls, XF=xf, ZF=zf
        )

    def _solution(self, hf: float, vf: float, xf: float, zf: float) -> CatenarySolution:
        w, L = self.weight, self.length
        if self._on_seabed(vf):
            vf0 = max(vf, 0.0)
            lb = L - vf0 / w
            ha = max(hf - self.cb * w * lb, 0.0) if self.cb > 0 else hf
            return CatenarySolution(HF=hf, VF=vf0, HA=ha, VA=0.0, LB=lb, XF=xf, ZF=zf)
        return CatenarySolution(HF=hf, VF=vf, HA=hf, VA=vf - w * L, LB=0.0, XF=xf, ZF=zf)

    def _initial_guess(self, xf: float, zf: float) -> tuple[float, float]:
        # Peyrot & Goulois / Jonkman's starting point
        L, w = self.length, self.weight
        chord2 = xf * xf + zf * zf
        if L * L <= chord2:
            lam = 0.2
        else:
            lam = math.sqrt(3 * ((L * L - zf * zf) / (xf * xf) - 1)) if xf > 0 else 1e6
        hf = max(abs(w * xf / (2 * max(lam, 1e-6))), 1e-6 * w * L)
        vf = w / 2 * (zf / math.tanh(max(lam, 1e-6)) + L)
        return hf, vf

    def _newton(self, xf: float, zf: float) -> tuple[float, float] | None:
        hf, vf = self._initial_guess(xf, zf)
        u = math.log(hf)
        scale = max(self.length, 1.0)
        for _ in range(200):
            hf = math.exp(u)
            rx, rz = self.span(hf, vf)
            fx, fz = rx - xf, rz - zf
            err = abs(fx) + abs(fz)
            if err < self.tol * scale:
                return hf, vf
            du = 1e-7
            dv = 1e-7 * max(abs(vf), self.weight * self.length)
            x1, z1 = self.span(math.exp(u + du), vf)
            x2, z2 = self.span(hf, vf + dv)
            j11, j21 = (x1 - rx) / du, (z1 - rz) / du
            j12, j22 = (x2 - rx) / dv, (z2 - rz) / dv
            det = j11 * j22 - j12 * j21
            if det == 0 or not math.isfinite(det):
                return None
            su = -(j22 * fx - j12 * fz) / det
            sv = -(-j21 * fx + j11 * fz) / det
            # limit the step: at most a factor e^1 on HF, and half the line weight on VF
            fac = min(1.0, 1.0 / max(abs(su), 1e-300), 0.5 * self.weight * self.length / max(
                abs(sv), 1e-300))
            # backtracking on the residual
            for _ls in range(30):
                un, vn = u + fac * su, vf + fac * sv
                try:
                    xn, zn = self.span(math.exp(un), vn)
                except (OverflowError, ValueError):
                    xn = zn = math.inf
                if abs(xn - xf) + abs(zn - zf) < err:
                    break
                fac *= 0.5
            else:
                return None
            u, vf = un, vn
        return None

    def _vf_for_height(self, hf: float, zf: float) -> float:
        """``VF`` such that ``ZF(hf, VF) = zf`` (bisection; ZF increases with VF)."""
        lo = -10 * self.weight * self.length - 10 * hf
        hi = 10 * self.weight * self.length + 10 * hf
        if self.seabed:
            lo = 0.0
            if self.span(hf, lo)[1] > zf:
                return lo
        while self.span(hf, hi)[1] < zf:
            hi *= 2
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if self.span(hf, mid)[1] < zf:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)

    def _bisection(self, xf: float, zf: float) -> tuple[float, float]:
        lo, hi = math.log(1e-9 * self.weight * self.length), math.log(
            1e3 * self.weight * self.length + 1e3 * self.ea * min(1.0, self.max_strain)
        )
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            hf = math.exp(mid)
            if self.span(hf, self._vf_for_height(hf, zf))[0] < xf:
                lo = mid
            else:
                hi = mid
        hf = math.exp(0.5 * (lo + hi))
        return hf, self._vf_for_height(hf, zf)

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

