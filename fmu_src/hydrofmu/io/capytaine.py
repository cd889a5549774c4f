"""Reader of Capytaine NetCDF files, 2.x and 3.x (build time; needs xarray).

Capytaine writes an ``xarray.Dataset`` with labelled dimensions; everything here selects by
label, never by position, because the order differs between versions (2.3.1:
``added_mass(omega, radiating_dof, influenced_dof)``, 3.0: ``(omega, influenced_dof,
radiating_dof)``). Complex values sit on a leading ``complex`` dimension (re, im) in the
file; true complex variables are accepted too. Capytaine's time dependence is
``e^{-i omega t}``: the excitation is complex-conjugated into the model's ``e^{+i omega t}``.

Differences between versions handled here:

- 3.x may hold the rows ``omega = 0`` and ``omega = inf``: the ``inf`` row gives A_inf
  (source ``"file"``), the ``0`` row is dropped (the excitation is undefined there).
- 3.x stores ``rotation_center``, ``center_of_mass``, ``center_of_buoyancy`` and
  ``disp_mass`` (per body for a multibody); 2.x stores none of them and a ``body_name``
  coordinate instead of ``body``.
- A multibody's DOFs are named ``"<body>__<Dof>"``; :func:`read_capytaine` keeps one
  body's diagonal block, :func:`read_capytaine_bodies` all the blocks.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import HydroDataError
from ..runtime.hydrodata.model import HydroData
from ..runtime.hydrodata.multibody import MultiBodyData
from .capytaine_dataset import (
    as_text,
    body_vector,
    dataset_bodies,
    dataset_omega,
    dof_labels,
    merge_complex,
    open_dataset,
    required_matrix,
    scalar_variable,
)
from .hydro_checks import HydroDataWarning, check_hydrodata
from .reader_tools import (
    UnsupportedFormatError,
    check_file,
    drop_failed_frequencies,
    estimate_added_mass_inf,
    select_body,
)

__all__ = ["DATASET_LABEL", "is_dataset", "read_capytaine", "read_capytaine_bodies"]

#: How messages and ``HydroData.source`` name data given as an ``xarray.Dataset`` in memory.
DATASET_LABEL = "xarray.Dataset"


def is_dataset(data: Any) -> bool:
    """Whether ``data`` is an ``xarray.Dataset`` (data in memory) rather than a path."""
    return type(data).__name__ == "Dataset" and hasattr(data, "data_vars")


def _source(data: Any) -> tuple[Any, Path]:
    """The dataset and how messages name it: a path opened (and checked), or a dataset in
    memory (named :data:`DATASET_LABEL`)."""
    if is_dataset(data):
        return data.copy(), Path(DATASET_LABEL)  # the reader replaces variables: not the caller's
    p = check_file(data)
    return open_dataset(p), p

_FREQ_DIMS: tuple[str, ...] = ("omega", "freq", "period", "wavenumber", "wavelength")
_SCALAR_DIMS: tuple[str, ...] = ("g", "rho", "water_depth", "forward_speed")
_STIFFNESS_HOWTO = (
    "compute it in Capytaine before saving: give the body a center_of_mass and call "
    "body.compute_hydrostatics() (or keep hydrostatics=True in cpt.assemble_dataset / "
    "solver.fill_dataset), then export the dataset again"
)


def read_capytaine(path: str | Path | Any, body: str | None = None, *,
                   check: bool = True) -> HydroData:
    """Read one body of a Capytaine NetCDF file (Capytaine 2.x or 3.x).

    Parameters
    ----------
    path
        The ``.nc`` file written by ``cpt.export_dataset`` / ``save_dataset_as_netcdf``, or
        the ``xarray.Dataset`` itself (``cpt.assemble_dataset``'s, complex values as
        complex variables or on a ``complex`` dimension).
    body
        Body name; may be ``None`` when the file holds one body.
    check
        Run :func:`~hydrofmu.io.hydro_checks.check_hydrodata` on the result.

    Returns
    -------
    HydroData
        ``added_mass[w, i, j]`` = Capytaine's ``added_mass(omega=w, influenced_dof=i,
        radiating_dof=j)``, same for the damping; ``excitation = conj(excitation_force)``
        (or ``conj(Froude_Krylov_force + diffraction_force)``), shape (nw, nb, 6); headings
        in radians as in Capytaine. A_inf is the ``omega = inf`` row when present
        (``"file"``), otherwise the Ogilvie estimate of
        :func:`~hydrofmu.io.reader_tools.estimate_added_mass_inf` (``"extrapolated"``;
        measured +0.57 % on the WAMIT sphere, where the highest-frequency value is off by
        up to 1.5 %). The reference point is the file's ``rotation_center`` (3.x) or, when
        absent (2.x), the origin, with a note; centres are NaN and the displaced volume NaN
        unless the file states them (``disp_mass / rho``). Rows whose data is NaN (failed
        BEM problems) are dropped with a
        :class:`~hydrofmu.io.hydro_checks.HydroDataWarning`.

    Raises
    ------
    HydroDataError
        Missing file, not a NetCDF file, missing variable (with how to add it), wrong
        dimensions, missing DOFs, unknown body, several bodies and ``body=None``.
    UnsupportedFormatError
        Forward speed other than zero.
    """
    ds, p = _source(path)
    hd, _ = _read_dataset(ds, p, body)
    if check:
        check_hydrodata(hd)
    return hd


def read_capytaine_bodies(path: str | Path | Any, *, check: bool = True) -> MultiBodyData:
    """Read every body of a Capytaine NetCDF file with the body-to-body coupling blocks.

    Parameters
    ----------
    path
        The ``.nc`` file, or the ``xarray.Dataset`` (see :func:`read_capytaine`).
    check
        Run :func:`~hydrofmu.io.hydro_checks.check_hydrodata` on every body.

    Returns
    -------
    MultiBodyData
        ``A[w, 6i + a, 6j + b]`` = ``added_mass(omega=w, influenced_dof=<body i>__<a>,
        radiating_dof=<body j>__<b>)``, same for the damping and the ``omega = inf`` row
        (A_inf, or the Ogilvie estimate on the full matrices, whose diagonal blocks are
        the bodies' own estimates); the bodies are what :func:`read_capytaine` returns.
    """
    ds, p = _source(path)
    if "radiating_dof" not in ds.coords:
        raise HydroDataError(f"{p}: no 'radiating_dof' coordinate: not a Capytaine dataset "
                             "with radiation results", value="radiating_dof")
    names = list(dataset_bodies(ds, [as_text(v) for v in ds["radiating_dof"].values], p))
    parts = [_read_dataset(ds, p, name) for name in names]
    bodies = tuple(hd for hd, _ in parts)
    a = np.concatenate([rows[0] for _, rows in parts], axis=1)
    b = np.concatenate([rows[1] for _, rows in parts], axis=1)
    notes: tuple[str, ...] = ()
    if all(rows[2] is not None for _, rows in parts):
        a_inf = np.concatenate([rows[2] for _, rows in parts], axis=0)
    else:
        a_inf, note = estimate_added_mass_inf(bodies[0].omega, a, b)
        notes = (note,)
        for k, hd in enumerate(bodies):
            a_inf[6 * k:6 * k + 6, 6 * k:6 * k + 6] = hd.added_mass_inf
    if check:
        for hd in bodies:
            check_hydrodata(hd)
    return MultiBodyData(bodies=bodies, added_mass=a, radiation_damping=b, added_mass_inf=a_inf,
                         source=f"{p} (Capytaine NetCDF, {len(bodies)} bodies)", notes=notes)


def _read_dataset(ds: Any, p: Path, body: str | None
                  ) -> tuple[HydroData, tuple[Any, Any, Any]]:
    """One body, and its full rows (nw, 6, 6N) of A, B and (6, 6N) of A_inf (or None)."""
    notes: list[str] = []
    version = str(ds.attrs.get("capytaine_version", "unknown"))
    ds = merge_complex(ds, p)

    for dim in _SCALAR_DIMS:
        if dim in ds.dims:
            values = np.asarray(ds[dim].values).tolist()
            if ds.sizes[dim] != 1:
                raise HydroDataError(f"{p}: the file holds several values of '{dim}' "
                                     f"({values}); save one with ds.sel({dim}=...)", value=values)
            ds = ds.isel({dim: 0})
    if "forward_speed" in ds.coords and float(ds["forward_speed"]) != 0.0:
        raise UnsupportedFormatError(f"{p}: forward speed {float(ds['forward_speed'])} m/s is "
                                     "not supported (encounter frequencies)",
                                     value=float(ds["forward_speed"]))

    for var in ("added_mass", "radiation_damping"):
        if var not in ds:
            raise HydroDataError(f"{p}: variable '{var}' is missing; solve the radiation "
                                 "problems of all 6 DOFs in Capytaine", value=var)
    fdims = [d for d in _FREQ_DIMS if d in ds["added_mass"].dims]
    if not fdims:
        raise HydroDataError(f"{p}: added_mass has dimensions {ds['added_mass'].dims}, none of "
                             f"them a frequency ({', '.join(_FREQ_DIMS)})",
                             value=ds["added_mass"].dims)
    fdim = fdims[0]
    omega_all = dataset_omega(ds, fdim, p)

    rad_names = [as_text(v) for v in ds["radiating_dof"].values]
    infl_names = [as_text(v) for v in ds["influenced_dof"].values]
    bodies = dataset_bodies(ds, rad_names, p)
    ib = select_body(list(bodies), body, p)
    name = list(bodies)[ib]
    prefix = f"{name}__" if len(bodies) > 1 or any("__" in n for n in rad_names) else ""
    dofs = dof_labels(prefix, rad_names, infl_names, name, p)
    if len(bodies) > 1:
        notes.append(f"multibody file ({len(bodies)} bodies: {', '.join(bodies)}): only the "
                     "body's own 6x6 block of A, B and A_inf is read here; the coupling "
                     "with the other bodies comes back when a configuration's [[bodies]] "
                     "read them from this file too ([multibody] b2b, read_hydro_bodies)")
    all_dofs = [d for other in bodies
                for d in dof_labels(f"{other}__" if prefix else "", rad_names, infl_names,
                                     other, p)]

    def matrix(var: str, radiating: list[str] = dofs) -> NDArray[np.float64]:
        da = ds[var].sel(influenced_dof=dofs, radiating_dof=radiating)
        order = ([fdim] if fdim in da.dims else []) + ["influenced_dof", "radiating_dof"]
        extra = [d for d in da.dims if d not in order]
        if extra:
            raise HydroDataError(f"{p}: {var} has unexpected dimensions {extra}", value=extra)
        return np.asarray(da.transpose(*order).values, dtype=float)

    added_mass = matrix("added_mass")
    damping = matrix("radiation_damping")
    a_rows = matrix("added_mass", all_dofs)
    b_rows = matrix("radiation_damping", all_dofs)

    if "excitation_force" in ds:
        exc = ds["excitation_force"]
    elif "Froude_Krylov_force" in ds and "diffraction_force" in ds:
        exc = ds["Froude_Krylov_force"] + ds["diffraction_force"]
        notes.append("excitation = Froude_Krylov_force + diffraction_force")
    else:
        raise HydroDataError(f"{p}: variable 'excitation_force' (or both 'Froude_Krylov_force' "
                             "and 'diffraction_force') is missing; solve the diffraction "
                             "problems in Capytaine", value="excitation_force")
    if "wave_direction" not in exc.dims:
        exc = exc.expand_dims("wave_direction")
    exc = exc.sel(influenced_dof=dofs).transpose(fdim, "wave_direction", "influenced_dof")
    headings = np.asarray(exc["wave_direction"].values, dtype=float).ravel()
    # Capytaine e^{-i w t} -> model e^{+i w t}.
    excitation = np.conj(np.asarray(exc.values, dtype=np.complex128))
    notes.append(f"Capytaine {version}: excitation conjugated (e^-iwt -> e^+iwt)")

    stiffness = required_matrix(ds, "hydrostatic_stiffness", dofs, p, _STIFFNESS_HOWTO)
    inertia = (required_matrix(ds, "inertia_matrix", dofs, p, "")
               if "inertia_matrix" in ds else None)

    rho = scalar_variable(ds, "rho", p)
    g = scalar_variable(ds, "g", p)
    water_depth = scalar_variable(ds, "water_depth", p)

    # Frequency rows: inf -> A_inf, 0 -> dropped, NaN rows -> dropped.
    a_inf: NDArray[np.float64] | None = None
    ainf_rows: NDArray[np.float64] | None = None
    inf_rows = np.flatnonzero(np.isinf(omega_all))
    if inf_rows.size:
        candidate = added_mass[inf_rows[0]]
        if np.all(np.isfinite(candidate)):
            a_inf = candidate.copy()
            ainf_rows = a_rows[inf_rows[0]].copy()
            notes.append("A_inf from the omega = inf row (Capytaine's infinite-frequency "
                         "solve, not the value its finite frequencies imply through Ogilvie's "
                         "relation: they differ by up to ~1 %)")
        else:
            notes.append("the omega = inf row holds NaN: ignored")
    finite = np.isfinite(omega_all) & (omega_all > 0.0)
    if np.any(omega_all == 0.0):
        notes.append("omega = 0 row dropped (the excitation is undefined there)")
    omega = omega_all[finite]
    added_mass, damping, excitation = added_mass[finite], damping[finite], excitation[finite]
    a_rows, b_rows = a_rows[finite], b_rows[finite]
    order = np.argsort(omega, kind="stable")
    if np.any(order != np.arange(omega.size)):
        omega, added_mass, damping, excitation, a_rows, b_rows = (
            omega[order], added_mass[order], damping[order], excitation[order],
            a_rows[order], b_rows[order])
        notes.append("frequencies sorted into increasing order")
    keep, dropped = drop_failed_frequencies(omega, added_mass, damping, excitation)
    if dropped:
        omega, added_mass, damping, excitation, a_rows, b_rows = (
            omega[keep], added_mass[keep], damping[keep], excitation[keep], a_rows[keep],
            b_rows[keep])
        msg = f"frequencies with NaN data (failed BEM problems) dropped: {dropped} rad/s"
        notes.append(msg)
        warnings.warn(f"{p}, body '{name}': {msg}", HydroDataWarning, stacklevel=3)
    if omega.size == 0:
        raise HydroDataError(f"{p}: no finite frequency with complete data", value=omega_all)

    if a_inf is None:
        a_inf, note = estimate_added_mass_inf(omega, added_mass, damping)
        a_inf_source = "extrapolated"
        notes.append(note)
    else:
        a_inf_source = "file"

    multi = len(bodies) > 1
    rotation_center = body_vector(ds, "rotation_center", name, multi)
    if rotation_center is None:
        reference = np.zeros(3)
        notes.append("reference point: the file does not state the rotation centre; the "
                     "origin of the BEM frame is assumed (set rotation_center in Capytaine "
                     "to state it)")
    else:
        reference = rotation_center
    cog = body_vector(ds, "center_of_mass", name, multi)
    cob = body_vector(ds, "center_of_buoyancy", name, multi)
    if cog is None:
        notes.append("center of gravity not in the file: NaN")
        cog = np.full(3, np.nan)
    if cob is None:
        notes.append("center of buoyancy not in the file: NaN")
        cob = np.full(3, np.nan)
    volume = float("nan")
    if "disp_mass" in ds:
        disp = ds["disp_mass"]
        if "body" in disp.dims:
            disp = disp.sel(body=name)
        volume = float(disp) / rho
    else:
        notes.append("displaced volume not in the file: NaN")

    return HydroData(
        name=name,
        omega=np.ascontiguousarray(omega),
        added_mass=np.ascontiguousarray(added_mass),
        radiation_damping=np.ascontiguousarray(damping),
        added_mass_inf=np.ascontiguousarray(a_inf),
        added_mass_inf_source=a_inf_source,
        wave_direction=headings,
        excitation=np.ascontiguousarray(excitation),
        hydrostatic_stiffness=stiffness,
        displaced_volume=volume,
        center_of_buoyancy=cob - reference,
        center_of_gravity=cog - reference,
        reference_point=reference,
        rho=rho,
        g=g,
        water_depth=water_depth,
        inertia_matrix=inertia,
        source=f"{p} (body '{name}', Capytaine {version} NetCDF)",
        notes=tuple(notes),
    ), (a_rows, b_rows, ainf_rows)
