"""A user's own force, outside the hydrofmu package: a linear spring from a body's heave to
the seabed, ``F_3 = -k z`` with a tunable stiffness ``spring.stiffness`` (N/m), reported
in a new channel ``<body>.F_spring[1..6]`` and as the output ``spring.force`` (N)."""

from __future__ import annotations

from typing import Any

import numpy as np

from hydrofmu import Context, ModelInfo, ParameterSpec, Part, Port, register_part


class SeabedSpring(Part):
    kind = "user.seabed_spring"
    channel = "F_spring"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        self.stiffness = float(model.parameters["spring.stiffness"])

    @classmethod
    def parameter_specs(cls, bodies: list[Any], config: dict[str, Any],
                        options: dict[str, Any]) -> list[ParameterSpec]:
        return [ParameterSpec("spring.stiffness", "Real", float(options.get("stiffness", 1e5)),
                              "N/m", "Stiffness of the spring to the seabed", min=0.0,
                              tunable=True)]

    @classmethod
    def output_ports(cls, bodies: list[Any], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        return [Port("spring.force", "N")]

    def set_parameter(self, name: str, value: Any) -> bool:
        if name != "spring.stiffness":
            return False
        self.stiffness = float(value)
        return True

    def force(self, ctx: Context) -> np.ndarray:
        f = np.zeros(self.n)
        f[2] = -self.stiffness * ctx.q[2]
        return f

    def outputs(self, ctx: Context) -> np.ndarray:
        return np.array([-self.stiffness * ctx.q[2]])


register_part(SeabedSpring.kind, SeabedSpring)
