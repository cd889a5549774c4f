"""The FMU state as named numpy arrays and its serialization (no pickle).

Keys ``fmu.*`` hold the FMI face's own fields, ``sim.*`` the simulator's
:meth:`~hydrofmu.system.Simulator.get_state` arrays.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import numpy as np

from .errors import HydroFMUError

#: Key prefixes of the flattened FMU state.
FMU_KEY = "fmu."
SIM_KEY = "sim."
#: Version of the layout of the state arrays.
STATE_FORMAT = 2


def simulator_arrays(state: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The simulator's state as ``sim.*`` arrays, copied; a non-numeric entry is refused."""
    out = {}
    for key, value in state.items():
        arr = np.array(value, copy=True)
        if arr.dtype.hasobject:
            raise HydroFMUError(f"simulator state entry '{key}' is not a numeric array",
                                value=key)
        out[SIM_KEY + key] = arr
    return out


def simulator_state(state: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Inverse of :func:`simulator_arrays`: the ``sim.*`` entries without the prefix."""
    n = len(SIM_KEY)
    return {k[n:]: np.array(v, copy=True) for k, v in state.items() if k.startswith(SIM_KEY)}


def invalid_state(message: str) -> dict[str, np.ndarray]:
    """A state that restores nothing and says why."""
    return {"fmu.format": np.array(STATE_FORMAT), "fmu.invalid": np.array(message)}


def state_to_bytes(state: Mapping[str, np.ndarray]) -> bytes:
    """Serialize a state as an uncompressed ``.npz`` (no pickle)."""
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **state)
    return buffer.getvalue()


def state_from_bytes(data: bytes) -> dict[str, np.ndarray]:
    """Inverse of :func:`state_to_bytes`; bad bytes give an invalid state."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return {key: npz[key] for key in npz.files}
    except Exception as exc:
        return invalid_state(f"the serialized FMU state cannot be read: {exc}")
