"""The coupling master (``cosim/coupling.py``) and the rigid-body FMU: a light body coupled
strongly to the load FMU (the added mass moved to the body's side, or an interface-Jacobian
/ IQN-ILS iteration with FMU-state rollback) equals the motion FMU, where explicit coupling
diverges; the explicit scheme's stability boundary is the closed form of
:func:`~hydrofmu.cosim.coupling.explicit_boundary`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hydrofmu
from hydrofmu.cosim.coupling import explicit_boundary, run_coupled
from hydrofmu.cosim.coupling_map import map_point, nyquist_gain
from hydrofmu.cosim.fmu_unit import FmuUnit
from hydrofmu.cosim.rigid_body import build_rigid_body_fmu, value_references
from hydrofmu.runtime.errors import ConfigError
from paths import ROOT

pytestmark = pytest.mark.fmu

H = 0.005  # communication step = the history grid of both FMUs, s
STOP = 5.0  # s: a full wave period with the ramp and the light body's offset transient
RATIO = 0.05  # m / A_inf33, the lightest body
RATIOS = (RATIO, 5.0)  # the ends of the range of mass ratios


def _sphere(kind: str, **body: object) -> dict:
    return {"simulation": {"time_scheme": "rk4", "max_internal_step": H, "stop_time": STOP,
                           "output_interval": H},
            "wave": {"type": "regular", "height": 2.0, "period": 6.0, "ramp_time": 2.0},
            "export": {"kind": kind, "runtime": "python"},
            "bodies": [{"name": "body", "hydro": "builtin:sphere", "dofs": ["heave"],
                        "inertia": [1e5, 1e5, 1e5], **body}]}


def _reference(motion_fmu: Path) -> np.ndarray:
    """The motion FMU's heave at the communication points."""
    ref = FmuUnit(motion_fmu, "motion")
    try:
        pose = [ref.get(["body.pose[3]"])[0]]
        for _ in range(round(STOP / H)):
            ref.do_step(H)
            pose.append(ref.get(["body.pose[3]"])[0])
    finally:
        ref.close()
    return np.array(pose)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("coupling")
    a33 = hydrofmu.Model.default().bodies[0].added_mass_inf[2, 2]
    # State-space radiation: both sides solve the same ODE (a convolution's grid sums
    # differ from the motion FMU's stage interpolation by O(h^2), 1.7e-6 at this step).
    out: dict[object, object] = {"rigid": build_rigid_body_fmu(folder / "RigidBody.fmu")}
    for ratio in RATIOS:
        body = dict(mass=ratio * a33, radiation="state_space")
        for kind in ("motion", "loads"):
            model = hydrofmu.Model.from_dict(_sphere(kind, **body))
            name = f"{kind.title()}{round(100 * ratio)}"
            out[kind, ratio] = model.build_fmu(folder / f"{name}.fmu", model_name=name)
            out["mass", ratio] = np.array(model.config["bodies"][0]["mass_matrix"])
        out["heave", ratio] = _reference(out["motion", ratio])
    out["loads"], out["mass"] = out["loads", RATIO], out["mass", RATIO]
    out["damped"] = hydrofmu.Model.from_dict(
        {**_sphere("loads", linear_damping=[0, 0, 1e5, 0, 0, 0]),
         "wave": {"type": "regular", "height": 0.0, "period": 6.0}}).build_fmu(
        folder / "damped.fmu", model_name="Damped")
    return out


def test_the_rigid_body_fmu_integrates_a_quadratic_force_exactly(fmus) -> None:
    vr = value_references()
    body = FmuUnit(fmus["rigid"], "rb", parameters={"M[3,3]": 2.0, "initial_velocity[3]": 1.0})
    try:
        f = ["force[3]"]
        body.set(f, [4.0])
        body.set_derivatives(f, 1, [6.0])
        body.set_derivatives(f, 2, [12.0])
        body.do_step(0.5)
        h = 0.5  # a = (4 + 6 t + 6 t^2) / 2: v = 1 + 2 h + 1.5 h^2 + h^3, q = h + h^2 + ...
        q, v = body.get(["pose[3]", "velocity[3]"])
        assert v == pytest.approx(1 + 2 * h + 1.5 * h**2 + h**3, rel=1e-15)
        assert q == pytest.approx(h + h**2 + 0.5 * h**3 + 0.25 * h**4, rel=1e-15)
        assert body.jacobian(["acceleration[3]"], ["force[3]"])[0, 0] == 0.5
        assert "force[3]" in vr
    finally:
        body.close()


def test_the_rigid_body_fmu_validates_and_serializes_its_state(fmus) -> None:
    from fmpy.validation import validate_fmu

    assert validate_fmu(str(fmus["rigid"])) == []
    body = FmuUnit(fmus["rigid"], "rb", parameters={"M[3,3]": 3.0})
    try:
        body.set(["force[3]"], [1.5])
        body.do_step(0.1)
        state = body.fmu.getFMUstate()
        blob = body.fmu.serializeFMUstate(state)
        before = body.get(["pose[3]", "velocity[3]", "acceleration[3]"])
        body.do_step(0.1)
        restored = body.fmu.deSerializeFMUstate(blob)
        body.fmu.setFMUstate(restored)
        assert np.array_equal(body.get(["pose[3]", "velocity[3]", "acceleration[3]"]), before)
        with pytest.raises(Exception, match=r"fmi2DeSerializeFMUstate"):
            body.fmu.deSerializeFMUstate(blob[:-1])  # not a state of this FMU: refused
        body.fmu.freeFMUstate(state)
        body.fmu.freeFMUstate(restored)
    finally:
        body.close()


