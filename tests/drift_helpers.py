"""A small model that takes the native runtime's drift-and-current section
(``csrc/hfn_drift.c``): the default sphere with Newman drift from WAMIT's hemisphere
(``sphere.7``) in a short irregular sea, hull drag in a uniform current, stepped by rk4 in
the Runge-Kutta mode. Shared by the sanitizer oracle and the corruption tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydrofmu.config.configuration import default_config_data, resolve

SPHERE_DRIFT = (Path(__file__).resolve().parents[1] / "examples" / "data"
                / "mean_drift_sphere" / "sphere.7")


def drift_current_config(radiation: str = "constant") -> tuple[list[Any], dict[str, Any]]:
    """(bodies, config) of the small drift-and-current model (``radiation``: its method)."""
    data = default_config_data(
        radiation={"method": radiation},
        wave={"type": "irregular", "height": 2.0, "period": 8.0, "n_components": 6,
              "seed": 3, "ramp_time": 10.0},
        current={"profile": "uniform", "speed": 0.5, "direction": 0.3})
    data["bodies"] = [{"name": "body", "hydro": "builtin:sphere", "drift": "newman",
                       "drift_file": str(SPHERE_DRIFT),
                       "quadratic_damping": [5e4, 5e4, 5e4, 0.0, 0.0, 0.0]}]
    return resolve(data, Path.cwd(), where="drift-and-current test model")
