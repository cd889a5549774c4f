"""The normalised model file written at export and read by the FMU (run time: numpy only).

Layout of the ``.npz`` (``np.savez_compressed``, read with ``allow_pickle=False``):

- ``header``: uint8 array, the UTF-8 bytes of a JSON object::

      {"format": "hydrofmu-model", "version": 1, "config": {...},
       "bodies": [{"name": ..., "added_mass_inf_source": ..., "displaced_volume": ...,
                   "rho": ..., "g": ..., "water_depth": ..., "source": ..., "notes": [...],
                   "has_inertia_matrix": ...}, ...]}

  Non-finite floats are written as JSON ``NaN`` / ``Infinity`` (Python's json reads them
  back exactly); finite floats are written with ``repr`` precision, so the round trip is
  exact.
- ``body<k>.<field>``: one array per array field of body ``k`` (dtype kept: float64,
  complex128), ``body<k>.inertia_matrix`` only when the body has one.
- optional, when the payload has ``"multibody"``: ``multibody.added_mass``,
  ``multibody.radiation_damping``, ``multibody.added_mass_inf`` (the 6N x 6N matrices),
  ``multibody.added_mass_zero`` when the data has it,
  and a header entry ``"multibody": {"source": ..., "notes": [...]}``; the bodies are the
  payload's bodies (stored once).
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, HydroDataError
from .model import HydroData
from .multibody import MultiBodyData

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "STORED_FIELDS", "load_model", "save_model"]

FORMAT_NAME: str = "hydrofmu-model"
FORMAT_VERSION: int = 1

_ARRAY_FIELDS: tuple[str, ...] = (
    "omega", "added_mass", "radiation_damping", "added_mass_inf", "wave_direction",
    "excitation", "hydrostatic_stiffness", "center_of_buoyancy", "center_of_gravity",
    "reference_point",
)
_FLOAT_FIELDS: tuple[str, ...] = ("displaced_volume", "rho", "g", "water_depth")
_STR_FIELDS: tuple[str, ...] = ("name", "added_mass_inf_source", "source")
_MULTIBODY_ARRAYS: tuple[str, ...] = ("added_mass", "radiation_damping", "added_mass_inf")
# Every field of HydroData is in exactly one of these (tests/test_store.py asserts it, so a
# field added to the model cannot be dropped silently by the store).
STORED_FIELDS: frozenset[str] = frozenset(
    (*_ARRAY_FIELDS, *_FLOAT_FIELDS, *_STR_FIELDS, "inertia_matrix", "notes"))


def save_model(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write bodies and configuration to a normalised ``.npz``.

    Parameters
    ----------
    path
        Output file; written exactly there (no ``.npz`` appended), atomically (a temporary
        file in the same folder, then renamed).
    payload
        ``{"bodies": [HydroData, ...], "config": dict}``, optionally with ``"multibody":
        MultiBodyData`` (then ``"bodies"`` may be left out: they are the multibody's
        bodies; if given they must be the same bodies, in the same order); ``config`` must
        be JSON-serialisable (plain ``str``, ``int``, ``float``, ``bool``, ``None``, lists,
        dicts with string keys).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    HydroDataError
        ``payload`` lacks ``bodies``, has unknown keys, or a body is not a HydroData.
    ConfigError
        ``config`` is not a dict or not JSON-serialisable.
    """
    if not isinstance(payload, dict):
        raise HydroDataError(f"payload must be a dict, got {type(payload).__name__}",
                             value=type(payload).__name__)
    unknown = set(payload) - {"bodies", "config", "multibody"}
    if unknown:
        raise HydroDataError(f"payload has unknown keys {sorted(unknown)}; expected 'bodies', "
                             "'config' and optionally 'multibody'", value=sorted(unknown))
    multibody = payload.get("multibody")
    if multibody is not None and not isinstance(multibody, MultiBodyData):
        raise HydroDataError(f"payload['multibody'] is a {type(multibody).__name__}, not a "
                             "MultiBodyData", value=type(multibody).__name__)
    bodies = payload.get("bodies")
    if multibody is not None:
        if bodies is None:
            bodies = list(multibody.bodies)
        elif (len(bodies) != multibody.n_bodies
              or any(a is not b for a, b in zip(bodies, multibody.bodies, strict=True))):
            raise HydroDataError("payload['bodies'] are not the bodies of payload['multibody'] "
                                 "(same objects, same order); leave 'bodies' out",
                                 value=[getattr(b, "name", b) for b in bodies])
    if not isinstance(bodies, list | tuple) or not bodies:
        raise HydroDataError("payload['bodies'] must be a non-empty list of HydroData",
                             value=bodies)
    config = payload.get("config", {})
    if not isinstance(config, dict):
        raise ConfigError(f"payload['config'] must be a dict, got {type(config).__name__}",
                          value=type(config).__name__)

    arrays: dict[str, np.ndarray] = {}
    header_bodies = []
    for k, hd in enumerate(bodies):
        if not isinstance(hd, HydroData):
            raise HydroDataError(f"payload['bodies'][{k}] is a {type(hd).__name__}, not a "
                                 "HydroData", value=type(hd).__name__)
        for name in _ARRAY_FIELDS:
            arrays[f"body{k}.{name}"] = np.asarray(getattr(hd, name))
        if hd.inertia_matrix is not None:
            arrays[f"body{k}.inertia_matrix"] = np.asarray(hd.inertia_matrix)
        entry: dict[str, Any] = {name: str(getattr(hd, name)) for name in _STR_FIELDS}
        entry.update({name: float(getattr(hd, name)) for name in _FLOAT_FIELDS})
        entry["notes"] = [str(n) for n in hd.notes]
        entry["has_inertia_matrix"] = hd.inertia_matrix is not None
        header_bodies.append(entry)

    header: dict[str, Any] = {"format": FORMAT_NAME, "version": FORMAT_VERSION,
                              "config": config, "bodies": header_bodies}
    if multibody is not None:
        for name in _MULTIBODY_ARRAYS:
            arrays[f"multibody.{name}"] = np.asarray(getattr(multibody, name))
        if multibody.added_mass_zero is not None:
            arrays["multibody.added_mass_zero"] = np.asarray(multibody.added_mass_zero)
        header["multibody"] = {"source": str(multibody.source),
                               "notes": [str(n) for n in multibody.notes]}
    try:
        text = json.dumps(header, allow_nan=True, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"payload['config'] is not JSON-serialisable: {exc}; use plain "
                          "str/int/float/bool/None, lists and dicts", value=config) from None
    arrays["header"] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)

    out = Path(path)
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()
    return out


