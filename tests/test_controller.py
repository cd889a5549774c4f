"""A PTO controller FMU in the loop with the body FMU (issue 7, item 4).

The damper controller (``examples/controller``, F = -c v on heave) is coupled to the
default body FMU in regular waves through the project's master (Jacobi and Gauss-Seidel),
libcosim (OSP system structure file with the body's OSP-IS model description) and an SSP
archive run by fmpy; each route runs in its own subprocess. The reference is one fmpy
loop over the body FMU alone with ``F_pto[3] = -c * velocity[3]`` set before each step.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config
from hydrofmu.cosim.master import FixedStepMaster
from hydrofmu.export.fmu import build_fmu
from hydrofmu.export.osp import OSP_NAMESPACE, osp_model_description
from hydrofmu.runtime.errors import ConfigError

pytestmark = pytest.mark.fmu

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "controller"
ROUTES = ("loop", "jacobi", "gauss-seidel", "libcosim", "ssp")
DT = 0.02  # s: the one-step lag of libcosim's and fmpy-SSP's Jacobi exchange is O(DT)
STOP = 56.0  # s: 20 s ramp, then > 10 decay times (2 (m + A33) / (B33 + c) ~ 2.7 s)
FIT = 24.0  # s: the last three wave periods
DAMPING = 2.0e5  # N s/m, the controller's default (the SSP route cannot set it)
OMEGA = 2 * np.pi / 8.0  # rad/s, the default configuration's 8 s regular wave


@pytest.fixture(scope="module")
def fmus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    sys.path.insert(0, str(EXAMPLE))
    try:
        from build_controller import build_controller
    finally:
        sys.path.remove(str(EXAMPLE))
    folder = tmp_path_factory.mktemp("controller")
    bodies, config = default_config()
    return {
        "body": build_fmu(bodies, config, folder / "HydroFMU.fmu"),
        "controller": build_controller(folder),
    }


@pytest.fixture(scope="module")
def results(fmus: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("routes")
    results = {}
    for route in ROUTES:
        path = out / f"{route}.json"
        proc = subprocess.run(
            [
                sys.executable,
                str(EXAMPLE / "routes.py"),
                route,
                str(fmus["body"]),
                str(fmus["controller"]),
                str(path),
                "--dt",
                repr(DT),
                "--stop",
                repr(STOP),
                "--damping",
                repr(DAMPING),
            ],
            cwd=out,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert proc.returncode == 0, f"{route} failed ({proc.returncode}):\n{proc.stderr}"
        results[route] = {k: np.array(v) for k, v in json.loads(path.read_text()).items()}
    return results


def steady_amplitude(time: np.ndarray, heave: np.ndarray) -> float:
    """Heave amplitude at the wave frequency over the last FIT seconds (least squares)."""
    m = time >= time[-1] - FIT - 1e-9
    a = np.column_stack([np.ones(m.sum()), np.cos(OMEGA * time[m]), np.sin(OMEGA * time[m])])
    c = np.linalg.lstsq(a, heave[m], rcond=None)[0]
    return float(np.hypot(c[1], c[2]))


@pytest.mark.slow
@pytest.mark.parametrize("route", ROUTES[1:])
def test_damper_route_matches_the_single_fmu_loop(results: dict, route: str) -> None:
    ref = steady_amplitude(results["loop"]["time"], results["loop"]["heave"])
    amp = steady_amplitude(results[route]["time"], results[route]["heave"])
    assert ref > 0.3  # m: the body answers the 2 m wave (a damped, real response)
    # Issue 7's acceptance: within 1 %. libcosim and fmpy's SSP pass the controller's force
    # one communication step late (Jacobi): a phase lag omega*DT = 0.016 rad; measured
    # -0.42 % at DT = 0.02 s, -1.02 % at 0.05 s (first order in DT).
    assert abs(amp / ref - 1) < 0.01, f"{route}: {amp:.6f} m vs {ref:.6f} m"


@pytest.mark.slow
def test_routes_agree_with_each_other(results: dict) -> None:
    loop = results["loop"]["heave"]
    for route in ("jacobi", "gauss-seidel"):
        # The project's master refreshes the direct-feedthrough force at each communication
        # point: the same inputs as the hand-made loop, so the same floats.
        np.testing.assert_allclose(results[route]["heave"], loop, rtol=0, atol=1e-12)
    lc, ssp = results["libcosim"], results["ssp"]
    np.testing.assert_allclose(lc["time"], ssp["time"], rtol=0, atol=1e-9)
    # Both exchange once per step after all FMUs stepped (same lag, same floats up to
    # the communication times' round-off, which libcosim counts in integer nanoseconds).
    np.testing.assert_allclose(lc["heave"], ssp["heave"], rtol=0, atol=1e-6)


KP, KI = 1.0e5, 4.0e5  # N s/m, N/m: the PI gains of the PI route (set point 0)


@pytest.fixture(scope="module")
def pi_result(fmus: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("pi") / "pi.json"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE / "routes.py"), "jacobi", str(fmus["body"]),
         str(fmus["controller"]), str(path), "--dt", repr(DT), "--stop", repr(STOP),
         "--pi", repr(KP), repr(KI)],
        cwd=path.parent, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, f"PI route failed ({proc.returncode}):\n{proc.stderr}"
    return {k: np.array(v) for k, v in json.loads(path.read_text()).items()}


@pytest.mark.slow
def test_pi_controller_matches_the_frequency_domain_solution(pi_result: dict) -> None:
    """PI velocity tracking with set point 0 is F = -KP v - KI x: a damper and a spring.

    The steady heave amplitude equals the frequency-domain solution of the same body with
    KP added to B33 and KI to K33 (all six DOFs, A(w), B(w), X(w) from the body's data).
    Within 1 %: the force is held over each step (a delay DT/2: effective stiffness change
    KP DT/2 w^2 ~ 0.1 % of K33), the controller's rectangle-rule integral (an effective
    damping change KI DT/2 = 4e3 N s/m, ~0.3 % of the total), the 30 s IRF truncation and
    trapezoid convolution (<= 0.15 % in test_wave_response).
    """
    predicted = frequency_domain_heave(KP, KI)
    amp = steady_amplitude(pi_result["time"], pi_result["heave"])
    # The spring KI moves the response away from the damper's: the test tells them apart.
    assert abs(predicted / frequency_domain_heave(DAMPING, 0.0) - 1) > 0.05
    assert abs(amp / predicted - 1) < 0.01, f"PI: {amp:.6f} m vs {predicted:.6f} m"


def frequency_domain_heave(damping: float, stiffness: float) -> float:
    """Steady heave amplitude (m) of the default body in its regular wave with a PTO
    damping (N s/m) and stiffness (N/m) added on heave, all six DOFs free."""
    from hydrofmu.runtime.simulator.simulator import Simulator

    bodies, config = default_config()
    sim = Simulator(bodies, config)
    hd = sim.bodies[0]
    a, b = hd.coefficients_at(OMEGA)
    b = b.copy()
    k = sim.part("hydrostatics").stiffness[:6, :6].copy()
    b[2, 2] += damping
    k[2, 2] += stiffness
    z = -(OMEGA**2) * (sim.mass[:6, :6] + a) + 1j * OMEGA * b + k
    x = np.linalg.solve(z, hd.excitation_at(OMEGA, 0.0))
    return float(abs(x[2]) * config["wave"]["height"] / 2.0)


def test_controller_fmu_passes_fmpy_validate(fmus: dict[str, Path]) -> None:
    from fmpy.validation import validate_fmu

    assert validate_fmu(str(fmus["controller"])) == []


def test_osp_model_description_declares_6_dof_ports(fmus: dict[str, Path]) -> None:
    root = ET.fromstring(osp_model_description(fmus["body"]))
    ns = {"o": OSP_NAMESPACE}
    linear = root.find("o:VariableGroups/o:LinearMechanicalPort", ns)
    angular = root.find("o:VariableGroups/o:AngularMechanicalPort", ns)
    refs = {
        tag: [v.get("ref") for v in port.find(f"o:{tag}", ns)]
        for port, tags in (
            (linear, ("Force", "LinearVelocity")),
            (angular, ("Torque", "AngularVelocity")),
        )
        for tag in tags
    }
    assert refs == {
        "Force": ["body.F_pto[1]", "body.F_pto[2]", "body.F_pto[3]"],
        "LinearVelocity": ["body.velocity[1]", "body.velocity[2]", "body.velocity[3]"],
        "Torque": ["body.F_pto[4]", "body.F_pto[5]", "body.F_pto[6]"],
        "AngularVelocity": ["body.velocity[4]", "body.velocity[5]", "body.velocity[6]"],
    }


def test_master_refuses_bad_connections(fmus: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="unknown coupling algorithm 'newton'"):
        FixedStepMaster(
            fmus={"body": fmus["body"]}, connections=[], step_size=0.1, algorithm="newton"
        )
    with pytest.raises(ConfigError, match="positive"):
        FixedStepMaster(fmus={"body": fmus["body"]}, connections=[], step_size=0.0)
    master = FixedStepMaster(
        fmus={"body": fmus["body"], "pto": fmus["controller"]},
        connections=[("pto.velocity", "body.body.F_pto[3]")],  # an input as a source
        step_size=0.1,
    )
    with pytest.raises(ConfigError, match=r"'pto\.velocity' is input; a connection needs an"):
        master.run(0.1)
    # Start values go through the setter of their type; a wrong one is refused with the
    # variable's name, and the instances already initialized are closed without a crash.
    for values, pattern in (
        ({"mode": 1.5}, r"'pto\.mode' \(Integer\) must be an integer, got 1\.5"),
        ({"no_such": 1.0}, r"has no variable 'no_such'"),
    ):
        master = FixedStepMaster(
            fmus={"body": fmus["body"], "pto": fmus["controller"]},
            connections=[], step_size=0.1, order=["body", "pto"],
            start_values={"pto": values},
        )
        with pytest.raises(ConfigError, match=pattern):
            master.run(0.1)
