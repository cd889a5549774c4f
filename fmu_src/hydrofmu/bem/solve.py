"""Solve the problems, assemble Capytaine's dataset, write the NetCDF file."""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from ..progress import Progress
from ..runtime.errors import HydroDataError, require
from .mesh import build_bodies
from .multi import add_bodies_data, contact_notes, place_bodies
from .spec import BEMSpec
from .symmetry import symmetric_body, symmetric_engine, uses_axial


def radiation_omegas(spec: BEMSpec) -> list[float]:
    """The radiation frequencies: omega = 0 (deep water only: Capytaine 3.0 cannot evaluate
    the finite-depth Green function at small k h, see ``spec.KH_MIN``), the finite ones and
    omega = inf."""
    omegas = spec.omega.tolist()
    if spec.zero_and_infinite:
        omegas = ([0.0] if math.isinf(spec.water_depth) else []) + omegas + [math.inf]
    return omegas


def solve(spec: BEMSpec, immersed: Any, *, progress: bool = False,
          callback: Callable[[int], None] | None = None, engine: Any = None) -> list[Any]:
    """Solve radiation (omega = 0, finite, inf) and diffraction (finite) problems.

    The problems are solved one frequency at a time (Capytaine's ``n_jobs`` processes
    share each frequency's problems), so that the progress is reported as it goes.

    Parameters
    ----------
    spec
        The validated table.
    immersed : capytaine.FloatingBody
        Immersed body with its lid.
    progress
        Show a progress bar (tqdm, else a counter) on stderr.
    callback
        Called with the number of problems just solved.
    engine
        Capytaine matrix engine (default: Capytaine's; :func:`symmetric_engine` for a
        body with rotation symmetry).

    Returns
    -------
    list of capytaine LinearPotentialFlowResult
    """
    cpt = require("capytaine", "bem")
    common = {"rho": spec.rho, "g": spec.g, "water_depth": spec.water_depth}
    groups: dict[float, list[Any]] = {}
    for omega in radiation_omegas(spec):
        groups.setdefault(omega, []).extend(
            cpt.RadiationProblem(body=immersed, radiating_dof=dof, omega=omega, **common)
            for dof in immersed.dofs)
    for omega in spec.omega.tolist():
        groups[omega].extend(
            cpt.DiffractionProblem(body=immersed, wave_direction=beta, omega=omega, **common)
            for beta in spec.headings)
    solver = (cpt.BEMSolver(method=spec.method) if engine is None
              else cpt.BEMSolver(method=spec.method, engine=engine))
    bar = Progress(sum(len(g) for g in groups.values()), enabled=progress, unit="problem",
                   desc="BEM")
    results: list[Any] = []
    try:
        for problems in groups.values():
            out = solver.solve_all(problems, n_jobs=spec.n_jobs, progress_bar=False)
            # Capytaine 3.0 returns Failed*Result objects (NaN forces, an ``exception``)
            # for the problems it skipped; omega = inf forces are infinite by design.
            failed = [r for r in out if not hasattr(r, "forces")
                      or type(r).__name__.startswith("Failed")]
            if failed:
                why = getattr(failed[0], "exception", "")
                raise HydroDataError(
                    f"Capytaine could not solve {getattr(failed[0], 'problem', failed[0])}"
                    f"{': ' + str(why) if why else ''} (bodies touching each other or the "
                    "seabed along a line or a face give NaN: leave a small gap)", value=None)
            results.extend(out)
            bar.update(len(problems))
            if callback is not None:
                callback(len(problems))
    finally:
        bar.close()
    return results


# --- Dataset and file -----------------------------------------------------------------------
UNITS = {
    "added_mass": "kg, kg m or kg m^2 (translation/rotation rows and columns), about "
                  "rotation_center",
    "inertia_matrix": "kg, kg m or kg m^2 (translation/rotation rows and columns), about "
                      "rotation_center",
    "radiation_damping": "kg/s, kg m/s or kg m^2/s, about rotation_center",
    "hydrostatic_stiffness": "N/m, N or N m per m or rad, about rotation_center",
    "diffraction_force": "N/m or N m/m (per metre of wave amplitude)",
    "Froude_Krylov_force": "N/m or N m/m (per metre of wave amplitude)",
    "excitation_force": "N/m or N m/m (per metre of wave amplitude)",
    "displaced_volume": "m^3",
    "disp_mass": "kg",
    "draught": "m",
    "center_of_buoyancy": "m",
    "center_of_mass": "m",
    "rotation_center": "m",
}


