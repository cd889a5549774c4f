"""Wave excitation: from the internal wave model, or from the elevation input.

Internal wave: ``F(t) = ramp(t) Re(sum_k X(w_k, beta) a_k e^{i (w_k t + phi_k)})``, exact at
any time.

Elevation input: the input is the elevation ``preview_time`` (P) seconds ahead,
``u(t) = eta(t + P)``, sampled on the internal step grid. The force is the convolution with
the excitation IRF, ``F(t) = int_{-P}^{T} K_x(tau) eta(t - tau) dtau``: the part of the
non-causal kernel before ``-P`` is cut off and reported by the simulator. The force is
evaluated on the grid and linearly interpolated inside a grid interval (its error,
``(w dt)^2 / 8`` relative, is 1e-5 for an 8 s wave and dt = 0.01 s).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .history import GridHistory


class ExcitationFromComponents:
    """Excitation by a sum of regular components.

    Parameters
    ----------
    omega
        Component frequencies, shape (nc,), rad/s.
    coefficients
        ``X(w_k) a_k e^{i phi_k}`` for the stacked DOFs, shape (nc, n), complex, N, N m.
    elevation_coefficients
        ``a_k e^{i phi_k}``, shape (nc,), complex, m (elevation at the reference point).
    """

    def __init__(
        self,
        omega: NDArray[np.float64],
        coefficients: NDArray[np.complex128],
        elevation_coefficients: NDArray[np.complex128],
    ) -> None:
        self.omega = np.asarray(omega, dtype=float)
        self.coefficients = np.asarray(coefficients, dtype=complex)
        self.elevation_coefficients = np.asarray(elevation_coefficients, dtype=complex)
        # Force and elevation from one real product, Re(e^{i w t} X) = cos(w t) Re X -
        # sin(w t) Im X: rows [cos; sin], columns [force DOFs..., elevation], (2 nc, n + 1).
        both = np.column_stack([self.coefficients.reshape(self.omega.size, -1),
                                self.elevation_coefficients])
        self._stacked = np.ascontiguousarray(np.concatenate([both.real, -both.imag]))
        self._n = self._stacked.shape[1] - 1
        self._t: float | None = None
        self._value = np.zeros(self._n + 1)

    def _at(self, t: float) -> NDArray[np.float64]:
        # Force and elevation are asked for at the same times (stages, outputs): one
        # evaluation per time.
        if t != self._t:
            phase = self.omega * t
            self._value = np.concatenate([np.cos(phase), np.sin(phase)]) @ self._stacked
            self._t = t
        return self._value

    def force(self, t: float) -> NDArray[np.float64]:
        """Unramped excitation force at time ``t`` (s since the wave's origin), shape (n,)."""
        return self._at(t)[: self._n].copy()

    def elevation(self, t: float) -> float:
        """Unramped elevation at the reference point, m."""
        return float(self._at(t)[self._n])


class ExcitationFromInput:
    """Excitation by convolution of the previewed elevation input.

    Parameters
    ----------
    kernel
        ``K_x(-P + j dt)``, j = 0..nk-1, shape (nk, n), N/m/s, N m/m/s.
    dt
        Grid spacing, s.
    preview_steps
        ``P / dt`` (may be fractional): how far ahead the input looks.
    """

    def __init__(self, kernel: NDArray[np.float64], dt: float, preview_steps: float) -> None:
        kernel = np.asarray(kernel, dtype=float)
        self.dt = float(dt)
        self.nk, self.n = kernel.shape
        w = np.ones(self.nk)
        w[0] = w[-1] = 0.5
        # Trapezoid weights folded into the kernel, transposed for one mat-vec.
        self._kw = np.ascontiguousarray((kernel * w[:, None] * self.dt).T)
        self.preview_steps = float(preview_steps)
        self.history = GridHistory(self.nk, 1)
        self._f_grid = np.zeros(self.n)
        self._version = -1

    @property
    def fir(self) -> NDArray[np.float64]:
        """The FIR over the history, newest first, trapezoid weights and ``dt`` folded in:
        ``F_grid = fir @ history``, shape (n, nk), N/m, N m/m."""
        return self._kw

    def start(self, u0: float) -> None:
        """Calm sea before the first grid time, ``u0`` at it."""
        self.history.fill(np.zeros(1))
        self.history.push(np.array([u0]))

    def _force_grid(self) -> NDArray[np.float64]:
        if self._version != self.history.version:
            self._f_grid = self._kw @ self.history.view()[:, 0]
            self._version = self.history.version
        return self._f_grid

    def force_next(self, u: float) -> NDArray[np.float64]:
        """Force at the next grid time if the input there is ``u``, shape (n,)."""
        h = self.history.view()[:, 0]
        return self._kw[:, 0] * u + self._kw[:, 1:] @ h[:-1]

    def force(self, s: float, u: float) -> NDArray[np.float64]:
        """Unramped force at ``t_g + s`` (``0 <= s <= dt``) with input ``u`` held, shape (n,)."""
        f0 = self._force_grid()
        if s <= 0.0:
            return f0
        a = s / self.dt
        return (1.0 - a) * f0 + a * self.force_next(u)

    def elevation(self, s: float, u: float) -> float:
        """Elevation at the reference point at ``t_g + s``: the input received P s before, m."""
        h = self.history.view()[:, 0]
        x = self.preview_steps - s / self.dt  # grid steps back from t_g
        if x < 0.0:  # less than P ago: between the newest sample and the held input
            a = min(1.0, -x)
            return float((1.0 - a) * h[0] + a * u)
        i = int(x)
        if i + 1 >= self.nk:
            return float(h[-1])
        a = x - i
        return float((1.0 - a) * h[i] + a * h[i + 1])

    def commit(self, u: float) -> None:
        """Record the input at a new grid time."""
        self.history.push(np.array([u]))

    def overwrite_newest(self, u: float) -> None:
        """Replace the input at the newest grid time (a new input arrived for that instant)."""
        self.history.overwrite_newest(np.array([u]))

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """Every internal array (the elevation history)."""
        return self.history.get_state("elevation")

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore from :meth:`get_state`."""
        self.history.set_state("elevation", state)
        self._version = -1
