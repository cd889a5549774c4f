"""Run a sea-state table on Dask: the cluster, the part files, ``--resume``, the merge.

Every finished sea state is written at once to ``<output>.parts/sea_state_<i>.nc``; the
merged dataset is written when all are there. A part file carries a key (SHA-256 of the
configuration file, the hydrofmu version, the row, the duration, the transient and the
output interval), and ``--resume`` skips exactly the rows whose part file has the same key.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..io.output_paths import check_output_path, public_permissions
from ..progress import Progress
from ..runtime.errors import ConfigError, ExportError, require
from ..runtime.version import __version__
from .stats import (
    annual_energy_production,
    parameter_settings,
    plot_power_matrix,
    power_channels,
    power_matrix,
    setting_label,
    write_power_matrix,
)
from .table import SeaStateTable, read_sea_states
from .worker import fmu_digest, run_sea_state

PART_PREFIX = "sea_state_"
FMU_NAME = "HydroSweep.fmu"
"""The FMU of the sweep, kept in the parts folder."""


@dataclass(frozen=True, kw_only=True)
class SweepOptions:
    """Options of ``hydrofmu sweep``.

    Attributes
    ----------
    duration, transient
        s (defaults 3 h and 300 s); statistics over transient < t_k <= duration.
    workers
        Worker processes of the local cluster (default: the machine's cores).
    scheduler
        Address of an existing Dask scheduler (``tcp://HOST:PORT``) instead.
    resume
        Skip the sea states whose part file is written (with the same key).
    series
        Also keep each sea state's time series (``<output>.series/sea_state_<i>.nc``).
    plot
        Draw the power matrix as a heat map (with PTO power outputs).
    force
        Overwrite existing outputs and part files.
    progress
        Progress bar over sea states on stderr.
    """

    duration: float = 10800.0
    transient: float = 300.0
    workers: int | None = None
    scheduler: str | None = None
    resume: bool = False
    series: bool = False
    plot: bool = False
    force: bool = False
    progress: bool = True

    def __post_init__(self) -> None:
        for name in ("duration", "transient"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and np.isfinite(value) and value >= 0):
                raise ConfigError(f"--{name} = {value!r} must be a finite number of s >= 0",
                                  value=value)
        if self.duration <= self.transient:
            raise ConfigError(f"--duration ({self.duration} s) must exceed --transient "
                              f"({self.transient} s)", value=self.duration)
        if self.workers is not None and (not isinstance(self.workers, int)
                                         or self.workers < 1):
            raise ConfigError(f"--workers = {self.workers!r} must be a positive integer",
                              value=self.workers)
        if self.scheduler is not None and self.workers is not None:
            raise ConfigError("--workers and --scheduler exclude each other: the workers of "
                              "an existing cluster are that cluster's", value=self.scheduler)


@dataclass
class SweepResult:
    """What :func:`run_sweep` did.

    Attributes
    ----------
    dataset
        The merged xarray Dataset (also written to the output).
    computed
        Indices of the sea states computed in this call (not resumed).
    files
        Files written (output, power matrix, plot).
    summary
        Lines to print.
    """

    dataset: Any
    computed: list[int] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)


def parts_folder(output: Path) -> Path:
    """The folder of the part files of ``output``."""
    return output.with_name(output.name + ".parts")


def _key(config_text: bytes, row: dict[str, Any], options: SweepOptions, h: float) -> str:
    blob = json.dumps({"config": hashlib.sha256(config_text).hexdigest(),
                       "version": __version__, "row": row, "duration": options.duration,
                       "transient": options.transient, "output_interval": h,
                       "series": options.series}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def write_netcdf_atomically(ds: Any, path: Path) -> None:
    """Write ``ds`` to ``path`` through a temporary file beside it (never half-written),
    with the mode of a newly created file (``0666 & ~umask``)."""
    fd, tmp = tempfile.mkstemp(suffix=".nc", prefix=".tmp_", dir=path.parent)
    os.close(fd)
    try:
        ds.to_netcdf(tmp, engine="h5netcdf")
        public_permissions(tmp)  # mkstemp's file is private (0600)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _part_dataset(result: dict[str, Any], channels: list[str], key: str) -> Any:
    import xarray as xr

    n = len(channels)
    data = {name: (("channel",), np.asarray(result.get(name, np.full(n, np.nan)), dtype=float)
                   if len(np.atleast_1d(result.get(name, []))) == n else np.full(n, np.nan))
            for name in ("mean", "std", "min", "max")}
    ds = xr.Dataset(data, coords={"channel": channels})
    ds["status"] = ((), result["status"])
    ds["message"] = ((), result["message"])
    ds.attrs.update({"key": key, "index": int(result["index"]), "worker_pid": result["pid"]})
    return ds


def _read_part(path: Path) -> Any:
    import xarray as xr

    with xr.open_dataset(path, engine="h5netcdf") as ds:
        return ds.load()


def _build(config: Path, workdir: Path) -> tuple[bytes, dict[str, str], list[str], float]:
    """Build the FMU once: (bytes, parameters name -> type, outputs, output interval)."""
    from fmpy import read_model_description

    from ..config.configuration import load_config
    from ..export.fmu import build_fmu
    from ..export.line_kernel_build import prepare_line_kernel_for_file

    prepare_line_kernel_for_file(config, {})  # MoorDyn lines: the kernel for the check
    bodies, cfg = load_config(config)
    fmu = build_fmu(bodies, cfg, workdir / FMU_NAME, model_name="HydroSweep",
                    overwrite=True)
    md = read_model_description(str(fmu))
    params = {v.name: v.type for v in md.modelVariables if v.causality == "parameter"}
    outputs = [v.name for v in md.modelVariables if v.causality == "output"]
    return fmu.read_bytes(), params, outputs, float(cfg["simulation"]["output_interval"])


def _client(options: SweepOptions) -> tuple[Any, Any]:
    distributed = require("distributed", "sweep")
    if options.scheduler is not None:
        try:
            return distributed.Client(options.scheduler, timeout=30), None
        except (OSError, TimeoutError) as exc:
            raise ConfigError(f"cannot reach the Dask scheduler at {options.scheduler}: {exc}",
                              value=options.scheduler) from exc
    workers = options.workers or os.cpu_count() or 1
    cluster = distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, silence_logs=logging.ERROR,
    )
    return distributed.Client(cluster), cluster


def _compute(todo: list[int], table: SeaStateTable, fmu: bytes, h: float,
             options: SweepOptions, on_result: Callable[[dict[str, Any]], None]) -> None:
    """Submit ``todo`` to Dask and hand each result to ``on_result`` as it finishes."""
    distributed = require("distributed", "sweep")
    client, cluster = _client(options)
    try:
        digest = fmu_digest(fmu)
        shipped = client.scatter(fmu, broadcast=True, hash=False)
        futures = [
            client.submit(run_sea_state, shipped, digest, index=i,
                          start_values=table.start_values(i), duration=options.duration,
                          transient=options.transient, output_interval=h,
                          keep_series=options.series, key=f"hydrofmu-sea-state-{i}-{digest[:8]}",
                          pure=False)
            for i in todo
        ]
        bar = Progress(len(futures), enabled=options.progress, unit="sea state", desc="sweep")
        try:
            for future in distributed.as_completed(futures):
                on_result(future.result())
                bar.update()
        finally:
            bar.close()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def merge(table: SeaStateTable, parts: list[Any], channels: list[str]) -> Any:
    """The sweep dataset: dims (sea_state, channel), the table as coordinates."""
    import xarray as xr

    ds = xr.concat([p.drop_attrs() if hasattr(p, "drop_attrs") else p for p in parts],
                   dim="sea_state")
    ds = ds.assign_coords(sea_state=np.arange(len(table)), channel=channels)
    for name, values in table.columns.items():
        ds = ds.assign_coords({name: ("sea_state", values)})
    units = {"Hs": "m", "Tp": "s", "direction": "rad", "occurrence": "h/yr"}
    for name, unit in units.items():
        if name in ds.coords:
            ds[name].attrs["units"] = unit
    ds["status"] = ds["status"].astype(str)
    ds["message"] = ds["message"].astype(str)
    for name, text in (("mean", "mean"), ("std", "standard deviation (ddof 0)"),
                       ("min", "minimum"), ("max", "maximum")):
        ds[name].attrs["long_name"] = f"{text} over transient < t_k <= duration"
    ds.attrs = {}
    return ds


def run_sweep(config: str | Path, seas: str | Path, output: str | Path,
              options: SweepOptions | None = None) -> SweepResult:
    """``hydrofmu sweep``: every row of ``seas`` through the FMU built from ``config``.

    Parameters
    ----------
    config
        TOML configuration of the model.
    seas
        Sea-state table (see :func:`~hydrofmu.sweep.table.read_sea_states`).
    output
        NetCDF file of the merged dataset.
    options
        See :class:`SweepOptions`.

    Returns
    -------
    SweepResult

    Raises
    ------
    ConfigError
        Bad options, an unknown table column, existing outputs without ``force`` or
        ``resume``, a scheduler that cannot be reached.
    OptionalDependencyError
        Dask's ``distributed`` is missing (the extra ``sweep``).
    """
    options = options or SweepOptions()
    require("distributed", "sweep")
    config, seas, output = Path(config), Path(seas), Path(output)
    if not config.is_file():
        raise ConfigError(f"configuration '{config}' does not exist", value=str(config))
    if not seas.is_file():  # before the build; its columns are checked against the FMU's
        raise ConfigError(f"--sea-states {seas}: no such file", value=str(seas))
    if output.exists() and not (options.force or options.resume):
        raise ConfigError(f"{output} exists; pass --resume, --force or another path",
                          value=str(output))
    # Its folder also receives the power matrices, the plots and the part folders.
    check_output_path(output, "-o", force=True)
    parts_dir = parts_folder(output)
    if parts_dir.exists() and any(parts_dir.iterdir()) and not options.resume:
        if not options.force:
            raise ConfigError(f"{parts_dir} holds part files of an earlier sweep; pass "
                              "--resume to continue it or --force to start over",
                              value=str(parts_dir))
    with tempfile.TemporaryDirectory(prefix="hydrofmu-sweep-") as tmp:
        fmu, params, channels, h = _build(config, Path(tmp))
    table = read_sea_states(seas, fmu_parameters=params)
    if options.duration < 2 * h:
        raise ConfigError(f"--duration {options.duration} s is shorter than two output "
                          f"intervals ({h} s)", value=options.duration)
    if parts_dir.exists() and options.force and not options.resume:
        shutil.rmtree(parts_dir)
    parts_dir.mkdir(exist_ok=True)
    (parts_dir / FMU_NAME).write_bytes(fmu)  # the FMU that ran, to reproduce any sea state
    series_dir = output.with_name(output.name + ".series")
    if options.series:
        series_dir.mkdir(exist_ok=True)
    text = config.read_bytes()
    keys = [_key(text, table.row(i), options, h) for i in range(len(table))]
    paths = [parts_dir / f"{PART_PREFIX}{i:05d}.nc" for i in range(len(table))]
    todo = []
    for i, path in enumerate(paths):
        if options.resume and path.exists():
            try:
                if _read_part(path).attrs.get("key") == keys[i]:
                    continue
            except (OSError, ValueError):
                pass  # an unreadable part file is computed again
        todo.append(i)

    computed: list[int] = []

    def on_result(result: dict[str, Any]) -> None:
        i = int(result["index"])
        if result["status"] == "ok" and list(result["channels"]) != channels:
            raise ExportError("a worker ran an FMU with other outputs", value=i)
        if options.series and "series" in result:
            import xarray as xr

            series = xr.Dataset({"value": (("time", "channel"), result["series"])},
                                coords={"time": result["time"], "channel": channels})
            write_netcdf_atomically(series, series_dir / f"{PART_PREFIX}{i:05d}.nc")
        write_netcdf_atomically(_part_dataset(result, channels, keys[i]), paths[i])
        computed.append(i)

    if todo:
        _compute(todo, table, fmu, h, options, on_result)
    ds = merge(table, [_read_part(p) for p in paths], channels)
    ds.attrs.update({
        "title": "hydrofmu sweep",
        "configuration": config.name,
        "sea_states": seas.name,
        "duration_s": options.duration,
        "transient_s": options.transient,
        "output_interval_s": h,
        "statistics_window": "transient < t_k <= duration, t_k = k * output_interval",
        "hydrofmu_version": __version__,
    })
    status = ds["status"].values
    n_failed = int(np.sum(status != "ok"))
    summary = [f"{len(table)} sea states: {len(table) - n_failed} ok, {n_failed} failed; "
               f"{len(computed)} computed now, {len(table) - len(computed)} resumed"]
    for i in np.nonzero(status != "ok")[0]:
        summary.append(f"  sea state {i}: {ds['message'].values[i]}")
    files = []
    if power_channels(channels):
        # One power matrix (and AEP) per setting of the parameter columns (e.g. each PTO
        # damping of a damping sweep): averaging over settings would mean nothing.
        settings = parameter_settings(table.columns, table.parameters)
        for setting, rows in settings:
            label = setting_label(setting) if len(settings) > 1 else ""
            sub = ds.isel(sea_state=np.flatnonzero(rows))
            hs, tp, matrix = power_matrix(sub)
            pm = output.with_name(f"power_matrix{label}.csv")
            files.append(write_power_matrix(hs, tp, matrix, pm))
            if options.plot:
                png = output.with_name(f"{output.stem}{label}.png")
                files.append(plot_power_matrix(hs, tp, matrix, png))
            if "occurrence" in table.columns:
                aep = annual_energy_production(sub)
                ds.attrs[f"annual_energy_production_kWh{label}"] = aep
                hours = float(np.sum(table.columns["occurrence"][rows]))
                where = (" with " + ", ".join(f"{k} = {v:.6g}" for k, v in setting.items())
                         if label else "")
                summary.append(f"annual energy production{where}: {aep:.6g} kWh "
                               f"({hours:.6g} h/yr of occurrence)")
    elif options.plot:
        summary.append("no pto.<name>.power output: no power matrix to plot")
    write_netcdf_atomically(ds, output)
    return SweepResult(dataset=ds, computed=sorted(computed), files=[output, *files],
                       summary=summary)
