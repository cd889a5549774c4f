"""Statistics of one run, the power matrix, the annual energy production, the heat map.

Conventions (MHKiT's): the power matrix is the mean absorbed power binned on the table's
Hs x Tp grid (the mean of the sea states sharing a cell); the annual energy production is
``sum_i P_i * occurrence_i`` with the occurrence in hours per year, reported in kWh.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import IntegrationError

#: The first cell of ``power_matrix.csv``: the rows' and columns' quantities and the unit
#: of the cells.
POWER_MATRIX_CORNER = "Hs [m] \\ Tp [s] (mean absorbed power [W])"


def window_statistics(t: np.ndarray, values: np.ndarray, *, transient: float, duration: float,
                      output_interval: float) -> dict[str, np.ndarray]:
    """mean, std (ddof 0), min, max over the points t_k = k h with transient < t_k <= duration.

    Parameters
    ----------
    t
        Communication points, s, shape (n,).
    values
        Outputs, shape (n, n_channels).
    transient, duration, output_interval
        s.

    Returns
    -------
    dict
        ``mean``, ``std``, ``min``, ``max``, each of shape (n_channels,).

    Raises
    ------
    IntegrationError
        No point in the window, or a non-finite output inside it.
    """
    tol = 1e-6 * output_interval  # t_k are k h up to round-off of the accumulated time
    keep = (t > transient + tol) & (t <= duration + tol)
    # fmpy may repeat a point at the stop time: keep each t_k once.
    k = np.round(t / output_interval).astype(np.int64)
    first = np.ones(t.size, dtype=bool)
    first[1:] = k[1:] != k[:-1]
    keep &= first
    window = values[keep]
    if window.shape[0] == 0:
        raise IntegrationError(f"no communication point in {transient} < t <= {duration} s",
                               value=(transient, duration))
    bad = ~np.all(np.isfinite(window), axis=0)
    if np.any(bad):
        raise IntegrationError(f"{int(bad.sum())} output(s) non-finite in the statistics window",
                               value=int(bad.sum()))
    return {"mean": window.mean(axis=0), "std": window.std(axis=0, ddof=0),
            "min": window.min(axis=0), "max": window.max(axis=0)}


def power_channels(channels: list[str]) -> list[str]:
    """The ``pto.<name>.power`` outputs."""
    return [c for c in channels if c.startswith("pto.") and c.endswith(".power")]


def absorbed_power(ds: Any) -> np.ndarray:
    """Mean absorbed power of each sea state, W: the sum over the PTOs, shape (n,).

    NaN for a failed sea state. Raises ``KeyError`` when the dataset has no PTO power.
    """
    names = power_channels([str(c) for c in ds["channel"].values])
    if not names:
        raise KeyError("no pto.<name>.power channel")
    return ds["mean"].sel(channel=names).sum("channel", skipna=False).values


def power_matrix(ds: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean absorbed power on the table's Hs x Tp grid.

    Parameters
    ----------
    ds
        Sweep dataset (``mean`` with ``pto.*.power`` channels, coordinates ``Hs``, ``Tp``).

    Returns
    -------
    hs, tp, matrix
        Sorted unique Hs (m) and Tp (s), and the mean power (W), shape (n_hs, n_tp): the
        mean over the sea states of each cell (MHKiT's binned 'mean'), NaN for an empty
        cell or one holding a failed sea state.
    """
    power = absorbed_power(ds)
    hs_all, tp_all = ds["Hs"].values, ds["Tp"].values
    hs, tp = np.unique(hs_all), np.unique(tp_all)
    matrix = np.full((hs.size, tp.size), np.nan)
    for i, h in enumerate(hs):
        for j, p in enumerate(tp):
            cell = (hs_all == h) & (tp_all == p)
            if np.any(cell):
                matrix[i, j] = power[cell].mean()
    return hs, tp, matrix


def annual_energy_production(ds: Any) -> float:
    """Annual energy production, kWh: ``sum_i P_i occurrence_i / 1000``.

    ``P_i`` in W, occurrence in hours per year. NaN when a sea state with a nonzero
    occurrence failed.
    """
    power = absorbed_power(ds)
    hours = ds["occurrence"].values.astype(float)
    used = hours > 0
    if np.any(~np.isfinite(power[used])):
        return float("nan")
    return float(np.sum(power[used] * hours[used]) / 1000.0)


def parameter_settings(columns: dict[str, np.ndarray], names: Sequence[str]
                       ) -> list[tuple[dict[str, Any], np.ndarray]]:
    """The distinct combinations of the parameter columns ``names`` (e.g. a PTO damping
    swept over the same sea states), each with the mask of its rows, in order of first
    appearance; one combination (all rows) when ``names`` is empty."""
    n = int(next(iter(columns.values())).size)
    if not names:
        return [({}, np.ones(n, dtype=bool))]
    keys = [tuple(columns[c][i].item() for c in names) for i in range(n)]
    out = []
    for key in dict.fromkeys(keys):
        mask = np.array([k == key for k in keys])
        out.append((dict(zip(names, key, strict=True)), mask))
    return out


def setting_label(setting: dict[str, Any]) -> str:
    """``"_pto.float.damping=1e+05"`` for file names; ``""`` for no setting."""
    return "".join(f"_{k}={v:.6g}" for k, v in setting.items())


def write_power_matrix(hs: np.ndarray, tp: np.ndarray, matrix: np.ndarray,
                       path: str | Path) -> Path:
    """CSV: first row ``Hs [m] \\ Tp [s] (mean absorbed power [W])`` and the Tp values,
    then one row per Hs: the Hs value and the mean absorbed power of each cell, W."""
    path = Path(path)
    lines = [f"{POWER_MATRIX_CORNER}," + ",".join(f"{p:.10g}" for p in tp)]
    for h, row in zip(hs, matrix, strict=True):
        lines.append(f"{h:.10g}," + ",".join("" if np.isnan(v) else f"{v:.10g}" for v in row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def plot_power_matrix(hs: np.ndarray, tp: np.ndarray, matrix: np.ndarray,
                      path: str | Path) -> Path:
    """PNG heat map of the power matrix (kW), values written in the cells."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * tp.size, 1.2 + 0.6 * hs.size))
    image = ax.imshow(matrix / 1e3, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(tp.size), [f"{p:g}" for p in tp])
    ax.set_yticks(range(hs.size), [f"{h:g}" for h in hs])
    ax.set_xlabel("Tp [s]")
    ax.set_ylabel("Hs [m]")
    ax.set_title("mean absorbed power [kW]")
    for i in range(hs.size):
        for j in range(tp.size):
            if np.isfinite(matrix[i, j]):
                ax.text(j, i, f"{matrix[i, j] / 1e3:.3g}", ha="center", va="center",
                        color="w", fontsize=8)
    fig.colorbar(image, ax=ax, label="kW")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
