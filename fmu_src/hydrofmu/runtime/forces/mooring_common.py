"""What the ``[[moorings]]`` parts share: their keys, their body, its degrees of freedom and
initial pose, and the numbering of the lines' tension outputs.

Run-time module: numpy and the standard library (and the run-time mooring reader).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..parts.part import ModelInfo, Port


def check_keys(options: dict[str, Any], allowed: Iterable[str], where: str) -> None:
    """Refuse a key of a ``[[moorings]]`` entry that is not in ``allowed``, by name."""
    allowed = tuple(allowed)
    for key in options:
        if key not in allowed:
            raise ConfigError(f"{where}: unknown key {key!r}; allowed: {', '.join(allowed)}",
                              value=key)


def mooring_body(model: ModelInfo, where: str) -> tuple[str, int]:
    """The body name and index a ``[[moorings]]`` entry holds (``body`` or the only one)."""
    opts = model.options
    if "body" in opts:
        body = opts["body"]
    elif len(model.names) == 1:
        body = model.names[0]
    else:
        raise ConfigError(f"{where}: 'body' is needed when there are several bodies "
                          f"({', '.join(model.names)})", value=None)
    if body not in model.names:
        raise ConfigError(f"{where}: body {body!r} is not one of {', '.join(model.names)}",
                          value=body)
    return body, model.names.index(body)


def body_dofs(model: ModelInfo, k: int) -> tuple[slice, NDArray[np.bool_]]:
    """The body's slice of the model's degrees of freedom and its mask, shape (n,)."""
    sl = slice(6 * k, 6 * k + 6)
    dofs = np.zeros(model.n, dtype=bool)
    dofs[sl] = True
    return sl, dofs


def initial_pose(model: ModelInfo, body: str) -> NDArray[np.float64]:
    """The body's initial pose from the parameter table, m and rad, shape (6,)."""
    return np.array([float(model.parameters.get(f"{body}.initial_pose[{i + 1}]", 0.0))
                     for i in range(6)])


def count_lines(entry: dict[str, Any]) -> int:
    """Number of lines of one ``[[moorings]]`` entry that report tensions."""
    kind = entry.get("type")
    if kind == "catenary":
        lines = entry.get("lines")
        return len(lines) if isinstance(lines, list) else 0
    if kind == "moordyn" and isinstance(entry.get("text"), str):
        from ..moorings.moordyn_input import parse_moordyn

        return len(parse_moordyn(entry["text"]).lines)
    return 0


def line_offset(config: dict[str, Any], options: dict[str, Any]) -> int:
    """Lines of the ``[[moorings]]`` entries before ``options`` (tension outputs numbering)."""
    total = 0
    for entry in config.get("moorings") or []:
        if entry == options:
            return total
        total += count_lines(entry)
    return total


def tension_ports(config: dict[str, Any], options: dict[str, Any]) -> list[Port]:
    """``mooring.line<k>.T_fairlead`` and ``.T_anchor`` of every line of the entry, N."""
    k0 = line_offset(config, options)
    ports = []
    for k in range(k0 + 1, k0 + count_lines(options) + 1):
        ports.append(Port(f"mooring.line{k}.T_fairlead", "N"))
        ports.append(Port(f"mooring.line{k}.T_anchor", "N"))
    return ports


