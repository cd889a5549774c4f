"""What a newcomer gets wrong first: settings that cannot work and outputs that cannot be
written are refused by ``check``/``run``/``build`` before any work, with exit status 2, one
message naming the TOML key, the option or the user's path, and nothing written.

Commands run in-process (``hydrofmu.cli.commands``) with probes on the expensive steps
(loading the configuration, building the FMU, simulating): a refusal "before any work" is a
probe that was never called, not a wall-clock time.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

import hydrofmu.config.configuration
import hydrofmu.cosim.fmpy_run
import hydrofmu.export.fmu
from hydrofmu.cli import main
from hydrofmu.config.run_settings import simulation_problems
from hydrofmu.cosim.fmpy_run import write_csv
from hydrofmu.io.output_paths import check_output_path
from hydrofmu.runtime.errors import ConfigError, ExportError
from paths import CAPYTAINE_CYLINDER

UNWRITABLE = ("/proc/r.out", "/sys/r.out")  # no file can be created there, even by root


def _config(tmp_path: Path, simulation: str) -> Path:
    """The cylinder decay example with the given ``[simulation]`` lines."""
    path = tmp_path / "case.toml"
    path.write_text(
        f"[simulation]\n{simulation}\n[wave]\ntype = \"none\"\n"
        f"[[bodies]]\nname = \"cylinder\"\nhydro = \"{CAPYTAINE_CYLINDER}\"\n"
        "dofs = [\"heave\"]\n", encoding="utf-8")
    return path


@pytest.fixture
def probes(reached: list[str]) -> list[str]:
    """The expensive steps, each a probe that records its name and stops (conftest.py)."""
    return reached


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.rglob("*")}


@pytest.mark.parametrize(
    ("simulation", "key"),
    [
        ("stop_time = -5.0", "[simulation] stop_time = -5.0 s must be later than"),
        ("stop_time = 0.0", "[simulation] stop_time = 0.0 s must be later than"),
        ("start_time = 10.0\nstop_time = 5.0", "[simulation] stop_time = 5.0 s"),
        ("stop_time = inf", "[simulation] stop_time = inf must be a finite"),
        ("output_interval = 0.0", "[simulation] output_interval = 0.0 s must be > 0"),
        ("output_interval = -0.1", "[simulation] output_interval = -0.1 s must be > 0"),
        ("stop_time = 20.0\noutput_interval = 50.0",
         "[simulation] output_interval = 50.0 s is longer than the run"),
        ("max_internal_step = 0.001\noutput_interval = 10.0\nmax_internal_steps_per_call = 100",
         "more than [simulation] max_internal_steps_per_call = 100"),
    ],
)
@pytest.mark.parametrize("command", ["check", "run", "build"])
def test_bad_simulation_times_are_refused_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], simulation: str, key: str,
    command: str,
) -> None:
    config = _config(tmp_path, simulation)
    before = _files(tmp_path)
    out = {"check": [], "run": ["-o", str(tmp_path / "r.csv")],
           "build": ["-o", str(tmp_path / "Case.fmu")]}[command]
    assert main([command, str(config), *out]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert key in err, err
    assert _files(tmp_path) == before  # nothing written


@pytest.mark.parametrize(
    ("options", "named"),
    [(["--stop-time", "-1"], "--stop-time = -1.0 s must be later than"),
     (["--output-interval", "0"], "--output-interval = 0.0 s must be > 0"),
     (["--stop-time", "1", "--output-interval", "2"], "--output-interval = 2.0 s is longer")],
)
def test_run_options_are_checked_before_the_simulation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], probes: list[str],
    options: list[str], named: str,
) -> None:
    """Options that override ``[simulation]`` are named as options, and checked against
    the configuration's TOML before its data is loaded: nothing loaded, built or run."""
    config = _config(tmp_path, "stop_time = 20.0")
    assert main(["run", str(config), "-o", str(tmp_path / "r.csv"), *options]) == 2
    err = capsys.readouterr().err
    assert named in err, err
    assert probes == [] and not (tmp_path / "r.csv").exists()


def test_simulation_problems_accept_a_sound_table() -> None:
    sim = {"start_time": 0.0, "stop_time": 20.0, "output_interval": 20.0,
           "max_internal_step": 0.01, "max_internal_steps_per_call": 10_000_000}
    assert simulation_problems(sim) == []  # one interval over the whole run is allowed


