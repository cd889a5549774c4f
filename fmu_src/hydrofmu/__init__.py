"""hydrofmu: floating bodies in waves, from BEM data to an FMI 2.0 co-simulation FMU.

The Python API::

    import hydrofmu

    model = hydrofmu.Model.from_toml("case.toml", wave={"height": 2.0})
    ds = model.simulate(stop_time=100.0, output_interval=0.1)   # xarray.Dataset, with units
    heave = ds.sel(body="body", dof="heave")["pose"]            # dimensions time, body, dof
    model.build_fmu("Case.fmu", model_name="Case")              # the FMU of the same model
    same = hydrofmu.simulate_fmu("Case.fmu")                    # its default experiment, fmpy

``Model.from_bem(dataset_or_path, mass=..., dofs=[...])`` builds a one-body model from BEM
data (a Capytaine dataset in memory or any data file). A force of your own is a
:class:`Part` subclass registered with :func:`register_part`;
``Model.from_toml(..., parts=[Mine])`` runs it and ``build_fmu`` bundles its module into the FMU.
"""

from .api.model import Model
from .cosim.simulate_fmu import simulate_fmu
from .io.readers import read_hydro, read_hydro_bodies
from .runtime.errors import (
    ConfigError,
    ExportError,
    HydroDataError,
    HydroFMUError,
    InputError,
    IntegrationError,
    OptionalDependencyError,
)
from .runtime.parameters.table import ParameterSpec
from .runtime.parts.part import Context, ModelInfo, Part, Port, register_part
from .runtime.version import __version__

__all__ = [
    "ConfigError",
    "Context",
    "ExportError",
    "HydroDataError",
    "HydroFMUError",
    "InputError",
    "IntegrationError",
    "Model",
    "ModelInfo",
    "OptionalDependencyError",
    "ParameterSpec",
    "Part",
    "Port",
    "__version__",
    "read_hydro",
    "read_hydro_bodies",
    "register_part",
    "simulate_fmu",
]
