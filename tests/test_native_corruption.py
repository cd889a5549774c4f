"""Corrupted files for the native runtime (issue 31, point 6): every truncation length and
2,000 seeded single-byte flips of a small model's ``resources/model.bin``, and of a
serialized FMU state, refused at fmi2Instantiate / fmi2DeSerializeFMUstate with a message;
never a crash, never a hang.

The cases run in a C driver (``tests/c_host/corrupt_host.c``) linked with the runtime built
with ASan and UBSan, in a child process with a timeout: a crash or a sanitizer report
fails the test through the return code, a hang through the timeout, instead of taking
pytest down. Besides the files as they are (the blob's CRC-32 trailer and the state's
CRC-32 refuse them first), the driver forges each corruption with a recomputed CRC, so that
the reader's own checks (every count against the bytes left before allocating, every
index against its range) and the state's consistency checks are what refuses it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from drift_helpers import drift_current_config
from hydrofmu.config.configuration import default_config
from hydrofmu.export.native import build_native_fmu
from hydrofmu.export.native.compile import (
    BODY_KERNEL_DIR,
    C_SOURCES,
    LINE_KERNEL_DIR,
    PANEL_KERNEL_DIR,
    RUNTIME_DIR,
)
from native_helpers import interface

pytestmark = pytest.mark.fmu

HOST = Path(__file__).parent / "c_host" / "corrupt_host.c"
FLIPS = 2000
SANITIZE = ("-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer")


#: A catenary mooring of three chains (examples/catenary/catenary_moored.toml's).
CATENARY = {"type": "catenary", "body": "body", "lines": [
    {"anchor": [150.0, 0.0, -50.0], "fairlead": [4.6, 0.0, -2.0], "length": 170.0,
     "weight": 470.6, "ea": 2.0e8},
    {"anchor": [-75.0, 129.904, -50.0], "fairlead": [-2.3, 3.984, -2.0], "length": 170.0,
     "weight": 470.6, "ea": 2.0e8},
    {"anchor": [-75.0, -129.904, -50.0], "fairlead": [-2.3, -3.984, -2.0], "length": 170.0,
     "weight": 470.6, "ea": 2.0e8}]}


@pytest.fixture(scope="module", params=["exact", "rk4", "drift", "catenary", "panels", "loads",
                                        "loads_conv", "large"])
def small(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The default sphere with constant radiation coefficients (12 states, 17 kB model):
    small enough for every truncation; stepped exactly, or with heave drag in the
    Runge-Kutta mode (its state holds the internal time and grid index the consistency
    checks look at), the drift-and-current model (tests/drift_helpers.py), on a catenary
    mooring (rk4: its section's counts and lines), in heave with nonlinear hydrostatics
    and Froude-Krylov on a coarse hull (the panels section: 80 triangles), as the load
    FMU, also with convolution radiation and quadratic drag (a 2 s kernel on a 0.1 s grid:
    their sections in the load FMU's data, its ring buffer in the state), or as a body in
    large rotations (the bodies section: a free rotation by a quaternion, its added mass in
    body axes; no water otherwise)."""
    folder = tmp_path_factory.mktemp("corrupt")
    bodies, config = default_config(radiation={"method": "constant"})
    if request.param == "drift":  # the drift-and-current section too (33 kB)
        bodies, config = drift_current_config()
    if request.param == "panels":
        import warnings

        import hydrofmu
        from hydrofmu.config.nonlinear import NonlinearMeshWarning
        from panel_meshes import sphere, write_stl

        write_stl(folder / "hull.stl", sphere(5.0, 5))
        with warnings.catch_warnings():  # the coarse hull's volume is not the data's
            warnings.simplefilter("ignore", NonlinearMeshWarning)
            model = hydrofmu.Model.from_dict({
                "simulation": {"time_scheme": "rk4", "max_internal_step": 0.05},
                "wave": {"type": "regular", "height": 2.0, "period": 6.0, "ramp_time": 5.0},
                "bodies": [{"name": "body", "hydro": "builtin:sphere", "dofs": ["heave"],
                            "radiation": "constant", "mesh": "hull.stl",
                            "nonlinear": "instantaneous"}]}, base_dir=folder)
        bodies, config = model.bodies, model.config
    if request.param == "large":
        import numpy as np

        from rigid_helpers import dry_model

        sim = dry_model([{"name": "body", "reference": [0.0, 0.0, 0.0], "weightless": True,
                          "mass": 500.0, "inertia": [1000.0, 2000.0, 3000.0],
                          "rotations": "large", "radiation_frame": "body",
                          "added": np.diag([100.0, 200.0, 300.0, 40.0, 50.0, 60.0]),
                          "initial_velocity": [0.0, 0.0, 0.0, 0.1, 1.0, 0.05]}], dt=0.05)
        bodies, config = sim.bodies, sim.config
    if request.param == "rk4":
        config["bodies"][0]["quadratic_damping"] = [0.0, 0.0, 5e4, 0.0, 0.0, 0.0]
        config["simulation"]["time_scheme"] = "rk4"
    if request.param == "catenary":
        config["moorings"] = [CATENARY]
        config["simulation"]["time_scheme"] = "rk4"
    if request.param == "loads_conv":  # with quadratic drag: its section too
        bodies, config = default_config(
            radiation={"method": "convolution", "irf_duration": 2.0},
            simulation={"max_internal_step": 0.1})
        config["bodies"][0]["quadratic_damping"] = [0.0, 0.0, 5e4, 0.0, 0.0, 0.0]
    if request.param.startswith("loads"):  # the load FMU (its blob section, its sample)
        config["export"]["kind"] = "loads"
    fmu = build_native_fmu(bodies, config, folder / "Small.fmu", model_name="Small",
                           platforms=("linux64",))
    target = folder / "unpacked"
    zipfile.ZipFile(fmu).extractall(target)
    return {"blob": target / "resources" / "model.bin",
            "guid": interface(fmu, "body.pose[3]")["guid"]}


