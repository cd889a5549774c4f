"""``hydrofmu bem``: a ``[bem]`` TOML table -> Capytaine solve -> Capytaine NetCDF.

Build time only (Capytaine is the extra ``bem``); never bundled in an FMU. The written file
is a standard Capytaine NetCDF (complex values on a leading ``complex`` dimension) with the
hydrostatics, the mass properties, omega = 0 and omega = inf, that ``hydrofmu info`` and
``hydro = "body.nc"`` read as they are.

Example::

    [bem]
    body = { shape = "sphere", radius = 5.0, center = [0.0, 0.0, 0.0] }  # or mesh = "hull.stl"
    omega = { min = 0.1, max = 3.0, n = 30 }     # rad/s, or a list
    headings = [0.0]                             # rad
    water_depth = inf                            # m
    lid = true                                   # irregular-frequency removal
    panel_size = 0.4                             # m, for parametric shapes
    rotation_center = [0.0, 0.0, 0.0]
    center_of_mass = [0.0, 0.0, -2.0]

Physics notes (measured with Capytaine 3.0): the inertia is computed on the *closed* mesh
(on the clipped mesh roll and yaw come out 10-13 % low), the stiffness on the immersed
part; no ``mass`` is handed to Capytaine, so the mass is rho times the displaced volume
(a freely floating body in equilibrium).
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ConfigError, HydroDataError, did_you_mean, require

BEM_KEYS = (
    "body", "mesh", "omega", "headings", "water_depth", "lid", "panel_size",
    "rotation_center", "center_of_mass", "rho", "g", "method", "n_jobs", "name",
    "zero_and_infinite",
)
"""Keys of the ``[bem]`` table."""
SHAPE_KEYS = {
    "sphere": ("shape", "radius", "center", "resolution"),
    "cylinder": ("shape", "radius", "draft", "height", "center", "resolution"),
    "box": ("shape", "size", "center", "resolution"),
}
"""Keys of ``body = {shape = ...}`` per parametric shape."""
MESH_KEYS = ("mesh", "format", "scale")
"""Keys of ``body = {mesh = ...}``."""
METHODS = ("direct", "indirect")


def _unknown(key: str, allowed: Sequence[str], where: str) -> ConfigError:
    return ConfigError(
        f"unknown key '{key}' in {where}{did_you_mean(key, allowed)}; "
        f"allowed: {', '.join(allowed)}",
        value=key,
    )


def _vec3(value: Any, what: str) -> tuple[float, float, float]:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what} = {value!r} must be 3 numbers", value=value) from exc
    if arr.shape != (3,) or not np.all(np.isfinite(arr)):
        raise ConfigError(f"{what} = {value!r} must be 3 finite numbers [x, y, z] in m",
                          value=value)
    return (float(arr[0]), float(arr[1]), float(arr[2]))


def _positive(value: Any, what: str, *, allow_inf: bool = False) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what} = {value!r} is not a number", value=value) from exc
    if not (out > 0) or (math.isinf(out) and not allow_inf) or math.isnan(out):
        extra = " (or inf)" if allow_inf else ""
        raise ConfigError(f"{what} = {value!r} must be a positive finite number{extra}",
                          value=value)
    return out


@dataclass(frozen=True, kw_only=True)
class BEMSpec:
    """A validated ``[bem]`` table.

    Attributes
    ----------
    body
        Parametric shape (``{"shape": ..., ...}``) or mesh file (``{"mesh": Path, ...}``).
    omega
        Finite frequencies, rad/s, shape (nw,), strictly increasing, > 0.
    headings
        Wave headings of the diffraction problems, rad (direction the waves travel to).
    water_depth
        m, ``inf`` for deep water.
    lid
        Add a lid on the waterplane (irregular-frequency removal).
    panel_size
        Target panel size of parametric shapes, m.
    rotation_center, center_of_mass
        m.
    rho, g
        kg/m^3, m/s^2.
    method
        Capytaine's boundary integral equation: ``direct`` or ``indirect``.
    n_jobs
        Capytaine's ``n_jobs`` (-1: all cores).
    name
        Body name in the file.
    zero_and_infinite
        Also solve radiation at omega = 0 and omega = inf.
    """

    body: dict[str, Any]
    omega: np.ndarray
    headings: tuple[float, ...] = (0.0,)
    water_depth: float = math.inf
    lid: bool = True
    panel_size: float = 0.5
    rotation_center: tuple[float, float, float] = (0.0, 0.0, 0.0)
    center_of_mass: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rho: float = 1000.0
    g: float = 9.81
    method: str = "direct"
    n_jobs: int = 1
    name: str = "body"
    zero_and_infinite: bool = True
    notes: list[str] = field(default_factory=list)


def _parse_omega(value: Any) -> np.ndarray:
    if isinstance(value, dict):
        for key in value:
            if key not in ("min", "max", "n"):
                raise _unknown(key, ("min", "max", "n"), "[bem] omega")
        try:
            lo, hi, n = float(value["min"]), float(value["max"]), value["n"]
        except KeyError as exc:
            raise ConfigError(f"[bem] omega needs min, max and n; {exc.args[0]} is missing",
                              value=value) from exc
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ConfigError(f"[bem] omega.n = {n!r} must be a positive integer", value=n)
        omega = np.linspace(lo, hi, n)
    else:
        try:
            omega = np.asarray(value, dtype=float).ravel()
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"[bem] omega = {value!r} must be a list of rad/s or "
                              "{min, max, n}", value=value) from exc
    if omega.size == 0 or not np.all(np.isfinite(omega)) or np.any(omega <= 0):
        raise ConfigError(f"[bem] omega = {value!r}: the finite frequencies must be finite and "
                          "> 0 rad/s (omega = 0 and inf are added with zero_and_infinite)",
                          value=value)
    if np.any(np.diff(omega) <= 0):
        raise ConfigError(f"[bem] omega = {value!r} must be strictly increasing", value=value)
    return omega


def _parse_body(value: Any, base: Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"[bem] body = {value!r} must be a table: "
                          "{shape = 'sphere', ...} or {mesh = 'hull.stl'}", value=value)
    if "mesh" in value:
        for key in value:
            if key not in MESH_KEYS:
                raise _unknown(key, MESH_KEYS, "[bem] body (mesh file)")
        path = Path(str(value["mesh"])).expanduser()
        path = path if path.is_absolute() else base / path
        if not path.is_file():
            raise ConfigError(f"[bem] mesh file '{path}' does not exist", value=str(path))
        scale = _positive(value.get("scale", 1.0), "[bem] body.scale")
        return {"mesh": path, "format": value.get("format"), "scale": scale}
    shape = value.get("shape")
    if shape not in SHAPE_KEYS:
        raise ConfigError(
            f"[bem] body.shape = {shape!r} is not known{did_you_mean(shape, SHAPE_KEYS)}; "
            f"choose one of: {', '.join(SHAPE_KEYS)}, or give mesh = 'file'", value=shape)
    for key in value:
        if key not in SHAPE_KEYS[shape]:
            raise _unknown(key, SHAPE_KEYS[shape], f"[bem] body ({shape})")
    out: dict[str, Any] = {"shape": shape, "center": _vec3(value.get("center", [0, 0, 0]),
                                                           "[bem] body.center")}
    if shape in ("sphere", "cylinder"):
        if "radius" not in value:
            raise ConfigError(f"[bem] body ({shape}) needs radius (m)", value=value)
        out["radius"] = _positive(value["radius"], "[bem] body.radius")
    if shape == "cylinder":
        length = value.get("height", value.get("draft"))
        if length is None or ("height" in value and "draft" in value):
            raise ConfigError("[bem] body (cylinder) needs one of height (m, the whole "
                              "cylinder, centred on center) or draft (m, from z = 0 down; "
                              "a surface-piercing cylinder with the same length above)",
                              value=value)
        out["height"] = _positive(length, "[bem] body.height") * (2.0 if "draft" in value
                                                                 else 1.0)
    if shape == "box":
        out["size"] = _vec3(value.get("size"), "[bem] body.size")
        if min(out["size"]) <= 0:
            raise ConfigError(f"[bem] body.size = {value.get('size')!r} must be > 0",
                              value=value.get("size"))
    if "resolution" in value:
        res = value["resolution"]
        n = 3 if shape == "box" else 2
        if (not isinstance(res, list) or len(res) != n
                or not all(isinstance(r, int) and r > 0 for r in res)):
            raise ConfigError(f"[bem] body.resolution = {res!r} must be {n} positive integers",
                              value=res)
        out["resolution"] = tuple(res)
    return out


def parse_bem(data: dict[str, Any], *, base: Path | None = None) -> BEMSpec:
    """Validate a ``[bem]`` table.

    Parameters
    ----------
    data
        The table (the ``bem`` entry of the TOML file).
    base
        Folder that relative mesh paths are relative to (the TOML file's folder).

    Returns
    -------
    BEMSpec

    Raises
    ------
    ConfigError
        Unknown keys (with a did-you-mean), missing or out-of-range values.
    """
    base = base or Path.cwd()
    if not isinstance(data, dict):
        raise ConfigError("[bem] must be a table", value=data)
    for key in data:
        if key not in BEM_KEYS:
            raise _unknown(key, BEM_KEYS, "[bem]")
    if ("body" in data) == ("mesh" in data):
        raise ConfigError("[bem] needs exactly one of body = {shape = ...} or mesh = 'file'",
                          value=None)
    body = _parse_body(data["body"] if "body" in data else {"mesh": data["mesh"]}, base)
    if "omega" not in data:
        raise ConfigError("[bem] needs omega: a list of rad/s or {min, max, n}", value=None)
    headings = data.get("headings", [0.0])
    try:
        headings_arr = np.atleast_1d(np.asarray(headings, dtype=float))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"[bem] headings = {headings!r} must be a list of rad",
                          value=headings) from exc
    if headings_arr.size == 0 or not np.all(np.isfinite(headings_arr)):
        raise ConfigError(f"[bem] headings = {headings!r} must be finite numbers (rad)",
                          value=headings)
    method = data.get("method", "direct")
    if method not in METHODS:
        raise ConfigError(f"[bem] method = {method!r} is not known{did_you_mean(method, METHODS)}"
                          f"; choose one of: {', '.join(METHODS)}", value=method)
    n_jobs = data.get("n_jobs", 1)
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs == 0 or n_jobs < -1:
        raise ConfigError(f"[bem] n_jobs = {n_jobs!r} must be a positive integer or -1 "
                          "(all cores)", value=n_jobs)
    for key in ("lid", "zero_and_infinite"):
        if not isinstance(data.get(key, True), bool):
            raise ConfigError(f"[bem] {key} = {data[key]!r} must be true or false",
                              value=data[key])
    name = str(data.get("name", "body"))
    if not name.isidentifier():
        raise ConfigError(f"[bem] name = {name!r} must be an identifier", value=name)
    return BEMSpec(
        body=body,
        omega=_parse_omega(data["omega"]),
        headings=tuple(float(h) for h in headings_arr),
        water_depth=_positive(data.get("water_depth", math.inf), "[bem] water_depth",
                              allow_inf=True),
        lid=bool(data.get("lid", True)),
        panel_size=_positive(data.get("panel_size", 0.5), "[bem] panel_size"),
        rotation_center=_vec3(data.get("rotation_center", [0, 0, 0]), "[bem] rotation_center"),
        center_of_mass=_vec3(data.get("center_of_mass", [0, 0, 0]), "[bem] center_of_mass"),
        rho=_positive(data.get("rho", 1000.0), "[bem] rho"),
        g=_positive(data.get("g", 9.81), "[bem] g"),
        method=method,
        n_jobs=n_jobs,
        name=name,
        zero_and_infinite=bool(data.get("zero_and_infinite", True)),
    )


def load_bem(path: str | Path) -> BEMSpec:
    """Read the ``[bem]`` table of a TOML file (see :func:`parse_bem`)."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError as exc:
        raise ConfigError(f"BEM configuration '{path}' does not exist", value=str(path)) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"'{path}' is not valid TOML: {exc}", value=str(path)) from exc
    if "bem" not in data:
        raise ConfigError(f"'{path}' has no [bem] table{did_you_mean('bem', list(data))}",
                          value=str(path))
    return parse_bem(data["bem"], base=path.parent)


