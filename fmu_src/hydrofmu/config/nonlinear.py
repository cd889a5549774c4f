"""The ``mesh`` and ``nonlinear`` keys of a ``[[bodies]]`` entry (build time).

``nonlinear = "mean" | "instantaneous"`` (off when absent) replaces the body's linear
hydrostatics and the Froude-Krylov part of its linear excitation by the pressure
integrated over the wetted part of its hull mesh at the instantaneous pose
(:mod:`hydrofmu.runtime.forces.nonlinear_hydro`); ``mesh = "<file>"`` (required with it,
relative to the configuration file) is the WHOLE closed hull in the BEM data's frame
(metres, z up, the free surface at z = 0 at the body's equilibrium; STL or what
``capytaine.load_mesh`` reads).

Here, once:

- the mesh is read, merged, triangulated and checked closed with outward normals
  (:func:`hydrofmu.io.panel_mesh.read_body_mesh`, refused otherwise with the file and the
  fix), then embedded in the resolved body (``"nonlinear"``: mode, vertices about the
  reference point, triangles), so the run time reads no file;
- its volume and centre of buoyancy below z = 0 are compared with the BEM data's; a
  difference above :data:`VOLUME_RTOL` or :data:`COB_ATOL_FRACTION` of the mesh's size is
  a warning with the numbers (the mesh wins: it is what the nonlinear force integrates);
- nothing counts twice: the body's linear hydrostatic stiffness and static imbalance are
  set to zero (the nonlinear part computes buoyancy minus weight itself), and its linear
  excitation keeps the diffraction part only, ``X - X_FK``, where ``X_FK`` is the linear
  Froude-Krylov force integrated on the same mesh at rest by the same kernel
  (:func:`linear_froude_krylov`), so that at small amplitude the nonlinear Froude-Krylov
  force and the removed linear one are the same integral and the model reduces to the
  linear one whatever the BEM file holds. A Capytaine file's own ``Froude_Krylov_force``
  is compared with it (a warning beyond :data:`FK_RTOL`).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..io.panel_mesh import BodyMesh, read_body_mesh
from ..runtime.errors import ConfigError
from ..runtime.hydrodata.model import HydroData
from ..runtime.panels.kernel import (
    AWP,
    COB,
    VOLUME,
    WAVE,
    WAVE_LOAD,
    PanelKernel,
    WaveComponents,
)
from ..runtime.waves.kinematics import wave_number

__all__ = ["NONLINEAR_KEYS", "NONLINEAR_MODES", "NonlinearMeshWarning", "file_froude_krylov",
           "linear_froude_krylov", "resolve_nonlinear"]

#: The keys of a ``[[bodies]]`` entry read here.
NONLINEAR_KEYS: tuple[str, ...] = ("mesh", "nonlinear")

#: The values of ``nonlinear``: the free surface the wetted part is cut at.
NONLINEAR_MODES: tuple[str, ...] = ("mean", "instantaneous")

#: Relative difference of the mesh's and the data's displaced volume that is warned about.
VOLUME_RTOL = 0.01
#: Distance between the two centres of buoyancy warned about, as a fraction of the mesh's
#: largest extent.
COB_ATOL_FRACTION = 0.01
#: Relative difference (of the largest modulus) between the file's and the mesh's linear
#: Froude-Krylov force that is warned about.
FK_RTOL = 0.05


class NonlinearMeshWarning(UserWarning):
    """A nonlinear body's mesh disagrees with its BEM data (the mesh is used)."""


