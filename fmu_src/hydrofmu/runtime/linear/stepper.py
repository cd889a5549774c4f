"""Communication steps of a linear time-invariant system driven by sinusoids and held inputs.

For ``x' = F x + G_u u + G_w w(t)`` with ``w(t)`` a sum of sinusoids (the internal wave's
excitation, its half-cosine ramp included: :func:`hydrofmu.runtime.linear.lti.ramped_components`), a
step from ``t`` to ``t + h`` is, for any one-step discretisation that is linear in ``x`` and
in the forcing::

    x(t + h) = x_p(t + h) + Phi_h (x(t) - x_p(t)) + Gamma_h u

with ``x_p(t) = Re(sum_k X_k e^{i w_k t})`` the particular solution of the sinusoids *of that
discretisation* and ``(Phi_h, Gamma_h)`` its map over ``h``. Two discretisations use it:

- the exact one (``time_scheme = exact``): ``Phi_h = e^{F h}``, ``X_k`` the continuous
  particular solution (:func:`hydrofmu.runtime.linear.lti.discretize`,
  :func:`~hydrofmu.runtime.linear.lti.particular_solution`);
- an explicit Runge-Kutta scheme's own map over ``m`` internal steps of ``dt``
  (:mod:`hydrofmu.runtime.schemes.linear_rk`): ``Phi_h = R(dt F)^m``, ``X_k`` the discrete
  particular solution; equal to the scheme's stagewise steps to round-off.

The sinusoids' phasors ``[cos(w t), sin(w t)]`` at a time are multiplied once with every
block of columns that needs them (:class:`SinusoidBank`): the state's particular solution and
the outputs' time part share one evaluation per step.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError
from .lti import discretize, quantized_step

#: Discretisation of a step length: ``(Phi, Gamma_0, Gamma_1)`` (``Gamma_1``: the extra
#: response to an input rising linearly over the step, ``None`` if not offered).
Discretize = Callable[[float], tuple[NDArray[np.float64], NDArray[np.float64],
                                     NDArray[np.float64] | None]]


class OffGrid(Exception):
    """A discretisation cannot take this step length (a Runge-Kutta map needs a whole
    number of internal steps): the caller steps it another way."""


class SinusoidBank:
    """Blocks of columns multiplied by the phasors of one frequency set, once per time.

    Parameters
    ----------
    omega
        Frequencies, shape (k,), rad/s.

    Notes
    -----
    ``at(t) = [cos(w t), sin(w t)] @ [B_1 | B_2 | ...]`` for the blocks added with
    :meth:`add` (each (2k, c_i)); the last value is kept, so users asking at the same time
    (the end of a step, then the outputs there) share one evaluation. A fresh array is
    returned per time: slices taken earlier stay valid.
    """

    def __init__(self, omega: ArrayLike) -> None:
        self.omega = np.ascontiguousarray(omega, dtype=float).reshape(-1)
        self._blocks: list[NDArray[np.float64]] = []
        self._keys: dict[str, int] = {}
        self._stacked = np.zeros((2 * self.omega.size, 0))
        self._phase = np.empty(self.omega.size)
        self._e = np.empty(2 * self.omega.size)
        self._t: float | None = None
        self._value = np.zeros(0)

    def add(self, block: ArrayLike, key: str | None = None) -> slice:
        """Add a block of columns, shape (2k, c); returns its columns in :meth:`at`. A
        block added again under the same ``key`` (same width) replaces the earlier one."""
        b = np.asarray(block, dtype=float)
        if b.ndim != 2 or b.shape[0] != 2 * self.omega.size:
            raise ConfigError(f"a block of the sinusoid bank needs {2 * self.omega.size} "
                              f"rows, got shape {b.shape}", value=b.shape)
        if key in self._keys:
            i = self._keys[key]
            if self._blocks[i].shape != b.shape:
                raise ConfigError(f"block {key!r} of the sinusoid bank changed shape "
                                  f"{self._blocks[i].shape} -> {b.shape}", value=key)
            start = sum(x.shape[1] for x in self._blocks[:i])
            self._blocks[i] = b
        else:
            start = self._stacked.shape[1]
            if key is not None:
                self._keys[key] = len(self._blocks)
            self._blocks.append(b)
        self._stacked = np.ascontiguousarray(np.concatenate(self._blocks, axis=1))
        self._t = None
        return slice(start, start + b.shape[1])

    def at(self, t: float) -> NDArray[np.float64]:
        """``[cos(w t), sin(w t)] @ [blocks]``, shape (total columns,)."""
        if t != self._t:
            k = self.omega.size
            np.multiply(self.omega, t, out=self._phase)
            np.cos(self._phase, out=self._e[:k])
            np.sin(self._phase, out=self._e[k:])
            self._value = self._e @ self._stacked
            self._t = t
        return self._value


def stacked(amplitudes: NDArray[np.complex128]) -> NDArray[np.float64]:
    """``Re(e^{i w t} X) = cos(w t) Re X - sin(w t) Im X`` as rows ``[Re X; -Im X]``, (2k, n)."""
    a = np.asarray(amplitudes, dtype=complex)
    return np.concatenate([a.real, -a.imag])


class SinusoidSegment:
    """Particular solution of one time interval on which the forcing is a fixed sum of
    sinusoids.

    Parameters
    ----------
    t_start, t_end
        Interval, s (``-inf``/``inf`` allowed).
    omega
        Component frequencies, shape (k,), rad/s.
    amplitudes
        ``X_k`` of the particular solution, shape (k, n), complex.
    bank, key
        The :class:`SinusoidBank` of ``omega`` to evaluate it in (shared with other users
        of the same frequencies), and the key of its block there (a segment built again
        replaces its block); a private bank if ``None``.
    """

    def __init__(self, *, t_start: float, t_end: float, omega: NDArray[np.float64],
                 amplitudes: NDArray[np.complex128], bank: SinusoidBank | None = None,
                 key: str | None = None) -> None:
        self.t_start = float(t_start)
        self.t_end = float(t_end)
        self.omega = np.asarray(omega, dtype=float).reshape(-1)
        self.amplitudes = np.asarray(amplitudes, dtype=complex)
        if self.amplitudes.ndim != 2 or self.amplitudes.shape[0] != self.omega.size:
            raise ConfigError(f"amplitudes of shape {self.amplitudes.shape} for "
                              f"{self.omega.size} frequencies: need (k, n)",
                              value=self.amplitudes.shape)
        self.n = self.amplitudes.shape[1]
        if bank is None:
            bank = SinusoidBank(self.omega)
        elif not np.array_equal(bank.omega, self.omega):
            raise ConfigError("a sinusoid segment's bank has other frequencies", value=None)
        self.bank = bank
        self._cols = bank.add(stacked(self.amplitudes), key)

    def value(self, t: float) -> NDArray[np.float64]:
        """``x_p(t)``, shape (n,) (a view of the bank's value at ``t``: read only)."""
        return self.bank.at(t)[self._cols]


class LinearStepper:
    """Steps of ``x' = F x + G_u u + G_w w(t)`` by a given discretisation (module docstring).

    Parameters
    ----------
    discretize
        ``h -> (Phi, Gamma_0, Gamma_1)`` for a step length ``h`` (s); may raise
        :class:`OffGrid`.
    segments
        Particular solutions of that discretisation, ordered and contiguous in time,
        covering every time stepped.
    hold
        ``"linear"`` (first-order hold: inputs interpolated between the step ends; needs
        ``Gamma_1``) or ``"constant"`` (zero-order hold: the input at the step start).

    Notes
    -----
    The discretisation of a step length is computed once and cached: a fixed communication
    step costs one discretisation in all, then one mat-vec per step. Step lengths are
    rounded to :data:`~hydrofmu.runtime.linear.lti.STEP_DIGITS` significant digits
    (:func:`~hydrofmu.runtime.linear.lti.quantized_step`) before they are looked up or discretised,
    so that steps an importer computes as ``t_{k+1} - t_k`` (equal up to a few ulps) share one
    discretisation, and the result never depends on what the cache held before (a restored
    state continues bit-identically). A step inside one segment with a held input is one
    product of ``[Phi | Gamma_0]`` with ``[x - x_p(t); u]``.
    """

    def __init__(self, *, discretize: Discretize, segments: list[SinusoidSegment],
                 hold: str = "linear") -> None:
        if hold not in ("linear", "constant"):
            raise ConfigError(f"hold must be 'linear' or 'constant', got {hold!r}", value=hold)
        self.discretize = discretize
        self.hold = hold
        self.segments = list(segments)
        self._cache: dict[float, tuple[NDArray[np.float64], ...]] = {}
        self._last: tuple[float, tuple[NDArray[np.float64], ...]] = (-1.0, ())
        self._xp: tuple[int, float, NDArray[np.float64]] | None = None
        self._w = np.zeros(0)

    @property
    def cached_steps(self) -> int:
        """How many step lengths' discretisations are cached (at most 17)."""
        return len(self._cache)

    def _matrices(self, h: float) -> tuple[NDArray[np.float64], ...]:
        """``(Phi, Gamma_0, Gamma_1, [Phi | Gamma_0])`` of the step length ``h``."""
        if h == self._last[0]:
            return self._last[1]
        hq = quantized_step(h)
        mats = self._cache.get(hq)
        if mats is None:
            if len(self._cache) > 16:  # odd final steps: keep the cache small
                self._cache.clear()
            phi, gam0, gam1 = self.discretize(hq)
            mats = (phi, gam0, gam1, np.ascontiguousarray(np.concatenate([phi, gam0], axis=1)))
            self._cache[hq] = mats
        self._last = (h, mats)
        return mats

    def _particular(self, k: int, t: float) -> NDArray[np.float64]:
        """``x_p(t)`` of segment ``k``; the last value is kept (a step's end is the next
        step's start)."""
        if self._xp is not None and self._xp[0] == k and self._xp[1] == t:
            return self._xp[2]
        value = self.segments[k].value(t)
        self._xp = (k, t, value)
        return value

    def _segment(self, t: float) -> int:
        for k, seg in enumerate(self.segments):
            if t < seg.t_end:
                return k
        return len(self.segments) - 1

    def step(self, t: float, x: NDArray[np.float64], h: float, u0: NDArray[np.float64],
             u1: NDArray[np.float64] | None = None, *,
             t_end: float | None = None) -> NDArray[np.float64]:
        """State at ``t + h`` from the state ``x`` at ``t``; splits the step at segment ends.

        ``u0``, ``u1``: the sampled inputs at ``t`` and ``t + h`` (``u1`` ignored with a
        constant hold). ``t_end``: the end time as the caller holds it (``t + h`` up to
        round-off), so that the next step starts exactly where this one ended.
        """
        t_end = t + h if t_end is None else float(t_end)
        held = u1 is None or self.hold == "constant"
        k = self._segment(t)
        if held and t_end <= self.segments[k].t_end and t_end > t:
            return self._held_step(k, t, x, t_end, u0)
        u1 = u0 if held else u1
        x = np.asarray(x, dtype=float)
        while t < t_end:
            k = self._segment(t)
            seg = self.segments[k]
            t_next = min(t_end, seg.t_end) if seg.t_end > t else t_end
            hs = t_next - t
            if hs <= 1e-12 * max(1.0, abs(t_end)):
                t = t_next
                continue
            # inputs at the sub-step ends, on the line from u0 (t) to u1 (t_end)
            a0 = (t - (t_end - h)) / h
            a1 = (t_next - (t_end - h)) / h
            if u1 is u0:  # held input
                ua = ub = u0
            else:
                ua = u0 + a0 * (u1 - u0)
                ub = u0 + a1 * (u1 - u0)
            phi, gam0, gam1, _ = self._matrices(hs)
            xp0 = self._particular(k, t)
            xp1 = self._particular(k, t_next)
            x = xp1 + phi @ (x - xp0) + gam0 @ ua
            if ub is not ua:
                if gam1 is None:
                    raise ConfigError("this discretisation has no first-order hold",
                                      value=self.hold)
                x += gam1 @ (ub - ua)
            t = t_next
        return x

    def _held_step(self, k: int, t: float, x: NDArray[np.float64], t_end: float,
                   u: NDArray[np.float64]) -> NDArray[np.float64]:
        """One step inside segment ``k`` with the input ``u`` held: one product."""
        fused = self._matrices(t_end - t)[3]
        n = x.size
        w = self._w
        if w.size != fused.shape[1]:
            w = self._w = np.zeros(fused.shape[1])
        np.subtract(x, self._particular(k, t), out=w[:n])
        w[n:] = u
        x1 = fused @ w
        x1 += self._particular(k, t_end)
        return x1


class ExactStepper(LinearStepper):
    """Exact steps of ``x' = F x + G_u u + G_w w(t)``
    (:func:`hydrofmu.runtime.linear.lti.discretize`:
    Van Loan's block exponential; the segments hold the continuous particular solutions,
    :func:`hydrofmu.runtime.linear.lti.particular_solution`).

    Parameters
    ----------
    f
        System matrix, shape (n, n), 1/s.
    g_u
        Input matrix of the sampled inputs, shape (n, m).
    segments, hold
        As :class:`LinearStepper`.
    """

    def __init__(self, *, f: ArrayLike, g_u: ArrayLike, segments: list[SinusoidSegment],
                 hold: str = "linear") -> None:
        self.f = np.asarray(f, dtype=float)
        self.g_u = np.asarray(g_u, dtype=float)
        super().__init__(discretize=lambda h: discretize(self.f, self.g_u, h),
                         segments=segments, hold=hold)