# --- Meshes and bodies ----------------------------------------------------------------------
def make_mesh(spec: BEMSpec) -> Any:
    """The closed hull mesh of ``spec.body`` (Capytaine ``Mesh``), in m.

    Parametric shapes use Capytaine's mesh generators with ``faces_max_radius =
    panel_size`` (the largest distance from a panel's centre to its vertices) unless a
    ``resolution`` is given; mesh files are read by ``capytaine.load_mesh`` (STL, GDF,
    NEMOH .dat, gmsh .msh and whatever meshio reads).
    """
    cpt = require("capytaine", "bem")
    body = spec.body
    if "mesh" in body:
        try:
            mesh = cpt.load_mesh(str(body["mesh"]), file_format=body.get("format"))
        except Exception as exc:  # Capytaine/meshio raise many kinds
            raise HydroDataError(
                f"cannot read the mesh '{body['mesh']}': {exc}; give its format with "
                "body = {mesh = '...', format = 'stl' | 'gdf' | 'nemoh' | 'gmsh' | ...}",
                value=str(body["mesh"]),
            ) from exc
        if body["scale"] != 1.0:
            mesh = cpt.Mesh(vertices=mesh.vertices * body["scale"], faces=mesh.faces,
                            name=mesh.name)
        return mesh
    size: dict[str, Any] = (
        {"resolution": body["resolution"]} if "resolution" in body
        else {"faces_max_radius": spec.panel_size}
    )
    if body["shape"] == "sphere":
        return cpt.mesh_sphere(radius=body["radius"], center=body["center"], name=spec.name,
                               **size)
    if body["shape"] == "cylinder":
        return cpt.mesh_vertical_cylinder(radius=body["radius"], length=body["height"],
                                          center=body["center"], name=spec.name, **size)
    return cpt.mesh_parallelepiped(size=body["size"], center=body["center"], name=spec.name,
                                   **size)


