"""Frequency-domain hydrodynamic data: the in-memory model, readers and checks.

The model, the checks and the store are run time (numpy only) and imported eagerly. The
readers are build time (xarray, h5py): they are imported on first use of
``read_hydro`` / ``read_capytaine`` / ``read_bemio``, so that this package imports inside
an FMU where the readers are not bundled.
"""

from typing import Any

from .checks import HydroDataWarning, check_hydrodata, check_mass, check_mass_matrix
from .model import DOF_NAMES, HydroData
from .store import load_model, save_model

_READERS = ("read_hydro", "read_capytaine", "read_bemio")

__all__ = [
    "DOF_NAMES",
    "HydroData",
    "HydroDataWarning",
    "check_hydrodata",
    "check_mass",
    "check_mass_matrix",
    "load_model",
    "read_bemio",
    "read_capytaine",
    "read_hydro",
    "save_model",
]


def __getattr__(name: str) -> Any:
    if name in _READERS:
        from . import readers

        return getattr(readers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
