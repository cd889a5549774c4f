"""One entry point for the second-order data readers (build time): :func:`read_mean_drift`
and :func:`read_qtf` choose the reader by the path, as :func:`hydrofmu.io.readers.read_hydro`
does for the first-order data. The records are in :mod:`hydrofmu.io.drift`.
"""

from __future__ import annotations

from pathlib import Path

from ..runtime.errors import HydroDataError
from .drift import QTF, MeanDrift

__all__ = ["read_mean_drift", "read_qtf"]


def read_mean_drift(path: str | Path, method: str | None = None, *, body: str | None = None,
                    rho: float | None = None) -> MeanDrift:
    """Read one body's mean drift coefficients from any supported file.

    Parameters
    ----------
    path
        WAMIT ``.7`` / ``.8`` / ``.9`` (the suffix is the method) or ``.out`` (its "DRIFT
        FORCES" sections); a BEMIO ``.h5``; a NEMOH v3 case folder (or its ``Nemoh.cal``,
        or ``OUT_QTFM_N_0.dat``): the difference QTF's diagonal.
    method
        For ``.out`` and ``.h5``: ``"momentum"``, ``"pressure"`` or ``"control_surface"``
        (default ``"control_surface"``, WEC-Sim's ``meanDrift = 1``). Ignored otherwise
        but checked against the file's method when given.
    body
        For ``.h5``: ``"bodyN"`` (``None`` with one body).
    rho
        Water density, kg/m^3, for WAMIT files (default 1000) and to override NEMOH's.

    Returns
    -------
    MeanDrift
        Dimensional coefficients, N/m^2 (forces) and N/m (moments).
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if p.is_dir() or p.name == "Nemoh.cal" or "QTFM" in p.name:
        from .nemoh_qtf import read_nemoh_mean_drift

        md = read_nemoh_mean_drift(p.parent if p.name == "Nemoh.cal" else p, rho=rho)
    elif suffix in (".7", ".8", ".9"):
        from .wamit_drift import DEFAULT_RHO, read_wamit_mean_drift

        md = read_wamit_mean_drift(p, rho=DEFAULT_RHO if rho is None else rho)
    elif suffix == ".out":
        from .wamit_drift import DEFAULT_RHO, read_wamit_out_drift

        return read_wamit_out_drift(p, method or "control_surface",
                                    rho=DEFAULT_RHO if rho is None else rho)
    elif suffix in (".h5", ".hdf5"):
        from .bemio_drift import read_bemio_mean_drift

        return read_bemio_mean_drift(p, method or "control_surface", body)
    else:
        raise HydroDataError(f"{p}: no mean drift reader for this file (WAMIT .7/.8/.9/.out, "
                             "BEMIO .h5, NEMOH v3 folder)", value=suffix)
    if method is not None and method != md.method:
        raise HydroDataError(f"{p} holds the {md.method} mean drift, not {method}",
                             value=method)
    return md


def read_qtf(path: str | Path, kind: str | None = None, *, rho: float | None = None,
             g: float | None = None, ulen: float | None = None) -> QTF:
    """Read a difference- or sum-frequency QTF from any supported file.

    Parameters
    ----------
    path
        WAMIT ``.12d`` / ``.12s``; NEMOH ``OUT_QTFM_N_0.dat`` / ``OUT_QTFP_N_0.dat`` or the
        case folder (then ``kind`` says which).
    kind
        ``"difference"`` or ``"sum"``; needed for a NEMOH folder.
    rho
        Water density, kg/m^3 (WAMIT default 1000; NEMOH's from ``Nemoh.cal``).
    g, ulen
        Gravity (m/s^2) and WAMIT's ULEN (m): for WAMIT files, read from the ``.out`` of
        the same stem when ``None``; NEMOH's g from ``Nemoh.cal`` when ``None``.

    Returns
    -------
    QTF
        Dimensional, full square, ``e^{+i omega t}``.
    """
    p = Path(path)
    if p.suffix.lower() in (".12d", ".12s"):
        from .wamit_drift import DEFAULT_RHO, read_wamit_qtf

        q = read_wamit_qtf(p, rho=DEFAULT_RHO if rho is None else rho, g=g, ulen=ulen)
    else:
        from .nemoh_qtf import read_nemoh_qtf

        q = read_nemoh_qtf(p, kind, rho=rho, g=g)
    if kind is not None and q.kind != kind:
        raise HydroDataError(f"{p} holds the {q.kind}-frequency QTF, not {kind}", value=kind)
    return q
