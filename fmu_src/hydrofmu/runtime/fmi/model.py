"""The model an FMU instance runs: its payload, user parts and identity (run time).

This module is run time (bundled in the FMU): it imports the rest of the project only with
relative imports. :class:`FmuModel` is read once, by the slave's constructor, from the
unpacked ``resources`` folder; it then builds the simulator for a set of parameter values
(at ``fmi2ExitInitializationMode`` and when a saved state with other parameters is
restored) and the variable table of the FMI face.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import HydroFMUError
from ..hydrodata.store import load_model
from ..loads.interface import LOAD_KIND
from ..loads.model import LoadModel
from ..parts.user import user_part_specs
from ..simulator.layout import parameter_table
from ..simulator.simulator import Simulator
from .state_schema import model_identity
from .variables import VariableTable

__all__ = ["MODEL_FILE", "FmuModel"]

#: Name of the payload file inside the FMU's ``resources`` folder (written by the export
#: with :func:`hydrofmu.runtime.hydrodata.store.save_model`).
MODEL_FILE = "model.npz"


@dataclass(frozen=True)
class FmuModel:
    """The payload of one FMU, as loaded by an instance.

    Attributes
    ----------
    bodies
        The hydrodynamic data of every body (``HydroData``), in the model's order.
    config
        The resolved configuration stored in the payload.
    parts
        The user parts the FMU was exported with, ``(class, options)`` pairs imported
        from the bundled package itself.
    identity
        :func:`~hydrofmu.runtime.fmi.state_schema.model_identity`: the FMU's GUID and the
        payload's hash; a saved FMU state of another identity is refused.
    """

    bodies: list[Any]
    config: dict[str, Any]
    parts: list[Any]
    identity: str

    @classmethod
    def load(cls, resources: str | Path, package: str) -> FmuModel:
        """Read the payload :data:`MODEL_FILE` of the unpacked ``resources`` folder.

        Parameters
        ----------
        resources
            The FMU's unpacked ``resources`` folder.
        package
            The run-time package the user parts are imported from (``_hydrofmu_<hash>``
            inside an FMU).

        Raises
        ------
        HydroFMUError
            When the payload file is missing or cannot be read.
        """
        model_path = Path(resources) / MODEL_FILE
        if not model_path.is_file():
            raise HydroFMUError(
                f"the FMU's model file '{model_path}' is missing: the FMU is incomplete; "
                "rebuild it with hydrofmu",
                value=str(model_path),
            )
        payload = load_model(model_path)
        bodies = list(payload["bodies"])
        config = dict(payload["config"])
        return cls(bodies=bodies, config=config, parts=user_part_specs(config, package),
                   identity=model_identity(resources, model_path))

    @property
    def face(self) -> type[Simulator] | type[LoadModel]:
        """What the FMU runs: the :class:`Simulator` (``[export] kind = "motion"``) or the
        :class:`~hydrofmu.runtime.loads.model.LoadModel` (``kind = "loads"``)."""
        loads = (self.config.get("export") or {}).get("kind") == LOAD_KIND
        return LoadModel if loads else Simulator

    def simulator(self, parameters: dict[str, Any]) -> Simulator | LoadModel:
        """A new simulator of this model with the given parameter values (checked by the
        simulator's constructor before it allocates anything)."""
        return self.face(self.bodies, self.config, parameters, parts=self.parts)

    def variable_table(self) -> VariableTable:
        """The FMI variables of this model (parameters, inputs, outputs), start values
        filled in; raises :class:`HydroFMUError` when the interface is inconsistent."""
        model = (self.bodies, self.config, self.parts)
        face = self.face
        return VariableTable(
            parameters=list(parameter_table(*model)),
            input_names=list(face.input_names(*model)),
            output_names=list(face.output_names(*model)),
            input_units=list(face.input_units(*model)),
            output_units=list(face.output_units(*model)),
            dependencies=dict(face.output_dependencies(*model)),
        )
