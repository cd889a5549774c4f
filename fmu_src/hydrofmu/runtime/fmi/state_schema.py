"""The schema of a saved FMU state and its check, made before anything is replaced.

A state (``fmi2GetFMUstate``, possibly through ``fmi2SerializeFMUstate``) is a flat mapping
of named numpy arrays: ``fmu.*`` entries for the FMI face and ``sim.*`` entries for the
simulator. :func:`state_problem` checks every entry (presence, dtype, shape, finiteness),
the model's identity and the format version; ``fmi2SetFMUstate`` replaces nothing unless it
returns None.

This module is run time (bundled in the FMU): standard library and numpy only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np

#: Version of the layout below; a state of another version is refused.
STATE_FORMAT = 2
#: Key prefixes of the flattened FMU state: the FMI face's own fields, the simulator's
#: :meth:`~hydrofmu.runtime.simulator.simulator.Simulator.get_state` arrays.
FMU_PREFIX = "fmu."
SIM_PREFIX = "sim."
#: Simulator entries whose first dimension grows with the run (the time scheme's memory).
GROWING_PREFIX = "scheme."

_GUID = re.compile(rb'\bguid="([^"]*)"')


def model_identity(resources: str | Path, model_file: str | Path) -> str:
    """The FMU's GUID (from its ``modelDescription.xml``) and the payload's hash.

    The GUID alone does not exist while the FMU is being built (no model description yet),
    and the payload hash tells two builds of one description apart: both are used.
    """
    digest = hashlib.sha256(Path(model_file).read_bytes()).hexdigest()[:16]
    guid = ""
    description = Path(resources).parent / "modelDescription.xml"
    if description.is_file():
        found = _GUID.search(description.read_bytes()[:4096])
        if found:
            guid = found.group(1).decode("ascii", "replace")
    return f"{guid}|{digest}"


def fmu_schema(
    *, n_reals: int, n_ints: int, n_strs: int, states: tuple[str, ...]
) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Entry -> (numpy dtype kind, shape) of the ``fmu.*`` entries.

    Kinds: ``f`` float, ``i`` signed integer, ``b`` bool, ``U`` unicode string.
    """
    del states  # the values are checked in state_problem
    return {
        "fmu.format": ("i", ()),
        "fmu.model": ("U", ()),
        "fmu.reals": ("f", (n_reals,)),
        "fmu.ints": ("i", (n_ints,)),
        "fmu.strs": ("U", (n_strs,)),
        "fmu.time": ("f", ()),
        "fmu.start_time": ("f", ()),
        "fmu.phase": ("U", ()),
        "fmu.failure": ("U", ()),
        "fmu.dirty": ("b", ()),
        "fmu.has_sim": ("b", ()),
    }


def _kind_ok(arr: np.ndarray, kind: str) -> bool:
    if kind == "f":
        return arr.dtype.kind == "f"
    if kind == "i":
        return arr.dtype.kind in "iu"
    if kind == "b":
        return arr.dtype.kind == "b"
    return arr.dtype.kind == "U" or (arr.dtype.kind == "f" and arr.size == 0)


def _entry_problem(key: str, value: object, kind: str, shape: tuple[int, ...]) -> str | None:
    if not isinstance(value, np.ndarray):
        return f"entry '{key}' is not an array"
    if not _kind_ok(value, kind):
        return f"entry '{key}' has dtype {value.dtype}, expected kind '{kind}'"
    if value.shape != shape:
        return f"entry '{key}' has shape {value.shape}, expected {shape}"
    return None


