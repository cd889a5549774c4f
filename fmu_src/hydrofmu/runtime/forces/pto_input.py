"""The PTO force inputs ``<body>.F_pto[1..6]``: applied as given (inertial frame, N, N m)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..hydrodata.model import HydroData
from ..parts.part import FORCE_UNITS, Context, LinearSystem, Part, Port


class PtoInputs(Part):
    """External forces from the FMU inputs, one 6-vector per body (not a separate output)."""

    kind = "pto_inputs"
    channel = None
    feedthrough = True
    forcing = True
    input_kind = "constant"  # the force is the input

    @classmethod
    def input_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                    options: dict[str, Any]) -> list[Port]:
        return [Port(f"{b['name']}.F_pto[{i + 1}]", FORCE_UNITS[i // 3])
                for b in config["bodies"] for i in range(6)]

    def force(self, ctx: Context) -> NDArray[np.float64]:
        return ctx.u[self.input_slice]

    def linear_system(self) -> LinearSystem:
        return LinearSystem(force_u=np.eye(self.n))
