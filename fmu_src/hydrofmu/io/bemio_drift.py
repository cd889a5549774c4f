"""Mean drift from a WEC-Sim BEMIO HDF5 file, where the file has it (build time; h5py).

BEMIO (``writeBEMIOH5``) stores the mean drift of body k as
``body<k>/hydro_coeffs/mean_drift/<method>/val`` for the methods it read from the BEM code
(``momentum_conservation`` = WAMIT's ``.8``, ``control_surface`` = ``.7``,
``pressure_integration`` = ``.9``), with the excitation's layout (h5py reads
``[dof, heading, frequency]``) and the excitation's normalisation: divided by rho g, so
WEC-Sim's regular-wave mean load is ``A**2 * val * rho * g`` (``bodyClass.regExcitation``).
Frequencies and headings (degrees) are ``simulation_parameters/w`` and ``wave_dir``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import HydroDataError
from .drift import MeanDrift
from .reader_tools import check_file, select_body

__all__ = ["BEMIO_DRIFT_GROUPS", "bemio_drift_methods", "read_bemio_mean_drift"]

#: The project's method name -> BEMIO's group under ``hydro_coeffs/mean_drift/``.
BEMIO_DRIFT_GROUPS: dict[str, str] = {"momentum": "momentum_conservation",
                                      "control_surface": "control_surface",
                                      "pressure": "pressure_integration"}


def _open(path: Path) -> Any:
    try:
        import h5py
    except ImportError as exc:  # pragma: no cover - h5py is a build dependency
        raise HydroDataError("reading BEMIO .h5 files needs h5py (pip install h5py)",
                             value="h5py") from exc
    return h5py.File(path, "r")


def _damaged_hdf5(func: Any) -> Any:
    """``func`` with h5py's errors on a damaged file (a broken link, a bad chunk) turned
    into a :class:`HydroDataError` naming the file."""

    @functools.wraps(func)
    def guarded(path: str | Path, *args: Any, **kwargs: Any) -> Any:
        try:
            return func(path, *args, **kwargs)
        except (OSError, RuntimeError, KeyError) as exc:
            raise HydroDataError(f"{path}: a damaged or unreadable HDF5 file (h5py: {exc}); "
                                 "write it again with BEMIO", value=str(path)) from None

    return guarded


def _bodies(f: Any) -> list[str]:
    return sorted((k for k in f if k.startswith("body") and k[4:].isdigit()),
                  key=lambda k: int(k[4:]))


@_damaged_hdf5
def bemio_drift_methods(path: str | Path, body: str | None = None) -> tuple[str, ...]:
    """The mean drift methods a BEMIO file holds for a body (empty when none).

    Parameters
    ----------
    path
        The ``.h5`` file.
    body
        ``"bodyN"`` or ``None`` (one body).
    """
    p = check_file(path)
    with _open(p) as f:
        names = _bodies(f)
        grp = f[names[select_body(names, body, p)]]
        return tuple(m for m, g in BEMIO_DRIFT_GROUPS.items()
                     if f"hydro_coeffs/mean_drift/{g}/val" in grp)


@_damaged_hdf5
def read_bemio_mean_drift(path: str | Path, method: str = "control_surface",
                          body: str | None = None) -> MeanDrift:
    """Read one body's mean drift from a BEMIO ``.h5``.

    Parameters
    ----------
    path
        The ``.h5`` file.
    method
        ``"momentum"``, ``"control_surface"`` or ``"pressure"``.
    body
        ``"bodyN"`` or ``None`` (one body).

    Returns
    -------
    MeanDrift
        ``val * rho * g`` (N/m^2, N/m), frequencies increasing.
    """
    p = check_file(path)
    if method not in BEMIO_DRIFT_GROUPS:
        raise HydroDataError(f"method {method!r}: one of {sorted(BEMIO_DRIFT_GROUPS)}",
                             value=method)
    with _open(p) as f:
        names = _bodies(f)
        if not names:
            raise HydroDataError(f"{p}: no body<N> group: not a BEMIO file?", value=str(p))
        name = names[select_body(names, body, p)]
        key = f"{name}/hydro_coeffs/mean_drift/{BEMIO_DRIFT_GROUPS[method]}/val"
        if key not in f:
            have = [m for m, g in BEMIO_DRIFT_GROUPS.items()
                    if f"{name}/hydro_coeffs/mean_drift/{g}/val" in f]
            raise HydroDataError(f"{p}: no {key} (mean drift in the file: "
                                 f"{have or 'none'})", value=key)
        val = np.asarray(f[key][()], dtype=float)
        sim = f["simulation_parameters"]
        rho = float(np.asarray(sim["rho"][()]).ravel()[0])
        g = float(np.asarray(sim["g"][()]).ravel()[0])
        omega = np.asarray(sim["w"][()], dtype=float).ravel()
        beta = np.asarray(sim["wave_dir"][()], dtype=float).ravel()
    if val.ndim != 3 or val.shape[1:] != (beta.size, omega.size) or val.shape[0] < 6:
        raise HydroDataError(f"{p}: {key} has shape {val.shape}, expected (dof >= 6, "
                             f"{beta.size}, {omega.size})", value=val.shape)
    order = np.argsort(omega)
    values = val[:6].transpose(2, 1, 0)[order] * (rho * g)
    return MeanDrift(omega=omega[order], direction=np.deg2rad(beta),
                     values=np.ascontiguousarray(values), method=method, rho=rho, g=g,
                     source=f"{p} ({name}, BEMIO .h5)",
                     notes=(f"BEMIO mean drift {BEMIO_DRIFT_GROUPS[method]} * rho g, rho = "
                            f"{rho} kg/m^3, g = {g} m/s^2",))
