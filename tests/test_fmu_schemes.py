"""Every time scheme through the FMU (fmpy, isolated driver): measured order on the
default sphere in heave, rollback with a multistep and a semi-implicit scheme, and
divergence reports. One FMU build (the default body), many runs in one driver call."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config
from hydrofmu.export.fmu import build_fmu
from hydrofmu.runtime.schemes.registry import SCHEMES, make_scheme
from hydrofmu.runtime.schemes.semi_implicit import SemiImplicit
from test_fmu import FMI_DISCARD, FMI_OK, drive

pytestmark = [pytest.mark.fmu, pytest.mark.slow]

#: Every fixed name and each semi-implicit family with 3 substeps.
NAMES = sorted(
    [n for n, c in SCHEMES.items() if not issubclass(c, SemiImplicit)]
    + [f"{c.name}3" for c in SCHEMES.values() if issubclass(c, SemiImplicit)]
)
HEAVE = ["body.pose[3]", "body.velocity[3]"]
#: Internal steps h, h/2, h/4 (s); the sphere in heave has w_n ~ 1.4 rad/s, so w h <= 0.07:
#: asymptotic regime, and Euler (zeta ~ 0.06) is stable.
STEPS = (0.05, 0.025, 0.0125)


@pytest.fixture(scope="module")
def sphere_fmu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bodies, config = default_config()
    folder = tmp_path_factory.mktemp("schemes") / "scheme fmus"
    folder.mkdir()
    return build_fmu(bodies, config, folder / "Schemes.fmu")


def heave_decay(scheme: str, h: float) -> dict:
    return {
        "parameters": {"time_scheme": scheme, "max_internal_step": h, "wave.type": "none",
                       "radiation.method": "constant", "body.initial_pose[3]": 1.0},
        "dt": 0.5, "steps": 8, "outputs": HEAVE,
    }


def test_measured_order_through_the_fmu(sphere_fmu: Path, tmp_path: Path) -> None:
    """Heave decay from 1 m, constant A33, B33 (a pure linear ODE), 4 s, communication
    every 0.5 s (a multiple of every internal step). The error of step h is estimated
    by |x(h) - x(h/2)| (Richardson): the measured order log2(e(h) / e(h/2)) is within
    0.3 of the nominal order for every scheme. Smallest difference (ab5): ~1e-9 m, six
    orders above round-off."""
    runs = [heave_decay(name, h) for name in NAMES for h in STEPS]
    r = drive("sweep", {"fmu": str(sphere_fmu), "runs": runs}, tmp_path)["runs"]
    measured = {}
    for i, name in enumerate(NAMES):
        finals = []
        for j in range(len(STEPS)):
            run = r[3 * i + j]
            assert run["statuses"] == [FMI_OK] * 8, (name, run["messages"][-2:])
            finals.append(np.array(run["rows"][-1]) * np.array([1.0, 1.0 / 1.4]))
        e1 = float(np.max(np.abs(finals[0] - finals[1])))
        e2 = float(np.max(np.abs(finals[1] - finals[2])))
        measured[name] = math.log2(e1 / e2)
    print("measured orders through the FMU:", {k: round(v, 2) for k, v in measured.items()})
    for name, order in measured.items():
        assert order == pytest.approx(make_scheme(name).order, abs=0.3), (name, measured)


@pytest.mark.parametrize(("scheme", "h"), [("ab3", 0.03), ("midpoint5", 0.01)])
def test_rollback_and_serialization_are_bit_identical(
    sphere_fmu: Path, tmp_path: Path, scheme: str, h: float
) -> None:
    """Get the state at t1, run to t2, set it back, run to t2 again: identical outputs;
    the same through serialize / deserialize into a fresh instance. ab3 with 0.03 s
    internal steps and 0.05 s communication steps: off-grid steps in every interval, so
    its history (grid and off-grid derivatives) is part of the state."""
    r = drive(
        "state",
        {
            "fmu": str(sphere_fmu), "dt": 0.05, "steps_before": 37, "steps_after": 25,
            "input_name": "body.F_pto[3]", "input_value": 2.0e4,
            "parameters": {"time_scheme": scheme, "max_internal_step": h},
        },
        tmp_path,
    )
    reference = np.array(r["reference"])
    assert reference.shape[0] == 25 and np.all(np.isfinite(reference))
    assert np.array_equal(np.array(r["restored"]), reference)
    assert np.array_equal(np.array(r["deserialized"]), reference)


def test_divergence_is_discarded_with_finite_outputs(sphere_fmu: Path, tmp_path: Path) -> None:
    """Two ways to diverge: explicit Euler with 2 s internal steps on the heave (w h ~ 2.9:
    growth ~3x a step, caught by the simulator's divergence limit), and beuler4 with 50 s
    steps (w h ~ 70: the unrelaxed fixed-point iteration grows ~(w h)^2 a pass, caught by
    the scheme, whose message names it). Both: fmi2Discard, a message with advice, the
    outputs finite."""
    runs = [
        {"parameters": {"time_scheme": "euler", "max_internal_step": 2.0,
                        "body.initial_pose[3]": 1.0}, "dt": 2.0, "steps": 200,
         "outputs": HEAVE},
        # a free decay (no wave): a 50 s step cannot resolve an 8 s wave, which the
        # parameter checks refuse before any step
        {"parameters": {"time_scheme": "beuler4", "max_internal_step": 50.0,
                        "wave.type": "none", "body.initial_pose[3]": 1.0}, "dt": 50.0,
         "steps": 20,
         "outputs": HEAVE},
    ]
    euler, beuler = drive("sweep", {"fmu": str(sphere_fmu), "runs": runs}, tmp_path)["runs"]
    for run in (euler, beuler):
        assert run["statuses"][-1] == FMI_DISCARD, run["statuses"]
        assert all(s == FMI_OK for s in run["statuses"][:-1])
        assert np.all(np.isfinite(run["rows"][-1]))
        text = " ".join(m[2] for m in run["messages"])
        assert "reduce max_internal_step" in text
    text = " ".join(m[2] for m in beuler["messages"])
    assert "'beuler4'" in text and "midpoint5" in text, text