def state_problem(
    state: Mapping[str, object],
    *,
    model: str,
    n_reals: int,
    n_ints: int,
    n_strs: int,
    finite_reals: np.ndarray,
    states: tuple[str, ...],
    parameters: np.ndarray | None = None,
) -> str | None:
    """Why the ``fmu.*`` part of ``state`` cannot be restored in this model, or None.

    Parameters
    ----------
    state
        The blob (entry name -> array).
    model
        :func:`model_identity` of this instance.
    n_reals, n_ints, n_strs
        Numbers of Real, Integer and String variables.
    finite_reals
        Boolean mask, shape (n_reals,): the Real variables that must be finite (all but
        the inputs, which the importer may have set to anything).
    states
        The valid state-machine states.
    parameters
        Boolean mask, shape (n_reals,): the Real parameters. Their values are checked when
        the simulator is built (``fmi2ExitInitializationMode``), so a state without a
        simulator (saved before initialization ended, or after it failed) may hold any value
        the importer set, a non-finite one included: they need not be finite there.
    """
    if not isinstance(state, Mapping):
        return "the FMU state is not a mapping of arrays"
    if "fmu.invalid" in state:
        return f"the FMU state is invalid: {state['fmu.invalid']}"
    fmt = state.get("fmu.format")
    if not isinstance(fmt, np.ndarray) or fmt.shape != () or fmt.dtype.kind not in "iu":
        return "the FMU state has no format version: it was not saved by this FMU"
    if int(fmt) != STATE_FORMAT:
        return f"the FMU state has format version {int(fmt)}; this FMU reads {STATE_FORMAT}"
    schema = fmu_schema(n_reals=n_reals, n_ints=n_ints, n_strs=n_strs, states=states)
    missing = sorted(set(schema) - set(state))
    if missing:
        return f"the FMU state lacks the entries {missing}"
    extra = sorted(k for k in state if not k.startswith((FMU_PREFIX, SIM_PREFIX)))
    extra += sorted(k for k in state if k.startswith(FMU_PREFIX) and k not in schema)
    if extra:
        return f"the FMU state has unknown entries {extra}"
    for key, (kind, shape) in schema.items():
        problem = _entry_problem(key, state[key], kind, shape)
        if problem:
            return f"the FMU state's {problem}"
    if str(state["fmu.model"]) != model:
        return (
            f"the FMU state belongs to another model (identity {str(state['fmu.model'])!r}, "
            f"this one {model!r})"
        )
    if str(state["fmu.phase"]) not in states:
        return f"the FMU state has an unknown phase {str(state['fmu.phase'])!r}"
    reals = state["fmu.reals"]
    must = finite_reals
    if parameters is not None and not bool(state["fmu.has_sim"]):
        must = finite_reals & ~parameters
    bad = np.flatnonzero(~np.isfinite(reals) & must)
    if bad.size:
        return f"the FMU state has non-finite values at Real value references {bad.tolist()}"
    for key in ("fmu.time", "fmu.start_time"):
        if not np.isfinite(state[key]):
            return f"the FMU state's '{key}' is not finite"
    return None


def sim_problem(
    state: Mapping[str, object], template: Mapping[str, np.ndarray]
) -> str | None:
    """Why the ``sim.*`` entries of ``state`` do not fit ``template``, or None.

    Parameters
    ----------
    state
        The blob.
    template
        ``Simulator.get_state()`` of a simulator of the same model and parameters: the
        entries, shapes and dtype kinds expected.
    """
    n = len(SIM_PREFIX)
    given = {k[n:]: v for k, v in state.items() if k.startswith(SIM_PREFIX)}
    # A time scheme's memory comes and goes with its history (empty after a start or a
    # restart): its entries are checked for type and finiteness, not for presence.
    missing = sorted(k for k in set(template) - set(given) if not k.startswith(GROWING_PREFIX))
    if missing:
        return f"the FMU state lacks the simulator entries {missing}"
    extra = sorted(k for k in set(given) - set(template) if not k.startswith(GROWING_PREFIX))
    if extra:
        return f"the FMU state has unknown simulator entries {extra}"
    for key in sorted(set(given) - set(template)):
        value = given[key]
        if not (isinstance(value, np.ndarray) and value.dtype.kind in "fiu"):
            return f"the FMU state's entry '{SIM_PREFIX + key}' is not a numeric array"
        if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
            return f"the FMU state's entry '{SIM_PREFIX + key}' has non-finite values"
    for key, ref in template.items():
        ref = np.asarray(ref)
        kind = "f" if ref.dtype.kind == "f" else "i" if ref.dtype.kind in "iu" else ref.dtype.kind
        value = given[key]
        if key.startswith(GROWING_PREFIX) and isinstance(value, np.ndarray) and ref.ndim:
            # A time scheme's history (Adams-Bashforth: the past derivatives and their
            # times) grows from empty (shape (0, 0)) to (depth, n): only its rank is fixed.
            shape = value.shape if value.ndim == ref.ndim else ref.shape
        else:
            shape = ref.shape
        problem = _entry_problem(SIM_PREFIX + key, value, kind, shape)
        if problem:
            return f"the FMU state's {problem}"
        value = given[key]
        if value.dtype.kind in "fc" and not np.all(np.isfinite(value)):
            return f"the FMU state's entry '{SIM_PREFIX + key}' has non-finite values"
    return None
