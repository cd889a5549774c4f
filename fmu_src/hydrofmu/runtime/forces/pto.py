"""Linear power take-off (PTO) on one body DOF or across a joint:
``F = -stiffness * x - damping * v``.

Configuration, one ``[[ptos]]`` entry::

    [[ptos]]
    name = "pto1"          # identifier; the FMU names pto.<name>.*
    body = "body"          # the body it acts on (default: the only body)
    dof = "heave"          # surge, sway, heave, roll, pitch, yaw, or 1..6
    damping = 4.0e5        # N s/m (translation) or N m s/rad (rotation), >= 0
    stiffness = 0.0        # N/m or N m/rad, >= 0

``x`` and ``v`` are the body's displacement from equilibrium and velocity on that DOF
(the PTO reacts against the fixed frame). Across a joint, ``joint = "<name>"`` instead of
``body`` and ``dof``: on a revolute joint ``x`` and ``v`` are its angle and angular velocity
(damping N m s/rad, stiffness N m/rad; the torque acts on the joint's first body, the
opposite on the second, as ``<joint>.T_pto``), on a prismatic joint its position and
velocity (N s/m, N/m; as ``<joint>.F_pto``).

FMU interface (no inputs; both outputs are functions of the state, no direct feedthrough):

- ``pto.<name>.force``: the PTO force on the body, N or N m (``pto.<name>.torque``, N m,
  on a revolute joint);
- ``pto.<name>.power``: the absorbed power ``P = -F v = damping v^2 + stiffness x v``, W,
  positive when the PTO takes energy from the body. The stiffness term is the rate of
  change of the spring's stored energy ``d/dt (stiffness x^2 / 2)``: its mean over a
  period of a periodic motion is zero, so the mean of ``power`` is the mean power the
  damper absorbs;
- parameters ``pto.<name>.damping`` and ``pto.<name>.stiffness`` (min 0), ``tunable``:
  a change between steps acts from the next step on.

The PTO's force is not added to a body force channel (``<body>.F_pto`` is the name of the
external PTO force input); it is the output ``pto.<name>.force``.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..hydrodata.model import DOF_NAMES, HydroData
from ..parameters.table import ParameterSpec, check_finite
from ..parts.part import FORCE_UNITS, Context, ModelInfo, Part, Port
from .joints import PrismaticJoint
from .revolute import hinge_geometry

KEYS = ("name", "body", "dof", "joint", "damping", "stiffness")
_DAMPING_UNITS = ("N.s/m", "N.m.s/rad")
_STIFFNESS_UNITS = ("N/m", "N.m/rad")


def _dof_index(value: Any, where: str) -> int:
    """0-based DOF index of ``dof`` given as a name or as 1..6."""
    if isinstance(value, str) and value.strip().lower() in DOF_NAMES:
        return DOF_NAMES.index(value.strip().lower())
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6:
        return value - 1
    raise ConfigError(
        f"{where}: dof = {value!r} must be one of {', '.join(DOF_NAMES)} or 1..6",
        value=value,
    )


def _non_negative(where: str, value: Any) -> float:
    if isinstance(value, bool | np.bool_):
        raise ConfigError(f"{where} = {value!r} is not a number", value=value)
    v = check_finite(where, value)
    if v < 0.0:
        raise ConfigError(f"{where} = {value!r} must be >= 0 (a PTO that supplies energy is "
                          "not a linear passive PTO)", value=value)
    return v


def check_pto_entries(ptos: Any, body_names: list[str],
                      joints: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Check the ``[[ptos]]`` list of a configuration (keys, names, bodies, DOFs or joints,
    numbers); ``joints`` are the checked ``[[joints]]`` entries.

    Returns
    -------
    list of dict
        The entries with ``body`` filled in and ``dof`` as a name (or ``joint``).

    Raises
    ------
    ConfigError
        Naming the entry, the key and the fix.
    """
    if not isinstance(ptos, list) or not all(isinstance(p, dict) for p in ptos):
        raise ConfigError("[[ptos]] must be a list of tables", value=ptos)
    kinds = {j["name"]: j["kind"] for j in joints or []}
    out = []
    seen: set[str] = set()
    for i, p in enumerate(ptos):
        where = f"[[ptos]] entry {i}"
        for key in p:
            if key not in KEYS:
                raise ConfigError(f"{where}: unknown key {key!r}; allowed: {', '.join(KEYS)}",
                                  value=key)
        name = p.get("name")
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigError(f"{where}: 'name' = {name!r} must be an identifier (letters, "
                              "digits, _; it becomes part of the FMU names pto.<name>.*)",
                              value=name)
        if name in seen:
            raise ConfigError(f"[[ptos]]: the name {name!r} is used twice", value=name)
        seen.add(name)
        where = f"[[ptos]] '{name}'"
        numbers = {"damping": _non_negative(f"{where}: damping", p.get("damping", 0.0)),
                   "stiffness": _non_negative(f"{where}: stiffness", p.get("stiffness", 0.0))}
        if "joint" in p:
            joint = p["joint"]
            if "body" in p or "dof" in p:
                raise ConfigError(f"{where}: give either joint or body and dof, not both",
                                  value=joint)
            if kinds.get(joint) not in JOINT_PTO_KINDS:
                have = [f"{n} ({k})" for n, k in kinds.items()]
                raise ConfigError(
                    f"{where}: joint = {joint!r} must name a revolute or prismatic joint of "
                    f"[[joints]] (have: {', '.join(have) or 'none'})", value=joint)
            out.append({"name": name, "joint": joint, **numbers})
            continue
        if "body" in p:
            body = p["body"]
        elif len(body_names) == 1:
            body = body_names[0]
        else:
            raise ConfigError(f"{where}: 'body' is needed when there are several bodies "
                              f"({', '.join(body_names)})", value=None)
        if body not in body_names:
            raise ConfigError(f"{where}: body {body!r} is not one of {', '.join(body_names)}",
                              value=body)
        if "dof" not in p:
            raise ConfigError(f"{where}: 'dof' is needed (one of {', '.join(DOF_NAMES)} "
                              "or 1..6), or joint = <name>", value=None)
        dof = DOF_NAMES[_dof_index(p["dof"], where)]
        out.append({"name": name, "body": body, "dof": dof, **numbers})
    return out


