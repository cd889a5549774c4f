"""Reading BEM files into :class:`~hydrofmu.runtime.hydrodata.model.HydroData` (build time).

:func:`read_hydro` dispatches on the file suffix to :func:`read_capytaine` (``.nc``),
:func:`read_bemio` (``.h5``) or :func:`read_wamit` (``.out``); :func:`read_hydro_bodies`
does the same for all the bodies of a file with their coupling
(:class:`~hydrofmu.runtime.hydrodata.multibody.MultiBodyData`). What the readers share (the
added-mass estimate, the body selection, the file checks) is in
:mod:`~hydrofmu.io.reader_tools`, re-exported here.
The heavy libraries (xarray, h5py) are imported by the reader modules only when a file is
read, so importing this module costs nothing at run time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..runtime.errors import HydroDataError
from ..runtime.hydrodata.model import HydroData

__all__ = [
    "OGILVIE_MEASURED_ERROR",
    "UnsupportedFormatError",
    "estimate_added_mass_inf",
    "read_bemio",
    "read_capytaine",
    "read_hydro",
    "read_hydro_bodies",
    "read_wamit",
]

from .reader_tools import (
    CORRUPT_FILE_ERRORS,
    OGILVIE_MEASURED_ERROR,
    UnsupportedFormatError,
    estimate_added_mass_inf,
)


def read_hydro(path: str | Path | Any, body: str | None = None, *,
               check: bool = True) -> HydroData:
    """Read one body's data; a file no reader can parse gives a :class:`HydroDataError`.

    Same arguments as :func:`_read_hydro`, and ``path`` may be a Capytaine
    ``xarray.Dataset`` in memory (:func:`read_capytaine` reads it); the errors a parser
    raises on a truncated or corrupt file (:data:`CORRUPT_FILE_ERRORS`) become one message
    naming the file.
    """
    from .capytaine import is_dataset

    if is_dataset(path):  # a Capytaine dataset in memory
        return read_capytaine(path, body, check=check)
    try:
        return _read_hydro(path, body, check=check)
    except HydroDataError:
        raise
    except CORRUPT_FILE_ERRORS as exc:
        p = Path(path)
        detail = " ".join(str(exc).split()) or "no detail"
        raise HydroDataError(
            f"{p}: cannot read this '{p.suffix}' file, it is truncated, corrupt or not a BEM "
            f"data file ({type(exc).__name__}: {detail[:300]}); regenerate or re-download it",
            value=str(p),
        ) from exc


def _read_hydro(path: str | Path, body: str | None = None, *, check: bool = True) -> HydroData:
    """Read one body's frequency-domain data, choosing the reader by the file suffix.

    Parameters
    ----------
    path
        ``.nc`` (Capytaine NetCDF), ``.h5`` / ``.hdf5`` (WEC-Sim BEMIO HDF5), ``.out``
        (WAMIT text output, water density 1000 kg/m^3; call :func:`read_wamit` for
        another) or a NEMOH v3 case folder (or its ``Nemoh.cal``).
    body
        Body to read when the file holds several (name, or ``"bodyN"`` for BEMIO and
        WAMIT).
    check
        Run :func:`~hydrofmu.io.hydro_checks.check_hydrodata` on the result.

    Returns
    -------
    HydroData
        Dimensional data in the model's conventions.

    Raises
    ------
    HydroDataError
        Unknown suffix, or whatever the reader raises.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if p.is_dir() or p.name == "Nemoh.cal":  # a NEMOH v3 case folder, or its Nemoh.cal
        from .nemoh import read_nemoh

        return read_nemoh(p, body, check=check)
    if suffix == ".nc":
        return read_capytaine(p, body, check=check)
    if suffix in (".h5", ".hdf5"):
        return read_bemio(p, body, check=check)
    if suffix == ".out":
        return read_wamit(p, body, check=check)
    raise _unknown_suffix(p)


def read_hydro_bodies(path: str | Path | Any, *, check: bool = True) -> Any:
    """Read every body of a file with the body-to-body coupling blocks.

    Parameters
    ----------
    path
        ``.nc``, ``.h5`` / ``.hdf5`` or ``.out``, or a Capytaine ``xarray.Dataset``, as for
        :func:`read_hydro`.
    check
        Run :func:`~hydrofmu.io.hydro_checks.check_hydrodata` on every body.

    Returns
    -------
    MultiBodyData
        The bodies (each as :func:`read_hydro` would read it) and the 6N x 6N A(omega),
        B(omega), A_inf.
    """
    from .capytaine import is_dataset, read_capytaine_bodies

    if is_dataset(path):
        return read_capytaine_bodies(path, check=check)
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".nc":
        return read_capytaine_bodies(p, check=check)
    if suffix in (".h5", ".hdf5"):
        from .bemio import read_bemio_bodies

        return read_bemio_bodies(p, check=check)
    if suffix == ".out":
        from .wamit import read_wamit_bodies

        return read_wamit_bodies(p, check=check)
    raise _unknown_suffix(p)


def _unknown_suffix(p: Path) -> HydroDataError:
    return HydroDataError(
        f"{p}: unknown hydrodynamic data format '{p.suffix}'; supported: .nc (Capytaine "
        "NetCDF), .h5/.hdf5 (WEC-Sim BEMIO), .out (WAMIT)", value=p.suffix)


def read_wamit(path: str | Path, body: str | None = None, *, check: bool = True) -> HydroData:
    """Read one body of a WAMIT ``.out`` file; see :func:`.wamit.read_wamit`."""
    from .wamit import read_wamit as _read

    return _read(path, body, check=check)


def read_capytaine(path: str | Path | Any, body: str | None = None, *,
                   check: bool = True) -> HydroData:
    """Read a Capytaine NetCDF file or dataset; see :func:`.capytaine.read_capytaine`."""
    from .capytaine import read_capytaine as _read

    return _read(path, body, check=check)


def read_bemio(path: str | Path, body: str | None = None, *, check: bool = True) -> HydroData:
    """Read a WEC-Sim BEMIO HDF5 file; see :func:`.bemio.read_bemio`."""
    from .bemio import read_bemio as _read

    return _read(path, body, check=check)
