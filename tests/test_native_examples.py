"""Every shipped configuration natively (issue 31's acceptance): each ``examples/**/*.toml``
but the BEM-solve inputs (a file with a ``[bem]`` table, decided by its content) is built
as shipped into its native FMU and its Python FMU (linux64 only), and both are driven by
fmpy in a process where hydrofmu is not importable, over 200 s with a PTO input that
changes at every step (seeded), at the communication steps 0.01, 0.1 and 1 s; every output
of the native FMU is compared with the Python FMU's, relative to the output's peak.

A configuration the native build refuses FAILS here with the build's refusal message: the
discovery skips nothing in silence. A configuration refused for a part not yet native would
be marked as a strict expected failure naming it (none is: the OSWEC survival example's
large rotations are native since bodies_blob.py; observed 4.2e-12 of the scale at 0.01 s).

The tolerance is decided from the built model (``tests/example_pairs.py``, each justified
there): 1e-12 of each output's scale for a linear model stepped ``exact``, 1e-10 for an
explicit Runge-Kutta scheme (convolution, drag, the elevation input), 1e-9 with MoorDyn
lines or a catenary. An output held at zero by the model (a locked hinge) is compared
against the largest output of its unit, not its own round-off peak.

Observed on the development machine, the largest of the three steps: cylinder 5.9e-15,
default sphere 2.0e-12 (its surge position: no restoring force, see
``tests/test_native_long_run.py``), BEMIO sphere 3.9e-14, F3OF DT1 2.4e-12, DT2 4.5e-13,
DT3 6.7e-15, OSWEC 2.0e-13, OSWEC decay 4.7e-15, RM3 3.8e-12 (spar surge), all rk4; the
moored body 2.4e-11 (an anchor tension) and the RM3 with its mooring 7.0e-11 (the plate's
mooring moment), midpoint5.

Cost on CI (2 cores): each configuration is built once for its three steps (a module
cache). The Python FMU's cost is its internal steps, the same at every communication
step: CPU seconds per simulated second measured here 0.014 (default sphere), 0.027
(cylinder), 0.041 (each F3OF case: three bodies' 60 s radiation memory) and 0.15 (the RM3
with its mooring: six lines stepped at 0.005 s), ~0.03 for the others. For the costly
ones (:data:`COSTLY`) the 0.01 s step runs over :data:`SHORT` s: what it tests beyond the
0.1 s case (one or two internal steps per communication step, the input held over each)
shows from its first steps, and the build-up over 200 s is held by the 0.1 s and 1 s
cases (and over 1,000 s by ``tests/test_native_long_run.py``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from example_pairs import EXAMPLES, Pair, is_bem_solve, scaled_errors, shipped_configurations
from hydrofmu.runtime.errors import ExportError
from native_helpers import pto_series, run

pytestmark = pytest.mark.fmu

#: Seconds driven at each communication step, s (the acceptance's 200 s).
DURATION = 200.0
STEPS = (0.01, 0.1, 1.0)

#: The configurations whose Python FMU costs most (module docstring), and the horizon of
#: their 0.01 s case, s.
COSTLY = {"rm3/rm3_moordyn.toml", "f3of/f3of_dt1.toml", "f3of/f3of_dt2.toml",
          "f3of/f3of_dt3.toml"}
SHORT = 50.0

#: The shipped models the native build refuses today, and the native part each one lacks
#: (none since the large rotations are native: bodies_blob.py). Remove an entry when its
#: part becomes native: the strict xfail then fails, saying so.
NOT_NATIVE_YET: dict[str, str] = {}


def _param(name: str) -> object:
    if name in NOT_NATIVE_YET:
        return pytest.param(name, marks=pytest.mark.xfail(
            strict=True, raises=ExportError, reason=NOT_NATIVE_YET[name]))
    return name


#: Every shipped model: each builds natively (a refusal fails its test with the reason).
CONFIGURATIONS = [_param(name) for name in shipped_configurations()]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The builds of this module by configuration, each built once for its three steps
    (a refusal kept and raised again), and their folder."""
    return {"folder": tmp_path_factory.mktemp("native_examples")}


def pair_of(name: str, cache: dict) -> Pair:
    if name not in cache:
        try:
            cache[name] = Pair(name, cache["folder"])
        except ExportError as exc:
            cache[name] = exc
    if isinstance(cache[name], ExportError):
        raise cache[name]
    return cache[name]


def test_discovery_leaves_out_only_the_bem_solves() -> None:
    """The files left out are the BEM-solve inputs (a ``[bem]`` table, named ``*_bem.toml``);
    every other file is a model."""
    every = sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*.toml"))
    left_out = sorted(set(every) - set(shipped_configurations()))
    assert left_out and all(name.endswith("_bem.toml") for name in left_out), left_out
    for name in left_out:
        assert is_bem_solve(EXAMPLES / name), name
    assert set(NOT_NATIVE_YET) <= set(shipped_configurations())


@pytest.mark.parametrize("dt", STEPS)
@pytest.mark.parametrize("name", CONFIGURATIONS)
def test_example_native_equals_python(name: str, dt: float, built: dict,
                                      tmp_path: Path) -> None:
    """The configuration builds natively as shipped, steps the scheme its file names, and
    every output of its native FMU equals its Python FMU's over 200 s (:data:`SHORT` for
    the costly ones at 0.01 s), to the tolerance of its class, at this communication
    step."""
    pair = pair_of(name, built)
    assert pair.scheme == pair.configured, (pair.scheme, pair.configured)
    tol = pair.tolerance()
    duration = SHORT if name in COSTLY and dt == 0.01 else DURATION
    values = pto_series(round(duration / dt), pair.amplitude)
    for side in ("python", "native"):
        (tmp_path / side).mkdir()
    ref = run(pair.python, pair.input, values, dt, tmp_path / "python")
    got = run(pair.native, pair.input, values, dt, tmp_path / "native")
    err = scaled_errors(ref, got, pair.units, pair.panels)
    step, worst = np.unravel_index(np.argmax(err), err.shape)
    print(f"OBSERVED {name} {dt} {pair.scheme} {pair.input} {err.max():.3g} "
          f"{ref['names'][worst]} at {step * dt:g} s")
    assert err.max() <= tol, (f"{name} ({pair.scheme}) at {dt} s: {ref['names'][worst]} "
                              f"differs by {err.max():.3g} of its scale at t = {step * dt:g} s, "
                              f"above {tol:g}")

