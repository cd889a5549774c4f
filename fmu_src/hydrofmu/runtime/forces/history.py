"""Uniform-grid history buffers for forces with memory (radiation, elevation input).

Samples are stored newest first in a double-length array so that the last ``n`` samples
are always one contiguous slice (no copy, no roll), which makes the convolution a single
matrix-vector product.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


class GridHistory:
    """The last ``n`` samples of a vector signal on a uniform time grid.

    Parameters
    ----------
    n
        Number of samples kept.
    width
        Length of each sample vector.
    transposed
        Store (and :meth:`view`) as (width, n): each component's history contiguous.
    """

    def __init__(self, n: int, width: int, *, transposed: bool = False) -> None:
        self.n = int(n)
        self.width = int(width)
        self.transposed = transposed
        shape = (self.width, 2 * self.n) if transposed else (2 * self.n, self.width)
        self._buf = np.zeros(shape)
        self._pos = 0
        self.version = 0

    def _write(self, value: NDArray[np.float64]) -> None:
        p, q = self._pos, self._pos + self.n
        if self.transposed:
            self._buf[:, p] = value
            self._buf[:, q] = value
        else:
            self._buf[p] = value
            self._buf[q] = value

    def push(self, value: NDArray[np.float64]) -> None:
        """Add the newest sample (the oldest one drops out)."""
        self._pos = (self._pos - 1) % self.n
        self._write(value)
        self.version += 1

    def overwrite_newest(self, value: NDArray[np.float64]) -> None:
        """Replace the newest sample (a better value for the same instant arrived)."""
        self._write(value)
        self.version += 1

    def fill(self, value: NDArray[np.float64]) -> None:
        """Set every sample to ``value`` (start from a constant past)."""
        if self.transposed:
            self._buf[:] = np.asarray(value)[:, None]
        else:
            self._buf[:] = value
        self.version += 1

    def view(self) -> NDArray[np.float64]:
        """The ``n`` samples, newest first: shape (n, width), or (width, n) if transposed;
        a read-only view."""
        if self.transposed:
            v = self._buf[:, self._pos : self._pos + self.n]
        else:
            v = self._buf[self._pos : self._pos + self.n]
        v.flags.writeable = False
        return v

    def newest(self) -> NDArray[np.float64]:
        """The newest sample, shape (width,)."""
        return self._buf[:, self._pos] if self.transposed else self._buf[self._pos]

    def get_state(self, prefix: str) -> dict[str, NDArray[np.float64]]:
        """Arrays that restore this buffer exactly."""
        return {
            f"{prefix}.buf": self._buf.copy(),
            f"{prefix}.pos": np.array([self._pos, self.version]),
        }

    def set_state(self, prefix: str, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore from :meth:`get_state`."""
        buf = np.asarray(state[f"{prefix}.buf"], dtype=float)
        if buf.shape != self._buf.shape:
            raise ValueError(
                f"history '{prefix}' has shape {buf.shape}, expected {self._buf.shape}"
            )
        self._buf[:] = buf
        pos, version = (int(x) for x in state[f"{prefix}.pos"])
        self._pos = pos
        self.version = version