#: Joint kinds a PTO can act across, and the name of its force output there.
JOINT_PTO_KINDS = {"revolute": "torque", "prismatic": "force"}


def _joint_entry(config: dict[str, Any], options: dict[str, Any]) -> dict[str, Any] | None:
    """The ``[[joints]]`` entry of a PTO across a joint, or ``None`` for a body DOF."""
    if "joint" not in options:
        return None
    for j in config.get("joints") or []:
        if j["name"] == options["joint"]:
            return j
    raise ConfigError(f"pto '{options['name']}': no joint {options['joint']!r}",
                      value=options["joint"])


class LinearPto(Part):
    """One ``[[ptos]]`` entry: a linear spring and damper on one body DOF."""

    kind = "pto.linear"
    channel = None

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        opts = model.options
        self.name = str(opts["name"])
        #: x = gradient . q: the PTO's coordinate (a body DOF, a joint's angle or position).
        self.gradient = np.zeros(model.n)
        joint = _joint_entry(model.config, opts)
        if joint is None:
            body = opts.get("body", model.names[0])
            index = 6 * model.names.index(body) + _dof_index(opts["dof"], self.name)
            self.gradient[index] = 1.0
            where = f"{body}.{DOF_NAMES[index % 6]}"
        else:
            index_b = [model.names.index(b) for b in joint["bodies"]]
            if joint["kind"] == "revolute":
                self.gradient = hinge_geometry(model.bodies, joint, index_b, model.n)[1]
            else:
                self.gradient = PrismaticJoint.relative_motion(model.bodies, joint,
                                                                    index_b, model.n)
            where = f"joint '{joint['name']}' ({joint['kind']})"
        self.dofs = self.gradient != 0.0
        self.damping = float(model.parameters[f"pto.{self.name}.damping"])
        self.stiffness = float(model.parameters[f"pto.{self.name}.stiffness"])
        model.report.append(
            f"pto '{self.name}': linear on {where}, damping {self.damping:.6g}, stiffness "
            f"{self.stiffness:.6g}"
        )

    @staticmethod
    def _rotational(config: dict[str, Any], options: dict[str, Any]) -> int:
        joint = _joint_entry(config, options)
        if joint is not None:
            return int(joint["kind"] == "revolute")
        return _dof_index(options["dof"], str(options["name"])) // 3

    @classmethod
    def output_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        name = options["name"]
        joint = _joint_entry(config, options)
        label = "force" if joint is None else JOINT_PTO_KINDS[joint["kind"]]
        return [Port(f"pto.{name}.{label}", FORCE_UNITS[cls._rotational(config, options)]),
                Port(f"pto.{name}.power", "W")]

    @classmethod
    def parameter_specs(cls, bodies: list[HydroData], config: dict[str, Any],
                        options: dict[str, Any]) -> list[ParameterSpec]:
        name, r = options["name"], cls._rotational(config, options)
        return [
            ParameterSpec(f"pto.{name}.damping", "Real", float(options["damping"]),
                          _DAMPING_UNITS[r], f"Damping of the linear PTO '{name}'", min=0.0,
                          check=_non_negative, tunable=True),
            ParameterSpec(f"pto.{name}.stiffness", "Real", float(options["stiffness"]),
                          _STIFFNESS_UNITS[r], f"Stiffness of the linear PTO '{name}'",
                          min=0.0, check=_non_negative, tunable=True),
        ]

    def set_parameter(self, name: str, value: Any) -> bool:
        if name == f"pto.{self.name}.damping":
            self.damping = float(value)
        elif name == f"pto.{self.name}.stiffness":
            self.stiffness = float(value)
        else:
            return False
        return True

    def _force(self, ctx: Context) -> float:
        g = self.gradient
        return -self.stiffness * float(g @ ctx.q) - self.damping * float(g @ ctx.v)

    def force(self, ctx: Context) -> NDArray[np.float64]:
        return self._force(ctx) * self.gradient

    def outputs(self, ctx: Context) -> NDArray[np.float64]:
        f = self._force(ctx)
        return np.array([f, -f * float(self.gradient @ ctx.v)])

    def linear_matrices(self):
        gg = np.outer(self.gradient, self.gradient)
        return self.stiffness * gg, self.damping * gg, np.zeros(self.n)
