"""The ``drift`` keys of a ``[[bodies]]`` entry: second-order wave loads (build time).

Keys (all optional; no drift when ``drift`` is absent):

``drift``
    ``"mean"`` (mean drift only), ``"newman"`` (slow drift by Newman's approximation from
    the mean drift), ``"qtf"`` (slow drift by the full difference-frequency QTF), or
    ``true``: ``"qtf"`` when the data carry a difference QTF, else ``"newman"``.
``drift_file``
    Where the data come from, relative to the configuration file: a WAMIT ``.7`` / ``.8`` /
    ``.9`` / ``.out`` / ``.12d``, a BEMIO ``.h5``, a NEMOH v3 case folder or its
    ``Nemoh.cal``. Default: the body's ``hydro`` file.
``drift_method``
    For a WAMIT ``.out`` or a BEMIO ``.h5``: ``"control_surface"`` (default),
    ``"momentum"`` or ``"pressure"``.
``drift_sum``
    ``true`` adds the sum-frequency QTF (NEMOH's ``OUT_QTFP_N_0.dat``, WAMIT's ``.12s`` of
    the same stem).

The files are read here and the numbers written into the resolved body (``"drift"``, JSON)
so that they travel in the FMU payload; the run time
(:mod:`hydrofmu.runtime.forces.drift`) reads no file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..io.drift import QTF, MeanDrift
from ..runtime.errors import ConfigError, HydroDataError, did_you_mean
from ..runtime.forces.drift_loads import DRIFT_MODES
from ..runtime.hydrodata.model import HydroData

__all__ = ["DRIFT_KEYS", "resolve_drift"]

#: The drift keys of a ``[[bodies]]`` entry.
DRIFT_KEYS: tuple[str, ...] = ("drift", "drift_file", "drift_method", "drift_sum")
_METHODS = ("control_surface", "momentum", "pressure")


def _mode(value: Any, name: str) -> str | bool:
    if value is True:
        return True
    if value not in DRIFT_MODES:
        hint = did_you_mean(str(value), DRIFT_MODES)
        raise ConfigError(f"body '{name}': drift = {value!r} unknown{hint}; choose from "
                          f"{', '.join(repr(m) for m in DRIFT_MODES)} (or true: 'qtf' when "
                          "the data carry a difference QTF, else 'newman')", value=value)
    return str(value)


def _is_nemoh(p: Path) -> bool:
    return p.is_dir() or p.name == "Nemoh.cal" or ("QTF" in p.name and p.suffix == ".dat")


def _nemoh_case(p: Path) -> Path:
    if p.is_dir():
        return p
    return p.parent if p.name == "Nemoh.cal" else p.parent.parent.parent


def _qtf(p: Path, kind: str, hd: HydroData) -> QTF | None:
    """The ``kind`` QTF that goes with the source ``p``, or ``None`` when there is none."""
    from ..io.second_order import read_qtf

    if _is_nemoh(p):
        case = _nemoh_case(p)
        name = "OUT_QTFM_N_0.dat" if kind == "difference" else "OUT_QTFP_N_0.dat"
        f = case / "results" / "QTF" / name
        return read_qtf(f, kind) if f.is_file() else None
    suffix = ".12d" if kind == "difference" else ".12s"
    f = p if p.suffix.lower() == suffix else p.with_suffix(suffix)
    return read_qtf(f, kind, rho=hd.rho) if f.is_file() else None


def _headings_table(q: QTF) -> dict[str, Any]:
    """The QTF at its heading pairs with ``beta1 = beta2`` (JSON-able)."""
    same = np.flatnonzero(np.isclose(q.directions[:, 0], q.directions[:, 1], rtol=0.0,
                                     atol=1e-9))
    if same.size == 0:
        raise HydroDataError(f"{q.source}: no heading pair with beta1 = beta2 (a "
                             "long-crested sea needs them)", value=q.source)
    v = q.values[same]
    return {"omega": q.omega.tolist(), "direction": q.directions[same, 0].tolist(),
            "re": v.real.tolist(), "im": v.imag.tolist()}


def resolve_drift(b: dict[str, Any], hd: HydroData, hydro_path: Path, base: Path
                  ) -> tuple[dict[str, Any] | None, list[str]]:
    """The resolved ``drift`` entry of body ``b`` (``None`` without ``drift``) and notes.

    Parameters
    ----------
    b
        The ``[[bodies]]`` entry.
    hd
        Its first-order data (``rho`` for WAMIT's drift files).
    hydro_path
        Its resolved ``hydro`` path (the default source).
    base
        Folder of the configuration file (relative ``drift_file``).
    """
    name = b["name"]
    if "drift" not in b:
        extra = [k for k in DRIFT_KEYS if k in b]
        if extra:
            raise ConfigError(f"body '{name}': {', '.join(extra)} given without drift = "
                              f"{' | '.join(repr(m) for m in DRIFT_MODES)}", value=extra)
        return None, []
    mode = _mode(b["drift"], name)
    method = b.get("drift_method")
    if method is not None and method not in _METHODS:
        hint = did_you_mean(str(method), _METHODS)
        raise ConfigError(f"body '{name}': drift_method = {method!r} unknown{hint}; choose "
                          f"from {', '.join(repr(m) for m in _METHODS)}", value=method)
    with_sum = b.get("drift_sum", False)
    if not isinstance(with_sum, bool):
        raise ConfigError(f"body '{name}': drift_sum must be true or false, got {with_sum!r}",
                          value=with_sum)
    if "drift_file" in b:
        value = b["drift_file"]
        if not isinstance(value, str) or not value:
            raise ConfigError(f"body '{name}': drift_file must be a path", value=value)
        src = Path(value).expanduser()
        src = src if src.is_absolute() else base / src
        if not src.exists():
            raise ConfigError(f"body '{name}': drift_file not found: {src} (relative paths "
                              "are relative to the configuration file)", value=str(src))
    else:
        src = hydro_path
    where = f"body '{name}': drift from {src}"
    try:
        diff = _qtf(src, "difference", hd) if mode in ("qtf", True) else None
        if mode is True:
            mode = "qtf" if diff is not None else "newman"
        out: dict[str, Any] = {"mode": mode, "source": str(src)}
        if mode == "qtf":
            if diff is None:
                raise ConfigError(f"{where}: drift = 'qtf' needs a difference-frequency QTF "
                                  "(a NEMOH v3 case with results/QTF/OUT_QTFM_N_0.dat or a "
                                  "WAMIT .12d); none found: use drift = 'newman' with the "
                                  "mean drift, or set drift_file", value=str(src))
            out["qtf"] = _headings_table(diff)
        else:
            out["mean"] = _mean_table(src, method, hd, b.get("hydro_body"))
        if with_sum:
            total = _qtf(src, "sum", hd)
            if total is None:
                raise ConfigError(f"{where}: drift_sum = true needs a sum-frequency QTF "
                                  "(NEMOH's OUT_QTFP_N_0.dat or a WAMIT .12s of the same "
                                  "stem); none found", value=str(src))
            out["qtf_sum"] = _headings_table(total)
    except HydroDataError as exc:
        hint = "" if "drift_file" in b else (
            "; the drift data come from the body's hydro file unless drift_file is set")
        raise ConfigError(f"body '{name}': drift: {exc}{hint}", value=exc.value) from exc
    table = out.get("qtf") or out["mean"]
    notes = [f"{name}: drift = '{mode}'{' + sum frequency' if with_sum else ''} from "
             f"{src.name} ({len(table['omega'])} frequencies {table['omega'][0]:.4g}.."
             f"{table['omega'][-1]:.4g} rad/s, headings "
             f"{np.round(np.degrees(table['direction']), 3).tolist()} deg)"]
    return out, notes


def _mean_table(src: Path, method: str | None, hd: HydroData, body: str | None
                ) -> dict[str, Any]:
    """The mean drift of ``src`` (JSON-able; NaN, a DOF the method does not give, as 0)."""
    from ..io.second_order import read_mean_drift, read_qtf

    md: MeanDrift
    if src.suffix.lower() == ".12d":
        md = read_qtf(src, "difference", rho=hd.rho).mean_drift()
    else:
        nemoh = _is_nemoh(src)
        md = read_mean_drift(_nemoh_case(src) if nemoh else src,
                             method if src.suffix.lower() in (".out", ".h5", ".hdf5")
                             else None,
                             body=body, rho=None if nemoh else hd.rho)
    return {"omega": md.omega.tolist(), "direction": md.direction.tolist(),
            "values": np.nan_to_num(md.values, nan=0.0).tolist(), "method": md.method}