def check_keys(b: dict[str, Any]) -> str | None:
    """The body's ``nonlinear`` mode, or None; checks the two keys."""
    name = b["name"]
    mode = b.get("nonlinear")
    if mode is None or mode is False:
        if "mesh" in b:
            raise ConfigError(f"body '{name}': mesh is only read for nonlinear = \"mean\" or "
                              "\"instantaneous\", which is not set; add it or remove mesh",
                              value=b["mesh"])
        return None
    if mode not in NONLINEAR_MODES:
        raise ConfigError(f"body '{name}': nonlinear = {mode!r}; choose \"mean\" (cut at "
                          "z = 0) or \"instantaneous\" (cut at the incident wave)", value=mode)
    if not isinstance(b.get("mesh"), str):
        raise ConfigError(f"body '{name}': nonlinear = {mode!r} needs mesh = \"<file>\" (the "
                          "closed hull, STL or a format capytaine reads)", value=b.get("mesh"))
    return str(mode)


def linear_froude_krylov(kernel: PanelKernel, hd: HydroData,
                         translation: NDArray[np.float64]) -> NDArray[np.complex128]:
    """The linear Froude-Krylov force ``X_FK(omega, beta)`` of the mesh at rest, shape
    (nw, nb, 6), N/m and N m/m, in HydroData's convention (``e^{+i w t}``, per metre of
    amplitude, moments about the reference point at ``translation``).

    The incident pressure ``rho g f(z) Re(e^{i(w t - k (x cos b + y sin b))})`` integrated
    over the part below z = 0 by the kernel (``X = F(phase 0) + i F(phase -pi/2)`` at t = 0).
    """
    out = np.zeros((hd.omega.size, hd.wave_direction.size, 6), dtype=complex)
    k_all = wave_number(hd.omega, hd.water_depth, hd.g)
    for i, (w, k) in enumerate(zip(hd.omega, k_all, strict=True)):
        for j, beta in enumerate(hd.wave_direction):
            parts = []
            for phase in (0.0, -0.5 * math.pi):
                wave = WaveComponents(np.ones(1), np.array([w]), np.array([k]),
                                      np.array([beta]), np.array([phase]), hd.water_depth)
                one = PanelKernel(kernel.vertices, kernel.triangles, rho=hd.rho, g=hd.g,
                                  wave=wave, lib=kernel.lib)
                parts.append(one.evaluate(np.eye(3), translation, mode=WAVE)[WAVE_LOAD].copy())
            out[i, j] = parts[0] + 1j * parts[1]
    return out


def file_froude_krylov(path: Any, hd: HydroData) -> NDArray[np.complex128] | None:
    """A Capytaine file's ``Froude_Krylov_force`` in HydroData's layout, when it has one
    with the same frequencies, headings and one body (else None)."""
    if not isinstance(path, Path) or path.suffix.lower() != ".nc":
        return None
    try:
        import xarray as xr

        with xr.open_dataset(path) as ds:
            if "Froude_Krylov_force" not in ds:
                return None
            fk = ds["Froude_Krylov_force"]
            if "complex" in fk.dims:
                fk = fk.sel(complex="re") + 1j * fk.sel(complex="im")
            fk = fk.transpose("omega", "wave_direction", "influenced_dof")
            omega = np.asarray(ds["omega"], dtype=float)
            keep = np.isfinite(omega) & (omega > 0.0)
            order = np.argsort(omega[keep], kind="stable")
            values = np.conj(np.asarray(fk.values))[keep][order]
            if values.shape[2] != 6 or not np.allclose(omega[keep][order], hd.omega):
                return None
            heading = np.asarray(ds["wave_direction"], dtype=float)
            if not np.allclose(heading, hd.wave_direction):
                return None
            return values
    except Exception:  # an unusual layout: no comparison, the mesh's FK is used anyway
        return None


