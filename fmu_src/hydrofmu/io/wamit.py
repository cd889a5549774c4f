"""Reader of WAMIT ``.out`` text output files (build time; standard library and numpy).

What is read from the file (WAMIT 6.x / 7.x layout):

- header: ``Gravity:`` and ``Length scale:`` (ULEN), ``Water depth:`` (``infinite`` or m);
- per body (``Body number: N= k``): ``XBODY/YBODY/ZBODY/PHIBODY``, ``Volumes
  (VOLX,VOLY,VOLZ)``, ``Center of Buoyancy``, the hydrostatic and gravitational restoring
  coefficients ``C(3,3) ... C(5,6)`` and ``Center of Gravity``;
- per period: ``Wave period = infinite`` (omega = 0) and ``Wave period = zero``
  (omega = inf, i.e. A_inf) with ``ADDED-MASS COEFFICIENTS``; ``Wave period (sec) = T``
  with ``ADDED-MASS AND DAMPING COEFFICIENTS`` (all 6N x 6N pairs ``I J A B``) and the
  exciting forces per heading, ``DIFFRACTION EXCITING FORCES AND MOMENTS`` (taken when
  present) or ``HASKIND EXCITING FORCES AND MOMENTS`` (taken otherwise). Diffraction is
  preferred because it integrates the pressure of the solved scattering problem
  directly; Haskind's relation goes through the radiation potentials and is the
  fallback. RAOs, drift forces and pressures are skipped.

Non-dimensionalisation (WAMIT manual, section 4 "Definitions of the output quantities",
also what WEC-Sim's BEMIO ``readWAMIT`` undoes). With L = ULEN and for DOF indices whose
type is translational (surge, sway, heave) or rotational (roll, pitch, yaw)::

    A_ij = rho L^k Abar_ij          k = 3 + rot(i) + rot(j)
    B_ij = rho omega L^k Bbar_ij    same k
    X_i  = rho g L^m Xbar_i         m = 2 + rot(i)       (per metre of wave amplitude)
    C_ij = rho g L^k Cbar_ij        k = 2 + rot(i) + rot(j)

WAMIT does not print the water density: it is a parameter of the reader (default
1000 kg/m^3, BEMIO's ``readWAMIT`` default, the value the WEC-Sim RM3 example uses).

Phase: WAMIT's time dependence is ``e^{+i omega t}`` and its incident wave
``eta = Re(A e^{i(omega t - k x cos beta - k y sin beta)})``: the model's convention, so
``X = |X| e^{i Pha}`` is kept (no conjugation). The phase is printed in whole degrees.

Reference point: WAMIT's coefficients are about each body's own origin, placed at
``(XBODY, YBODY, ZBODY)`` in the global frame; the centres of buoyancy and gravity are
printed in body coordinates, i.e. already relative to that origin. Geometric quantities
(positions, volumes, centres) are printed dimensional; only the coefficients are scaled.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import HydroDataError
from ..runtime.hydrodata.model import HydroData
from ..runtime.hydrodata.multibody import MultiBodyData
from .hydro_checks import check_hydrodata
from .reader_tools import UnsupportedFormatError, check_file, select_body
from .wamit_text import WamitBody, WamitParser, WamitPeriod

__all__ = ["DEFAULT_RHO", "WAMIT_SYMMETRY_RTOL", "read_wamit", "read_wamit_bodies"]

#: Water density used to make WAMIT's non-dimensional values dimensional, kg/m^3.
DEFAULT_RHO: float = 1000.0

#: Symmetry tolerance of A_inf for WAMIT files (relative to ``max |diag|``). The RM3 file of
#: examples/data prints A_inf(2,4) = -674.0 and A_inf(4,2) = -468.7 for the float (a
#: sway-roll coupling asymmetry of 1.02 % of its largest diagonal term, the low-order
#: panel solution with irregular-frequency removal): the project default of 1 % would
#: refuse WAMIT's own output, so WAMIT files are checked at 2 %.
WAMIT_SYMMETRY_RTOL: float = 0.02

def read_wamit(path: str | Path, body: str | None = None, *, rho: float = DEFAULT_RHO,
               check: bool = True) -> HydroData:
    """Read one body of a WAMIT ``.out`` file.

    Parameters
    ----------
    path
        The ``.out`` file.
    body
        ``"bodyN"`` (N from 1, WAMIT's numbering) or the geometry file's stem (e.g.
        ``"float"`` for ``float.gdf``); may be ``None`` when the file holds one body.
    rho
        Water density, kg/m^3 (WAMIT does not print it).
    check
        Run :func:`~hydrofmu.io.hydro_checks.check_hydrodata` on the result.

    Returns
    -------
    HydroData
        The body's own (diagonal) blocks; the coupling is in :func:`read_wamit_bodies`.
    """
    mb = read_wamit_bodies(path, rho=rho, check=check)
    aliases = [(f"body{k + 1}",) for k in range(mb.n_bodies)]
    ib = select_body(list(mb.names), body, Path(path), aliases=aliases)
    return mb.bodies[ib]


def read_wamit_bodies(path: str | Path, *, rho: float = DEFAULT_RHO,
                      check: bool = True) -> MultiBodyData:
    """Read every body of a WAMIT ``.out`` file with the body-to-body coupling.

    Parameters
    ----------
    path
        The ``.out`` file.
    rho
        Water density, kg/m^3, > 0 (WAMIT does not print it; BEMIO's default is 1000).
    check
        Run :func:`~hydrofmu.io.hydro_checks.check_hydrodata` on every body.

    Returns
    -------
    MultiBodyData
        Dimensional 6N x 6N A(omega), B(omega), A_inf (the ``Wave period = zero`` block,
        source ``"file"``), A(0) (the ``Wave period = infinite`` block, when present),
        and one :class:`HydroData` per body (named after its geometry file) with its
        excitation (nw, nb, 6), hydrostatics and centres.

    Raises
    ------
    HydroDataError
        Missing file, a malformed or truncated file (the message gives the line number
        and what was expected), missing coefficients.
    UnsupportedFormatError
        Generalised modes (more than 6 DOFs per body) or a rotated body (PHIBODY != 0).
    """
    p = check_file(path)
    if not (math.isfinite(rho) and rho > 0.0):
        raise HydroDataError(f"rho must be a finite positive density in kg/m^3, got {rho!r}",
                             value=rho)
    try:
        lines = p.read_text(encoding="latin-1").splitlines()
    except OSError as exc:
        raise HydroDataError(f"{p}: cannot read ({exc})", value=str(p)) from None
    parser = WamitParser(p, lines)
    parsed = parser.parse()
    mb = _assemble(p, rho, *parsed, symmetry_planes=parser.symmetry_planes)
    if check:
        for hd in mb.bodies:
            check_hydrodata(hd, symmetry_rtol=WAMIT_SYMMETRY_RTOL)
    return mb


def _rot(i: int) -> int:
    """1 for a rotational DOF index (1-based, 6 per body), 0 for a translational one."""
    return 1 if (i - 1) % 6 >= 3 else 0


def _assemble(p: Path, rho: float, g: float | None, ulen: float | None, depth: float | None,
              gdf: list[str], bodies: list[WamitBody], periods: list[WamitPeriod], nlines: int,
              *, symmetry_planes: set[str] = frozenset()) -> MultiBodyData:
    def fail(what: str, line: int = nlines) -> HydroDataError:
        return HydroDataError(f"{p}, line {line}: {what}", value=line)

    if g is None or ulen is None:
        raise fail("no 'Gravity: ... Length scale: ...' header line found: not a WAMIT .out "
                   "file (or its header is cut off)", 1)
    if depth is None:
        raise fail("no 'Water depth:' header line found", 1)
    if not bodies:
        raise fail("no 'Body number: N=' block found: not a WAMIT .out file?", 1)
    nbody = len(bodies)
    n = 6 * nbody
    names = [gdf[k] if k < len(gdf) else f"body{k + 1}" for k in range(nbody)]
    if len(set(names)) != nbody:
        names = [f"body{k + 1}" for k in range(nbody)]
    for b in bodies:
        for attr, what in (("position", "XBODY = ... PHIBODY = ..."),
                           ("volumes", "Volumes (VOLX,VOLY,VOLZ)"),
                           ("cob", "Center of Buoyancy (Xb,Yb,Zb)"),
                           ("cog", "Center of Gravity (Xg,Yg,Zg)")):
            if getattr(b, attr) is None:
                raise fail(f"body {b.number}: the '{what}' line is missing from its block",
                           b.line)
        if b.phibody != 0.0:
            raise UnsupportedFormatError(
                f"{p}, line {b.line}: body {b.number} has PHIBODY = {b.phibody} deg; rotated "
                "body frames are not supported (rotate the mesh instead of the body frame)",
                value=b.phibody)
        if (3, 3) not in b.stiffness:
            raise fail(f"body {b.number}: the hydrostatic 'C(3,3)' line is missing", b.line)

    finite = [q for q in periods if 0.0 < q.period < math.inf]
    if not finite:
        raise fail("no 'Wave period (sec) =' block with coefficients: the FORCE output is "
                   "missing or cut off")
    pairs = [(i, j) for i in range(1, n + 1) for j in range(1, n + 1)]
    max_index = max((max(k) for q in periods for k in q.a), default=0)
    if max_index > n:
        raise UnsupportedFormatError(
            f"{p}: DOF index {max_index} > 6 x {nbody} bodies: generalised modes (NEWMDS) are "
            "not supported", value=max_index)

    def scale_ab(i: int, j: int) -> float:
        return rho * ulen ** (3 + _rot(i) + _rot(j))

    # Parity of the modes under each symmetry plane (+1 symmetric, -1 antisymmetric): a
    # one-body file with symmetry planes omits the pairs of opposite parity (zero).
    parity = {"Y=0": (1, -1, 1, -1, 1, -1), "X=0": (-1, 1, 1, 1, -1, -1)}
    planes = sorted(symmetry_planes) if nbody == 1 else []

    def vanishes(k: tuple[int, int]) -> bool:
        return any(parity[s][k[0] - 1] != parity[s][k[1] - 1] for s in planes)

    def matrix(q: WamitPeriod, table: dict[tuple[int, int], float], what: str
               ) -> NDArray[np.float64]:
        table = {**{k: 0.0 for k in pairs if vanishes(k)}, **table}
        missing = [k for k in pairs if k not in table]
        if missing:
            raise fail(f"the {what} of the block 'Wave period' at line {q.line} lacks "
                       f"{len(missing)} of the {n * n} (I, J) pairs, first {missing[0]}: the "
                       "file is truncated there or WAMIT was run without these modes "
                       "(set all MODE flags to 1 in the .pot/.frc file)", q.line)
        out = np.empty((n, n))
        for (i, j) in pairs:
            out[i - 1, j - 1] = table[(i, j)] * scale_ab(i, j)
        return out

    finite.sort(key=lambda q: -q.period)          # increasing omega
    periods_s = np.array([q.period for q in finite])
    if np.any(np.diff(periods_s) >= 0.0):
        dup = periods_s[np.flatnonzero(np.diff(periods_s) >= 0.0)[0]]
        raise fail(f"period {dup} s appears twice")
    omega = 2.0 * np.pi / periods_s
    a = np.stack([matrix(q, q.a, "added mass") for q in finite])
    b = np.stack([matrix(q, q.b, "damping") for q in finite]) * omega[:, None, None]

    kinds = {k for q in finite for k in q.x}
    kind = "DIFFRACTION" if "DIFFRACTION" in kinds else "HASKIND" if kinds else None
    if kind is None:
        raise fail("no exciting forces (DIFFRACTION or HASKIND EXCITING FORCES AND MOMENTS) "
                   "in the file: run WAMIT with the diffraction problem")
    headings = sorted(finite[0].x.get(kind, {}))
    nb = len(headings)
    x = np.empty((omega.size, nb, n), dtype=np.complex128)
    m_scale = np.array([rho * g * ulen ** (2 + _rot(i)) for i in range(1, n + 1)])
    for w, q in enumerate(finite):
        table = q.x.get(kind, {})
        if sorted(table) != headings:
            raise fail(f"the block 'Wave period' at line {q.line} has {kind.lower()} headings "
                       f"{sorted(table)} deg, the first block {headings} deg", q.line)
        for h, beta in enumerate(headings):
            rows = table[beta]
            if sorted(rows) != list(range(1, n + 1)):
                raise fail(f"the {kind.lower()} forces at heading {beta} deg of the block at "
                           f"line {q.line} hold DOFs {sorted(rows)}, expected 1-{n}", q.line)
            mod = np.array([rows[i][0] for i in range(1, n + 1)])
            pha = np.deg2rad([rows[i][1] for i in range(1, n + 1)])
            x[w, h] = mod * np.exp(1j * pha) * m_scale

    zero = [q for q in periods if q.period == 0.0]
    static = [q for q in periods if q.period == math.inf]
    a_zero = (matrix(static[0], static[0].a, "zero-frequency added mass") if static
              else None)
    notes_common = [
        f"WAMIT .out: rho = {rho} kg/m^3 (not in the file), g = {g} m/s^2, ULEN = {ulen} m; "
        "values made dimensional as A = rho L^k Abar, B = rho w L^k Bbar, X = rho g L^m Xbar, "
        "C = rho g L^k Cbar",
        f"excitation: {kind.lower()} exciting forces"
        + (" (Haskind ones also in the file, not used)" if len(kinds) > 1 else "")
        + "; phases printed in whole degrees",
    ]
    if zero:
        a_inf = matrix(zero[0], zero[0].a, "infinite-frequency added mass")
        a_inf_source = "file"
    else:
        from .reader_tools import estimate_added_mass_inf

        a_inf, note = estimate_added_mass_inf(omega, a, b)
        a_inf_source = "extrapolated"
        notes_common.append(note)

    hds = []
    for k, bd in enumerate(bodies):
        s = slice(6 * k, 6 * k + 6)
        c = np.zeros((6, 6))
        for (i, j), v in bd.stiffness.items():
            val = v * rho * g * ulen ** (2 + _rot(i) + _rot(j))
            c[i - 1, j - 1] = val
            if j <= 5 and i != j:         # C(4,6), C(5,6) are one-sided in WAMIT
                c[j - 1, i - 1] = val
        vols = np.array(bd.volumes)           # printed dimensional, m^3
        volume = float(np.mean(vols))
        spread = float(np.ptp(vols) / volume) if volume else 0.0
        notes = [*notes_common,
                 f"displaced volume: mean of WAMIT's VOLX, VOLY, VOLZ (spread {spread:.1e} "
                 "relative)",
                 f"reference point: the body origin (XBODY, YBODY, ZBODY) = {bd.position} m; "
                 "centres relative to it"]
        if nbody > 1:
            notes.append(f"body {k + 1} of {nbody}: the coupling blocks are in the "
                         "MultiBodyData of read_wamit_bodies")
        hds.append(HydroData(
            name=names[k],
            omega=omega.copy(),
            added_mass=np.ascontiguousarray(a[:, s, s]),
            radiation_damping=np.ascontiguousarray(b[:, s, s]),
            added_mass_inf=np.ascontiguousarray(a_inf[s, s]),
            added_mass_inf_source=a_inf_source,
            wave_direction=np.deg2rad(headings),
            excitation=np.ascontiguousarray(x[:, :, s]),
            hydrostatic_stiffness=c,
            displaced_volume=volume,
            center_of_buoyancy=np.array(bd.cob),
            center_of_gravity=np.array(bd.cog),
            reference_point=np.array(bd.position),
            rho=rho,
            g=g,
            water_depth=depth,
            inertia_matrix=None,
            source=f"{p} (body{k + 1}/{names[k]}, WAMIT .out)",
            notes=tuple(notes),
        ))
    return MultiBodyData(bodies=tuple(hds), added_mass=a, radiation_damping=b,
                         added_mass_inf=a_inf, added_mass_zero=a_zero,
                         source=f"{p} (WAMIT .out)",
                         notes=tuple(notes_common))
