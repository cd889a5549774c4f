"""Reader of NEMOH v3 QTFs: ``results/QTF/OUT_QTFM_N_0.dat`` (difference frequency) and
``OUT_QTFP_N_0.dat`` (sum frequency) (build time; numpy).

Layout (NEMOH's ``QTFpostProc``; one header line, then one row per entry)::

    w1  w2  beta1  beta2  DOF  |QTF|/(rho g)  phase(QTF) [deg]  Re(QTF)/(rho g)  Im(QTF)/(rho g)

``w1``, ``w2`` in the unit the header names (``[rad/s]``, ``[Hz]`` or ``[s]``: NEMOH's output
frequency type), headings in degrees, DOF 1-6 for one body. NEMOH writes the lower triangle
``w1 >= w2``; the other half follows from ``Qm(w2, w1) = conj(Qm(w1, w2))`` (difference) and
``Qp(w2, w1) = Qp(w1, w2)`` (sum). The ``_N`` files are normalised by ``rho g`` for every DOF
(forces N/m^2, moments N/m after the product); ``rho`` and ``g`` come from ``Nemoh.cal``
two folders up. NEMOH's time dependence is ``e^{-i omega t}``: the values are
complex-conjugated into the project's ``e^{+i omega t}`` (the diagonal of the difference
QTF, the mean drift, is real and unchanged).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..runtime.errors import HydroDataError
from .drift import QTF, MeanDrift, assemble_qtf
from .nemoh import is_nemoh_folder, read_nemoh_cal

__all__ = ["NEMOH_QTF_FILES", "read_nemoh_mean_drift", "read_nemoh_qtf"]

#: QTF kind -> file name under ``results/QTF/``.
NEMOH_QTF_FILES: dict[str, str] = {"difference": "OUT_QTFM_N_0.dat", "sum": "OUT_QTFP_N_0.dat"}


def _locate(path: Path, kind: str | None) -> tuple[Path, str, Path | None]:
    """(QTF file, kind, Nemoh.cal or None)."""
    if path.is_dir():
        if not is_nemoh_folder(path):
            raise HydroDataError(f"{path}: not a NEMOH case folder (no Nemoh.cal)",
                                 value=str(path))
        if kind not in NEMOH_QTF_FILES:
            raise HydroDataError(f"kind {kind!r}: 'difference' or 'sum' (which QTF file of "
                                 "the folder to read)", value=kind)
        return path / "results" / "QTF" / NEMOH_QTF_FILES[kind], kind, path / "Nemoh.cal"
    if not path.is_file():
        raise HydroDataError(f"{path}: no such file", value=str(path))
    found = [k for k, name in NEMOH_QTF_FILES.items() if path.name == name]
    guessed = found[0] if found else ("difference" if "QTFM" in path.name else
                                      "sum" if "QTFP" in path.name else None)
    kind = kind or guessed
    if kind not in NEMOH_QTF_FILES:
        raise HydroDataError(f"{path}: cannot tell a difference (QTFM) from a sum (QTFP) "
                             "file by its name; pass kind=", value=path.name)
    cal = path.parent.parent.parent / "Nemoh.cal"
    return path, kind, cal if cal.is_file() else None


def read_nemoh_qtf(path: str | Path, kind: str | None = None, *, rho: float | None = None,
                   g: float | None = None) -> QTF:
    """Read a NEMOH v3 QTF file (or the one of a case folder).

    Parameters
    ----------
    path
        ``OUT_QTFM_N_0.dat`` / ``OUT_QTFP_N_0.dat``, or the case folder.
    kind
        ``"difference"`` or ``"sum"``: needed with a folder, else taken from the file name.
    rho, g
        Density (kg/m^3) and gravity (m/s^2); from ``Nemoh.cal`` when ``None``.

    Returns
    -------
    QTF
        Dimensional (``(Re + i Im) rho g``, conjugated to ``e^{+i omega t}``), full square.
    """
    file, kind, cal = _locate(Path(path), kind)
    if rho is None or g is None:
        if cal is None:
            raise HydroDataError(f"{file}: no Nemoh.cal two folders up to take rho and g from; "
                                 "pass rho= and g=", value=str(file))
        case = read_nemoh_cal(cal)
        rho = case.rho if rho is None else rho
        g = case.g if g is None else g
    if not file.is_file():
        raise HydroDataError(f"{file}: no such file (NEMOH's QTFpostProc writes it)",
                             value=str(file))
    lines = file.read_text(encoding="latin-1").splitlines()
    header = lines[0] if lines else ""
    rows = []
    for n, raw in enumerate(lines[1:], start=2):
        parts = raw.split()
        if not parts:
            continue
        try:
            vals = [float(x.replace("D", "E")) for x in parts]
        except ValueError:
            raise HydroDataError(f"{file}, line {n}: expected numbers (line reads: "
                                 f"{raw.strip()!r})", value=n) from None
        if len(vals) != 9:
            raise HydroDataError(f"{file}, line {n}: {len(vals)} numbers, expected 9", value=n)
        rows.append(vals)
    if not rows:
        raise HydroDataError(f"{file}: no data rows", value=str(file))
    raw_rows = np.array(rows)
    first = raw_rows[:, :2]
    if "[Hz]" in header:
        w, unit = 2.0 * np.pi * first, "Hz"
    elif "[s]" in header:
        w, unit = 2.0 * np.pi / first, "s (periods)"
    else:
        w, unit = first, "rad/s"
    table = np.column_stack([w, np.deg2rad(raw_rows[:, 2:4]), raw_rows[:, 4],
                             raw_rows[:, 7], raw_rows[:, 8]])
    notes = [f"NEMOH QTF: first columns in {unit}; values * rho g with rho = {rho} kg/m^3, "
             f"g = {g} m/s^2; conjugated (NEMOH e^{{-i omega t}} -> e^{{+i omega t}})"]
    return assemble_qtf(kind, table, np.full(6, rho * g), rho=float(rho), g=float(g),
                        source=f"{file} (NEMOH v3 QTF)", notes=notes, conjugate=True)


def read_nemoh_mean_drift(path: str | Path, *, rho: float | None = None,
                          g: float | None = None) -> MeanDrift:
    """The mean drift of a NEMOH case: the diagonal of its difference QTF.

    Parameters
    ----------
    path
        The case folder or its ``OUT_QTFM_N_0.dat``.
    rho, g
        As :func:`read_nemoh_qtf`.

    Returns
    -------
    MeanDrift
        Method ``"qtf_diagonal"``, on the QTF's frequencies.
    """
    return read_nemoh_qtf(path, "difference", rho=rho, g=g).mean_drift()