def assemble(spec: BEMSpec, results: list[Any], closed: Any, immersed: Any, *,
             source: str = "hydrofmu bem") -> Any:
    """Capytaine's dataset with the inertia of the closed hull and hydrofmu's extras.

    Parameters
    ----------
    spec
        The validated table.
    results
        Output of :func:`solve`.
    closed, immersed
        Output of :func:`build_bodies`.
    source
        Written into the ``source`` attribute.

    Returns
    -------
    xarray.Dataset
        Complex-valued (Capytaine's writer splits it), with ``inertia_matrix`` (closed
        hull), ``hydrostatic_stiffness`` (immersed part), ``displaced_volume``, units
        attributes and no creation time stamp (reproducible files).
    """
    cpt = require("capytaine", "bem")
    # The hydrostatics of the merged immersed body (Capytaine 3.0 cannot compute them on a
    # symmetric mesh, and the solved body may be one).
    ds = cpt.assemble_dataset(results, hydrostatics=False)
    hydrostatics = cpt.io.xarray.compute_hydrostatics_dataset(
        immersed, rho=ds.coords["rho"].values, g=ds.coords["g"].values,
        only_dofs=ds.coords["radiating_dof"].values.astype(str).tolist())
    hydrostatics = hydrostatics.assign_coords(
        radiating_dof=ds.coords["radiating_dof"].to_index(),
        influenced_dof=ds.coords["influenced_dof"].to_index())
    ds = xr.merge([ds, hydrostatics], compat="no_conflicts", join="outer")
    for var in set(ds) | set(ds.coords):
        if var in cpt.io.xarray.VARIABLES_ATTRIBUTES:
            ds[var].attrs.update(cpt.io.xarray.VARIABLES_ATTRIBUTES[var])
    solved = results[0].body
    ds.attrs.pop("creation_of_dataset", None)  # a time stamp would make every file different
    inertia = closed.compute_rigid_body_inertia(rho=spec.rho)
    stiffness = immersed.compute_hydrostatic_stiffness(rho=spec.rho, g=spec.g)
    order = {"influenced_dof": ds["influenced_dof"].values,
             "radiating_dof": ds["radiating_dof"].values}
    dims = ("influenced_dof", "radiating_dof")
    ds["inertia_matrix"] = (dims, inertia.sel(order).values)
    ds["hydrostatic_stiffness"] = (dims, stiffness.sel(order).values)
    volume = float(immersed.volume)
    mass = float(ds["inertia_matrix"].sel(influenced_dof="Heave", radiating_dof="Heave"))
    if not np.isclose(mass, spec.rho * volume, rtol=1e-9):  # pragma: no cover - Capytaine
        raise HydroDataError(f"inertia mass {mass} kg differs from rho V = "
                             f"{spec.rho * volume} kg", value=mass)
    ds["displaced_volume"] = ((), volume)
    for name, unit in UNITS.items():
        if name in ds:
            ds[name].attrs["units"] = unit
    ds["displaced_volume"].attrs["long_name"] = "Displaced volume"
    body = {k: (str(v) if isinstance(v, Path) else v) for k, v in spec.body.items()
            if v is not None}
    ds.attrs.update({
        "title": f"hydrofmu bem: body {spec.name!r} ({body.get('shape', 'mesh')})",
        "source": source,
        "time_convention": "exp(-i omega t) (Capytaine): conjugate for exp(+i omega t)",
        "bem_method": spec.method,
        "hull_panels": int(solved.mesh.nb_faces),
        "lid_panels": int(solved.lid_mesh.nb_faces) if solved.lid_mesh is not None else 0,
        "bem_symmetry": (f"axial ({solved.mesh.n} sectors)"
                         if hasattr(solved.mesh, "wedge") else "none"),
        "bem_body": repr(body),
        "excitation_at_zero_and_infinite_frequency": "NaN (not solved)",
    })
    return ds


