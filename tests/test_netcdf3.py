"""A truncated or corrupt NetCDF3 file says so (not "missing DOFs", "no added_mass" or
``rho = 0.0``, which is what netCDF-C's zero-filled read of a short file leads to).

The example data ``cylinder_capytaine.nc`` is a 64-bit offset NetCDF3 file; it is cut at
lengths inside the header, just after it, in the data and one byte short. Classic and
CDF-5 files with a record dimension are written here with netCDF4 to check the record
arithmetic of :func:`hydrofmu.hydrodata.netcdf3.netcdf3_problem`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hydrofmu.cli import main
from hydrofmu.io.netcdf3 import netcdf3_problem
from hydrofmu.io.readers import read_hydro, read_hydro_bodies
from hydrofmu.runtime.errors import HydroDataError
from paths import BEMIO_SPHERE, CAPYTAINE_CYLINDER

#: Bytes of the example file's header (measured: 3888 of 479192 bytes).
HEADER = 3888
SIZE = CAPYTAINE_CYLINDER.stat().st_size


def test_the_example_file_is_whole_netcdf3() -> None:
    assert CAPYTAINE_CYLINDER.read_bytes()[:4] == b"CDF\x02"  # 64-bit offset
    assert netcdf3_problem(CAPYTAINE_CYLINDER) is None
    assert netcdf3_problem(BEMIO_SPHERE) is None  # HDF5: not this check's business


@pytest.mark.parametrize("length", [0, 2, 4, 8, 100, HEADER - 1, HEADER, HEADER + 1, SIZE // 2,
                                    SIZE - 1])
def test_a_truncated_capytaine_file_is_diagnosed_as_truncated(tmp_path: Path,
                                                              length: int) -> None:
    cut = tmp_path / "cut.nc"
    cut.write_bytes(CAPYTAINE_CYLINDER.read_bytes()[:length])
    for read in (read_hydro, read_hydro_bodies):
        with pytest.raises(HydroDataError) as info:
            read(cut)
        message = str(info.value)
        assert message.startswith(f"{cut}: ")
        message = message[len(str(cut)):]  # the folder's name holds the test's name
        assert "truncated" in message or "corrupt" in message, message
        for wrong in ("DOF", "added_mass", "rho"):
            assert wrong not in message, message
    if length > HEADER:  # the header is whole: the message says how much is missing
        assert f"up to byte {SIZE}" in message and f"{SIZE - length} missing" in message


def test_the_cli_reports_a_truncated_file_in_one_line(tmp_path: Path, capsys) -> None:
    cut = tmp_path / "cut.nc"
    cut.write_bytes(CAPYTAINE_CYLINDER.read_bytes()[: SIZE // 3])
    assert main(["info", str(cut)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {cut}: truncated 64-bit offset NetCDF3 file"), err
    assert err.count("\n") == 1


def test_a_corrupt_header_is_said_corrupt(tmp_path: Path) -> None:
    data = bytearray(CAPYTAINE_CYLINDER.read_bytes())
    data[8:12] = b"\x00\x00\x00\x07"  # the dimension-list tag (10) becomes 7
    bad = tmp_path / "bad.nc"
    bad.write_bytes(bytes(data))
    problem = netcdf3_problem(bad)
    assert problem is not None and "corrupt 64-bit offset NetCDF3 file" in problem


@pytest.mark.parametrize(("fmt", "kind"), [("NETCDF3_CLASSIC", "classic"),
                                           ("NETCDF3_64BIT_OFFSET", "64-bit offset"),
                                           ("NETCDF3_64BIT_DATA", "CDF-5")])
@pytest.mark.parametrize("n_record_vars", [1, 2])
def test_record_variables_count(tmp_path: Path, fmt: str, kind: str,
                                n_record_vars: int) -> None:
    """Fixed and record variables (odd sizes: padding), whole and one byte short."""
    import netCDF4

    path = tmp_path / "r.nc"
    with netCDF4.Dataset(path, "w", format=fmt) as ds:
        ds.createDimension("t", None)
        ds.createDimension("x", 3)
        ds.setncattr("title", "odd")
        fixed = ds.createVariable("fixed", "i2", ("x",))
        fixed[:] = [1, 2, 3]
        for k in range(n_record_vars):
            v = ds.createVariable(f"rec{k}", "i1" if k == 0 else "f8", ("t", "x"))
            v[:] = np.arange(15).reshape(5, 3)
    assert netcdf3_problem(path) is None
    whole = path.read_bytes()
    path.write_bytes(whole[:-1])
    problem = netcdf3_problem(path)
    assert problem is not None and f"truncated {kind} NetCDF3 file" in problem, problem
    assert f"up to byte {len(whole)}" in problem or "1 missing" in problem, problem
