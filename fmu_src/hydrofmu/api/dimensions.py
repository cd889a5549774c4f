"""Results with dimensions: the flat outputs of a model (``float.pose[3]``, one variable per
scalar, as the FMU declares them) structured into variables over ``body``, ``dof``,
``joint``, ``pto`` and ``line``, as capytaine and WecOptTool label theirs (build time).

:func:`add_dimensions` is the one function that does it, for
:meth:`~hydrofmu.api.model.Model.simulate` and for
:func:`~hydrofmu.cosim.simulate_fmu.simulate_fmu` on a hydrofmu FMU. It reads only the
variable names and their ``units``, so both paths give the same dataset:

==============================  ==========================  =============================
flat outputs                    structured variable         dimensions
==============================  ==========================  =============================
``<body>.<q>[1..6]``            ``<q>`` (``pose``...)       ``time, body, dof``
``<joint>.<q>[1..6]``           ``joint.<q>``               ``time, joint, dof``
``<joint>.<q>``                 ``joint.<q>``               ``time, joint``
``pto.<name>.<q>``              ``pto.<q>``                 ``time, pto``
``mooring.line<k>.<q>``         ``mooring.<q>``             ``time, line``
==============================  ==========================  =============================

A body is an owner with all six ``pose[i]``; a joint an owner (not a body) with all six
``F_constraint[i]``. A member that lacks a quantity its group has (a planar joint has no
``position``) is NaN there. The flat variables stay in the dataset, unchanged and in their
order: :func:`flat_names` lists them (the variables whose only dimension is ``time``).
Everything else (``wave.elevation``, a user part's ``spring.force``) stays flat only.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from ..runtime.fmi.names import describe

if TYPE_CHECKING:
    import xarray

#: Labels of the ``dof`` dimension: the six rigid-body DOFs in the order of the ``[1..6]``
#: indices of the flat names.
DOF_LABELS: tuple[str, ...] = ("surge", "sway", "heave", "roll", "pitch", "yaw")

_LINE = re.compile(r"mooring\.line(?P<k>\d+)\.(?P<q>\w+)")
_PTO = re.compile(r"pto\.(?P<name>\w+)\.(?P<q>\w+)")
_VECTOR = re.compile(r"(?P<owner>\w+)\.(?P<q>\w+)\[(?P<i>[1-6])\]")
_SCALAR = re.compile(r"(?P<owner>\w+)\.(?P<q>\w+)")

#: Descriptions of the grouped scalar quantities (the others: the quantity's words).
_GROUP_TEXT = {
    "T_fairlead": "line tension at the fairlead",
    "T_anchor": "line tension at the anchor",
    "power": "power absorbed by the PTO",
    "force": "PTO force",
    "torque": "PTO torque",
    "position": "relative position along the joint's axis",
    "velocity": "relative velocity along the joint's axis",
    "angle": "angle about the joint's axis",
    "angular_velocity": "angular velocity about the joint's axis",
}

_COORD_TEXT = {
    "body": "body name (the [[bodies]] entries)",
    "dof": "rigid-body degree of freedom (index 1..6 of the flat names)",
    "joint": "joint name (the [[joints]] entries)",
    "pto": "PTO name (the [[ptos]] entries)",
    "line": "mooring line number (1.. over all [[moorings]] entries, in order)",
}


def flat_names(ds: xarray.Dataset) -> list[str]:
    """The flat output variables of a result (dimension ``time`` alone), in the model's
    output order: the FMU's variable names, e.g. ``float.pose[3]``."""
    return [str(n) for n in ds.data_vars if ds[n].dims == ("time",)]


def _units_text(units: list[tuple[str, str]]) -> str:
    """One ``units`` attribute for members of different units: ``"m"`` when they agree,
    else ``"m (surge, sway, heave); rad (roll, pitch, yaw)"`` (by label, in order)."""
    by_unit: dict[str, list[str]] = {}
    for label, unit in units:
        labels = by_unit.setdefault(unit, [])
        if label not in labels:
            labels.append(label)
    if len(by_unit) == 1:
        return next(iter(by_unit))
    return "; ".join(f"{u} ({', '.join(labels)})" for u, labels in by_unit.items())


class _Group:
    """One structured variable being collected: its member labels and flat names."""

    def __init__(self, dims: tuple[str, ...], description: str) -> None:
        self.dims = dims
        self.description = description
        #: (owner label, dof index 0..5 or None) -> flat name
        self.members: dict[tuple[str | int, int | None], str] = {}


