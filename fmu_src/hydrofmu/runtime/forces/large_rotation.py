"""The large-rotation bodies of a model (``[[bodies]] rotations = "large"``): one part,
``rigid_body.large_rotation``, that holds their kinematics and quaternion states.

A body with ``rotations = "large"`` keeps its linear coordinates in the simulator, and its
true pose is read from them as :mod:`hydrofmu.runtime.bodies.kinematics` says: a free
rotation by a unit quaternion (4 states here, ``q' = 1/2 [0, omega] q`` with the world
angular velocity; normalised wherever it is read, so its norm's drift, of the scheme's
order, never reaches the pose), one rotation about a world axis or a revolute joint on the
world (or on a fixed body) by the reduced angle, exact at any angle. The Newton-Euler
equations are assembled by :mod:`hydrofmu.runtime.bodies.dynamics`. The part's outputs
are every large-rotation body's ``<body>.quaternion[1..4]`` (``[w, x, y, z]``, body to
world axes, :mod:`hydrofmu.runtime.bodies.rotations`).

What is refused, by name: a large-rotation body in any other joint (a prismatic, planar or
fixed joint, the second body of a revolute, a locked revolute, a revolute on a moving
body), two of its three rotations free (not a joint), and a linear hydrostatic stiffness in
rotation (``K[3:6, :]`` of the body's data: a stiffness about the mean pose means nothing
at 90 degrees; ``nonlinear = "mean" | "instantaneous"`` integrates the pressure on the
mesh at the true pose instead).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..bodies.body_kernel import BodyKernel
from ..bodies.kinematics import (
    AxisRotation,
    BodyKinematics,
    FreeRotation,
    HingeRotation,
    NoRotation,
)
from ..bodies.rotations import matrix_from_euler, quaternion_from_matrix
from ..errors import ConfigError
from ..hydrodata.model import HydroData
from ..parts.part import Context, ModelInfo, Part, Port
from .revolute import hinge_geometry

#: The values of ``[[bodies]] rotations``.
ROTATIONS: tuple[str, ...] = ("small", "large")
#: The values of ``[[bodies]] radiation_frame`` (large rotations only): the axes the
#: linear radiation and damping act in (:mod:`hydrofmu.runtime.bodies.dynamics`).
RADIATION_FRAMES: tuple[str, ...] = ("world", "body")

WHY_NOT_LINEAR = ("a body has rotations = \"large\" (its pose by a quaternion or a reduced "
                  "hinge angle, the Newton-Euler equations with their gyroscopic terms): not "
                  "a linear form; it is stepped by a Runge-Kutta time scheme (rk4, the "
                  "default), in the Python FMU and in the native FMU (with the linear parts "
                  "and the nonlinear hydrostatics); the exact scheme refuses it: remove "
                  "rotations = \"large\" for the linear model")


def large_bodies(config: dict[str, Any]) -> list[int]:
    """Indices of the moving bodies with ``rotations = "large"`` in a resolved
    configuration (a fixed body never turns)."""
    return [k for k, b in enumerate(config.get("bodies") or [])
            if b.get("rotations") == "large" and any(b["free_dofs"])]


def _kinematics(model: ModelInfo, k: int) -> BodyKinematics:
    """The kinematics of large-rotation body ``k``, with its radiation frame."""
    kin = _rotation_kind(model, k)
    kin.body_frame = model.config["bodies"][k].get("radiation_frame") == "body"
    return kin


def _rotation_kind(model: ModelInfo, k: int) -> BodyKinematics:
    """The kinematics of large-rotation body ``k`` (module docstring's rules)."""
    cfg = model.config
    body = cfg["bodies"][k]
    name = body["name"]
    hinge = None
    for j in cfg.get("joints") or []:
        if name not in j["bodies"]:
            continue
        index = [model.names.index(b) for b in j["bodies"]]
        other_fixed = len(index) == 1 or not any(cfg["bodies"][index[1]]["free_dofs"])
        if (j["kind"] != "revolute" or index[0] != k or not other_fixed
                or j.get("locked", False) or hinge is not None):
            raise ConfigError(
                f"body '{name}' has rotations = \"large\" and is in joint '{j['name']}' "
                f"({j['kind']}): a large-rotation body may be the first body of one "
                "unlocked revolute joint on the world or on a fixed body; use rotations = "
                "\"small\" for other joints", value=j["name"])
        _, _, axis, point = hinge_geometry(model.bodies, j, index, model.n)
        hinge = HingeRotation(index=k, name=name, axis=axis, point=point,
                              reference=np.asarray(model.bodies[k].reference_point, float))
    stiffness = np.asarray(body["hydrostatic_stiffness"], dtype=float)
    if np.any(stiffness[3:, :] != 0.0) or np.any(stiffness[:, 3:] != 0.0):
        raise ConfigError(
            f"body '{name}' has rotations = \"large\" and a linear hydrostatic stiffness in "
            "rotation (about its mean pose, meaningless at large angles): set nonlinear = "
            "\"mean\" or \"instantaneous\" with its mesh (the pressure on the hull at the true "
            "pose), or rotations = \"small\"", value="rotations")
    if hinge is not None:
        return hinge
    free = [i for i in range(3) if body["free_dofs"][3 + i]]
    if len(free) == 3:
        return FreeRotation(index=k, name=name)
    if len(free) == 1:
        return AxisRotation(index=k, name=name, axis=free[0])
    if not free:
        return NoRotation(index=k, name=name)
    raise ConfigError(
        f"body '{name}' has rotations = \"large\" with two rotations free "
        f"({', '.join(('roll', 'pitch', 'yaw')[i] for i in free)}): not a joint at large "
        "angles; free all three, one, or use a revolute joint", value=body["free_dofs"])


class LargeRotationPart(Part):
    """The large-rotation bodies' kinematics, quaternion states and outputs (module
    docstring).

    Attributes
    ----------
    kinematics
        One :class:`~hydrofmu.runtime.bodies.kinematics.BodyKinematics` per large-rotation
        body, in body order (their ``state_slice`` set once the simulator shifts
        :attr:`state_slice`).
    """

    kind = "rigid_body.large_rotation"
    channel = None
    active = False  # no force: the dynamics module assembles the equations

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        self.kinematics = [_kinematics(model, k) for k in large_bodies(model.config)]
        self.n_states = sum(b.n_states for b in self.kinematics)
        self.kernel: BodyKernel | None = None  # attached by the dynamics
        self._initial = np.zeros(self.n_states)
        offset = 0
        for b in self.kinematics:
            pose = [float(model.parameters[f"{b.name}.initial_pose[{i + 4}]"])
                    for i in range(3)]
            if b.n_states:
                self._initial[offset:offset + 4] = quaternion_from_matrix(
                    matrix_from_euler(*pose))
            offset += b.n_states
            model.report.append(f"{b.name}: large rotations, {b.description}, radiation "
                                f"and damping in {'body' if b.body_frame else 'world'} axes")
        if self.kinematics and model.config.get("joints"):
            model.report.append("large rotations: the joints' static-load stiffness "
                                "(joint.static_load) is left out, the arms turn exactly")

    @classmethod
    def output_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        return [Port(f"{config['bodies'][k]['name']}.quaternion[{i + 1}]", "1")
                for k in large_bodies(config) for i in range(4)]

    def attach(self, kernel: BodyKernel) -> None:
        """Use ``kernel`` (the model's, built by
        :class:`~hydrofmu.runtime.bodies.dynamics.LargeRotationDynamics`) for the quaternion
        rates and outputs."""
        self.kernel = kernel

    def place_states(self) -> None:
        """Give each free body its quaternion's slice of the state vector (after the
        simulator has shifted :attr:`state_slice`)."""
        offset = self.state_slice.start
        for b in self.kinematics:
            b.state_slice = slice(offset, offset + b.n_states)
            offset += b.n_states

    def force(self, ctx: Context) -> None:
        return None

    def initial_states(self) -> NDArray[np.float64]:
        return self._initial.copy()

    def derivative(self, ctx: Context) -> NDArray[np.float64]:
        assert self.kernel is not None  # attached when the simulator is built
        return self.kernel.quaternion_rates(ctx.y, ctx.v)  # q' = 1/2 [0, w] * q

    def outputs(self, ctx: Context) -> NDArray[np.float64]:
        assert self.kernel is not None
        return self.kernel.quaternions(ctx.y, ctx.q)

    def linear_system(self) -> None:
        return None

    def why_not_linear(self) -> str:
        return WHY_NOT_LINEAR

