"""Checks of an FMU's model name and of the folder it will be unpacked in (before a build)."""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from urllib.parse import quote

_MODEL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_MAX_MODEL_NAME = 64


def model_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a model name, or None if it can.

    A model name is the FMU's model identifier: the slave class name and the file name
    of its binaries. It must be an ASCII identifier starting with a letter, at most 64
    characters, not a Python keyword.
    """
    if not isinstance(name, str):
        return f"a model name must be a string, got {type(name).__name__}"
    if not _MODEL_NAME.fullmatch(name):
        return "it must start with an ASCII letter and contain only letters, digits and '_'"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return "it is a Python keyword"
    if len(name) > _MAX_MODEL_NAME:
        return f"it is longer than {_MAX_MODEL_NAME} characters"
    return None


def sanitize_model_name(name: str) -> str:
    """A valid model name close to ``name`` (invalid characters become ``_``).

    Examples
    --------
    >>> sanitize_model_name("my wec-2")
    'my_wec_2'
    >>> sanitize_model_name("2body")
    'M2body'
    """
    text = re.sub(r"[^A-Za-z0-9_]", "_", str(name).strip())[:_MAX_MODEL_NAME]
    text = re.sub(r"__+", "_", text).strip("_") or "HydroFMU"
    if not text[0].isalpha():
        text = "M" + text
    if keyword.iskeyword(text) or keyword.issoftkeyword(text):
        text += "_"
    return text[:_MAX_MODEL_NAME]


def resource_path_problem(directory: str | Path) -> str | None:
    """Why an FMU unpacked in ``directory`` would not find its resources, or None.

    pythonfmu's binary turns the resource URI back into a path by decoding only ``%20``.
    Importers build the URI with percent-encoding (fmpy: ``Path.as_uri()``), so any
    character other than ASCII letters, digits, ``_.-~/`` and space breaks the path, and
    the host crashes while instantiating.
    """
    path = Path(directory).absolute()
    text = str(path)
    encoded = quote(text, safe="/").replace("%20", " ")
    if encoded == text:
        return None
    bad = sorted({c for c in text if c != " " and quote(c, safe="/") != c})
    return (
        f"the path '{text}' contains {''.join(bad)!r}: pythonfmu's binary decodes only '%20' "
        "in the resource URI, so an FMU unpacked there cannot find its resources and the "
        "importer crashes; use a path of ASCII letters, digits, spaces and _.-~"
    )
