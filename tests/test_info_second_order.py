"""``hydrofmu info`` shows a file's second-order data (issue 27, point 1): the mean drift of
each method with its frequencies, headings and DOFs, the QTFs (difference, sum) with their
sizes; a drift file alone or first-order data the checks refuse still show them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hydrofmu.cli.commands import main
from hydrofmu.io.second_order import read_mean_drift, read_qtf

DATA = Path(__file__).resolve().parents[1] / "examples" / "data"


def test_wamit_out_lists_the_three_methods(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(DATA / "mean_drift_sphere" / "sphere.out")]) == 0
    out = capsys.readouterr().out
    md = read_mean_drift(DATA / "mean_drift_sphere" / "sphere.8")
    for method, dofs in (("control_surface", "surge, sway, heave, roll, pitch, yaw"),
                         ("momentum", "surge, sway, yaw"),
                         ("pressure", "surge, sway, heave, roll, pitch, yaw")):
        assert (f"mean drift ({method}, sphere.out): {md.omega.size} frequencies "
                f"{md.omega[0]:.4g}..{md.omega[-1]:.4g} rad/s, headings [0.0] deg, DOFs "
                f"{dofs}") in out
    for name in ("sphere.7", "sphere.8", "sphere.9"):  # the files beside it
        assert f", {name}): " in out
    assert "first-order data not read" in out  # the hemisphere's surge damping


def test_nemoh_case_lists_the_qtfs(capsys: pytest.CaptureFixture[str]) -> None:
    case = DATA / "nemoh_oc3_hywind"
    assert main(["info", str(case)]) == 0
    out = capsys.readouterr().out
    for kind in ("difference", "sum"):
        q = read_qtf(case, kind)
        n = q.omega.size
        share = 100 * float(np.mean(q.present))
        assert (f"{kind}-frequency QTF (nemoh_oc3_hywind): {n} x {n} frequencies "
                f"{q.omega[0]:.4g}..{q.omega[-1]:.4g} rad/s, heading pairs (0, 0) deg; "
                f"{share:.3g} % of the entries") in out
    assert "mean drift (qtf_diagonal" in out


def test_a_file_without_second_order_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(DATA / "sphere_bemio.h5")]) == 0
    assert "second order: none" in capsys.readouterr().out