def load_model(path: str | Path) -> dict[str, Any]:
    """Read a file written by :func:`save_model`.

    Parameters
    ----------
    path
        The ``.npz`` file.

    Returns
    -------
    dict
        ``{"bodies": [HydroData, ...], "config": dict}``, equal field by field to what was
        saved (NaN positions and infinite depth included), plus ``"multibody":
        MultiBodyData`` (holding the same body objects) when one was saved.

    Raises
    ------
    HydroDataError
        Missing file, not an ``.npz`` written by hydrofmu, unknown format version, a
        missing or malformed entry.
    """
    p = Path(path)
    if not p.is_file():
        raise HydroDataError(f"{p}: no such model file", value=str(p))
    try:
        with np.load(p, allow_pickle=False) as npz:
            data = {key: npz[key] for key in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise HydroDataError(f"{p}: not a hydrofmu model file (.npz): {exc}",
                             value=str(p)) from None

    if "header" not in data:
        raise HydroDataError(f"{p}: no 'header' entry: not a hydrofmu model file",
                             value=sorted(data))
    try:
        header = json.loads(data["header"].tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HydroDataError(f"{p}: the header is not valid JSON: {exc}", value=str(p)) from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise HydroDataError(f"{p}: not a hydrofmu model file (format "
                             f"{header.get('format') if isinstance(header, dict) else None!r})",
                             value=str(p))
    if header.get("version") != FORMAT_VERSION:
        raise HydroDataError(f"{p}: model file format version {header.get('version')!r}, this "
                             f"hydrofmu reads version {FORMAT_VERSION}; export the FMU again",
                             value=header.get("version"))

    bodies = []
    for k, entry in enumerate(header.get("bodies", [])):
        def array(name: str, k: int = k) -> np.ndarray:
            key = f"body{k}.{name}"
            if key not in data:
                raise HydroDataError(f"{p}: entry '{key}' is missing", value=key)
            return data[key]

        try:
            kwargs: dict[str, Any] = {name: array(name) for name in _ARRAY_FIELDS}
            kwargs.update({name: str(entry[name]) for name in _STR_FIELDS})
            kwargs.update({name: float(entry[name]) for name in _FLOAT_FIELDS})
            kwargs["notes"] = tuple(str(n) for n in entry["notes"])
            kwargs["inertia_matrix"] = (array("inertia_matrix")
                                        if entry["has_inertia_matrix"] else None)
        except (KeyError, TypeError) as exc:
            raise HydroDataError(f"{p}: body {k} header entry is malformed (missing {exc})",
                                 value=k) from None
        bodies.append(HydroData(**kwargs))
    if not bodies:
        raise HydroDataError(f"{p}: the model file holds no body", value=str(p))
    out: dict[str, Any] = {"bodies": bodies, "config": header.get("config", {})}
    if "multibody" in header:
        entry = header["multibody"]
        missing = [f"multibody.{n}" for n in _MULTIBODY_ARRAYS if f"multibody.{n}" not in data]
        if missing or not isinstance(entry, dict):
            raise HydroDataError(f"{p}: the multibody entries are incomplete (missing "
                                 f"{missing or 'the header entry'})", value=missing)
        out["multibody"] = MultiBodyData(
            bodies=tuple(bodies),
            **{n: data[f"multibody.{n}"] for n in _MULTIBODY_ARRAYS},
            added_mass_zero=data.get("multibody.added_mass_zero"),
            source=str(entry.get("source", "")),
            notes=tuple(str(n) for n in entry.get("notes", [])))
    return out