def add_dimensions(ds: xarray.Dataset) -> xarray.Dataset:
    """``ds`` with its flat outputs also structured over ``body``, ``dof``, ``joint``,
    ``pto`` and ``line`` (see the module); a new dataset, ``ds`` unchanged.

    Parameters
    ----------
    ds
        Flat results: a ``time`` coordinate (s) and one variable per output over ``time``
        with a ``units`` attribute (:func:`hydrofmu.api.results.to_dataset`).

    Returns
    -------
    xarray.Dataset
        The structured variables first (values copied from the flat ones, bit for bit;
        ``units`` per DOF when they differ, e.g. ``"m (surge, sway, heave); rad (roll,
        pitch, yaw)"``; a ``description``), then every variable of ``ds`` as it was; the
        coordinates ``body``, ``dof``, ``joint``, ``pto``, ``line`` where they apply.
        ``ds.sel(body="float", dof="heave")["pose"]`` equals ``ds["float.pose[3]"]``.
    """
    import xarray as xr

    flat = flat_names(ds)
    vectors: dict[tuple[str, str], dict[int, str]] = {}
    scalars: dict[tuple[str, str], str] = {}
    groups: dict[str, _Group] = {}

    def group(name: str, dims: tuple[str, ...], description: str) -> _Group:
        g = groups.setdefault(name, _Group(dims, description))
        # The same name with other dimensions (a joint's vector and scalar quantity of one
        # name): the first stays, the other only flat.
        return g if g.dims == dims else _Group(dims, description)

    for n in flat:
        if m := _LINE.fullmatch(n):
            q = m["q"]
            group(f"mooring.{q}", ("line",), _GROUP_TEXT.get(q, q.replace("_", " ")))\
                .members[(int(m["k"]), None)] = n
        elif m := _PTO.fullmatch(n):
            q = m["q"]
            group(f"pto.{q}", ("pto",), _GROUP_TEXT.get(q, q.replace("_", " ")))\
                .members[(m["name"], None)] = n
        elif m := _VECTOR.fullmatch(n):
            vectors.setdefault((m["owner"], m["q"]), {})[int(m["i"]) - 1] = n
        elif m := _SCALAR.fullmatch(n):
            scalars[(m["owner"], m["q"])] = n
    complete = {key: comps for key, comps in vectors.items() if len(comps) == 6}
    bodies = list(dict.fromkeys(o for (o, q) in complete if q == "pose"))
    joints = list(dict.fromkeys(o for (o, q) in complete
                                if q == "F_constraint" and o not in bodies and o != "wave"))
    for (owner, q), comps in complete.items():
        if owner in bodies or owner in joints:
            kind = "body" if owner in bodies else "joint"
            text = describe(f"{owner}.{q}").removesuffix(f" ('{owner}')")
            g = group(q if kind == "body" else f"joint.{q}", (kind, "dof"), text)
            for i, n in comps.items():
                g.members[(owner, i)] = n
    for (owner, q), n in scalars.items():
        if owner in joints:
            group(f"joint.{q}", ("joint",), _GROUP_TEXT.get(q, q.replace("_", " ")))\
                .members[(owner, None)] = n

    groups = {n: g for n, g in groups.items() if n not in ds.variables}  # flat names win
    axes: dict[str, list[str | int]] = {}
    for g in groups.values():
        axis = axes.setdefault(g.dims[0], [])
        axis.extend(o for o, _ in g.members if o not in axis)
    if any("dof" in g.dims for g in groups.values()):
        axes["dof"] = list(DOF_LABELS)
    variables: dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]] = {}
    for name, g in groups.items():
        owners = axes[g.dims[0]]
        values = np.full((ds.sizes["time"], *(len(axes[d]) for d in g.dims)), np.nan)
        units = []
        for (owner, i), n in g.members.items():
            j = owners.index(owner)
            values[(slice(None), j) if i is None else (slice(None), j, i)] = ds[n].values
            units.append((DOF_LABELS[i] if i is not None else str(owner),
                          str(ds[n].attrs.get("units", "1"))))
        variables[name] = (("time", *g.dims), values,
                           {"units": _units_text(units), "description": g.description})
    for n in ds.data_vars:
        variables[str(n)] = (ds[n].dims, ds[n].values, dict(ds[n].attrs))
    coords = {"time": ds["time"], **{dim: (dim, np.asarray(labels),
                                           {"description": _COORD_TEXT[dim]})
                                     for dim, labels in axes.items()}}
    return xr.Dataset(variables, coords=coords, attrs=dict(ds.attrs))