def write_netcdf(ds: Any, path: str | Path) -> Path:
    """Write ``ds`` as Capytaine NetCDF, atomically (temporary file, then rename)."""
    cpt = require("capytaine", "bem")
    path = Path(path)
    fd, tmp = tempfile.mkstemp(suffix=".nc", prefix=".tmp_", dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    try:
        cpt.export_dataset(tmp, ds, format="netcdf")
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private (0600)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def run_bem(spec: BEMSpec, *, progress: bool = False, source: str = "hydrofmu bem") -> Any:
    """Mesh, check, solve and assemble: the whole of ``hydrofmu bem`` but the file.

    Returns
    -------
    xarray.Dataset
        See :func:`assemble`.
    """
    cpt = require("capytaine", "bem")
    cpt.set_logging("WARNING")
    if spec.bodies:
        return run_bodies(spec, progress=progress, source=source)
    axial = uses_axial(spec)
    closed, immersed = build_bodies(spec, with_lid=not axial)
    if axial:
        results = solve(spec, symmetric_body(spec), progress=progress,
                        engine=symmetric_engine())
    else:
        results = solve(spec, immersed, progress=progress)
    return assemble(spec, results, closed, immersed, source=source)


def run_bodies(spec: BEMSpec, *, progress: bool = False, source: str = "hydrofmu bem") -> Any:
    """``[[bem.bodies]]``: place the bodies, solve them in one problem, assemble.

    Returns
    -------
    xarray.Dataset
        Capytaine's multibody dataset (DOFs ``<name>__Surge`` ..., a ``body`` dimension)
        with the per-body variables of :func:`~hydrofmu.bem.multi.add_bodies_data` and the
        panel counts per body in the attributes.
    """
    cpt = require("capytaine", "bem")
    placed, joined = place_bodies(spec)
    results = solve(spec, joined, progress=progress)
    ds = cpt.assemble_dataset(results, hydrostatics=False)
    ds = add_bodies_data(spec, ds, placed)
    for var in set(ds) | set(ds.coords):
        if var in cpt.io.xarray.VARIABLES_ATTRIBUTES:
            ds[var].attrs.update(cpt.io.xarray.VARIABLES_ATTRIBUTES[var])
    ds.attrs.pop("creation_of_dataset", None)  # a time stamp would make every file different
    for name, unit in UNITS.items():
        if name in ds:
            ds[name].attrs["units"] = unit
    ds["displaced_volume"].attrs["long_name"] = "Displaced volume"

    def per_body(count: Any) -> str:
        return ", ".join(f"{p.spec.name}: {count(p)}" for p in placed)

    ds.attrs.update({
        "title": "hydrofmu bem: bodies " + ", ".join(repr(p.spec.name) for p in placed),
        "source": source,
        "time_convention": "exp(-i omega t) (Capytaine): conjugate for exp(+i omega t)",
        "bem_method": spec.method,
        "hull_panels": int(sum(p.solved.mesh.nb_faces for p in placed)),
        "lid_panels": int(sum(p.solved.lid_mesh.nb_faces for p in placed
                              if p.solved.lid_mesh is not None)),
        "hull_panels_per_body": per_body(lambda p: int(p.solved.mesh.nb_faces)),
        "lid_panels_per_body": per_body(lambda p: int(p.solved.lid_mesh.nb_faces)
                                        if p.solved.lid_mesh is not None else 0),
        "seabed_panels_left_out": per_body(lambda p: p.seabed_panels),
        "cut_at_seabed": per_body(lambda p: p.below_seabed),
        "bem_symmetry": "none",
        "bem_bodies": repr([{"name": p.spec.name, "mesh": p.spec.mesh.name,
                             "position": list(p.spec.position),
                             "rotation_deg": list(p.spec.rotation)} for p in placed]),
        "excitation_at_zero_and_infinite_frequency": "NaN (not solved)",
    })
    notes = contact_notes(placed)
    if notes:
        ds.attrs["bem_notes"] = " | ".join(notes)
    return ds


def bem_to_file(spec: BEMSpec, output: str | Path, *, progress: bool = False) -> tuple[Path, str]:
    """Run :func:`run_bem` and write the NetCDF file.

    Returns
    -------
    path, summary
        The written file and a one-line summary (panels, problems, seconds).
    """
    start = time.perf_counter()
    ds = run_bem(spec, progress=progress)
    path = write_netcdf(ds, output)
    omega = ds["omega"].values
    per_body = (f" ({ds.attrs['hull_panels_per_body']}; lid {ds.attrs['lid_panels_per_body']}"
                f"; seabed panels left out {ds.attrs['seabed_panels_left_out']})"
                if "hull_panels_per_body" in ds.attrs else "")
    return path, (
        f"{ds.attrs['hull_panels']} hull panels + {ds.attrs['lid_panels']} lid panels"
        f"{per_body}, "
        f"{int(np.sum(np.isfinite(omega) & (omega > 0)))} finite frequencies"
        f"{' + omega = 0' if np.any(omega == 0) else ''}"
        f"{' + omega = inf' if np.any(np.isinf(omega)) else ''}, "
        f"{len(spec.headings)} heading(s), symmetry {ds.attrs['bem_symmetry']}; "
        f"{time.perf_counter() - start:.1f} s"
    ) + "".join(f"\nnote: {n}" for n in ds.attrs.get("bem_notes", "").split(" | ") if n)
