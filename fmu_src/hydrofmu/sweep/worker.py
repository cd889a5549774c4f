"""One sea state in one FMU instance: the task that a Dask worker runs.

The FMU arrives as bytes (shipped once to every worker); each worker process writes and
unpacks it once, keyed by its SHA-256, and every task instantiates it afresh.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from .stats import window_statistics

_UNPACKED: dict[str, tuple[str, Any]] = {}
_LOCK = threading.Lock()


def fmu_digest(data: bytes) -> str:
    """SHA-256 of the FMU's bytes (hex)."""
    return hashlib.sha256(data).hexdigest()


def unpack(data: bytes, digest: str) -> tuple[str, Any]:
    """Write and extract the FMU once per process; returns (folder, model description)."""
    with _LOCK:
        if digest in _UNPACKED and Path(_UNPACKED[digest][0]).is_dir():
            return _UNPACKED[digest]
        from fmpy import extract, read_model_description

        root = Path(tempfile.mkdtemp(prefix=f"hydrofmu-sweep-{digest[:12]}-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        fmu = root / "model.fmu"
        fmu.write_bytes(data)
        if fmu_digest(fmu.read_bytes()) != digest:  # pragma: no cover - corrupted transfer
            raise RuntimeError("the FMU's bytes do not match their digest")
        folder = extract(str(fmu), unzipdir=str(root / "unzipped"))
        _UNPACKED[digest] = (folder, read_model_description(str(fmu)))
        return _UNPACKED[digest]


def output_names(model_description: Any) -> list[str]:
    """Every output of the FMU, in model-description order."""
    return [v.name for v in model_description.modelVariables if v.causality == "output"]


def run_sea_state(data: bytes, digest: str, *, index: int, start_values: dict[str, Any],
                  duration: float, transient: float, output_interval: float,
                  keep_series: bool = False) -> dict[str, Any]:
    """Simulate one sea state and reduce it to statistics.

    Parameters
    ----------
    data, digest
        The FMU's bytes and their :func:`fmu_digest`.
    index
        Row of the sea-state table (returned as is).
    start_values
        FMU parameters by name.
    duration, transient
        s: the run is [0, duration]; statistics over transient < t_k <= duration.
    output_interval
        Communication step h, s.
    keep_series
        Also return the time series of every output.

    Returns
    -------
    dict
        ``index``, ``status`` (``"ok"`` or ``"failed"``), ``message``, ``channels``,
        ``mean``, ``std``, ``min``, ``max`` (shape (n_channels,), NaN when failed), the
        worker's process id, and ``time``/``series`` with ``keep_series``.
    """
    out: dict[str, Any] = {"index": index, "status": "ok", "message": "", "pid": os.getpid()}
    messages: list[str] = []  # the FMU's warnings and errors: why a call was refused
    try:
        folder, md = unpack(data, digest)
        channels = output_names(md)
        out["channels"] = channels
        from fmpy import simulate_fmu

        from ..cosim.fmpy_logger import restore_default_logger

        def logger(component: Any, instance: Any, status: int, category: Any,
                   message: Any) -> None:
            if status >= 2:  # fmi2Warning and worse
                text = message.decode(errors="replace") if isinstance(message, bytes) else message
                messages.append(str(text))

        try:
            result = simulate_fmu(
                folder,
                model_description=md,
                start_time=0.0,
                stop_time=float(duration),
                output_interval=float(output_interval),
                start_values=dict(start_values),
                output=channels,
                validate=False,
                logger=logger,
                debug_logging=True,
            )
        finally:
            restore_default_logger()  # fmpy's proxy would keep this run's freed logger
        t = np.asarray(result["time"], dtype=float)
        if t.size == 0 or t[-1] < duration - 1e-6 * output_interval:
            # fmpy ends the run quietly when the FMU refuses a step (fmi2Discard/Error).
            stopped = t[-1] if t.size else 0.0
            raise RuntimeError(f"the FMU stopped at t = {stopped:g} s of {duration:g} s: "
                               + ("; ".join(dict.fromkeys(messages)) or "no message"))
        values = np.column_stack([np.asarray(result[c], dtype=float) for c in channels])
        stats = window_statistics(t, values, transient=transient, duration=duration,
                                  output_interval=output_interval)
        out.update(stats)
        if keep_series:
            out["time"], out["series"] = t, values
    except Exception as exc:  # any failure of one sea state is recorded, the sweep goes on
        n = len(out.get("channels", []))
        nan = np.full(n, np.nan)
        message = f"{type(exc).__name__}: {exc}".strip()
        if not str(exc):
            message += " " + traceback.format_exc(limit=2).splitlines()[-1]
        logged = [m for m in dict.fromkeys(messages) if m not in message]
        if logged:  # e.g. fmi2Error from fmi2ExitInitializationMode: the FMU said why
            message += " (" + "; ".join(logged) + ")"
        out.update(status="failed", message=message, mean=nan, std=nan, min=nan, max=nan)
    return out
