"""Little-endian packing of the native model blob's arrays (what ``blob.py`` and its
sections share).

Build time only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ...runtime.errors import ExportError


def pack_f64(a: NDArray, shape: tuple[int, ...]) -> bytes:
    """``a`` as little-endian float64 bytes in C order; ExportError when its shape is not
    ``shape`` (a writer's bug caught before the runtime reads past an array)."""
    arr = np.asarray(a, dtype="<f8")
    if arr.shape != shape:
        raise ExportError(f"native model array of shape {arr.shape}, expected {shape}",
                          value=arr.shape)
    return np.ascontiguousarray(arr).tobytes()