def resolve_nonlinear(b: dict[str, Any], rb: dict[str, Any], hd: HydroData, path: Any,
                      base: Path) -> tuple[HydroData, list[str]]:
    """Embed a nonlinear body's mesh in ``rb`` and remove the linear parts it replaces.

    Returns the body's data with the diffraction excitation only (unchanged when
    ``nonlinear`` is off) and the notes.

    Raises
    ------
    ConfigError
        Bad keys, an unreadable or open mesh, inward normals, no compiled kernel (the
        API compiles it into the cache first:
        :meth:`hydrofmu.export.kernel_build.KernelBuild.prepare`).
    """
    mode = check_keys(b)
    if mode is None:
        return hd, []
    name = b["name"]
    mesh_path = Path(b["mesh"])
    mesh = read_body_mesh(mesh_path if mesh_path.is_absolute() else base / mesh_path)
    ref = np.asarray(hd.reference_point, dtype=float)
    kernel = PanelKernel(mesh.vertices - ref, mesh.triangles, rho=hd.rho, g=hd.g)
    rest = kernel.evaluate(np.eye(3), ref)
    volume, cob, awp = float(rest[VOLUME]), rest[COB] - ref, float(rest[AWP])
    if volume <= 0.0:
        raise ConfigError(f"body '{name}': the mesh {mesh.source} has no volume below z = 0 "
                          "at rest; give it in the BEM data's frame (free surface z = 0)",
                          value=volume)
    notes = [f"{name}: nonlinear = {mode!r} on {len(mesh.triangles)} triangles of "
             f"{mesh.source}: V = {volume:.6g} m^3, centre of buoyancy "
             f"{np.round(cob, 6).tolist()} m, waterplane {awp:.6g} m^2 at rest"]
    _compare(name, mesh, volume, cob, hd)
    fk = linear_froude_krylov(kernel, hd, ref)
    file_fk = file_froude_krylov(path, hd)
    if file_fk is not None and file_fk.shape == fk.shape:
        scale = float(np.abs(file_fk).max()) or 1.0
        diff = float(np.abs(file_fk - fk).max()) / scale
        notes.append(f"{name}: linear Froude-Krylov force of the mesh within "
                     f"{100 * diff:.3g} % of the file's")
        if diff > FK_RTOL:
            warnings.warn(f"body '{name}': the linear Froude-Krylov force integrated on "
                          f"{mesh.source} differs from the file's by {100 * diff:.3g} % of "
                          "its largest value; the mesh's is removed from the excitation "
                          "(the file's diffraction part is then off by the difference)",
                          NonlinearMeshWarning, stacklevel=3)
    rb["nonlinear"] = {"mode": mode, "source": mesh.source,
                       "vertices": (mesh.vertices - ref).tolist(),
                       "triangles": mesh.triangles.tolist(),
                       "linear_stiffness": rb["hydrostatic_stiffness"]}
    rb["hydrostatic_stiffness"] = np.zeros((6, 6)).tolist()
    rb["hydrostatic_offset"] = [0.0] * 6
    notes.append(f"{name}: linear hydrostatics and the mesh's linear Froude-Krylov force "
                 "removed (the nonlinear part integrates them)")
    return hd.with_changes(excitation=hd.excitation - fk), notes


def _compare(name: str, mesh: BodyMesh, volume: float, cob: NDArray[np.float64],
             hd: HydroData) -> None:
    """Warn when the mesh's volume or centre of buoyancy at rest differ from the data's."""
    size = float(np.ptp(mesh.vertices, axis=0).max())
    problems = []
    if math.isfinite(hd.displaced_volume) and abs(volume - hd.displaced_volume) > (
            VOLUME_RTOL * hd.displaced_volume):
        problems.append(f"volume {volume:.6g} m^3 (data: {hd.displaced_volume:.6g} m^3)")
    data_cob = np.asarray(hd.center_of_buoyancy, dtype=float)
    if np.all(np.isfinite(data_cob)) and np.linalg.norm(cob - data_cob) > (
            COB_ATOL_FRACTION * size):
        problems.append(f"centre of buoyancy {np.round(cob, 6).tolist()} m (data: "
                        f"{np.round(data_cob, 6).tolist()} m)")
    if problems:
        warnings.warn(f"body '{name}': the mesh {mesh.source} at rest disagrees with the BEM "
                      f"data's hydrostatics: {'; '.join(problems)}; the mesh is used (it is "
                      "what the nonlinear force integrates): check the mesh's frame, scale "
                      "and draft", NonlinearMeshWarning, stacklevel=3)
