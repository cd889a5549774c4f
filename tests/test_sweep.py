"""``hydrofmu sweep``: the sea-state table, the statistics, the power matrix and AEP, and the
Dask acceptance runs (local cluster with 1 and 2 workers, an external cluster on 127.0.0.1,
a worker killed mid-sweep, an interrupted sweep resumed, a sea state against plain fmpy).

The acceptance sweeps are short: 6 sea states of 60 s (20 s transient) of the default
sphere in irregular waves.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from hydrofmu.cli import main as cli_main
from hydrofmu.runtime.errors import ConfigError, IntegrationError
from hydrofmu.sweep import (
    SweepOptions,
    annual_energy_production,
    power_matrix,
    read_sea_states,
    run_sweep,
    window_statistics,
)
from hydrofmu.sweep.runner import FMU_NAME, PART_PREFIX, parts_folder
from hydrofmu.sweep.stats import write_power_matrix

MODEL = """\
[simulation]
time_scheme = "rk4"
max_internal_step = 0.1
output_interval = 0.1
[wave]
type = "irregular"
height = 1.0
period = 8.0
ramp_time = 10.0
n_components = 50
[[bodies]]
name = "body"
hydro = "builtin:sphere"
dofs = ["surge", "heave", "pitch"]
"""
SEAS = """\
Hs,Tp,seed,occurrence
1.0,6.0,1,100
1.0,8.0,2,200
2.0,6.0,3,300
2.0,8.0,4,50
3.0,6.0,5,10
3.0,8.0,6,5
"""
DURATION, TRANSIENT = 60.0, 20.0


# --- the table ------------------------------------------------------------------------------
def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "seas.csv"
    path.write_text(text)
    return path


PARAMS = {"wave.height": "Real", "wave.period": "Real", "pto.float.damping": "Real",
          "wave.seed": "Integer"}


def test_table_start_values(tmp_path: Path) -> None:
    table = read_sea_states(
        _csv(tmp_path, "Hs,Tp,direction,gamma,seed,occurrence,pto.float.damping\n"
                       "1.5,7,0.5,2.0,3,120,1e5\n"),
        fmu_parameters=PARAMS)
    assert len(table) == 1 and table.parameters == ("pto.float.damping",)
    assert table.start_values(0) == {
        "wave.type": "irregular", "wave.height": 1.5, "wave.period": 7.0,
        "wave.direction": 0.5, "wave.gamma": 2.0, "wave.seed": 3, "pto.float.damping": 1e5}
    assert isinstance(table.start_values(0)["wave.seed"], int)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("Tp\n8\n", "no column 'Hs'"),
        ("Hs,Tp\n", "no sea state"),
        ("Hs,Tp,pto.float.dampng\n1,8,3\n", "did you mean 'pto.float.damping'"),
        ("Hs,Tp\n1,abc\n", "line 2: Tp = 'abc' is not a number"),
        ("Hs,Tp\n0,8\n", "Hs = 0.0 must be > 0"),
        ("Hs,Tp,seed\n1,8,1.5\n", "integers"),
        ("Hs,Tp,occurrence\n1,8,-3\n", "occurrence"),
        ("Hs,Tp\n1,8,3\n", "3 values for 2 columns"),
        ("Hs,Tp,wave.height\n1,8,3\n", "set by the sea-state columns"),
    ],
)
def test_bad_tables_are_refused(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        read_sea_states(_csv(tmp_path, text), fmu_parameters=PARAMS)


def test_bad_options_are_refused() -> None:
    with pytest.raises(ConfigError, match="must exceed --transient"):
        SweepOptions(duration=100.0, transient=300.0)
    with pytest.raises(ConfigError, match="--workers"):
        SweepOptions(workers=0)
    with pytest.raises(ConfigError, match="exclude each other"):
        SweepOptions(workers=2, scheduler="tcp://127.0.0.1:1")


# --- statistics -------------------------------------------------------------------------------
def test_window_statistics_uses_exactly_the_window() -> None:
    h, transient, duration = 0.1, 2.0, 5.0
    k = np.arange(0, 51)
    t = k * h
    t = np.concatenate([t, [t[-1]]])  # fmpy can repeat the last point
    values = np.column_stack([t**2, np.sin(t)])
    stats = window_statistics(t, values, transient=transient, duration=duration,
                              output_interval=h)
    inside = np.arange(21, 51) * h  # t_k with 2.0 < t_k <= 5.0: k = 21..50, 30 points
    ref = np.column_stack([inside**2, np.sin(inside)])
    # Same numbers summed in the same order: equal to round-off (1e-14 relative).
    np.testing.assert_allclose(stats["mean"], ref.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(stats["std"], ref.std(axis=0, ddof=0), rtol=1e-14)
    np.testing.assert_array_equal(stats["min"], ref.min(axis=0))
    np.testing.assert_array_equal(stats["max"], ref.max(axis=0))
    values[30, 1] = np.nan
    with pytest.raises(IntegrationError, match="non-finite"):
        window_statistics(t, values, transient=transient, duration=duration, output_interval=h)


def _synthetic() -> xr.Dataset:
    """Six sea states, two PTOs, a repeated (Hs, Tp) cell and one failed sea state."""
    hs = np.array([1.0, 1.0, 2.0, 2.0, 2.0, 3.0])
    tp = np.array([6.0, 8.0, 6.0, 8.0, 8.0, 6.0])
    hours = np.array([1000.0, 2000.0, 1500.0, 700.0, 300.0, 0.0])
    p_a = 1e4 * hs**2 * tp / 8.0
    p_b = 0.5 * p_a
    p_b[4] *= 1.2  # the second sea state in cell (2, 8) differs (another seed)
    mean = np.column_stack([np.zeros(6), p_a, p_b])
    mean[5] = np.nan  # failed, but with zero occurrence
    channels = ["body.pose[3]", "pto.a.power", "pto.b.power"]
    return xr.Dataset(
        {"mean": (("sea_state", "channel"), mean)},
        coords={"sea_state": np.arange(6), "channel": channels, "Hs": ("sea_state", hs),
                "Tp": ("sea_state", tp), "occurrence": ("sea_state", hours)})


def test_power_matrix_and_aep_on_a_synthetic_sweep(tmp_path: Path) -> None:
    ds = _synthetic()
    hs, tp, matrix = power_matrix(ds)
    np.testing.assert_array_equal(hs, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tp, [6.0, 8.0])
    total = 1.5e4 * np.array([[1 * 6 / 8, 1.0], [4 * 6 / 8, 4.0]])  # 1.5 p_a, W
    cell_28 = 0.5 * ((4e4 + 2e4) + (4e4 + 2.4e4))  # mean of the two sea states of the cell
    # Exact arithmetic up to round-off of a few products: 1e-12 relative.
    np.testing.assert_allclose(matrix[:2], [[total[0, 0], total[0, 1]],
                                            [total[1, 0], cell_28]], rtol=1e-12)
    assert np.all(np.isnan(matrix[2]))  # (3, 6) failed, (3, 8) empty
    power = np.array([total[0, 0], total[0, 1], total[1, 0], 6e4, 6.4e4])
    expected = float(np.sum(power * [1000.0, 2000.0, 1500.0, 700.0, 300.0]) / 1000.0)
    assert annual_energy_production(ds) == pytest.approx(expected, rel=1e-12)
    # A failed sea state that occurs makes the AEP unknown, not smaller.
    ds2 = ds.assign_coords(occurrence=("sea_state", [1000.0, 2000, 1500, 700, 300, 1]))
    assert np.isnan(annual_energy_production(ds2))
    path = write_power_matrix(hs, tp, matrix, tmp_path / "power_matrix.csv")
    lines = path.read_text().splitlines()
    assert lines[0] == "Hs [m] \\ Tp [s] (mean absorbed power [W]),6,8" and lines[3] == "3,,"
    assert float(lines[2].split(",")[2]) == pytest.approx(cell_28, rel=1e-9)


def test_aep_against_mhkit() -> None:
    """MHKiT's mean annual energy production of the same matrix (MHKiT is in the test
    extra; imported here, not at the top, as only this test needs it)."""
    from mhkit.wave import performance

    ds = _synthetic().isel(sea_state=slice(0, 5))
    power = ds["mean"].sel(channel=["pto.a.power", "pto.b.power"]).sum("channel").values
    hours = ds["occurrence"].values
    # MHKiT: MAEP = 8766 h * sum(L * J * frequency) in W h, with L * J = P and the
    # frequencies summing to one; a table covering H hours a year scales it by H / 8766.
    # (Cross-checked by hand with MHKiT 1.1.2: 169950 kWh both ways.)
    maep = performance.mean_annual_energy_production_matrix(
        power, np.ones_like(power), hours / hours.sum()) * hours.sum() / 8766.0
    assert annual_energy_production(ds) == pytest.approx(float(maep) / 1000.0, rel=1e-9)


# --- acceptance runs on Dask --------------------------------------------------------------------
@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sweep")
    (folder / "model.toml").write_text(MODEL)
    (folder / "seas.csv").write_text(SEAS)
    return folder


def _sweep(case: Path, name: str, **options: object) -> object:
    opts = SweepOptions(duration=DURATION, transient=TRANSIENT, progress=False, **options)
    return run_sweep(case / "model.toml", case / "seas.csv", case / name, opts)


@pytest.fixture(scope="module")
def one_worker(case: Path) -> object:
    return _sweep(case, "w1.nc", workers=1)


@pytest.mark.slow
@pytest.mark.fmu
def test_one_and_two_workers_identical(case: Path, one_worker) -> None:
    ds1 = one_worker.dataset
    assert list(ds1["status"].values) == ["ok"] * 6
    assert ds1["mean"].dims == ("sea_state", "channel") and ds1.sizes["channel"] > 20
    std_heave = ds1["std"].sel(channel="body.pose[3]").values
    assert np.all(std_heave > 0)
    two = _sweep(case, "w2.nc", workers=2)
    xr.testing.assert_identical(ds1, two.dataset)
    xr.testing.assert_identical(ds1, xr.load_dataset(case / "w2.nc", engine="h5netcdf"))
    pids = {xr.load_dataset(p, engine="h5netcdf").attrs["worker_pid"]
            for p in parts_folder(case / "w2.nc").glob(f"{PART_PREFIX}*.nc")}
    assert len(pids) == 2  # both workers took sea states


@pytest.mark.slow
@pytest.mark.fmu
def test_std_of_heave_equals_plain_fmpy(case: Path, one_worker) -> None:
    from fmpy import simulate_fmu

    table = read_sea_states(case / "seas.csv")
    i = 3
    result = simulate_fmu(str(parts_folder(case / "w1.nc") / FMU_NAME), start_time=0.0,
                          stop_time=DURATION, output_interval=0.1,
                          start_values=table.start_values(i), output=["body.pose[3]"])
    t, z = result["time"], result["body.pose[3]"]
    keep = (t > TRANSIENT + 1e-9) & (t <= DURATION + 1e-9)
    _, first = np.unique(np.round(t / 0.1), return_index=True)
    mask = np.zeros(t.size, bool)
    mask[first] = True
    reference = np.std(z[keep & mask])
    # The same FMU with the same parameters: deterministic, so equal to round-off.
    assert float(one_worker.dataset["std"].sel(channel="body.pose[3]")[i]) == pytest.approx(
        reference, rel=1e-12)


@pytest.mark.slow
@pytest.mark.fmu
def test_interrupted_sweep_resumes_only_the_missing(case: Path, one_worker) -> None:
    src = case / "w1.nc"
    dst = case / "resumed.nc"
    shutil.copytree(parts_folder(src), parts_folder(dst))
    for i in (1, 4):  # as if the sweep had stopped before these were written
        (parts_folder(dst) / f"{PART_PREFIX}{i:05d}.nc").unlink()
    with pytest.raises(ConfigError, match="--resume"):
        _sweep(case, "resumed.nc", workers=1)
    resumed = _sweep(case, "resumed.nc", workers=1, resume=True)
    assert resumed.computed == [1, 4]
    xr.testing.assert_identical(one_worker.dataset, resumed.dataset)
    again = _sweep(case, "resumed.nc", workers=1, resume=True)
    assert again.computed == []


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(args, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)


@pytest.fixture
def cluster(tmp_path: Path):
    """A Dask scheduler and two single-threaded workers on 127.0.0.1 (no nanny: killing a
    worker's process kills the worker)."""
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    info = tmp_path / "scheduler.json"
    procs = [_start([*dask, "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(info)], tmp_path / "scheduler.log")]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert info.exists(), (tmp_path / "scheduler.log").read_text()
        import json

        address = json.loads(info.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        worker = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads",
                  "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"]
        procs += [_start(worker, tmp_path / f"worker{k}.log") for k in range(2)]
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, procs[1:]
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


@pytest.mark.slow
@pytest.mark.fmu
@pytest.mark.timeout(300)
def test_external_cluster_and_a_killed_worker(case: Path, one_worker, cluster) -> None:
    address, workers = cluster
    on_cluster = _sweep(case, "cluster.nc", scheduler=address)
    xr.testing.assert_identical(one_worker.dataset, on_cluster.dataset)

    out: dict[str, object] = {}

    def target() -> None:
        try:
            out["result"] = _sweep(case, "killed.nc", scheduler=address)
        except Exception as exc:  # pragma: no cover - reported below
            out["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    parts = parts_folder(case / "killed.nc")
    deadline = time.monotonic() + 120
    while not list(parts.glob(f"{PART_PREFIX}*.nc")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(parts.glob(f"{PART_PREFIX}*.nc")), "no sea state finished"
    victim = workers[0]
    os.killpg(victim.pid, signal.SIGKILL)  # mid-sweep: the worker's running task is lost
    victim.wait(timeout=20)
    thread.join(timeout=240)
    assert not thread.is_alive() and "error" not in out, out.get("error")
    killed = out["result"]
    xr.testing.assert_identical(one_worker.dataset, killed.dataset)
    pids = [xr.load_dataset(p, engine="h5netcdf").attrs["worker_pid"]
            for p in sorted(parts.glob(f"{PART_PREFIX}*.nc"))]
    assert len(pids) == 6 and pids.count(workers[1].pid) >= 3  # the survivor took the rest


# --- the command line -----------------------------------------------------------------------
def test_cli_refuses_unknown_column_before_running(case: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    seas = _csv(tmp_path, "Hs,Tp,wave.ramptime\n1,8,3\n")
    code = cli_main(["sweep", str(case / "model.toml"), "--sea-states", str(seas), "-o",
                     str(tmp_path / "x.nc"), "--quiet"])
    assert code == 2
    assert "did you mean 'wave.ramp_time'" in capsys.readouterr().err
    assert not (tmp_path / "x.nc").exists()


@pytest.mark.slow
@pytest.mark.fmu
def test_a_failing_sea_state_is_recorded_and_the_sweep_goes_on(case: Path) -> None:
    (case / "bad.csv").write_text("Hs,Tp,wave.ramp_time\n1.0,8.0,-5.0\n1.0,8.0,10.0\n")
    result = run_sweep(case / "model.toml", case / "bad.csv", case / "bad.nc",
                       SweepOptions(duration=30.0, transient=10.0, workers=1, progress=False))
    ds = result.dataset
    assert list(ds["status"].values) == ["failed", "ok"]
    assert "ramp_time" in str(ds["message"].values[0])
    assert np.all(np.isnan(ds["mean"].values[0])) and np.all(np.isfinite(ds["mean"].values[1]))
    assert "1 failed" in result.summary[0] and "ramp_time" in result.summary[1]
