"""The interface quasi-Newton method with an inverse-Jacobian least-squares model
(IQN-ILS; Degroote, Bathe and Vierendeels 2009) for a fixed point ``x = H(x)`` of a
coupling iteration (build side; :mod:`hydrofmu.cosim.coupling`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["IqnIls"]


class IqnIls:
    """IQN-ILS: ``x_{k+1} = H(x_k) + W c`` with ``c`` the least-squares solution of
    ``V c = -r_k`` over the differences of residuals ``V`` and of outputs ``W``, the
    columns of the last ``reuse`` steps kept; the first iterate of a run is relaxed.

    Parameters
    ----------
    reuse
        Number of past communication steps whose columns are kept.
    relaxation
        The first iterate of a run without columns: ``x + relaxation * r``.
    """

    def __init__(self, reuse: int, relaxation: float = 0.05) -> None:
        self.reuse, self.relaxation = reuse, relaxation
        self.old: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = []
        self.steps: list[list[tuple[NDArray[np.float64], NDArray[np.float64]]]] = []

    def start(self) -> None:
        """Begin the iterations of a new communication step (the last step's columns are
        kept)."""
        if self.old:
            self.steps = [*self.steps, self._columns(self.old)][-self.reuse:]
        self.old = []

    @staticmethod
    def _columns(hist: list[tuple[NDArray[np.float64], NDArray[np.float64]]]
                 ) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
        r_last, h_last = hist[-1]
        return [(r_last - r, h_last - hx) for r, hx in hist[:-1]]

    def update(self, x: NDArray[np.float64], hx: NDArray[np.float64]) -> NDArray[np.float64]:
        """The next iterate from ``x`` and ``H(x)``."""
        r = hx - x
        self.old.append((r, hx))
        cols = self._columns(self.old) + [c for s in reversed(self.steps) for c in s]
        if not cols:
            return x + self.relaxation * r
        v = np.array([c[0] for c in cols]).T
        w = np.array([c[1] for c in cols]).T
        coef = np.linalg.lstsq(v, -r, rcond=1e-12)[0]
        return hx + w @ coef