def scratch() -> str:
    """A folder for the driver's model.bin rewrites: in memory (/dev/shm) when there is
    one (tens of thousands of small writes)."""
    shm = Path("/dev/shm")
    base = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    return tempfile.mkdtemp(prefix="hfn_corrupt_", dir=base)


def test_corrupt_model_and_state_are_refused(small: dict, tmp_path: Path) -> None:
    """Every truncation and FLIPS seeded flips of model.bin and of a serialized state are
    refused with a message; forged ones (CRC recomputed) are refused by the reader's and
    the state's own checks or, when they only change a number, accepted and stepped; no
    crash, no sanitizer report, no hang (the child's timeout)."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc for the sanitizer build")
    host = tmp_path / "corrupt_host"
    cmd = ["gcc", "-std=c99", "-O1", "-g", "-Wall", "-Wextra", "-Werror", f"-I{RUNTIME_DIR}",
           f"-I{LINE_KERNEL_DIR}", f"-I{PANEL_KERNEL_DIR}", f"-I{BODY_KERNEL_DIR}",
           *SANITIZE, "-o", str(host), str(HOST),
           *(str(RUNTIME_DIR / name) for name in C_SOURCES), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    work = scratch()
    try:
        env = {**os.environ, "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
               "UBSAN_OPTIONS": "print_stacktrace=1"}
        proc = subprocess.run([str(host), str(small["blob"]), work, small["guid"], str(FLIPS),
                               "20261127"], capture_output=True, text=True, timeout=900,
                              check=False, env=env)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-4000:])
    assert "Sanitizer" not in proc.stderr and "runtime error" not in proc.stderr
    assert proc.stdout.strip().endswith("OK"), proc.stdout[-2000:]
    rows = {m[0]: {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m[1])}
            for m in re.findall(r"^(\w+) (.*)$", proc.stdout, re.M) if m[0] != "OK"}
    size = small["blob"].stat().st_size
    # the file as it is: every truncation and every flip refused, each with a message that
    # names model.bin and says to rebuild (the CRC-32 catches any single-byte change)
    assert rows["model"] == {"cases": size + FLIPS, "refused": size + FLIPS,
                             "messages": size + FLIPS}
    # forged (CRC recomputed): every truncation and every header count of 0xFFFFFFFF
    # refused by the reader itself, with a message
    forged = rows["forged_model"]
    assert forged["cases"] == (size - 24) + 14
    assert forged["refused"] == forged["cases"] == forged["messages"]
    # a forged flip of a number is data: accepted (then stepped, no crash) or refused by a
    # range check, always with a message when refused
    flips = rows["forged_flips"]
    assert flips["refused"] + flips["accepted"] == FLIPS and flips["messages"] == flips["refused"]
    assert flips["refused"] > 0
    # the serialized state: every truncation and flip refused with a message
    n_state = rows["state"]["cases"] - FLIPS  # its length: one case per truncation
    assert n_state > 100
    assert rows["state"]["refused"] == rows["state"]["messages"] == n_state + FLIPS
    # forged state flips: refused by the consistency checks (the bookkeeping entries) or
    # accepted (a changed number in the state), then restored and stepped without a crash
    fs = rows["forged_state"]
    assert fs["refused"] + fs["accepted"] == FLIPS and fs["messages"] == fs["refused"] > 0


def test_blob_trailer_round_trip(small: dict) -> None:
    """blob.py's trailer: ``HFCK`` and the CRC-32 of every byte before the CRC, last in the
    file (after every section); read_header (hydrofmu doctor) refuses a flipped byte and a
    truncated file naming the damage."""
    import zlib

    from hydrofmu.export.native.blob import TRAILER_TAG, VERSION, read_header
    from hydrofmu.runtime.errors import ExportError

    data = small["blob"].read_bytes()
    assert data[-8:-4] == TRAILER_TAG and int.from_bytes(data[8:12], "little") == VERSION
    assert int.from_bytes(data[-4:], "little") == zlib.crc32(data[:-4])
    assert read_header(data)["outputs"] > 0  # (the load FMU with constant radiation: n = 0)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x10
    with pytest.raises(ExportError, match="CRC-32 does not match"):
        read_header(bytes(flipped))
    with pytest.raises(ExportError, match="truncated"):
        read_header(data[:-3])
