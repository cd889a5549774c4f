"""The user's model: a configuration resolved with its data, simulated in process or
exported as an FMU.

>>> import hydrofmu
>>> model = hydrofmu.Model.from_toml("examples/rm3/rm3.toml")        # doctest: +SKIP
>>> ds = model.simulate(stop_time=60.0, output_interval=0.1)          # doctest: +SKIP
>>> ds["float.pose[3]"].attrs["units"]                                # doctest: +SKIP
'm'
>>> ds.sel(body="float", dof="heave")["pose"].attrs["units"]           # doctest: +SKIP
'm (surge, sway, heave); rad (roll, pitch, yaw)'
>>> model.build_fmu("RM3.fmu", model_name="RM3")                      # doctest: +SKIP
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
from ..runtime.parameters.table import config_value
from .dimensions import add_dimensions
from .results import InputSignal, input_function, to_dataset

if TYPE_CHECKING:
    import xarray


class Model:
    """A floating-body model: the bodies' hydrodynamic data and the resolved configuration.

    Build it with :meth:`from_toml`, :meth:`from_dict`, :meth:`from_bem` or
    :meth:`default`; then :meth:`simulate` runs it in this process (no FMU) and
    :meth:`build_fmu` exports it. The constructor takes what those return (data and a
    resolved configuration); it is not the way in for a user.

    The stepping object is not handed out: :meth:`simulate` is the public way to run the
    model. Code that needs the run-time matrices (a frequency-domain check, as
    ``examples/oswec/plot_oswec.py``) builds the run time's own
    ``hydrofmu.runtime.simulator.simulator.Simulator(model.bodies, model.config,
    parameters, parts=model.parts)``, an internal class whose interface may change.

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
    def from_bem(cls, data: str | os.PathLike[str] | xarray.Dataset, *,
                 body: str | None = None, name: str | None = None,
                 parts: Sequence[Any] = (), **config: Any) -> Model:
        """A one-body model from BEM data: a Capytaine ``xarray.Dataset`` or a data file.

        >>> ds = cpt.BEMSolver().fill_dataset(test_matrix, body)      # doctest: +SKIP
        >>> model = hydrofmu.Model.from_bem(ds, mass=2.6e5, inertia=[2e7, 2e7, 3e7],
        ...                                 dofs=["heave"], wave={"height": 2.0})  # doctest: +SKIP

        Parameters
        ----------
        data
            The dataset (as ``cpt.assemble_dataset`` or ``BEMSolver.fill_dataset`` return it,
            or a file opened with ``xarray.open_dataset``; complex values as complex
            variables or on a ``complex`` dimension), or the path of any file a reader
            takes (``.nc``, ``.h5``/``.hdf5``, ``.out``; relative to the working folder).
        body
            Which body of the data, when it holds several.
        name
            The body's name in the model (its FMU variables' prefix); default ``body``
            or the ``body`` chosen.
        parts
            User parts (see the class).
        **config
            The body's keys of a ``[[bodies]]`` entry (``mass`` in kg or
            ``"equilibrium"``, ``inertia`` kg m^2, ``cog`` m, ``dofs``,
            ``initial_pose``...) and whole sections as in :meth:`from_toml`
            (``wave={"height": 2.0}``, ``simulation={...}``, ``moorings=[...]``). A table
            (dict) given as ``radiation`` or ``added_mass`` is the section; anything else
            under those names is the body's key (``radiation="state_space"``, the 6x6
            ``added_mass``). Without ``mass``, ``cog`` and ``inertia`` the data's own
            mass matrix is used where it has one.

        Raises
        ------
        ConfigError, HydroDataError
            An unknown keyword (with the accepted ones), a bad value or unreadable data.
        """
        from ..config.bodies import BODY_KEYS
        from ..config.configuration import SECTIONS, resolve
        from ..io.capytaine import is_dataset
        from ..runtime.errors import did_you_mean

        entry: dict[str, Any] = {"name": name or body or "body",
                                 "hydro": data if is_dataset(data) else
                                 str(Path(data).expanduser().resolve())}
        if body is not None:
            entry["hydro_body"] = body
        tables: dict[str, Any] = {}
        for key, value in config.items():
            if key in SECTIONS and key != "bodies" and (
                    isinstance(value, Mapping) or key not in BODY_KEYS):
                tables[key] = copy.deepcopy(value)
            elif key in BODY_KEYS and key not in ("name", "hydro", "hydro_body"):
                entry[key] = copy.deepcopy(value)
            else:
                choices = sorted({*BODY_KEYS, *SECTIONS} - {"name", "hydro", "hydro_body",
                                                            "bodies"})
                raise ConfigError(f"Model.from_bem: unknown keyword {key!r}"
                                  f"{did_you_mean(key, choices)}; a body key or a section: "
                                  f"{', '.join(choices)}", value=key)
        bodies, resolved = resolve({**tables, "bodies": [entry]}, Path.cwd(),
                                   where="Model.from_bem")
        return cls(bodies, resolved, parts=parts)

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

    # ------------------------------------------------------------------ jobs
    def simulate(
        self,
        stop_time: float | None = None,
        output_interval: float | None = None,
        inputs: Mapping[str, InputSignal] | None = None,
        parameters: Mapping[str, Any] | None = None,
        *,
        start_time: float | None = None,
        progress: Callable[[float], None] | None = None,
    ) -> xarray.Dataset:
        """Run the model in this process, as its FMU would run in an importer.

        Parameters
        ----------
        stop_time, output_interval, start_time
            s; default: ``[simulation]`` of the configuration. The output interval is the
            communication step: inputs are held over it, as fmpy holds them.
        inputs
            Input signals by input name (:attr:`input_names`): a number, a function of
            time ``f(t)`` or a pair ``(times, values)`` (linear interpolation, as fmpy).
            An input left out is 0.
        parameters
            FMU parameter values by name (:attr:`parameter_names`).
        progress
            Called with the simulated time after each step (e.g. a progress bar).

        Returns
        -------
        xarray.Dataset
            A ``time`` coordinate (s); the six-vectors per body over ``body`` and ``dof``
            (``pose``, ``velocity``...), the joints', PTOs' and mooring lines' outputs over
            ``joint``, ``pto`` and ``line`` (:func:`~hydrofmu.api.dimensions.add_dimensions`);
            and one variable per output under its FMU name (``float.pose[3]``), each with
            ``units`` and ``description`` attributes; the dataset's attributes name the
            model.

        Raises
        ------
        ConfigError
            A bad time, input name or parameter value, before any work.
        IntegrationError
            A step that diverges (the message names the scheme and the fix).
        """
        from ..config.run_settings import check_simulation

        given = {"start_time": start_time, "stop_time": stop_time,
                 "output_interval": output_interval}
        times = {key: config_value(self.config, "simulation", key) if value is None
                 else value for key, value in given.items()}
        # The one check of the times (as `hydrofmu run` checks them); an argument given
        # here is named as the argument, a default as its [simulation] key.
        check_simulation(times, {k: k for k, v in given.items() if v is not None})
        t0, stop, h = (float(times[k]) for k in ("start_time", "stop_time", "output_interval"))
        names = self.input_names
        signals = dict(inputs or {})
        unknown = sorted(set(signals) - set(names))
        if unknown:
            raise ConfigError(f"unknown input(s) {unknown}; the model's inputs: {names}",
                              value=unknown)
        sources = [input_function(n, signals[n]) if n in signals else None for n in names]
        from ..runtime.simulator.simulator import Simulator

        sim = Simulator(self.bodies, self.config, dict(parameters or {}), parts=self.parts)
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
        units = Simulator.output_units(self.bodies, self.config, self.parts)
        return add_dimensions(to_dataset(
            time, self.output_names, values, units,
            attrs={"source": "hydrofmu.Model.simulate", "output_interval": h}))

    def build_fmu(
        self,
        path: str | os.PathLike[str],
        *,
        model_name: str = "HydroFMU",
        parts: Sequence[Any] | None = None,
        overwrite: bool = False,
        native: bool | None = None,
        on_note: Callable[[str], None] | None = None,
        **options: Any,
    ) -> Path:
        """Export the model as an FMI 2.0 co-simulation FMU: the native FMU whenever the
        model allows, else the Python FMU (as ``hydrofmu build``).

        Parameters
        ----------
        path
            The ``.fmu`` to write.
        model_name
            The model identifier (ASCII letters, digits and ``_``), as
            :func:`hydrofmu.export.fmu.build_fmu` names it.
        parts
            User parts to bundle and run in the FMU; default: the model's own
            (:attr:`parts`). Their modules are copied into the FMU, so it runs where they
            cannot be imported; a model with user parts makes the Python FMU.
        overwrite
            Replace an existing file.
        native
            None (default): as ``[export] runtime`` says, ``"auto"`` by default: the native
            FMU (:func:`~hydrofmu.export.native.build.build_native_fmu`: the model stepped
            by a small C runtime, no Python at run time) when the model allows it, else the
            Python FMU (:func:`hydrofmu.export.fmu.build_fmu`), as
            :func:`~hydrofmu.export.native.build.choose_runtime` says. True: the native
            FMU, refused with the reason when the model does not allow it; False: the
            Python FMU (``--python``). ``link_libpython`` or ``uri_shim`` ask for the
            Python FMU.
        on_note
            Called with each note of the build (which FMU and why, the platforms left
            out of a native FMU); default: none for the choice, a ``UserWarning`` for a
            native FMU without every platform.
        **options
            Further options of :func:`hydrofmu.export.fmu.build_fmu` (``validate``,
            ``link_libpython``, ``uri_shim``, ``description``, ``on_stage``) or of the native
            build (``validate``, ``platforms``, ``description``).

        Returns
        -------
        Path
            The FMU's absolute path.

        Raises
        ------
        ExportError
            ``native=True`` for a model the native runtime cannot step (named, with the
            fix), or a failed build.
        """
        from ..export.native.build import choose_runtime

        parts = self.parts if parts is None else parts
        python_only = sorted(k for k in ("link_libpython", "uri_shim") if options.get(k))
        asked_by = None if native is None else f"native={native}"
        if native is None and python_only:  # options of the Python FMU ask for it
            native, asked_by = False, f"{python_only[0]}=True"
        choice = choose_runtime(self.bodies, self.config, parts,
                                None if native is None else ("native" if native else "python"),
                                asked_by=asked_by)
        if on_note is not None:
            on_note(choice.note)
        if not choice.native:
            from ..export.fmu import build_fmu

            options.pop("platforms", None)
            return build_fmu(self.bodies, self.config, path, model_name=model_name,
                             overwrite=overwrite, parts=parts, **options)
        if python_only:
            raise ConfigError(f"{', '.join(python_only)} apply to the Python FMU only; "
                              "drop them or build with native=False", value=python_only)
        from ..export.native import build_native_fmu

        options.pop("on_stage", None)  # the native build has no stages to report
        return build_native_fmu(self.bodies, self.config, path, model_name=model_name,
                                overwrite=overwrite, on_note=on_note, **options)
