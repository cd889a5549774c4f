"""Frequency-domain hydrodynamic data: the in-memory model, readers and checks.

The model, the checks and the store are run time (numpy only) and imported eagerly. The
readers are build time (xarray, h5py; the WAMIT text reader needs numpy only but is not
bundled either): they are imported on first use of
``read_hydro`` / ``read_capytaine`` / ``read_bemio``, so that this package imports inside
an FMU where the readers are not bundled.
"""

from typing import Any

from .checks import HydroDataWarning, check_hydrodata, check_mass, check_mass_matrix
from .model import DOF_NAMES, HydroData
from .multibody import MultiBodyData
from .store import load_model, save_model

_READERS = ("read_hydro", "read_hydro_bodies", "read_capytaine", "read_bemio", "read_wamit")

__all__ = [
    "DOF_NAMES",
    "HydroData",
    "HydroDataWarning",
    "MultiBodyData",
    "check_hydrodata",
    "check_mass",
    "check_mass_matrix",
    "load_model",
    "read_bemio",
    "read_capytaine",
    "read_hydro",
    "read_hydro_bodies",
    "read_wamit",
    "save_model",
]


def __getattr__(name: str) -> Any:
    if name in _READERS:
        from . import readers

        return getattr(readers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
