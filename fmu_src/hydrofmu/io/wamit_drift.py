"""Reader of WAMIT's second-order outputs: mean drift (``.7``, ``.8``, ``.9`` and the
``.out`` "DRIFT FORCES" sections) and QTFs (``.12d``, ``.12s``) (build time; numpy).

Numeric files (one header line, then one row per value)::

    .7 .8 .9      PER  BETA1  BETA2  I  Mod  Pha  Re  Im
    .12d .12s     PER1  PER2  BETA1  BETA2  I  Mod  Pha  Re  Im

``PER`` is the wave period in s (WAMIT's default output, ``IPEROUT = 1``; ``-1`` / ``0``
stand for zero / infinite frequency, rows that carry no drift and are dropped); ``BETA`` the
headings in degrees (direction of travel, as the project's); ``I`` the mode (1-6 for one
body). ``.8`` (momentum conservation) holds surge, sway and yaw only; ``.7`` (control
surface) and ``.9`` (pressure integration) hold all six and a second set of moments with
``I = -4, -5, -6`` (the ``.out`` prints it as a second Mod/Pha pair), which is not read here.
The QTF layout is the one BEMRosetta's WAMIT reader (``Wamit::Load_12``) reads.

Normalisation (WAMIT manual, mean drift and second-order forces), with L = ULEN and A the
wave amplitude (for a QTF, ``A**2`` stands for ``A_i A_j``)::

    Fbar_i = F_i / (rho g A^2 L^k)      k = 1 for i = 1, 2, 3;  k = 2 for i = 4, 5, 6

so the dimensional coefficient is ``Re * rho g L^k`` (N/m^2, N/m). The mean drift is real:
``Re`` is its value (``Im`` is rounding noise, ``Pha`` 0 or 180 degrees). WAMIT's time
dependence is ``e^{+i omega t}``, the project's: QTFs are kept as read.

WAMIT prints neither rho nor (in the numeric files) g and ULEN: ``rho`` is a parameter
(default 1000 kg/m^3, as :func:`hydrofmu.io.wamit.read_wamit`); ``g`` and ``ulen`` are read
from the ``.out`` of the same stem beside the file when not given.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import HydroDataError
from .drift import QTF, MeanDrift, assemble_qtf
from .reader_tools import check_file

__all__ = ["WAMIT_DRIFT_SUFFIXES", "read_wamit_mean_drift", "read_wamit_out_drift",
           "read_wamit_qtf", "wamit_header"]

#: Numeric-file suffix -> mean drift method.
WAMIT_DRIFT_SUFFIXES: dict[str, str] = {".7": "control_surface", ".8": "momentum",
                                         ".9": "pressure"}
#: ``.out`` section title -> mean drift method.
_OUT_TITLES: dict[str, str] = {"(Momentum Conservation)": "momentum",
                               "(Pressure Integration)": "pressure",
                               "(Control Surface)": "control_surface"}
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[EeDd][-+]?\d+)?"
_HEADER = re.compile(rf"Gravity:\s*({_NUM})\s+Length scale:\s*({_NUM})")
_PERIOD = re.compile(rf"Wave period \(sec\)\s*=\s*({_NUM})")
_HEADING = re.compile(rf"Wave Heading \(deg\)\s*:\s*({_NUM})\s+({_NUM})")
DEFAULT_RHO = 1000.0


def _k(dof: NDArray[np.int_]) -> NDArray[np.int_]:
    """WAMIT's length exponent of a mode (0-based DOF index): 1 forces, 2 moments."""
    return np.where(dof >= 3, 2, 1)


def wamit_header(out_path: str | Path) -> tuple[float, float]:
    """``(g, ULEN)`` from a WAMIT ``.out`` header line ``Gravity: ... Length scale: ...``.

    Parameters
    ----------
    out_path
        The ``.out`` file.

    Returns
    -------
    tuple of float
        Gravity, m/s^2, and the length scale ULEN, m.
    """
    p = check_file(out_path)
    with p.open(encoding="latin-1") as f:
        for line in f:
            if m := _HEADER.search(line):
                return float(m.group(1)), float(m.group(2))
    raise HydroDataError(f"{p}: no 'Gravity: ... Length scale: ...' line: not a WAMIT .out "
                         "file", value=str(p))


def _scales(p: Path, g: float | None, ulen: float | None) -> tuple[float, float, str]:
    if g is not None and ulen is not None:
        return float(g), float(ulen), "g and ULEN given by the caller"
    out = p.with_suffix(".out")
    if not out.is_file():
        raise HydroDataError(
            f"{p}: WAMIT's numeric files state neither g nor ULEN, and there is no {out.name} "
            "beside it to read them from; pass g= and ulen=", value=str(p))
    g_out, ulen_out = wamit_header(out)
    return (g_out if g is None else float(g), ulen_out if ulen is None else float(ulen),
            f"g and ULEN read from {out.name}")