def check_mesh(mesh: Any, *, where: str = "the mesh", rtol: float = 0.02) -> float:
    """Check that the hull is closed below the waterline with outward normals.

    The three divergence-theorem volumes ``V_i = sum_f x_i n_i A_f`` of the part below
    z = 0 agree when the hull is closed there (the waterplane adds nothing to any of
    them: n_x = n_y = 0 and z = 0 on it) and are positive when the normals point out
    of the body, into the water.

    Parameters
    ----------
    mesh
        Capytaine ``Mesh`` of the whole hull.
    where
        Name of the mesh in messages.
    rtol
        Largest relative spread of the three volumes.

    Returns
    -------
    float
        Displaced volume, m^3.

    Raises
    ------
    HydroDataError
        No panel below the waterline, inward normals, or a hull open below the waterline.
    """
    immersed = mesh.immersed_part()
    if immersed.nb_faces == 0:
        raise HydroDataError(f"{where} has no panel below the waterline z = 0; translate it "
                             "down (hydrofmu bem puts the free surface at z = 0)", value=None)
    volumes = np.asarray(immersed.volumes, dtype=float)
    mean = float(np.mean(volumes))
    if np.all(volumes < 0):
        raise HydroDataError(
            f"{where} has inward normals (displaced volume {mean:.6g} m^3 < 0); flip the "
            "orientation of its faces so that the normals point into the water", value=mean)
    spread = float(np.ptp(volumes)) / max(abs(mean), 1e-300)
    if np.any(volumes <= 0) or spread > rtol:
        raise HydroDataError(
            f"{where} is not closed (watertight) below the waterline: the volumes from the "
            f"x, y and z components of the normals are {volumes.round(6).tolist()} m^3 "
            f"(spread {100 * spread:.1f} % > {100 * rtol:g} %); close the hull below z = 0, "
            "merge duplicate vertices and orient every face outward", value=volumes.tolist())
    return mean


