"""``hydrofmu info``'s second-order section: what mean drift and QTFs a file (and the
WAMIT files of its stem, or a NEMOH case's ``results/QTF``) holds, by the readers of
:mod:`hydrofmu.io.second_order`.

For each mean drift found: the method, the frequencies, the headings and the DOFs given;
for each QTF: difference or sum, the grid, the heading pairs and the share of entries
the file gave itself (the rest filled by symmetry).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..io.drift import QTF, MeanDrift
from ..runtime.errors import HydroDataError
from ..runtime.hydrodata.model import DOF_NAMES

__all__ = ["second_order_lines", "second_order_only"]

#: The mean drift methods of a WAMIT ``.out`` or a BEMIO ``.h5``.
_METHODS = ("control_surface", "momentum", "pressure")


def _degrees(values: np.ndarray) -> str:
    return str(np.round(np.degrees(np.asarray(values, dtype=float)), 3).tolist())


def _mean_line(md: MeanDrift, where: str) -> str:
    dofs = [DOF_NAMES[i] for i in np.flatnonzero(md.dofs)]
    return (f"  mean drift ({md.method}, {where}): {md.omega.size} frequencies "
            f"{md.omega[0]:.4g}..{md.omega[-1]:.4g} rad/s, headings {_degrees(md.direction)} "
            f"deg, DOFs {', '.join(dofs)}")


def _qtf_line(q: QTF, where: str) -> str:
    pairs = [f"({a:.4g}, {b:.4g})" for a, b in np.round(np.degrees(q.directions), 3)]
    given = float(np.mean(q.present)) if q.present is not None else 1.0
    return (f"  {q.kind}-frequency QTF ({where}): {q.omega.size} x {q.omega.size} "
            f"frequencies {q.omega[0]:.4g}..{q.omega[-1]:.4g} rad/s, heading pairs "
            f"{', '.join(pairs)} deg; {100 * given:.3g} % of the entries in the file "
            "(the rest by symmetry)")


def second_order_lines(path: str | Path, body: str | None = None,
                       rho: float | None = None) -> list[str]:
    """The lines ``hydrofmu info`` prints about the second-order data of ``path``.

    Parameters
    ----------
    path
        The first-order file (``.out``, ``.h5``, ``.nc``), a WAMIT drift or QTF file, or a
        NEMOH case (folder or ``Nemoh.cal``).
    body
        The body of a multi-body ``.h5``.
    rho
        Water density, kg/m^3 (WAMIT's files are normalised by it).
    """
    from ..io.second_order import read_mean_drift, read_qtf

    p = Path(path)
    lines: list[str] = []
    suffix = p.suffix.lower()
    nemoh = p.is_dir() or p.name == "Nemoh.cal"
    if suffix in (".out", ".h5", ".hdf5"):
        for method in _METHODS:
            try:
                md = read_mean_drift(p, method, body=body, rho=rho)
            except HydroDataError:
                continue
            lines.append(_mean_line(md, p.name))
    stem = p.with_suffix("") if suffix else p
    mean_files = [stem.with_suffix(s) for s in (".7", ".8", ".9")] if not nemoh else []
    qtf_files = ([(stem.with_suffix(s), None) for s in (".12d", ".12s")] if not nemoh
                 else [(p, "difference"), (p, "sum")])
    for f in mean_files:
        if f.is_file():
            try:
                lines.append(_mean_line(read_mean_drift(f, rho=rho), f.name))
            except HydroDataError as exc:
                lines.append(f"  {f.name}: not read ({exc})")
    if nemoh:
        try:
            lines.append(_mean_line(read_mean_drift(p, rho=rho), "the difference QTF's "
                                                                  "diagonal"))
        except HydroDataError:
            pass
    for f, kind in qtf_files:
        if nemoh or f.is_file():
            try:
                lines.append(_qtf_line(read_qtf(f, kind, rho=rho), f.name))
            except HydroDataError as exc:
                if not nemoh:
                    lines.append(f"  {f.name}: not read ({exc})")
    if not lines:
        return ["  second order: none (no mean drift or QTF in this file or beside it)"]
    return ["  second order:", *lines]


def second_order_only(path: str | Path, body: str | None, error: HydroDataError) -> int:
    """``hydrofmu info`` on a file whose first-order data are not read (a WAMIT ``.7`` or
    ``.12d`` alone, or data the checks refuse): its second-order data, with the first-order
    error; ``error`` is raised again when there are none."""
    lines = second_order_lines(path, body)
    if len(lines) == 1:
        raise error
    print(f"{path}: first-order data not read ({error})")
    print("\n".join(lines))
    return 0