def _numeric_rows(p: Path, ncols: int) -> NDArray[np.float64]:
    rows = []
    for n, raw in enumerate(p.read_text(encoding="latin-1").splitlines(), start=1):
        parts = raw.split()
        if not parts:
            continue
        try:
            vals = [float(x.replace("D", "E").replace("d", "e")) for x in parts]
        except ValueError:
            if n == 1:
                continue          # WAMIT's header line
            raise HydroDataError(f"{p}, line {n}: expected {ncols} numbers (line reads: "
                                 f"{raw.strip()!r})", value=n) from None
        if len(vals) != ncols:
            raise HydroDataError(f"{p}, line {n}: {len(vals)} numbers, expected {ncols}",
                                 value=n)
        rows.append(vals)
    if not rows:
        raise HydroDataError(f"{p}: no data rows", value=str(p))
    return np.array(rows)


def _check_rho(rho: float) -> float:
    if not (math.isfinite(rho) and rho > 0.0):
        raise HydroDataError(f"rho must be a finite positive density in kg/m^3, got {rho!r}",
                             value=rho)
    return float(rho)


def _grid(table: dict[tuple[float, float], dict[int, float]], periods: list[float],
          headings: list[float]) -> NDArray[np.float64]:
    vals = np.full((len(periods), len(headings), 6), np.nan)
    for (per, beta), modes in table.items():
        iw, ib = periods.index(per), headings.index(beta)
        for i, v in modes.items():
            vals[iw, ib, i] = v
    return vals


def _mean_drift(table: dict[tuple[float, float], dict[int, float]], method: str, rho: float,
                g: float, ulen: float, source: str, notes: list[str]) -> MeanDrift:
    periods = sorted({k[0] for k in table}, reverse=True)        # increasing omega
    headings = sorted({k[1] for k in table})
    vals = _grid(table, periods, headings)
    scale = rho * g * ulen ** _k(np.arange(6)).astype(float)
    notes.append(f"WAMIT mean drift made dimensional as F = Fbar rho g L^k (k = 1 forces, 2 "
                 f"moments), rho = {rho} kg/m^3, g = {g} m/s^2, ULEN = {ulen} m")
    return MeanDrift(omega=2.0 * np.pi / np.array(periods), direction=np.deg2rad(headings),
                     values=vals * scale, method=method, rho=rho, g=g, source=source,
                     notes=tuple(notes))


def read_wamit_mean_drift(path: str | Path, *, rho: float = DEFAULT_RHO,
                          g: float | None = None, ulen: float | None = None) -> MeanDrift:
    """Read a WAMIT mean drift numeric file (``.7``, ``.8`` or ``.9``) of one body.

    Parameters
    ----------
    path
        The numeric file; its suffix gives the method (``.7`` control surface, ``.8``
        momentum conservation, ``.9`` pressure integration).
    rho
        Water density, kg/m^3 (WAMIT does not state it).
    g, ulen
        Gravity (m/s^2) and WAMIT's length scale ULEN (m); read from the ``.out`` of the
        same stem when ``None``.

    Returns
    -------
    MeanDrift
        Dimensional coefficients (N/m^2, N/m) on the file's frequencies and headings,
        headings with beta1 = beta2 only; NaN for the modes the file lacks.
    """
    p = check_file(path)
    method = WAMIT_DRIFT_SUFFIXES.get(p.suffix)
    if method is None:
        raise HydroDataError(f"{p}: not a WAMIT mean drift file (suffix .7, .8 or .9)",
                             value=p.suffix)
    rho = _check_rho(rho)
    g, ulen, how = _scales(p, g, ulen)
    rows = _numeric_rows(p, 8)
    notes = [how]
    keep = (rows[:, 0] > 0.0) & (rows[:, 3] >= 1)
    dropped = int(np.count_nonzero(rows[:, 3] < 0))
    if dropped:
        notes.append(f"{dropped} rows with negative mode index (WAMIT's second set of "
                     "moments) not read")
    if np.any(rows[:, 0] <= 0.0):
        notes.append("rows at zero / infinite frequency (PER -1 / 0) dropped")
    rows = rows[keep]
    if np.any(rows[:, 3] > 6):
        raise HydroDataError(f"{p}: mode index above 6: several bodies or generalised modes "
                             "are not supported", value=int(rows[:, 3].max()))
    bidir = ~np.isclose(rows[:, 1], rows[:, 2])
    if np.any(bidir):
        notes.append(f"{int(bidir.sum())} rows with beta1 != beta2 not read")
        rows = rows[~bidir]
    table: dict[tuple[float, float], dict[int, float]] = {}
    for r in rows:
        table.setdefault((r[0], r[1]), {})[int(r[3]) - 1] = r[6]
    return _mean_drift(table, method, rho, g, ulen, f"{p} (WAMIT {p.suffix})", notes)


