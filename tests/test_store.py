"""The normalised model file: exact round trip, no pickle, numpy-only run time."""

from __future__ import annotations

import subprocess
import sys
import warnings
import zipfile
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.io.hydro_checks import HydroDataWarning
from hydrofmu.io.readers import read_hydro
from hydrofmu.runtime.errors import ConfigError, HydroDataError
from hydrofmu.runtime.hydrodata.model import HydroData
from hydrofmu.runtime.hydrodata.store import STORED_FIELDS, load_model, save_model


def _read(path: Path) -> HydroData:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HydroDataWarning)
        return read_hydro(path)


@pytest.fixture(scope="module")
def cylinder(data_dir: Path) -> HydroData:
    return _read(data_dir / "cylinder_capytaine.nc")


@pytest.fixture(scope="module")
def sphere(data_dir: Path) -> HydroData:
    return _read(data_dir / "sphere_bemio.h5")


def assert_identical(a: HydroData, b: HydroData) -> None:
    """Every field equal: arrays bit for bit (dtype, shape, NaN positions), scalars equal
    or both NaN, strings and notes equal."""
    for f in fields(HydroData):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray), f.name
            assert x.dtype == y.dtype and x.shape == y.shape, f.name
            assert np.array_equal(x, y, equal_nan=True), f.name
        elif isinstance(x, float):
            assert isinstance(y, float), f.name
            assert x == y or (np.isnan(x) and np.isnan(y)), f.name
        else:
            assert x == y, f.name


def test_every_field_is_stored() -> None:
    assert {f.name for f in fields(HydroData)} == STORED_FIELDS


def test_capytaine_round_trip_is_exact(cylinder: HydroData, tmp_path: Path) -> None:
    # The cylinder has NaN centres and volume, an inertia matrix, notes.
    assert np.isnan(cylinder.displaced_volume) and cylinder.inertia_matrix is not None
    path = save_model(tmp_path / "model.npz", {"bodies": [cylinder], "config": {}})
    loaded = load_model(path)
    assert len(loaded["bodies"]) == 1
    assert_identical(loaded["bodies"][0], cylinder)
    assert loaded["config"] == {}


def test_several_bodies_config_and_infinite_depth(sphere: HydroData, cylinder: HydroData,
                                                  tmp_path: Path) -> None:
    deep = sphere.with_changes(name="blåbær", water_depth=float("inf"), inertia_matrix=None,
                               notes=(*sphere.notes, "ünïcode note"))
    config = {"bodies": {"blåbær": {"mass": 261.8e3, "fixed": [False] * 6}},
              "time_scheme": "rk4", "max_internal_step": 0.01, "seed": None}
    path = tmp_path / "model.bin"  # any name: nothing appended
    assert save_model(path, {"bodies": [deep, cylinder], "config": config}) == path
    assert path.is_file() and not (tmp_path / "model.bin.npz").exists()
    loaded = load_model(path)
    assert_identical(loaded["bodies"][0], deep)
    assert_identical(loaded["bodies"][1], cylinder)
    assert loaded["bodies"][0].water_depth == np.inf
    assert loaded["bodies"][0].inertia_matrix is None
    assert loaded["config"] == config


def test_no_pickle_needed(cylinder: HydroData, tmp_path: Path) -> None:
    path = save_model(tmp_path / "m.npz", {"bodies": [cylinder], "config": {"a": 1}})
    with np.load(path, allow_pickle=False) as npz:
        dtypes = {key: npz[key].dtype for key in npz.files}
    assert all(dt.kind in "fcu" for dt in dtypes.values()), dtypes
    assert dtypes["body0.excitation"] == np.complex128


def test_store_is_numpy_only() -> None:
    """The FMU run time imports the store without xarray, h5py or netCDF4."""
    code = ("import sys, hydrofmu.runtime.hydrodata.store, hydrofmu.io.hydro_checks; "
            "heavy = [m for m in ('xarray', 'h5py', 'netCDF4', 'capytaine') "
            "if m in sys.modules]; print(heavy); sys.exit(bool(heavy))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_config_not_json(cylinder: HydroData, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not JSON-serialisable"):
        save_model(tmp_path / "m.npz", {"bodies": [cylinder],
                                        "config": {"mass": np.float32(1.0)}})
    assert not list(tmp_path.iterdir())  # no partial file left behind


def test_bad_payload(cylinder: HydroData, tmp_path: Path) -> None:
    with pytest.raises(HydroDataError, match=r"unknown keys \['body'\]"):
        save_model(tmp_path / "m.npz", {"body": [cylinder], "config": {}})
    with pytest.raises(HydroDataError, match=r"bodies'\]\[0\] is a dict, not a HydroData"):
        save_model(tmp_path / "m.npz", {"bodies": [{}], "config": {}})


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(HydroDataError, match="no such model file"):
        load_model(tmp_path / "absent.npz")


def test_load_garbage(tmp_path: Path) -> None:
    path = tmp_path / "garbage.npz"
    path.write_bytes(np.random.default_rng(7).bytes(2048))
    with pytest.raises(HydroDataError, match="not a hydrofmu model file"):
        load_model(path)


def test_load_foreign_npz(tmp_path: Path) -> None:
    path = tmp_path / "foreign.npz"
    np.savez(path, x=np.arange(3))
    with pytest.raises(HydroDataError, match="no 'header' entry"):
        load_model(path)


def test_load_missing_entry(cylinder: HydroData, tmp_path: Path) -> None:
    good = save_model(tmp_path / "good.npz", {"bodies": [cylinder], "config": {}})
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            if item.filename != "body0.added_mass.npy":
                dst.writestr(item, src.read(item.filename))
    with pytest.raises(HydroDataError, match=r"entry 'body0\.added_mass' is missing"):
        load_model(bad)
