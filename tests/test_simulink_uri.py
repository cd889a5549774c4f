"""The resource locations Simulink and the other importers pass, parsed by ``hfn_uri.h``
(the one parser of the native runtime and of the Python FMU's shim), and an FMU unpacked
under a folder with a space and a non-ASCII letter loaded through each form.

The parser is compiled on its own into a small library (both the POSIX and the Windows
reading, a run-time flag) and called by ctypes; the FMUs are loaded in this process by
fmpy with the location written by hand in each form.
"""

from __future__ import annotations

import ctypes
import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.fmi2 import FMU2Slave, fmi2CoSimulation

import hydrofmu
from hydrofmu.export.native.compile import RUNTIME_DIR
from hydrofmu.export.python_binary import compile_shared_library

PROBE = r"""
#include <stdlib.h>
#include "hfn_uri.h"
__attribute__((visibility("default"))) char *probe(const char *uri, int windows) {
    return hfn_uri_to_path(uri, windows);
}
__attribute__((visibility("default"))) void probe_free(char *p) { free(p); }
"""

#: (location, Windows reading, path); None: refused.
CASES = [
    ("file:///tmp/a%20b/resources", 0, "/tmp/a b/resources"),  # fmpy, FMI Library
    ("file:/tmp/a%20b/resources", 0, "/tmp/a b/resources"),  # Simulink, Dymola
    ("file://localhost/tmp/x", 0, "/tmp/x"),
    ("FILE://LocalHost/tmp/x", 0, "/tmp/x"),
    ("file:///t%C3%ABst/%7Eu", 0, "/t\u00ebst/~u"),
    ("file:///a%2", 0, "/a%2"),  # a '%' without two hex digits stays
    ("file:///a%zz", 0, "/a%zz"),
    ("file:///a%00b", 0, "/a%00b"),  # no NUL inside a path
    ("file://server/share/x", 0, None),  # a remote host: no POSIX path names it
    ("/plain/a%20b", 0, "/plain/a%20b"),  # no scheme: a path as it is
    ("", 0, None),
    ("file://localhost", 0, None),
    ("file:///C:/Program%20Files/m/resources", 1, "C:/Program Files/m/resources"),
    ("file:/C:/x", 1, "C:/x"),
    ("file://localhost/C:/x", 1, "C:/x"),
    ("file:///C|/x", 1, "C:/x"),
    ("file:///d%3A/x", 1, "d:/x"),
    ("file:///C:", 1, "C:"),
    ("file://server/share/x", 1, "//server/share/x"),  # UNC
    ("C:\\x\\y", 1, "C:\\x\\y"),
    ("file:///tmp/x", 1, "/tmp/x"),  # a drive letter only when there is one
]


@pytest.fixture(scope="module")
def parser(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("uri")
    source = folder / "probe.c"
    source.write_text(PROBE)
    lib = ctypes.CDLL(str(compile_shared_library(source, folder / "probe.so",
                                                 flags=(f"-I{RUNTIME_DIR}",))))
    lib.probe.restype = ctypes.c_void_p
    lib.probe.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.probe_free.argtypes = [ctypes.c_void_p]

    def to_path(uri: str, windows: int) -> str | None:
        pointer = lib.probe(uri.encode(), windows)
        if not pointer:
            return None
        try:
            return ctypes.string_at(pointer).decode()
        finally:
            lib.probe_free(pointer)

    return to_path


@pytest.mark.parametrize(("uri", "windows", "path"), CASES)
def test_resource_location_forms(parser, uri: str, windows: int, path: str | None) -> None:
    assert parser(uri, windows) == path


@pytest.fixture(scope="module")
def fmus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The default body's native and Python FMUs (this platform), each unpacked under a
    folder whose name holds a space and a non-ASCII letter."""
    folder = tmp_path_factory.mktemp("fmus")
    model = hydrofmu.Model.default()
    built = {"native": model.build_fmu(folder / "N.fmu", model_name="Sphere", native=True,
                                       platforms=(fmpy.platform,)),
             "python": model.build_fmu(folder / "P.fmu", model_name="Sphere", native=False)}
    unpacked = {}
    for kind, fmu in built.items():
        target = folder / f"{kind} dir \u00fc"
        with zipfile.ZipFile(fmu) as z:
            z.extractall(target)
        unpacked[kind] = target
    return unpacked


def run_at(unzipdir: Path, uri: str, steps: int = 20, h: float = 0.1) -> np.ndarray:
    """Instantiate with the resource location ``uri`` (as written), step ``steps`` times
    ``h`` with a heave force, free; the heave after each step."""
    md = fmpy.read_model_description(str(unzipdir))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    slave = FMU2Slave(guid=md.guid, unzipDirectory=str(unzipdir),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="uri")
    from fmpy.fmi2 import defaultCallbacks

    slave.callbacks = defaultCallbacks
    slave.component = slave.fmi2Instantiate(b"uri", fmi2CoSimulation, md.guid.encode(),
                                            uri.encode(), ctypes.byref(slave.callbacks),
                                            0, 0)
    assert slave.component, uri
    try:
        slave.setupExperiment(startTime=0.0)
        slave.enterInitializationMode()
        slave.exitInitializationMode()
        heave = []
        for k in range(steps):
            slave.setReal([vr["body.F_pto[3]"]], [1e5 * np.sin(0.7 * k)])
            slave.doStep(k * h, h)
            heave.append(slave.getReal([vr["body.pose[3]"]])[0])
        slave.terminate()
    finally:
        slave.freeInstance()
    return np.array(heave)


@pytest.mark.parametrize("kind", ["native", "python"])
def test_an_fmu_under_a_space_loads_through_every_form(fmus, kind: str) -> None:
    """fmpy's ``file:///`` with percent-encoded space and UTF-8, Simulink's ``file:/``,
    ``file://localhost/`` and an encoded path that pythonfmu alone would not find: the same
    run each time; a remote host is refused with fmi2Instantiate returning NULL."""
    resources = fmus[kind] / "resources"
    encoded = resources.as_uri()
    assert "%20" in encoded and "%C3%BC" in encoded
    forms = [encoded, "file:" + encoded[len("file://"):],
             "file://localhost" + encoded[len("file://"):]]
    runs = [run_at(fmus[kind], uri) for uri in forms]
    assert np.ptp(runs[0]) > 0.0
    for other in runs[1:]:
        assert np.array_equal(other, runs[0])  # one model, one path: bit-identical
    md = fmpy.read_model_description(str(fmus[kind]))
    slave = FMU2Slave(guid=md.guid, unzipDirectory=str(fmus[kind]),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="host")
    from fmpy.fmi2 import defaultCallbacks

    remote = "file://server" + encoded[len("file://"):]
    component = slave.fmi2Instantiate(b"host", fmi2CoSimulation, md.guid.encode(),
                                      remote.encode(), ctypes.byref(defaultCallbacks), 0, 0)
    assert not component
