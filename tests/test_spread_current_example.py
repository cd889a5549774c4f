"""The example of issue 27 (``examples/spread_current``): the moored OC3-Hywind spar in a
short-crested sea with a current builds with every part on, and a short run moves the spar
down-current and down-wave (the example's plot script runs the full 1800 s)."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import hydrofmu

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "spread_current"


def test_spread_current_example_builds_and_runs() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the NEMOH data's own notes
        model = hydrofmu.Model.from_toml(EXAMPLE / "spar_spread_current.toml")
    report = "\n".join(model.report)
    for words in ("short-crested sea: cos-2s spreading, s = 10", "current: power law",
                  "drift 'newman'", "MoorDyn file oc3_lines.txt", "c kernel"):
        assert words in report
    ds = model.simulate(40.0, 0.5)
    for name in ("spar.pose[1]", "spar.pose[2]", "spar.F_drift[1]", "spar.F_viscous[2]",
                 "mooring.line1.T_fairlead"):
        assert np.all(np.isfinite(ds[name].values)), name
    # the current (toward -30 deg) pushes the hull's drag toward -y from the first step
    # (the waves are ramped over 60 s): the sway drag force is negative at the start
    f_sway = ds["spar.F_viscous[2]"].values[1:20]
    assert np.all(f_sway < 0.0)
    b = 7.0e5 * (1.0 * math.sin(-0.524)) ** 2  # B_quad (U sin d)^2 at rest
    assert abs(ds["spar.F_viscous[2]"].values[0]) == pytest.approx(b, rel=1e-12)