def build_bodies(spec: BEMSpec) -> tuple[Any, Any]:
    """The closed body (for the inertia) and its immersed part with the lid (for the BEM).

    Returns
    -------
    closed, immersed : capytaine.FloatingBody
        Neither has a ``mass``: Capytaine 3.0 would divide a given mass by the closed
        volume and multiply by the displaced one; without it the mass is rho times the
        displaced volume, with the inertia distribution of the closed hull.
    """
    cpt = require("capytaine", "bem")
    mesh = make_mesh(spec)
    check_mesh(mesh, where=f"the mesh of [bem] body {spec.name!r}")
    lid = None
    if spec.lid and mesh.nb_edges_waterline > 0:
        lid = mesh.generate_lid(z=0.0)
    closed = cpt.FloatingBody(
        mesh=mesh,
        lid_mesh=lid,
        dofs=cpt.rigid_body_dofs(rotation_center=spec.rotation_center),
        center_of_mass=spec.center_of_mass,
        name=spec.name,
    )
    return closed, closed.immersed_part()


# --- Solve ----------------------------------------------------------------------------------
class _Progress:
    """tqdm over the problems if installed, else a plain counter on stderr."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self._bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=total, unit="problem", desc="BEM", file=sys.stderr)
            except ImportError:
                self._bar = None

    def update(self, n: int) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.enabled:
            print(f"\rBEM: {self.done}/{self.total} problems", end="", file=sys.stderr,
                  flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            print(file=sys.stderr)


def radiation_omegas(spec: BEMSpec) -> list[float]:
    """The radiation frequencies: omega = 0 (deep water only: Capytaine 3.0 cannot evaluate
    the finite-depth Green function at k h < 0.1), the finite ones and omega = inf."""
    omegas = spec.omega.tolist()
    if spec.zero_and_infinite:
        omegas = ([0.0] if math.isinf(spec.water_depth) else []) + omegas + [math.inf]
    return omegas


def solve(spec: BEMSpec, immersed: Any, *, progress: bool = False,
          callback: Callable[[int], None] | None = None) -> list[Any]:
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
    solver = cpt.BEMSolver(method=spec.method)
    bar = _Progress(sum(len(g) for g in groups.values()), enabled=progress)
    results: list[Any] = []
    try:
        for problems in groups.values():
            out = solver.solve_all(problems, n_jobs=spec.n_jobs, progress_bar=False)
            failed = [r for r in out if not hasattr(r, "forces")]
            if failed:
                raise HydroDataError(f"Capytaine could not solve {failed[0]}", value=None)
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
    ds = cpt.assemble_dataset(results, hydrostatics=True)
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
        "hull_panels": int(immersed.mesh.nb_faces),
        "lid_panels": int(immersed.lid_mesh.nb_faces) if immersed.lid_mesh is not None else 0,
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
    closed, immersed = build_bodies(spec)
    results = solve(spec, immersed, progress=progress)
    return assemble(spec, results, closed, immersed, source=source)


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
    return path, (
        f"{ds.attrs['hull_panels']} hull panels + {ds.attrs['lid_panels']} lid panels, "
        f"{int(np.sum(np.isfinite(omega) & (omega > 0)))} finite frequencies"
        f"{' + omega = 0' if np.any(omega == 0) else ''}"
        f"{' + omega = inf' if np.any(np.isinf(omega)) else ''}, "
        f"{len(spec.headings)} heading(s); {time.perf_counter() - start:.1f} s"
    )
