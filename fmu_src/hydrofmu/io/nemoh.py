"""Reader of NEMOH v3 first-order results: a NEMOH case folder (build time; numpy).

What is read, from the folder holding ``Nemoh.cal``:

- ``Nemoh.cal``: RHO, G, DEPTH (0 = infinite), the bodies, each body's degrees of freedom
  (type 1 = translation along a unit vector, type 2 = rotation about an axis through a point);
  one body with the six standard DOFs, the three rotations about one point (the reference
  point), is supported;
- ``results/RadiationCoefficients.tec``: one zone per radiating (motion) DOF j, rows
  ``w, A(1, j), B(1, j), ..., A(6, j), B(6, j)``: dimensional added mass (kg, kg m, kg m^2)
  and damping (N s/m, N s, N m s) of the force on DOF i due to motion j, stored as
  ``A[w, i, j]`` (the project's [influenced, radiating]); ``CM.dat`` / ``CA.dat`` print the
  same matrices (row j, column i) to 6 digits;
- ``results/ExcitationForce.tec``: one zone per heading (``beta = ... deg``), rows
  ``w, |F_1|, arg F_1, ..., |F_6|, arg F_6`` (N/m, N m/m; phase in rad), the sum of
  ``FKForce.tec`` (Froude-Krylov) and ``DiffractionForce.tec``;
- ``Mesh/KH.dat`` (6 x 6 hydrostatic stiffness, including the gravity terms of the mass
  rho V with the centre of gravity of ``Mesh.cal``), ``Mesh/Hydrostatics.dat`` (centres of
  buoyancy XF, YF, ZF and gravity XG, YG, ZG in the mesh frame, displacement in m^3),
  ``Mechanics/Inertia.dat`` (6 x 6 mass matrix, when present).

Conventions. NEMOH's time dependence is ``e^{-i omega t}`` (as Capytaine's, which follows
NEMOH's): the excitation is complex-conjugated into the project's ``e^{+i omega t}``. A check
that holds on the OC3-Hywind spar of examples/data: the conjugated surge excitation at low
frequency has phase +90 degrees, the phase of the fluid acceleration under the wave crest
``eta = Re(a e^{i omega t})`` at the origin (as WAMIT prints for the hemisphere). The radiation
coefficients are real and the same in both conventions. The frequencies are the tables'
(``Nemoh.cal`` may describe another run); NEMOH states no infinite-frequency added mass unless
the IRF option ran, so A_inf is estimated (Ogilvie, as for WAMIT files without it).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import HydroDataError
from ..runtime.hydrodata.model import HydroData
from .hydro_checks import check_hydrodata
from .reader_tools import UnsupportedFormatError, estimate_added_mass_inf, select_body

__all__ = ["NemohCase", "is_nemoh_folder", "read_nemoh", "read_nemoh_cal", "read_tec"]

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[EeDd][-+]?\d+)?"
_BETA = re.compile(rf"beta\s*=\s*({_NUM})")
_AXES = np.eye(3)


class NemohCase:
    """What ``Nemoh.cal`` states about a case (one body).

    Attributes
    ----------
    rho, g
        Water density (kg/m^3) and gravity (m/s^2).
    depth
        Water depth, m (``inf`` for NEMOH's 0).
    mesh
        The body's mesh file name.
    reference_point
        The point the rotations are about, shape (3,), m.
    """

    def __init__(self, rho: float, g: float, depth: float, mesh: str,
                 reference_point: NDArray[np.float64]) -> None:
        self.rho = rho
        self.g = g
        self.depth = depth
        self.mesh = mesh
        self.reference_point = reference_point


def is_nemoh_folder(path: str | Path) -> bool:
    """True when ``path`` is a folder holding a ``Nemoh.cal``."""
    p = Path(path)
    return p.is_dir() and (p / "Nemoh.cal").is_file()


def _fail(p: Path, what: str) -> HydroDataError:
    return HydroDataError(f"{p}: {what}", value=str(p))


def _first_number(p: Path, line: str, n: int) -> float:
    try:
        return float(line.split()[0].replace("D", "E"))
    except (ValueError, IndexError):
        raise _fail(p, f"line {n}: expected a number (line reads: {line.strip()!r})") from None


def read_nemoh_cal(path: str | Path) -> NemohCase:
    """Read the environment and the body's DOFs from ``Nemoh.cal``.

    Parameters
    ----------
    path
        ``Nemoh.cal`` or the folder holding it.

    Returns
    -------
    NemohCase
        rho, g, depth, mesh name and reference point.
    """
    p = Path(path)
    if p.is_dir():
        p = p / "Nemoh.cal"
    if not p.is_file():
        raise _fail(p, "no such file (a NEMOH case folder holds Nemoh.cal)")
    lines = p.read_text(encoding="latin-1").splitlines()
    if len(lines) < 12:
        raise _fail(p, "too short for a Nemoh.cal")
    rho, g, depth = (_first_number(p, lines[k], k + 1) for k in (1, 2, 3))
    nbody = int(_first_number(p, lines[6], 7))
    if nbody != 1:
        raise UnsupportedFormatError(f"{p}: {nbody} bodies; the NEMOH reader supports one",
                                     value=nbody)
    mesh = lines[8].split()[0]
    ndof = int(_first_number(p, lines[10], 11))
    if ndof != 6:
        raise UnsupportedFormatError(f"{p}: {ndof} DOFs; the NEMOH reader supports the six "
                                     "rigid-body DOFs", value=ndof)
    points = []
    for k in range(6):
        n = 11 + k
        try:
            kind, *vals = lines[n].split()[:7]
            v = [float(x) for x in vals]
        except (ValueError, IndexError):
            raise _fail(p, f"line {n + 1}: expected 'type dx dy dz x y z'") from None
        want = 1 if k < 3 else 2
        if int(kind) != want or not np.allclose(v[:3], _AXES[k % 3]):
            raise UnsupportedFormatError(
                f"{p}, line {n + 1}: DOF {k + 1} is not the standard "
                f"{'translation' if k < 3 else 'rotation'} along axis {'xyz'[k % 3]}",
                value=k + 1)
        if k >= 3:
            points.append(v[3:6])
    if not np.allclose(points, points[0]):
        raise UnsupportedFormatError(f"{p}: the three rotations are about different points "
                                     f"{points}", value=str(points))
    return NemohCase(rho=rho, g=g, depth=math.inf if depth <= 0.0 else depth, mesh=mesh,
                     reference_point=np.array(points[0], dtype=float))


def read_tec(path: Path, ncols: int) -> list[tuple[str, NDArray[np.float64]]]:
    """Read a Tecplot ASCII table of NEMOH: its zones with their titles and rows.

    Parameters
    ----------
    path
        The ``.tec`` file.
    ncols
        Numbers per row (the frequency and the values).

    Returns
    -------
    list of (str, ndarray)
        Per zone: its title (``t="..."``) and its rows, shape (I, ncols).
    """
    if not path.is_file():
        raise _fail(path, "no such file (NEMOH's postProc writes it in results/)")
    zones: list[tuple[str, list[float], int]] = []
    for raw in path.read_text(encoding="latin-1").splitlines():
        line = raw.strip()
        if line.lower().startswith("zone"):
            m = re.search(r'[tT]\s*=\s*"([^"]*)"', line)
            count = re.search(r"I\s*=\s*(\d+)", line)
            if count is None:
                raise _fail(path, f"zone line without 'I=' (line reads: {line!r})")
            zones.append((m.group(1) if m else "", [], int(count.group(1))))
            continue
        if not zones or not line or line[0] in "\"V":
            continue
        try:
            zones[-1][1].extend(float(x.replace("D", "E")) for x in line.split())
        except ValueError:
            raise _fail(path, f"expected numbers (line reads: {line!r})") from None
    out = []
    for title, vals, count in zones:
        if len(vals) != count * ncols:
            raise _fail(path, f"zone {title!r} holds {len(vals)} numbers, expected {count} "
                              f"rows of {ncols}: truncated?")
        out.append((title, np.array(vals).reshape(count, ncols)))
    if not out:
        raise _fail(path, "no zone")
    return out


def _matrix(path: Path) -> NDArray[np.float64]:
    if not path.is_file():
        raise _fail(path, "no such file")
    rows = [ln.split() for ln in path.read_text(encoding="latin-1").splitlines()
            if len(ln.split()) == 6]
    try:
        m = np.array(rows[:6], dtype=float)
    except ValueError:
        raise _fail(path, "expected a 6 x 6 matrix") from None
    if m.shape != (6, 6):
        raise _fail(path, "expected a 6 x 6 matrix")
    return m


def _hydrostatics(path: Path) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    if not path.is_file():
        raise _fail(path, "no such file (NEMOH's mesher or hydrosCal writes it)")
    text = path.read_text(encoding="latin-1")
    values = {}
    for key in ("XF", "YF", "ZF", "XG", "YG", "ZG", "Displacement"):
        m = re.search(rf"{key}\s*=\s*({_NUM})", text)
        if m is None:
            raise _fail(path, f"no '{key} =' entry")
        values[key] = float(m.group(1))
    return (np.array([values["XF"], values["YF"], values["ZF"]]),
            np.array([values["XG"], values["YG"], values["ZG"]]), values["Displacement"])


def _forces(path: Path) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                 NDArray[np.complex128]]:
    """(omega, headings rad, F (nw, nb, 6) as NEMOH prints it) of an excitation-type .tec."""
    zones = read_tec(path, 13)
    omega = zones[0][1][:, 0]
    betas, forces = [], []
    for title, rows in zones:
        m = _BETA.search(title)
        if m is None:
            raise _fail(path, f"zone {title!r}: no 'beta = ...' heading")
        if not np.array_equal(rows[:, 0], omega):
            raise _fail(path, f"zone {title!r}: other frequencies than the first zone")
        betas.append(float(m.group(1)))
        forces.append(rows[:, 1::2] * np.exp(1j * rows[:, 2::2]))
    return omega, np.deg2rad(betas), np.stack(forces, axis=1)


def read_nemoh(path: str | Path, body: str | None = None, *, check: bool = True) -> HydroData:
    """Read a NEMOH v3 case folder into :class:`HydroData`.

    Parameters
    ----------
    path
        The folder holding ``Nemoh.cal``, ``results/`` and ``Mesh/`` (or ``Nemoh.cal``).
    body
        The mesh file's stem, ``"body1"`` or ``None`` (one body).
    check
        Run :func:`~hydrofmu.io.hydro_checks.check_hydrodata` on the result.

    Returns
    -------
    HydroData
        Dimensional data, ``e^{+i omega t}`` (NEMOH's excitation conjugated), reference point
        the rotations' point of ``Nemoh.cal``, A_inf estimated.
    """
    root = Path(path)
    if root.is_file() and root.name == "Nemoh.cal":
        root = root.parent
    if not is_nemoh_folder(root):
        raise _fail(root, "not a NEMOH case folder (no Nemoh.cal in it)")
    case = read_nemoh_cal(root)
    name = Path(case.mesh).stem
    select_body([name], body, root, aliases=[("body1",)])
    res = root / "results"
    zones = read_tec(res / "RadiationCoefficients.tec", 13)
    if len(zones) != 6:
        raise _fail(res / "RadiationCoefficients.tec", f"{len(zones)} zones, expected 6 "
                    "(one per radiating DOF)")
    omega = zones[0][1][:, 0]
    a = np.empty((omega.size, 6, 6))
    b = np.empty((omega.size, 6, 6))
    for j, (title, rows) in enumerate(zones):
        if not np.array_equal(rows[:, 0], omega):
            raise _fail(res / "RadiationCoefficients.tec",
                        f"zone {title!r}: other frequencies than the first zone")
        a[:, :, j] = rows[:, 1::2]
        b[:, :, j] = rows[:, 2::2]
    w_x, beta, x_nemoh = _forces(res / "ExcitationForce.tec")
    if not np.allclose(w_x, omega, rtol=1e-6, atol=0.0):
        raise _fail(res / "ExcitationForce.tec", "other frequencies than the radiation table")
    if np.any(omega <= 0.0) or np.any(np.diff(omega) <= 0.0):
        raise _fail(res / "RadiationCoefficients.tec",
                    "frequencies must be > 0 and increasing")
    mesh_dir = root / "Mesh" if (root / "Mesh").is_dir() else root / "mesh"
    k_hs = _matrix(mesh_dir / "KH.dat")
    cob, cog, volume = _hydrostatics(mesh_dir / "Hydrostatics.dat")
    inertia_file = root / "Mechanics" / "Inertia.dat"
    inertia = _matrix(inertia_file) if inertia_file.is_file() else None
    a_inf, note = estimate_added_mass_inf(omega, a, b)
    notes = [
        f"NEMOH v3 folder: rho = {case.rho} kg/m^3, g = {case.g} m/s^2 (Nemoh.cal); "
        "coefficients dimensional as printed",
        "excitation: ExcitationForce.tec conjugated (NEMOH e^{-i omega t} -> e^{+i omega t})",
        f"reference point: the rotations' point of Nemoh.cal {case.reference_point.tolist()} "
        "m; centres (Mesh/Hydrostatics.dat) relative to it",
        note,
    ]
    extra = [f.name for f in (root / "Mechanics" / "Km.dat", root / "Mechanics" / "Badd.dat")
             if f.is_file() and np.any(_matrix(f) != 0.0)]
    if extra:
        notes.append(f"Mechanics/{', '.join(extra)} not zero and not read (add them to the "
                     "configuration)")
    hd = HydroData(
        name=name, omega=omega.copy(), added_mass=a, radiation_damping=b,
        added_mass_inf=a_inf, added_mass_inf_source="extrapolated", wave_direction=beta,
        excitation=np.ascontiguousarray(np.conj(x_nemoh)), hydrostatic_stiffness=k_hs,
        displaced_volume=volume, center_of_buoyancy=cob - case.reference_point,
        center_of_gravity=cog - case.reference_point,
        reference_point=case.reference_point.copy(), rho=case.rho, g=case.g,
        water_depth=case.depth, inertia_matrix=inertia, source=f"{root} (NEMOH v3 folder)",
        notes=tuple(notes))
    if check:
        check_hydrodata(hd)
    return hd
