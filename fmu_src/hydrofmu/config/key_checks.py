"""Checks of keys that two places of a configuration can set: a body's `radiation` against
`[radiation] method` (refused when both are written and differ), and a MoorDyn file's
options that the model overrides (a `note:` each).

Build time only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..runtime.errors import ConfigError


def check_radiation_keys(data: dict[str, Any], cfg: dict[str, Any]) -> None:
    """A body's ``radiation`` and ``[radiation] method``, both written and different, are
    refused with both named (the body's key would win in silence).

    Raises
    ------
    ConfigError
        The two keys disagree.
    """
    section = data.get("radiation", {})
    method = section.get("method") if isinstance(section, dict) else None
    if method is None:
        return
    for b in cfg["bodies"]:
        if b.get("radiation") is not None and b["radiation"] != method:
            raise ConfigError(
                f"body '{b['name']}': radiation = {b['radiation']!r} and [radiation] method = "
                f"{method!r} disagree (the body's key sets the method of every body); remove "
                "one of them, or write the same method in both", value=b["radiation"])


def moordyn_option_notes(cfg: dict[str, Any]) -> list[str]:
    """Notes on the OPTIONS of a MoorDyn file that the model does not use: the lines are
    stepped by ``[simulation] time_scheme`` at ``max_internal_step`` (or shorter local
    steps), not by the file's ``tScheme`` and ``dtM``."""
    from ..runtime.moorings.moordyn_input import parse_moordyn

    notes = []
    sim = cfg["simulation"]
    for m in cfg["moorings"]:
        if m.get("type") != "moordyn" or not isinstance(m.get("text"), str):
            continue
        o = parse_moordyn(m["text"], path=Path(str(m.get("file", "lines.txt")))).options
        unused = []
        if o.tScheme != sim["time_scheme"]:
            unused.append(f"tScheme = {o.tScheme} (time_scheme = {sim['time_scheme']})")
        if o.dtM != sim["max_internal_step"]:
            unused.append(f"dtM = {o.dtM:g} s (max_internal_step = "
                          f"{sim['max_internal_step']:g} s)")
        if unused:
            verb = "are" if len(unused) > 1 else "is"
            notes.append(f"MoorDyn file {m.get('file', '')}: its {' and '.join(unused)} "
                         f"{verb} not used: the lines are stepped by [simulation] time_scheme "
                         "at max_internal_step, or at shorter local steps (the model: lines)")
    return notes


