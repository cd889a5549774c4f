"""One kernel call per body and stage for both nonlinear parts (issue 28, point 3): the
kernel's ``hp_body_loads`` (the pose from the body's six displacements, both pressures in
one pass, the weight at the rotated centre of gravity) against the separate calls it
replaces, and the simulator's count of kernel calls against its evaluations of the two
parts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hydrofmu.runtime.panels.kernel import (
    INSTANTANEOUS,
    STATIC,
    STATIC_LOAD,
    WAVE,
    WAVE_LOAD,
    PanelKernel,
    WaveComponents,
)
from hydrofmu.runtime.panels.pose import rotation_matrix
from hydrofmu.runtime.waves.kinematics import wave_number
from panel_meshes import RHO, G, kernel_library, sphere, write_stl


def sea() -> WaveComponents:
    omega = np.array([0.6, 0.9, 1.3])
    return WaveComponents(np.array([1.0, 0.5, 0.2]), omega, wave_number(omega),
                          np.array([0.0, 0.4, -0.3]), np.array([0.1, 2.0, 4.0]))


@pytest.mark.parametrize("surface", [0, INSTANTANEOUS])
def test_one_call_equals_the_separate_calls_at_the_python_pose(surface: int) -> None:
    """At seeded poses (angles up to 0.6 rad): the pose the kernel builds from the angles
    is pose.py's rotation bit for bit; the two loads of one call equal the static-only and
    the wave-only calls at that pose bit for bit (the same sums in the same order); the
    weight enters as -m g at the rotated centre of gravity (to round-off of N m)."""
    mesh = sphere(5.0, 10)
    lib = kernel_library()
    k = PanelKernel(mesh.vertices, mesh.triangles, rho=RHO, g=G, wave=sea(), lib=lib)
    ref = PanelKernel(mesh.vertices, mesh.triangles, rho=RHO, g=G, wave=sea(), lib=lib)
    origin, cog, weight = np.array([1.0, -2.0, 0.0]), np.array([0.3, -0.2, -1.5]), 2.6e6
    rng = np.random.default_rng(28)
    for _ in range(10):
        q = np.concatenate([rng.uniform(-1.5, 1.5, 3), rng.uniform(-0.6, 0.6, 3)])
        t = float(rng.uniform(0.0, 30.0))
        k.set_body(origin, cog, 0.0)
        out = k.body_loads(q, t=t, scale=0.8, mode=STATIC | WAVE | surface).copy()
        rot = rotation_matrix(*q[3:])
        np.testing.assert_array_equal(k.pose[:9], rot.ravel())
        np.testing.assert_array_equal(k.pose[9:], origin + q[:3])
        static = ref.evaluate(rot, origin + q[:3], t=t, scale=0.8, mode=STATIC | surface)
        np.testing.assert_array_equal(out[STATIC_LOAD], static[STATIC_LOAD])
        np.testing.assert_array_equal(out[12:], static[12:])  # volume, centres, areas
        wave = ref.evaluate(rot, origin + q[:3], t=t, scale=0.8, mode=WAVE | surface)
        np.testing.assert_array_equal(out[WAVE_LOAD], wave[WAVE_LOAD])
        assert np.abs(out[WAVE_LOAD]).max() > 1e3  # the wave acts
        k.set_body(origin, cog, weight)
        heavy = k.body_loads(q, t=t, scale=0.8, mode=STATIC | WAVE | surface)
        arm = rot @ cog
        expected = out[STATIC_LOAD] + np.concatenate(
            [[0.0, 0.0, -weight], np.cross(arm, [0.0, 0.0, -weight])])
        # the weight's moment: products of ~1e6 N by ~1 m, summed in another order
        np.testing.assert_allclose(heavy[STATIC_LOAD], expected, rtol=0,
                                   atol=1e-15 * weight * 10)


def test_a_non_finite_pose_is_refused_with_the_displacements() -> None:
    """A NaN angle: the kernel's refusal names the displacements (no silent NaN)."""
    from hydrofmu.runtime.errors import ConfigError

    mesh = sphere(5.0, 6)
    k = PanelKernel(mesh.vertices, mesh.triangles, rho=RHO, g=G, lib=kernel_library())
    with pytest.raises(ConfigError, match=r"refused the pose.*displacements"):
        k.body_loads(np.array([0.0, 0.0, 0.0, math.nan, 0.0, 0.0]), t=0.0, scale=1.0,
                     mode=STATIC)


def test_one_kernel_call_per_stage_for_both_parts(tmp_path, monkeypatch) -> None:
    """A heaving sphere in a regular wave stepped by rk4: the two parts are evaluated at
    every stage and the kernel is called once per stage (not once per part); the
    Froude-Krylov part's load is the one the hydrostatics part's call computed."""
    import hydrofmu
    from hydrofmu.runtime.forces.nonlinear_hydro import (
        NonlinearFroudeKrylov,
        NonlinearHydrostatics,
    )

    write_stl(tmp_path / "sphere.stl", sphere(5.0, 28))  # the data's sphere: no warning
    model = hydrofmu.Model.from_dict({
        "simulation": {"time_scheme": "rk4", "max_internal_step": 0.05, "stop_time": 2.0,
                       "output_interval": 0.5},
        "wave": {"type": "regular", "height": 2.0, "period": 6.0, "ramp_time": 0.0},
        "bodies": [{"name": "body", "hydro": "builtin:sphere", "dofs": ["heave"],
                    "radiation": "state_space", "mesh": "sphere.stl",
                    "nonlinear": "instantaneous"}]}, base_dir=tmp_path)
    counts = {"kernel": 0, "static": 0, "wave": 0}
    calls = (PanelKernel.body_loads, NonlinearHydrostatics.force, NonlinearFroudeKrylov.force)

    def counted(key, fn):
        def wrapper(*args, **kwargs):
            counts[key] += 1
            return fn(*args, **kwargs)
        return wrapper

    for key, cls, fn in zip(counts, (PanelKernel, NonlinearHydrostatics,
                                     NonlinearFroudeKrylov), calls, strict=True):
        monkeypatch.setattr(cls, fn.__name__, counted(key, fn))
    ds = model.simulate(2.0, 0.5)
    assert np.abs(ds["body.F_excitation[3]"].values).max() > 1e4
    # 40 steps x 4 stages, plus the outputs' evaluations: the two parts as often as each
    # other, the kernel once per stage (fewer than either: an output at a stage's point,
    # the end of a step and the next step's first stage, reuses that stage's call)
    assert counts["static"] >= 160 and counts["wave"] == counts["static"], counts
    assert 160 <= counts["kernel"] <= counts["static"], counts
