"""The sea-state table (``SEAS.csv``) and the FMU parameters of each row."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.errors import ConfigError, did_you_mean

REQUIRED = ("Hs", "Tp")
"""Columns every table has: significant wave height (m), peak period (s)."""
OPTIONAL = ("direction", "gamma", "seed", "occurrence")
"""Optional columns: direction (rad), JONSWAP gamma (1), seed (integer), occurrence
(hours per year; not an FMU parameter)."""
WAVE_PARAMETER = {"Hs": "wave.height", "Tp": "wave.period", "direction": "wave.direction",
                  "gamma": "wave.gamma", "seed": "wave.seed"}
"""FMU parameter of each wave column."""


@dataclass(frozen=True, kw_only=True)
class SeaStateTable:
    """A validated sea-state table.

    Attributes
    ----------
    columns
        Column name -> values, shape (n,): float, or int for ``seed`` and integer
        parameters.
    parameters
        Names of the columns that are other FMU parameters (e.g. ``pto.float.damping``).
    """

    columns: dict[str, np.ndarray]
    parameters: tuple[str, ...] = ()

    def __len__(self) -> int:
        return int(self.columns["Hs"].size)

    def start_values(self, i: int) -> dict[str, Any]:
        """The FMU parameters of row ``i`` (``wave.type = irregular`` and the columns)."""
        out: dict[str, Any] = {"wave.type": "irregular"}
        for name, values in self.columns.items():
            if name == "occurrence":
                continue
            value = values[i].item()
            out[WAVE_PARAMETER.get(name, name)] = value
        return out

    def row(self, i: int) -> dict[str, Any]:
        """Row ``i`` as ``{column: value}``."""
        return {name: values[i].item() for name, values in self.columns.items()}


def _number(text: str, column: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise ConfigError(f"sea-state table line {line}: {column} = {text!r} is not a number",
                          value=text) from exc
    if not math.isfinite(value):
        raise ConfigError(f"sea-state table line {line}: {column} = {text!r} must be finite",
                          value=text)
    return value


def read_sea_states(path: str | Path, *, fmu_parameters: dict[str, str] | None = None
                    ) -> SeaStateTable:
    """Read and validate ``SEAS.csv``.

    Parameters
    ----------
    path
        CSV file with a header row: ``Hs`` (m), ``Tp`` (s) required; ``direction`` (rad),
        ``gamma``, ``seed``, ``occurrence`` (h/yr) optional; any other column names an FMU
        parameter.
    fmu_parameters
        The FMU's parameters, name -> FMI type (``Real``, ``Integer``, ``String``...);
        other columns are checked against them (``None``: not checked).

    Returns
    -------
    SeaStateTable

    Raises
    ------
    ConfigError
        A missing file or column, an unknown column (with a did-you-mean), a value that is
        not a number, ``Hs``/``Tp`` not positive, a negative occurrence, a non-integer seed.
    """
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    except FileNotFoundError as exc:
        raise ConfigError(f"sea-state table '{path}' does not exist", value=str(path)) from exc
    if not rows:
        raise ConfigError(f"sea-state table '{path}' is empty", value=str(path))
    header = [c.strip() for c in rows[0]]
    data = rows[1:]
    if not data:
        raise ConfigError(f"sea-state table '{path}' has a header but no sea state",
                          value=str(path))
    for name in REQUIRED:
        if name not in header:
            raise ConfigError(f"sea-state table '{path}' has no column '{name}'"
                              f"{did_you_mean(name, header)}; required: Hs (m), Tp (s)",
                              value=header)
    if len(set(header)) != len(header):
        raise ConfigError(f"sea-state table '{path}' repeats a column: {header}", value=header)
    known = set(REQUIRED) | set(OPTIONAL)
    parameters = tuple(c for c in header if c not in known)
    for name in parameters:
        if fmu_parameters is not None and name not in fmu_parameters:
            choices = [*known, *fmu_parameters]
            raise ConfigError(
                f"sea-state table column '{name}' is neither a sea-state column ("
                f"{', '.join((*REQUIRED, *OPTIONAL))}) nor a parameter of the FMU"
                f"{did_you_mean(name, choices)}", value=name)
        if name in WAVE_PARAMETER.values() or name == "wave.type":
            raise ConfigError(f"sea-state table column '{name}' is set by the sea-state columns"
                              " (Hs, Tp, direction, gamma, seed); drop it", value=name)
    columns: dict[str, list[float]] = {name: [] for name in header}
    for k, row in enumerate(data, start=2):
        if len(row) != len(header):
            raise ConfigError(f"sea-state table line {k} has {len(row)} values for "
                              f"{len(header)} columns", value=row)
        for name, text in zip(header, row, strict=True):
            columns[name].append(_number(text.strip(), name, k))
    out: dict[str, np.ndarray] = {}
    for name, values in columns.items():
        arr = np.asarray(values, dtype=float)
        kind = (fmu_parameters or {}).get(name, "Real")
        if name == "seed" or kind in ("Integer", "Enumeration"):
            if np.any(arr != np.round(arr)):
                raise ConfigError(f"sea-state table column '{name}' must hold integers",
                                  value=values)
            arr = arr.astype(np.int64)
        elif kind == "Boolean":
            arr = arr.astype(bool)
        out[name] = arr
    for name in REQUIRED:
        bad = np.nonzero(out[name] <= 0)[0]
        if bad.size:
            raise ConfigError(f"sea-state table line {bad[0] + 2}: {name} = "
                              f"{out[name][bad[0]]} must be > 0", value=float(out[name][bad[0]]))
    if "occurrence" in out and np.any(out["occurrence"] < 0):
        raise ConfigError("sea-state table: occurrence (hours per year) must be >= 0",
                          value=out["occurrence"].tolist())
    return SeaStateTable(columns=out, parameters=parameters)
