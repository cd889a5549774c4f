"""Checks: each bad-input case raises with a message naming body, variable and value."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.io.hydro_checks import (
    DAMPING_ERROR_RTOL,
    SYMMETRY_RTOL,
    HydroDataWarning,
    check_hydrodata,
    check_mass_matrix,
)
from hydrofmu.io.readers import read_bemio
from hydrofmu.runtime.errors import HydroDataError
from hydrofmu.runtime.hydrodata.model import HydroData


@pytest.fixture(scope="module")
def raw_sphere(data_dir: Path) -> HydroData:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HydroDataWarning)
        return read_bemio(data_dir / "sphere_bemio.h5")


@pytest.fixture(scope="module")
def sphere(raw_sphere: HydroData) -> HydroData:
    """The sphere without its one known warning (heave damping < 0 above 11.45 rad/s), so
    that a test sees only the warnings it provokes."""
    b = raw_sphere.radiation_damping.copy()
    b[:, 2, 2] = np.maximum(b[:, 2, 2], 0.0)
    return raw_sphere.with_changes(radiation_damping=b)


def _spatial_mass(m: float, cg: np.ndarray, inertia_cg: np.ndarray) -> np.ndarray:
    """6x6 rigid-body mass matrix about the origin, CoG at ``cg``."""
    s = np.array([[0.0, -cg[2], cg[1]], [cg[2], 0.0, -cg[0]], [-cg[1], cg[0], 0.0]])
    mm = np.zeros((6, 6))
    mm[:3, :3] = m * np.eye(3)
    mm[:3, 3:] = -m * s
    mm[3:, :3] = m * s
    mm[3:, 3:] = inertia_cg - m * s @ s
    return mm


@pytest.fixture(scope="module")
def sphere_mass(sphere: HydroData) -> np.ndarray:
    m = sphere.rho * sphere.displaced_volume           # floating: weight = buoyancy
    i = 0.4 * m * 5.0**2                               # solid sphere about its centre
    return _spatial_mass(m, sphere.center_of_gravity, np.diag([i, i, i]))


def test_real_data_passes(raw_sphere: HydroData, sphere: HydroData,
                          sphere_mass: np.ndarray) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_hydrodata(raw_sphere)
    # The one legitimate warning: heave damping dips to -0.21 % at 11.5-12 rad/s.
    assert [str(w.message) for w in caught] == [
        "body 'sphere': radiation_damping B[heave, heave] dips to -392.143 at omega = 12 "
        "rad/s (0.21% of the group's largest damping): BEM discretisation error, usually at "
        "the ends of the frequency range"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_hydrodata(sphere)
    check_mass_matrix(sphere_mass, sphere.added_mass_inf)


def test_wrong_shape(sphere: HydroData) -> None:
    bad = sphere.with_changes(added_mass=sphere.added_mass[:, :5, :])
    with pytest.raises(HydroDataError, match=r"body 'sphere': added_mass has shape "
                                             r"\(240, 5, 6\), expected \(240, 6, 6\)"):
        check_hydrodata(bad)


def test_nan_in_damping(sphere: HydroData) -> None:
    b = sphere.radiation_damping.copy()
    b[10, 2, 2] = np.nan
    with pytest.raises(HydroDataError, match=r"body 'sphere': radiation_damping has 1 "
                                             r"non-finite value\(s\), first nan at index "
                                             r"\(10, 2, 2\)") as info:
        check_hydrodata(sphere.with_changes(radiation_damping=b))
    assert np.isnan(info.value.value)


def test_inf_in_excitation(sphere: HydroData) -> None:
    x = sphere.excitation.copy()
    x[3, 0, 0] = complex(np.inf, 0.0)
    with pytest.raises(HydroDataError, match=r"excitation has 1 non-finite.*\(3, 0, 0\)"):
        check_hydrodata(sphere.with_changes(excitation=x))


def test_non_increasing_omega(sphere: HydroData) -> None:
    w = sphere.omega.copy()
    w[[4, 5]] = w[[5, 4]]
    with pytest.raises(HydroDataError, match=r"omega is not strictly increasing: omega\[4\] = "
                                             r"0\.3.* then omega\[5\] = 0\.25"):
        check_hydrodata(sphere.with_changes(omega=w))


def test_zero_frequency(sphere: HydroData) -> None:
    w = sphere.omega.copy()
    w[0] = 0.0
    with pytest.raises(HydroDataError, match=r"omega starts at 0\.0 rad/s"):
        check_hydrodata(sphere.with_changes(omega=w))


def test_asymmetric_added_mass_inf(sphere: HydroData) -> None:
    a = sphere.added_mass_inf.copy()
    a[0, 4] *= 1.10  # +14.3e3 kg m against max |diag| 286e3: 5e-2 > SYMMETRY_RTOL
    with pytest.raises(HydroDataError, match=r"added_mass_inf is asymmetric: "
                                             r"\|A\[0,4\] - A\[4,0\]\| = 14314") as info:
        check_hydrodata(sphere.with_changes(added_mass_inf=a))
    assert info.value.value == pytest.approx(14314.02 / 286266.3, rel=1e-4)
    assert info.value.value > SYMMETRY_RTOL


def test_mild_asymmetry_only_warns(sphere: HydroData) -> None:
    """2e-3 of max |diag|, as the Capytaine cylinder's coarse mesh: a warning."""
    a = sphere.added_mass_inf.copy()
    a[0, 4] += 2e-3 * a[3, 3]
    with pytest.warns(HydroDataWarning, match="asymmetric by 0.002 of max"):
        check_hydrodata(sphere.with_changes(added_mass_inf=a))