def read_wamit_out_drift(path: str | Path, method: str = "control_surface", *,
                         rho: float = DEFAULT_RHO) -> MeanDrift:
    """Read the mean drift printed in a WAMIT ``.out`` ("DRIFT FORCES" sections).

    Parameters
    ----------
    path
        The ``.out`` file (one body).
    method
        ``"momentum"``, ``"pressure"`` or ``"control_surface"``: which section.
    rho
        Water density, kg/m^3.

    Returns
    -------
    MeanDrift
        ``Mod cos(Pha)`` of the first Mod/Pha pair (the phase is printed in whole degrees,
        the modulus to 6 digits), made dimensional as the numeric files.
    """
    p = check_file(path)
    titles = {v: k for k, v in _OUT_TITLES.items()}
    if method not in titles:
        raise HydroDataError(f"method {method!r}: one of {sorted(titles)}", value=method)
    rho = _check_rho(rho)
    lines = p.read_text(encoding="latin-1").splitlines()
    g = ulen = None
    period: float | None = None
    inside = False
    key: tuple[float, float] | None = None
    table: dict[tuple[float, float], dict[int, float]] = {}
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if g is None and (m := _HEADER.search(line)):
            g, ulen = float(m.group(1)), float(m.group(2))
        if line.startswith("Wave period"):
            m = _PERIOD.search(line)
            period, inside, key = (float(m.group(1)) if m else None), False, None
            continue
        if "DRIFT FORCES" in line:
            inside = period is not None and line.endswith(titles[method])
            key = None
            continue
        if not inside:
            continue
        if m := _HEADING.search(line):
            if not math.isclose(float(m.group(1)), float(m.group(2))):
                key = None          # bidirectional pair: not read
                continue
            key = (period, float(m.group(1)))
            table[key] = {}
            continue
        if line.startswith("I ") or not line:
            continue
        parts = line.split()
        if key is None or not parts[0].lstrip("-").isdigit() or len(parts) not in (3, 5):
            inside = False          # end of the section
            continue
        i = int(parts[0])
        if 1 <= i <= 6:
            try:
                mod, pha = float(parts[1]), float(parts[2])
            except ValueError:
                raise HydroDataError(f"{p}, line {n}: expected 'I Mod Pha' numbers (line "
                                     f"reads: {line!r})", value=n) from None
            table[key][i - 1] = mod * math.cos(math.radians(pha))
    if g is None or ulen is None:
        raise HydroDataError(f"{p}: no 'Gravity: ... Length scale:' header: not a WAMIT .out",
                             value=str(p))
    if not table:
        raise HydroDataError(f"{p}: no 'DRIFT FORCES {titles[method]}' section: WAMIT was "
                             "run without this mean drift option (IOPTN(7..9) in the .frc)",
                             value=method)
    return _mean_drift(table, method, rho, g, ulen, f"{p} (WAMIT .out, {method})",
                       ["phases printed in whole degrees, moduli to 6 digits"])


def read_wamit_qtf(path: str | Path, *, rho: float = DEFAULT_RHO, g: float | None = None,
                   ulen: float | None = None, first_columns: str = "period") -> QTF:
    """Read a WAMIT QTF file, ``.12d`` (difference) or ``.12s`` (sum), of one body.

    Parameters
    ----------
    path
        The numeric file.
    rho
        Water density, kg/m^3.
    g, ulen
        Gravity (m/s^2) and ULEN (m); read from the ``.out`` of the same stem when ``None``.
    first_columns
        What the first two columns hold: ``"period"`` (s, WAMIT's default) or
        ``"frequency"`` (rad/s, ``IPEROUT = 2``).

    Returns
    -------
    QTF
        Dimensional (``(Re + i Im) rho g L^k``), the full square filled by symmetry.
    """
    p = check_file(path)
    kinds = {".12d": "difference", ".12s": "sum"}
    if p.suffix not in kinds:
        raise HydroDataError(f"{p}: not a WAMIT QTF file (suffix .12d or .12s)",
                             value=p.suffix)
    if first_columns not in ("period", "frequency"):
        raise HydroDataError(f"first_columns {first_columns!r}: 'period' or 'frequency'",
                             value=first_columns)
    rho = _check_rho(rho)
    g, ulen, how = _scales(p, g, ulen)
    raw = _numeric_rows(p, 9)
    if np.any(raw[:, :2] <= 0.0):
        raise HydroDataError(f"{p}: a period or frequency <= 0 in the first two columns",
                             value=str(p))
    w = 2.0 * np.pi / raw[:, :2] if first_columns == "period" else raw[:, :2]
    rows = np.column_stack([w, np.deg2rad(raw[:, 2:4]), raw[:, 4], raw[:, 7], raw[:, 8]])
    scale = rho * g * ulen ** _k(np.arange(6)).astype(float)
    notes = [how, f"WAMIT QTF made dimensional as (Re + i Im) rho g L^k (k = 1 forces, 2 "
             f"moments), rho = {rho} kg/m^3, g = {g} m/s^2, ULEN = {ulen} m"]
    return assemble_qtf(kinds[p.suffix], rows, scale, rho=rho, g=g,
                        source=f"{p} (WAMIT {p.suffix})", notes=notes)
