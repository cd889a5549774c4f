"""Access to the variables of a Capytaine ``xarray.Dataset`` (build time; numpy, and
xarray to open the file): opening with the netCDF engines, complex values from the
``complex`` (re, im) dimension, the frequencies, body names, DOF labels and the scalar,
matrix and per-body variables with messages naming what is missing. The assembly into
:class:`~hydrofmu.runtime.hydrodata.model.HydroData` is :mod:`hydrofmu.io.capytaine`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import HydroDataError
from ..runtime.hydrodata.model import DOF_NAMES


def open_dataset(p: Path) -> Any:
    import xarray as xr  # a core dependency, imported here to keep it out of the run time

    from .netcdf3 import netcdf3_problem

    # netCDF-C reads a truncated NetCDF3 file as zeros: compare its size with its header first
    problem = netcdf3_problem(p)
    if problem:
        raise HydroDataError(problem, value=str(p))
    problems = []
    for engine in ("netcdf4", "h5netcdf"):
        try:
            with xr.open_dataset(p, engine=engine) as ds:
                return ds.load()
        except (OSError, ValueError, RuntimeError, KeyError, TypeError) as exc:
            problems.append(f"{engine}: {exc}")
    raise HydroDataError(f"{p}: not a NetCDF file readable by xarray ({'; '.join(problems)})",
                         value=str(p))


def merge_complex(ds: Any, p: Path) -> Any:
    """Replace variables with a ``complex`` dimension (re, im) by complex variables."""
    if "complex" not in ds.dims:
        return ds
    labels = [str(v) for v in ds["complex"].values] if "complex" in ds.coords else ["re", "im"]
    if len(labels) != 2:
        raise HydroDataError(f"{p}: dimension 'complex' has length {len(labels)}, expected 2 "
                             "(re, im)", value=len(labels))
    i_re = labels.index("re") if "re" in labels else 0
    i_im = labels.index("im") if "im" in labels else 1
    for name in list(ds.data_vars):
        da = ds[name]
        if "complex" in da.dims:
            ds[name] = da.isel(complex=i_re) + 1j * da.isel(complex=i_im)
    return ds.drop_vars("complex", errors="ignore")


def as_text(value: Any) -> str:
    if isinstance(value, bytes | np.bytes_):
        return value.decode("utf-8", errors="replace")
    return str(value)


def dataset_omega(ds: Any, fdim: str, p: Path) -> NDArray[np.float64]:
    """Angular frequencies along the frequency dimension, rad/s (may hold 0 and inf)."""
    if "omega" in ds.coords and ds["omega"].dims == (fdim,):
        return np.asarray(ds["omega"].values, dtype=float)
    values = np.asarray(ds[fdim].values, dtype=float)
    with np.errstate(divide="ignore"):
        if fdim == "freq":
            return 2.0 * np.pi * values
        if fdim == "period":
            return 2.0 * np.pi / values
    raise HydroDataError(f"{p}: frequencies given as '{fdim}' without an 'omega' coordinate; "
                         "export the dataset with omega=True", value=fdim)


def dataset_bodies(ds: Any, rad_names: list[str], p: Path) -> dict[str, None]:
    """Body names in the file's order (a dict used as an ordered set)."""
    prefixed = [n.split("__", 1)[0] for n in rad_names if "__" in n]
    if prefixed:
        return dict.fromkeys(prefixed)
    for var in ("body", "body_name"):
        if var in ds.variables:
            names = [as_text(v) for v in np.atleast_1d(ds[var].values)]
            if len(names) == 1:
                return {names[0]: None}
    return {p.stem: None}


def dof_labels(prefix: str, rad_names: list[str], infl_names: list[str], body: str,
                p: Path) -> list[str]:
    """The file's labels of the body's surge..yaw (matched case-insensitively)."""
    labels = []
    missing = []
    for dof in DOF_NAMES:
        want = (prefix + dof).lower()
        match = [n for n in rad_names if n.lower() == want]
        if not match or not any(n.lower() == want for n in infl_names):
            missing.append(dof)
        else:
            labels.append(match[0])
    if missing:
        raise HydroDataError(
            f"{p}: body '{body}' lacks the DOF(s) {missing} (radiating DOFs in the file: "
            f"{rad_names}); the model needs all 6 rigid-body DOFs, e.g. "
            "dofs=cpt.rigid_body_dofs(rotation_center=...)", value=missing)
    return labels


def required_matrix(ds: Any, var: str, dofs: list[str], p: Path, howto: str
                     ) -> NDArray[np.float64]:
    if var not in ds:
        raise HydroDataError(f"{p}: variable '{var}' is missing; {howto}", value=var)
    da = ds[var]
    if set(da.dims) != {"influenced_dof", "radiating_dof"}:
        raise HydroDataError(f"{p}: {var} has dimensions {da.dims}, expected "
                             "(influenced_dof, radiating_dof)", value=da.dims)
    da = da.sel(influenced_dof=dofs, radiating_dof=dofs).transpose("influenced_dof",
                                                                   "radiating_dof")
    return np.asarray(da.values, dtype=float)


def scalar_variable(ds: Any, var: str, p: Path) -> float:
    if var not in ds.variables:
        raise HydroDataError(f"{p}: '{var}' is missing (a coordinate in every Capytaine "
                             "dataset)", value=var)
    values = np.asarray(ds[var].values, dtype=float).ravel()
    if values.size != 1:
        raise HydroDataError(f"{p}: '{var}' has {values.size} values, expected one",
                             value=values.tolist())
    return float(values[0])


def body_vector(ds: Any, var: str, body: str, multi: bool) -> NDArray[np.float64] | None:
    """A (3,) position of the body from a 3.x variable, or None when absent."""
    if var not in ds.variables:
        return None
    da = ds[var]
    if "body" in da.dims:
        da = da.sel(body=body)
    elif multi:
        return None
    v = np.asarray(da.values, dtype=float).ravel()
    if v.size != 3 or not np.all(np.isfinite(v)):
        return None
    return v