@pytest.mark.parametrize(("method", "ratio"), [
    ("added_mass_iterated", RATIO), ("interface_jacobian", RATIO), ("iqn_ils", RATIO),
    ("interface_jacobian", 5.0), ("iqn_ils", 5.0)])
def test_strong_coupling_equals_the_motion_fmu(fmus, method: str, ratio: float) -> None:
    pose = fmus["heave", ratio]
    res = run_coupled(fmus["rigid"], fmus["loads", ratio], mass=fmus["mass", ratio],
                      method=method, step=H, stop_time=STOP, free=(0, 0, 1, 0, 0, 0))
    assert not res.diverged
    # The master's scheme is third order (the force quadratic through F_{n-1}, F_n,
    # F_{n+1}, exact in the body): at m/A = 0.05, 1.4e-6 of the peak at h = 0.01, 1.8e-7
    # at 0.005 (measured, 8x per halving); the motion FMU's RK4 is far more accurate.
    # 1e-6 of the peak is the bound.
    assert np.max(np.abs(res.pose[:, 2] - pose)) <= 1e-6 * np.max(np.abs(pose))
    assert 1.0 <= np.mean(res.iterations[1:]) <= 6.0  # the cost the docs' map reports


def test_explicit_coupling_is_stable_for_a_heavy_body(fmus) -> None:
    pose = fmus["heave", 5.0]
    res = run_coupled(fmus["rigid"], fmus["loads", 5.0], mass=fmus["mass", 5.0],
                      method="gauss_seidel", step=H, stop_time=STOP, free=(0, 0, 1, 0, 0, 0))
    # Stable above m = A (closed form), but first order: the force held over the step.
    err = np.max(np.abs(res.pose[:, 2] - pose)) / np.max(np.abs(pose))
    assert not res.diverged and 1e-6 < err < 0.05, err


@pytest.mark.parametrize("method", ["jacobi", "gauss_seidel"])
def test_explicit_coupling_diverges_there(fmus, method: str) -> None:
    res = run_coupled(fmus["rigid"], fmus["loads"], mass=fmus["mass"], method=method,
                      step=H, stop_time=STOP, free=(0, 0, 1, 0, 0, 0), limit=1e9)
    # -A/m = -20 per exchange: the added-mass force's error grows 20x per step.
    assert res.diverged and len(res.time) < 40


@pytest.mark.parametrize("step", [0.05, 0.2, 0.5])
def test_the_explicit_boundary_is_the_closed_form(fmus, step: float) -> None:
    a33 = hydrofmu.Model.default().bodies[0].added_mass_inf[2, 2]
    c_n = nyquist_gain(fmus["damped"], step)
    # A linear drag of 1e5 N s/m moves the boundary by c h / (2 A), 2 to 19 % here; the
    # radiation memory's gain at the Nyquist frequency is nearly zero (its direct term
    # h K(0) / 2 and its alternating sum cancel), so c_N is the drag to 1e-4.
    assert c_n == pytest.approx(1e5, rel=2e-4)
    boundary = explicit_boundary(a33, c_n, step) / a33
    for factor, stable in ((0.98, False), (1.02, True)):  # 2 %: 40+ steps of growth
        point = map_point(fmus["rigid"], fmus["damped"], method="gauss_seidel",
                          ratio=factor * boundary, step=step)
        assert point.stable is stable, (step, factor, boundary)


def test_a_moved_added_mass_is_stable_where_explicit_coupling_is_not(fmus) -> None:
    for method, stable in (("gauss_seidel", False), ("added_mass", True)):
        point = map_point(fmus["rigid"], fmus["damped"], method=method, ratio=0.05, step=0.1)
        assert point.stable is stable, method


def test_an_unknown_method_is_refused(fmus) -> None:
    with pytest.raises(ConfigError, match=r"coupling method 'newton'.*interface_jacobian"):
        run_coupled(fmus["rigid"], fmus["loads"], mass=np.eye(6), method="newton", step=H,
                    stop_time=H)


def test_rigid_body_refuses_a_singular_mass(fmus) -> None:
    with pytest.raises(Exception, match=r"fmi2ExitInitializationMode"):
        FmuUnit(fmus["rigid"], "rb", parameters={"M[3,3]": 0.0})


def test_the_example_prints_what_the_readme_promises(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "added_mass_coupling.py"),
                           "--out", str(tmp_path), "--stop", "1.5"], capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {m[0]: (m[1], float(m[2])) for m in re.findall(
        r"^(\w+)\s+(yes|no)\s+([-+.\deE]+)\s+[\d.]+$", proc.stdout, re.M)}
    assert rows["gauss_seidel"][0] == rows["jacobi"][0] == "no"
    for method in ("added_mass_iterated", "interface_jacobian", "iqn_ils"):
        # Third-order coupling at h = 0.01 s: 9.7e-7 of the peak over 3 s (README); 2e-6
        # bounds the shorter run's.
        assert rows[method][0] == "yes" and rows[method][1] < 2e-6, (method, rows[method])