@pytest.mark.parametrize("where", UNWRITABLE)
@pytest.mark.parametrize(
    "args",
    [
        ["run", "{config}", "-o", "{bad}"],
        ["run", "{config}", "-o", "{tmp}/r.csv", "--plot", "{bad}.png"],
        ["build", "{config}", "-o", "{bad}.fmu"],
        ["sweep", "{config}", "--sea-states", "{config}", "-o", "{bad}.nc"],
        ["bem", "{config}", "-o", "{bad}.nc"],
        ["mooring", "replay", "{config}", "{config}", "-o", "{bad}.csv"],
    ],
)
def test_an_unwritable_output_fails_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], probes: list[str], where: str,
    args: list[str],
) -> None:
    config = _config(tmp_path, "stop_time = 20.0")
    argv = [a.format(config=config, bad=where, tmp=tmp_path) for a in args]
    bad = next(a for a in argv if a.startswith(where))
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"cannot write -o {bad}" in err or f"cannot write --plot {bad}" in err, err
    assert ".partial" not in err and ".probe" not in err
    assert probes == []  # nothing loaded, built or simulated
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.parametrize("command", ["run", "build"])
def test_a_missing_folder_is_named_and_not_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], probes: list[str], command: str,
) -> None:
    config = _config(tmp_path, "stop_time = 20.0")
    out = tmp_path / "new" / "sub" / ("r.csv" if command == "run" else "Case.fmu")
    assert main([command, str(config), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"the folder {out.parent} does not exist" in err and "mkdir -p" in err, err
    assert not (tmp_path / "new").exists() and probes == []


def test_an_existing_output_or_a_folder_is_refused(tmp_path: Path) -> None:
    mine = tmp_path / "mine.csv"
    mine.write_text("keep", encoding="utf-8")
    with pytest.raises(ConfigError, match="exists; choose another path or pass --force"):
        check_output_path(mine, "-o")
    assert check_output_path(mine, "-o", force=True) == mine
    with pytest.raises(ConfigError, match="is a folder"):
        check_output_path(tmp_path, "-o", force=True)
    assert mine.read_text(encoding="utf-8") == "keep"
    assert _files(tmp_path) == {"mine.csv"}  # the probe file is gone


def test_build_fmu_names_the_users_path_before_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Python API too: /sys is refused before pythonfmu's builder runs, and the
    message names the user's path, not the temporary ``.partial`` beside it."""
    from pythonfmu.builder import FmuBuilder

    from hydrofmu.config.configuration import default_config

    calls: list[str] = []
    monkeypatch.setattr(FmuBuilder, "build_FMU",
                        staticmethod(lambda *a, **k: calls.append("build_FMU")))
    bodies, cfg = default_config(bodies=[{"name": "body", "hydro": "builtin:sphere",
                                          "radiation": "constant"}])
    with pytest.raises(ExportError, match=r"cannot write output_path /sys/Case\.fmu") as info:
        hydrofmu.export.fmu.build_fmu(bodies, cfg, "/sys/Case.fmu")
    assert ".partial" not in str(info.value) and calls == []


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_sweep_netcdf_files_respect_the_umask(tmp_path: Path, umask: int) -> None:
    """A part file or the merged ``sweep.nc`` gets ``0666 & ~umask`` (0644 under the usual
    umask), not mkstemp's private 0600."""
    import xarray as xr

    from hydrofmu.sweep.runner import write_netcdf_atomically

    old = os.umask(umask)
    try:
        path = tmp_path / "sweep.nc"
        write_netcdf_atomically(xr.Dataset({"mean": (("channel",), np.arange(3.0))}), path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_run_csv_header_carries_units(tmp_path: Path) -> None:
    result = np.zeros(3, dtype=[("time", float), ("body.pose[3]", float),
                                ("body.F_excitation[5]", float), ("mystery", float)])
    path = write_csv(result, tmp_path / "r.csv",
                     {"body.pose[3]": "m", "body.F_excitation[5]": "N.m", "mystery": ""})
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header == "time [s],body.pose[3] [m],body.F_excitation[5] [N.m],mystery"


def test_a_discarded_step_fails_the_run_naming_the_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """rk4 at h = 3 s on a heave mode of ~1.8 s period is far beyond its stability limit
    (h w ~ 10 > 2.8): the FMU discards a step, fmpy ends the run quietly, and ``run`` must
    say so (exit 2, the configuration, the time reached, the FMU's reason), not write a
    short CSV with exit 0."""
    config = tmp_path / "diverging.toml"
    config.write_text(
        "[simulation]\nmax_internal_step = 3.0\nstop_time = 300.0\noutput_interval = 3.0\n"
        "[wave]\ntype = \"none\"\n[[bodies]]\nname = \"cylinder\"\n"
        f"hydro = \"{CAPYTAINE_CYLINDER}\"\ndofs = [\"heave\"]\nradiation = \"constant\"\n"
        "initial_pose = [0, 0, 0.01, 0, 0, 0]\n", encoding="utf-8")
    out = tmp_path / "r.csv"
    # the Python FMU (the native one steps the same rk4 and discards too: its message is
    # checked in test_native_rk)
    assert main(["run", str(config), "-o", str(out), "--quiet", "--python"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"error: the model of {config} stopped at t = "), err
    assert "of stop_time = 300 s (a step was discarded)" in err and "diverges" in err, err
    assert "/tmp/hydrofmu-" not in err  # not the temporary FMU's path
    assert not out.exists()


def test_a_plot_format_matplotlib_cannot_write_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], probes: list[str]
) -> None:
    config = _config(tmp_path, "stop_time = 20.0")
    plot = tmp_path / "heave.xyz"
    assert main(["run", str(config), "-o", str(tmp_path / "r.csv"), "--plot", str(plot)]) == 2
    err = capsys.readouterr().err
    assert f"--plot {plot}: matplotlib cannot write '.xyz' files" in err and ".png" in err, err
    assert probes == [] and not plot.exists()


def test_sweep_refuses_a_missing_sea_state_table_before_building(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], probes: list[str]
) -> None:
    config = _config(tmp_path, "stop_time = 20.0")
    seas = tmp_path / "seas.csv"
    assert main(["sweep", str(config), "--sea-states", str(seas), "-o",
                 str(tmp_path / "sweep.nc")]) == 2
    assert f"--sea-states {seas}: no such file" in capsys.readouterr().err
    assert probes == []