def test_negative_damping(sphere: HydroData) -> None:
    b = sphere.radiation_damping.copy()
    b[:, 2, 2] *= -1.0  # a sign error
    with pytest.raises(HydroDataError, match=r"negative on the diagonal: B\[heave, heave\] = "
                                             r"-95256 at omega = 1\.2 rad/s is 0\.522 of"):
        check_hydrodata(sphere.with_changes(radiation_damping=b))


def test_slightly_negative_damping_only_warns(sphere: HydroData) -> None:
    b = sphere.radiation_damping.copy()
    b[-1, 0, 0] = -0.5 * DAMPING_ERROR_RTOL * np.max(b[:, 0, 0])
    with pytest.warns(HydroDataWarning, match=r"B\[surge, surge\] dips to"):
        check_hydrodata(sphere.with_changes(radiation_damping=b))


@pytest.mark.parametrize("field", ["rho", "g"])
def test_non_positive_environment(sphere: HydroData, field: str) -> None:
    with pytest.raises(HydroDataError, match=rf"body 'sphere': {field} = 0\.0 must be"):
        check_hydrodata(sphere.with_changes(**{field: 0.0}))


def test_extrapolated_ainf_warns(sphere: HydroData) -> None:
    with pytest.warns(HydroDataWarning, match="source 'extrapolated'"):
        check_hydrodata(sphere.with_changes(added_mass_inf_source="extrapolated"))


def test_degrees_warn(sphere: HydroData) -> None:
    with pytest.warns(HydroDataWarning, match="degrees instead of radians"):
        check_hydrodata(sphere.with_changes(wave_direction=np.array([90.0])))


def test_check_is_silent_when_asked(sphere: HydroData) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_hydrodata(sphere.with_changes(added_mass_inf_source="extrapolated"), warn=False)


def test_non_positive_definite_mass(sphere: HydroData, sphere_mass: np.ndarray) -> None:
    m = sphere_mass.copy()
    m[5, 5] = -1.0e6  # a sign typo in the yaw inertia
    with pytest.raises(HydroDataError, match=r"not positive definite: smallest eigenvalue "
                                             r"-1e\+06 \(mostly yaw\).*fix the DOF") as info:
        check_mass_matrix(m, sphere.added_mass_inf, name="sphere")
    assert info.value.value == pytest.approx(-1.0e6, rel=1e-6)


def test_free_dof_mask(sphere: HydroData, sphere_mass: np.ndarray) -> None:
    """A DOF without inertia is fine once it is fixed."""
    m = sphere_mass.copy()
    a = sphere.added_mass_inf.copy()
    m[5, 5] = 0.0
    a[5, 5] = 0.0
    with pytest.raises(HydroDataError, match="mostly yaw"):
        check_mass_matrix(m, a)
    check_mass_matrix(m, a, dofs=np.array([True] * 5 + [False]))


def test_asymmetric_mass(sphere: HydroData, sphere_mass: np.ndarray) -> None:
    m = sphere_mass.copy()
    m[3, 4] = 1.0e3  # a product of inertia typed once
    with pytest.raises(HydroDataError, match=r"mass matrix is not symmetric: M\[roll, pitch\]"):
        check_mass_matrix(m, sphere.added_mass_inf)


def test_bad_dof_mask(sphere: HydroData, sphere_mass: np.ndarray) -> None:
    with pytest.raises(HydroDataError, match=r"boolean mask of shape \(6,\)"):
        check_mass_matrix(sphere_mass, sphere.added_mass_inf, dofs=[0, 1, 2])
