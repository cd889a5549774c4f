"""``hydrofmu sweep``: one FMU over a table of sea states, on Dask (build time only).

- :mod:`.table`: the sea-state CSV and its FMU parameters;
- :mod:`.worker`: one sea state in one FMU instance (runs on a Dask worker);
- :mod:`.stats`: statistics over the communication points, power matrix, AEP, heat map;
- :mod:`.runner`: the cluster, the part files, ``--resume``, the merge.
"""

from .runner import SweepOptions, run_sweep
from .stats import annual_energy_production, power_matrix, window_statistics
from .table import SeaStateTable, read_sea_states

__all__ = [
    "SeaStateTable",
    "SweepOptions",
    "annual_energy_production",
    "power_matrix",
    "read_sea_states",
    "run_sweep",
    "window_statistics",
]
