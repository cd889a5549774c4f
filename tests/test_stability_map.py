"""The claim of docs/added_mass/stability_map.md, pinned on a sub-grid of the map.

``implicit`` (the added mass on the left side) is stable over the whole map, A33_inf / m
from 0.1 to 100 and internal steps up to 0.1 s; the delayed treatments are not, and the
map is only worth something if it can tell them apart: ``lagged`` diverges once
A33/m > 1 (its iteration a_n = (F - A a_{n-1}) / m amplifies by A/m per step), ``split``
(WEC-Sim's adjusted mass) at the long step. Shorter runs (20 s, 2.5 to 8 natural periods)
than the script's 40 s keep the cost down; the criterion is the script's own.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "added_mass" / "stability_map.py"
STOP = 20.0  # s


def _module():
    spec = importlib.util.spec_from_file_location("stability_map", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_implicit_is_stable_wherever_the_others_are_and_up_to_100() -> None:
    sm = _module()
    ratios, steps = (0.1, 1.0, 10.0, 100.0), (0.01, 0.1)
    maps = sm.stability_map(("implicit",), ratios, steps, stop=STOP)
    assert maps["implicit"].all(), maps["implicit"]
    # The others, where the map says they fail (each fails within a few seconds).
    others = {("lagged", 10.0, 0.01), ("lagged", 100.0, 0.1), ("split", 100.0, 0.1)}
    for method, ratio, step in others:
        res = sm.run_case(method, ratio, step, stop=STOP)
        assert not res["stable"], (method, ratio, step, res)
    # ... and where they hold (so the criterion does not call everything unstable).
    res = sm.run_case("lagged", 0.1, 0.1, stop=STOP)
    assert res["stable"] and np.isfinite(res["max_late"])


@pytest.mark.parametrize("step", [0.01, 0.1])
def test_lagged_diverges_exactly_beyond_the_closed_form_threshold(step: float) -> None:
    """The map's criterion against the closed form, not against its committed table:
    ``lagged`` iterates a_n = (F - A a_{n-1}) / m, which amplifies by A/m per step, so it
    is stable for A33/m < 1 and diverges above, whatever the step. 10 % either side of
    the threshold (A/m = 1 itself is marginal: no growth, no decay)."""
    sm = _module()
    below, above = sm.run_case("lagged", 0.9, step, stop=STOP), \
        sm.run_case("lagged", 1.1, step, stop=STOP)
    assert below["stable"] and np.isfinite(below["max_late"]), below
    assert not above["stable"], above
