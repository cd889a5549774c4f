"""The user's model: a configuration resolved with its data, simulated in process or
exported as an FMU.

>>> import hydrofmu
>>> model = hydrofmu.Model.from_toml("examples/rm3/rm3.toml")        # doctest: +SKIP
>>> ds = model.simulate(stop_time=60.0, output_interval=0.1)          # doctest: +SKIP
>>> ds["float.pose[3]"].attrs["units"]                                # doctest: +SKIP
'm'
>>> model.build_fmu("RM3.fmu", name="RM3")                            # doctest: +SKIP
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..runtime.errors import ConfigError
from ..runtime.hydrodata.model import HydroData
from .results import InputSignal, input_function, to_dataset

if TYPE_CHECKING:
    import xarray

    from ..runtime.simulator.simulator import Simulator


class Model:
    """A floating-body model: the bodies' hydrodynamic data and the resolved configuration.

    Build it with :meth:`from_toml`, :meth:`from_dict` or :meth:`default`; then
    :meth:`simulate` runs it in this process (no FMU) and :meth:`build_fmu` exports it.

    Parameters
    ----------
    bodies
        Hydrodynamic data of each body, in the order of ``config["bodies"]``.
    config
        The resolved configuration (:func:`hydrofmu.config.configuration.resolve`).
    parts
        User part classes, or ``(class, options)`` pairs, added after the configured
        parts (see :class:`~hydrofmu.runtime.parts.part.Part`).
    """

    def __init__(self, bodies: Sequence[HydroData], config: dict[str, Any], *,
                 parts: Sequence[Any] = ()) -> None:
        self.bodies: list[HydroData] = list(bodies)
        self.config: dict[str, Any] = config
        self.parts: list[Any] = list(parts)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base_dir: str | os.PathLike[str] = ".", *,
                  parts: Sequence[Any] = (), where: str = "configuration") -> Model:
        """A model from a configuration dictionary (the TOML file's tables).

        Parameters
        ----------
        data
            The configuration, as ``tomllib`` reads it.
        base_dir
            Folder that relative data paths are taken from.
        parts
            User parts (see the class).
        where
            How error messages name the configuration.

        Raises
        ------
        ConfigError, HydroDataError
            A bad value (named, with the fix) or unreadable data.
        """
        from ..config.configuration import resolve
        from ..export.line_kernel_build import prepare_line_kernel

        prepare_line_kernel(data)  # MoorDyn lines: the compiled kernel, before the check
        bodies, config = resolve(dict(copy.deepcopy(data)), Path(base_dir), where=where)
        return cls(bodies, config, parts=parts)

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str], *, parts: Sequence[Any] = (),
                  **overrides: Any) -> Model:
        """A model from a TOML configuration file.

        Parameters
        ----------
        path
            The ``.toml`` file; data paths in it are relative to its folder.
        parts
            User parts (see the class).
        **overrides
            Sections to change before resolving, e.g. ``wave={"height": 2.0}`` (a table
            is updated key by key; a list such as ``bodies`` is replaced).
        """
        from ..config.configuration import load_config
        from ..export.line_kernel_build import prepare_line_kernel_for_file

        prepare_line_kernel_for_file(path, overrides)  # as from_dict
        bodies, config = load_config(path, overrides)
        return cls(bodies, config, parts=parts)

    @classmethod
    def default(cls, *, parts: Sequence[Any] = (), **overrides: Any) -> Model:
        """The embedded default body (a floating sphere, radius 5 m, Capytaine data), with
        sections overridden as in :meth:`from_toml`."""
        from ..config.configuration import apply_overrides, default_config_data

        return cls.from_dict(apply_overrides(default_config_data(), overrides), Path.cwd(),
                             parts=parts, where="default configuration")

    # ------------------------------------------------------------------ interface
    @property
    def input_names(self) -> list[str]:
        """The FMU's inputs, in order (``<body>.F_pto[1..6]``, ``wave.elevation_input``,
        the parts' inputs)."""
        from ..runtime.simulator.simulator import Simulator

        return Simulator.input_names(self.bodies, self.config, self.parts)

    @property
    def output_names(self) -> list[str]:
        """The FMU's outputs, in order."""
        from ..runtime.simulator.simulator import Simulator

        return Simulator.output_names(self.bodies, self.config, self.parts)

    @property
    def parameter_names(self) -> list[str]:
        """The FMU's parameters (what ``parameters=`` of :meth:`simulate` accepts)."""
        from ..runtime.simulator.layout import parameter_table

        return [p.name for p in parameter_table(self.bodies, self.config, self.parts)]

    @property
    def report(self) -> list[str]:
        """What the model chose with its default parameters (IRF lengths, cut-offs...)."""
        return list(self.config.get("report", []))

    def simulator(self, parameters: Mapping[str, Any] | None = None) -> Simulator:
        """A new in-process :class:`~hydrofmu.runtime.simulator.simulator.Simulator` of the
        model with these FMU parameter values (by name; the others at their defaults)."""
        from ..export.line_kernel_build import prepare_line_kernel
        from ..runtime.simulator.simulator import Simulator

        prepare_line_kernel(self.config)  # MoorDyn lines run the compiled kernel
        return Simulator(self.bodies, self.config, dict(parameters or {}), parts=self.parts)

    # ------------------------------------------------------------------ jobs
    def simulate(
        self,
        stop_time: float | None = None,
        output_interval: float | None = None,
        inputs: Mapping[str, InputSignal] | None = None,
        parameters: Mapping[str, Any] | None = None,
        *,
        start_time: float = 0.0,
        progress: Callable[[float], None] | None = None,
    ) -> xarray.Dataset:
        """Run the model in this process, as its FMU would run in an importer.

        Parameters
        ----------
        stop_time, output_interval
            s; default: ``[simulation]`` of the configuration. The output interval is the
            communication step: inputs are held over it, as fmpy holds them.
        inputs
            Input signals by input name (:attr:`input_names`): a number, a function of
            time ``f(t)`` or a pair ``(times, values)`` (linear interpolation, as fmpy).
            An input left out is 0.
        parameters
            FMU parameter values by name (:attr:`parameter_names`).
        start_time
            s.
        progress
            Called with the simulated time after each step (e.g. a progress bar).

        Returns
        -------
        xarray.Dataset
            A ``time`` coordinate (s) and one variable per output, each with ``units`` and
            ``description`` attributes; the dataset's attributes name the model.

        Raises
        ------
        ConfigError
            A bad time, input name or parameter value, before any work.
        IntegrationError
            A step that diverges (the message names the scheme and the fix).
        """
        sim_cfg = self.config.get("simulation", {})
        stop = float(sim_cfg.get("stop_time", 0.0) if stop_time is None else stop_time)
        h = float(sim_cfg.get("output_interval", 0.1) if output_interval is None
                  else output_interval)
        t0 = float(start_time)
        if not (np.isfinite(h) and h > 0.0):
            raise ConfigError(f"output_interval must be a finite number > 0 s, got {h!r}",
                              value=h)
        if not (np.isfinite(stop) and stop > t0):
            raise ConfigError(f"stop_time must be a finite number > start_time = {t0} s, got "
                              f"{stop!r}", value=stop)
        names = self.input_names
        signals = dict(inputs or {})
        unknown = sorted(set(signals) - set(names))
        if unknown:
            raise ConfigError(f"unknown input(s) {unknown}; the model's inputs: {names}",
                              value=unknown)
        sources = [input_function(n, signals[n]) if n in signals else None for n in names]
        sim = self.simulator(parameters)
        sim.initialize(t0)
        n = round((stop - t0) / h)
        time = t0 + np.arange(n + 1) * h
        u = np.zeros(len(names))
        values = np.empty((n + 1, sim.output_vector().size))

        def apply(t: float) -> None:
            for k, f in enumerate(sources):
                if f is not None:
                    u[k] = f(t)
            sim.set_input_vector(u)

        apply(time[0])
        values[0] = sim.output_vector()
        for i in range(n):
            apply(time[i])
            sim.step(time[i], h)
            values[i + 1] = sim.output_vector()
            if progress is not None:
                progress(time[i + 1])
        from ..runtime.simulator.simulator import Simulator

        units = Simulator.output_units(self.bodies, self.config, self.parts)
        return to_dataset(time, self.output_names, values, units,
                          attrs={"source": "hydrofmu.Model.simulate", "output_interval": h})

    def build_fmu(
        self,
        path: str | os.PathLike[str],
        *,
        name: str = "HydroFMU",
        parts: Sequence[Any] | None = None,
        overwrite: bool = False,
        native: bool | None = None,
        **options: Any,
    ) -> Path:
        """Export the model as an FMI 2.0 co-simulation FMU.

        Parameters
        ----------
        path
            The ``.fmu`` to write.
        name
            The model identifier (ASCII letters, digits and ``_``).
        parts
            User parts to bundle and run in the FMU; default: the model's own
            (:attr:`parts`). Their modules are copied into the FMU, so it runs where they
            cannot be imported.
        overwrite
            Replace an existing file.
        native
            True: the native FMU (:func:`~hydrofmu.export.native.build.build_native_fmu`: the
            linear model stepped by a small C runtime, no Python at run time; refused,
            with the parts named, for a model that is not linear or has user parts).
            None (default): as ``[export] runtime`` of the configuration says.
        **options
            Further options of :func:`hydrofmu.export.fmu.build_fmu` (``validate``,
            ``link_libpython``, ``uri_shim``, ``description``) or of the native build
            (``validate``, ``platforms``, ``description``).

        Returns
        -------
        Path
            The FMU's absolute path.
        """
        parts = self.parts if parts is None else parts
        if native is None:
            native = self.config.get("export", {}).get("runtime") == "native"
        if native:
            from ..export.native import build_native_fmu
            from ..runtime.errors import ExportError

            if parts:
                raise ExportError("a native FMU cannot carry user parts (its C runtime "
                                  "steps the assembled linear model only); build the Python "
                                  "FMU (native=False)", value=[repr(p) for p in parts])
            return build_native_fmu(self.bodies, self.config, path, model_name=name,
                                    overwrite=overwrite, **options)
        from ..export.fmu import build_fmu

        return build_fmu(self.bodies, self.config, path, model_name=name,
                         overwrite=overwrite, parts=parts, **options)


