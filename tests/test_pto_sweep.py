"""``hydrofmu sweep`` on a model with a PTO: the power matrix and the AEP from the
``pto.<name>.power`` outputs, and a damping column that sweeps the PTO damping with the same
command (one power matrix and one AEP per damping).

Short on purpose: 8 sea states of 40 s (10 s transient) on one local Dask worker.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from hydrofmu.cli import main as cli_main

MODEL = """\
[simulation]
time_scheme = "rk4"
max_internal_step = 0.1
output_interval = 0.1
[wave]
type = "irregular"
height = 1.0
period = 8.0
ramp_time = 5.0
n_components = 30
[[bodies]]
name = "body"
hydro = "builtin:sphere"
dofs = ["heave"]
[[ptos]]
name = "float"
dof = "heave"
damping = 2.0e5
"""
DAMPINGS = (1.0e5, 4.0e5)
SEAS = "Hs,Tp,seed,occurrence,pto.float.damping\n" + "".join(
    f"{hs},{tp},{seed},{occ},{c}\n"
    for c in DAMPINGS
    for seed, (hs, tp, occ) in enumerate(
        [(1.0, 6.0, 1000), (1.0, 9.0, 2000), (2.0, 6.0, 500), (2.0, 9.0, 250)], start=1)
)


def _matrix(path: Path) -> tuple[list[float], list[float], np.ndarray]:
    lines = path.read_text().splitlines()
    tp = [float(x) for x in lines[0].split(",")[1:]]
    rows = [[float(x) for x in line.split(",")] for line in lines[1:]]
    return [r[0] for r in rows], tp, np.array([r[1:] for r in rows])


@pytest.mark.slow
@pytest.mark.fmu
def test_sweep_with_a_pto_and_a_damping_column(tmp_path: Path,
                                               capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "model.toml").write_text(MODEL)
    (tmp_path / "seas.csv").write_text(SEAS)
    out = tmp_path / "sweep.nc"
    code = cli_main(["sweep", str(tmp_path / "model.toml"), "--sea-states",
                     str(tmp_path / "seas.csv"), "-o", str(out), "--duration", "40",
                     "--transient", "10", "--workers", "1", "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    ds = xr.load_dataset(out, engine="h5netcdf")
    assert list(ds["status"].values) == ["ok"] * 8
    power = ds["mean"].sel(channel="pto.float.power").values
    damping = ds["pto.float.damping"].values
    assert np.all(power > 0)
    # The power output through the sweep is the PTO's: with no stiffness its mean is
    # c <v^2> = c (std^2 + mean^2) over the same window (the same samples; round-off 1e-9).
    v_mean = ds["mean"].sel(channel="body.velocity[3]").values
    v_std = ds["std"].sel(channel="body.velocity[3]").values
    np.testing.assert_allclose(power, damping * (v_std**2 + v_mean**2), rtol=1e-9)
    # The same waves (same seed per row) with 4x the damping: every wave component's heave
    # amplitude |X| / |Z_i + c| / w is smaller (B > 0), so the heave std is smaller: the
    # column did reach the FMU's PTO.
    heave = ds["std"].sel(channel="body.pose[3]").values
    assert np.all(heave[4:] < heave[:4])
    occurrence = ds["occurrence"].values
    for c in DAMPINGS:
        rows = damping == c
        label = f"_pto.float.damping={c:.6g}"
        hs, tp, matrix = _matrix(tmp_path / f"power_matrix{label}.csv")
        assert hs == [1.0, 2.0] and tp == [6.0, 9.0]
        np.testing.assert_allclose(matrix.ravel(), power[rows], rtol=1e-9)  # 10 digits
        aep = float(np.sum(power[rows] * occurrence[rows]) / 1000.0)
        assert ds.attrs[f"annual_energy_production_kWh{label}"] == pytest.approx(aep,
                                                                                 rel=1e-12)
        assert f"annual energy production with pto.float.damping = {c:.6g}:" in printed
    assert not (tmp_path / "power_matrix.csv").exists()  # no mixture of dampings
