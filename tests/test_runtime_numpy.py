"""The FMU's run time needs numpy and the standard library alone (issue 7, item 1): a C
host crashes at exit when scipy was imported inside the FMU.

Two proofs on a built FMU: a static scan of every bundled Python file's imports, and a run
of the FMU in a subprocess where scipy (and the other build-time libraries) cannot be
imported at all.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate

from hydrofmu.config.configuration import default_config
from hydrofmu.export.bundle import RUNTIME_DEPENDENCIES
from hydrofmu.export.fmu import build_fmu
from hydrofmu.runtime.waves import spectra

pytestmark = pytest.mark.fmu

#: Libraries used at build time only; none may be imported by the FMU.
BUILD_TIME = ("scipy", "xarray", "h5py", "capytaine", "dask", "netCDF4", "h5netcdf")


@pytest.fixture(scope="module")
def built_fmu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bodies, config = default_config()
    return build_fmu(bodies, config, tmp_path_factory.mktemp("numpy_only") / "Plain.fmu")


def test_runtime_dependencies_exclude_scipy() -> None:
    assert "scipy" not in RUNTIME_DEPENDENCIES
    assert "numpy" in RUNTIME_DEPENDENCIES


def test_bundled_code_imports_only_numpy_and_the_standard_library(built_fmu: Path) -> None:
    allowed = set(sys.stdlib_module_names) | {"numpy", "pythonfmu", "__future__"}
    found: dict[str, set[str]] = {}
    with zipfile.ZipFile(built_fmu) as z:
        sources = [n for n in z.namelist() if n.endswith(".py")]
        assert any(n.endswith("simulator/simulator.py") for n in sources), sources
        # The bundled package itself (``resources/_hydrofmu_<hash>/``), imported by the
        # generated slave module.
        bundled = {n.split("/")[1] for n in sources
                   if n.startswith("resources/") and n.endswith("/__init__.py")}
        assert bundled
        allowed |= bundled
        for name in sources:
            tree = ast.parse(z.read(name), filename=name)
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    tops = [a.name.split(".")[0] for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    tops = [(node.module or "").split(".")[0]]
                else:
                    continue
                for top in tops:
                    found.setdefault(top, set()).add(name)
    bad = {k: sorted(v) for k, v in found.items() if k not in allowed}
    assert not bad, f"bundled files import non-run-time packages: {bad}"
    assert "numpy" in found  # the scan sees the imports at all


_RUN = textwrap.dedent('''
    import sys
    import importlib.abc

    BLOCKED = {blocked!r}

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{{name}} is blocked: the FMU must not need it")
            return None

    sys.meta_path.insert(0, Blocker())
    for mod in list(sys.modules):
        if mod.split(".")[0] in BLOCKED:
            del sys.modules[mod]
    from fmpy import simulate_fmu
    res = simulate_fmu({fmu!r}, stop_time=3.0, output_interval=0.1, validate=False,
                       start_values={{"body.initial_pose[3]": 0.5}},
                       output=["body.pose[3]"])
    leaked = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    print("LEAKED", leaked)
    print("HEAVE", repr(float(res["body.pose[3]"][-1])))
''')


def test_fmu_runs_with_scipy_unimportable(built_fmu: Path) -> None:
    script = _RUN.format(blocked=BUILD_TIME, fmu=str(built_fmu))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    assert lines["LEAKED"] == "[]"
    heave = float(lines["HEAVE"])
    # Released from 0.5 m: after 3 s the sphere (heave period ~ 5 s) has moved well away
    # from the release point and stays within the release amplitude.
    assert abs(heave) < 0.5 and abs(heave - 0.5) > 0.05


@pytest.mark.parametrize("gamma", [1.0, 2.0, 3.3, 7.0, 20.0])
def test_jonswap_normalisation_matches_adaptive_quadrature(gamma: float) -> None:
    """The numpy Gauss-Legendre rule that replaced scipy's quad at run time."""

    def f(x: float) -> float:
        xa = np.array([x])
        return float((spectra._pm_shape(xa) * spectra._jonswap_peak(xa, gamma))[0])

    lo, _ = integrate.quad(f, 0.0, 1.0, epsabs=0.0, epsrel=1e-13, limit=400)
    hi, _ = integrate.quad(f, 1.0, np.inf, epsabs=0.0, epsrel=1e-13, limit=400)
    # quad's own tolerance is 1e-13 relative; both rules converge to round-off.
    assert spectra.jonswap_normalisation(gamma) == pytest.approx(1.0 / (lo + hi), rel=1e-12)
