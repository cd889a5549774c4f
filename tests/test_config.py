"""The TOML configuration: resolution and every error message a user can meet."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config, load_config, resolve
from hydrofmu.runtime.errors import ConfigError
from paths import BEMIO_SPHERE

SPHERE_H5 = BEMIO_SPHERE

GOOD = f"""
[simulation]
time_scheme = "rk4"
max_internal_step = 0.01
[wave]
type = "regular"
height = 2.0
period = 8.0
ramp_time = 20.0
[[bodies]]
name = "body"
hydro = "{SPHERE_H5.name}"
hydro_body = "body1"
mass = 261.8e3
inertia = [2.0e7, 2.0e7, 3.0e7]
dofs = ["heave"]
radiation = "convolution"
initial_pose = [0, 0, 1, 0, 0, 0]
"""


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    """A folder with a copy of the BEMIO sphere, so relative paths are exercised."""
    (tmp_path / SPHERE_H5.name).write_bytes(SPHERE_H5.read_bytes())
    return tmp_path


def _write(folder: Path, text: str) -> Path:
    p = folder / "case.toml"
    p.write_text(text, encoding="utf-8")
    return p


def _load(folder: Path, text: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_config(_write(folder, text))


def test_issue_example_resolves(config_dir: Path) -> None:
    bodies, cfg = _load(config_dir, GOOD)
    assert len(bodies) == 1
    b = cfg["bodies"][0]
    assert b["free_dofs"] == [False, False, True, False, False, False]
    m = np.asarray(b["mass_matrix"])
    # cg is the reference point of BEMIO data: no offset terms, inertia as given.
    np.testing.assert_allclose(np.diag(m), [261.8e3] * 3 + [2.0e7, 2.0e7, 3.0e7])
    assert b["initial_pose"][2] == 1.0
    assert cfg["wave"]["period"] == 8.0
    # mass != rho V (261.724 m^3 * 1000): the imbalance is reported and applied.
    assert b["hydrostatic_offset"][2] == pytest.approx(9.81 * (261.724e3 - 261.8e3))
    assert any("round trip" in n for n in cfg["notes"])


def test_default_body_round_trip_is_reported_and_small() -> None:
    """The embedded sphere's IRF rebuilds A(w) within 2 % (measured 0.9 %, surge/sway:
    the file's A_inf comes from Capytaine's omega = inf solve, which differs by ~1 %
    from what the finite frequencies up to 5 rad/s imply), B(w) within 0.5 %."""
    from hydrofmu.runtime.irf.checks import irf_roundtrip_error

    bodies, _cfg = default_config()
    r = irf_roundtrip_error(bodies[0], np.arange(3001) * 0.01)
    assert r["added_mass_max"] < 0.02
    assert r["damping_max"] < 0.005


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        ("max_internal_step = 0.01", "max_internal_stpe = 0.01",
         "unknown key 'max_internal_stpe'.*did you mean 'max_internal_step'"),
        ("[wave]", "[waves]", "unknown key 'waves'.*did you mean 'wave'"),
        ("inertia =", "inertai =", "unknown key 'inertai'.*did you mean 'inertia'"),
        ('dofs = ["heave"]', 'dofs = ["heaev"]', "unknown DOF 'heaev'.*did you mean 'heave'"),
        ('time_scheme = "rk4"', 'time_scheme = "rk9"', "unknown time_scheme 'rk9'"),
        ('type = "regular"', 'type = "regulr"', "wave.type = 'regulr'.*did you mean 'regular'"),
        ("period = 8.0", "period = 0.4",
         "wave frequency 15.7.* outside the data.*choose a period in"),
        ("mass = 261.8e3", "mass = -5.0", "mass must be > 0"),
        ("mass = 261.8e3", 'mass = "heavy"', "mass must be a number of kg or \"equilibrium\""),
        ("inertia = [2.0e7, 2.0e7, 3.0e7]", "inertia = [2.0e7, 2.0e7]",
         "inertia must be 3 principal moments or a 3x3"),
        ("inertia = [2.0e7, 2.0e7, 3.0e7]", "inertia = [1.0, 1.0, 3.0e7]",
         "violate I1 \\+ I2 >= I3"),
        ("initial_pose = [0, 0, 1, 0, 0, 0]", "initial_pose = [0, 0, 1]",
         "initial_pose must be a list of 6"),
        ("max_internal_step = 0.01", "max_internal_step = -0.01",
         "max_internal_step must be a finite number > 0"),
        ('radiation = "convolution"', 'radiation = "state-space"',
         "radiation.method = 'state-space'"),
        ("initial_pose = [0, 0, 1, 0, 0, 0]", "initial_pose = [1, 0, 0, 0, 0, 0]",
         "non-zero for fixed DOFs"),
        ('name = "body"', 'name = "my body"', "must be an identifier"),
        # Checked even though the wave of this case is regular.
        ("ramp_time = 20.0", 'ramp_time = 20.0\nspectrum = "jonswop"',
         "wave.spectrum = 'jonswop'.*did you mean 'jonswap'"),
        ("ramp_time = 20.0", "ramp_time = 20.0\nn_components = 0",
         "wave.n_components must be >= 1"),
    ],
)
def test_bad_configuration_messages(config_dir: Path, old: str, new: str, match: str) -> None:
    assert old in GOOD
    with pytest.raises(ConfigError, match=match):
        _load(config_dir, GOOD.replace(old, new, 1))


def test_unknown_hydro_body_lists_available(config_dir: Path) -> None:
    from hydrofmu.runtime.errors import HydroDataError

    with pytest.raises(HydroDataError, match=r"no body 'float'.*available: 'sphere'"):
        _load(config_dir, GOOD.replace('hydro_body = "body1"', 'hydro_body = "float"'))


def test_missing_data_file_names_the_resolved_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not found: .*sphere_bemio.h5.*relative to the "
                                          "configuration file"):
        load_config(_write(tmp_path, GOOD))


def test_missing_config_and_invalid_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="configuration file not found"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(_write(tmp_path, "[wave\ntype = 1"))


def test_no_bodies_and_duplicate_names(config_dir: Path) -> None:
    with pytest.raises(ConfigError, match="at least one \\[\\[bodies\\]\\]"):
        resolve({"wave": {"type": "none"}}, config_dir)
    body = {"name": "a", "hydro": SPHERE_H5.name, "mass": 2.0e5, "inertia": [1e7, 1e7, 1e7]}
    with pytest.raises(ConfigError, match="used twice"):
        resolve({"bodies": [body, dict(body)]}, config_dir)


def test_mass_matrix_not_positive_definite(config_dir: Path) -> None:
    """A 3x3 inertia with a negative principal moment is refused before any run."""
    text = GOOD.replace("inertia = [2.0e7, 2.0e7, 3.0e7]",
                        "inertia = [[2.0e7, 0, 0], [0, 2.0e7, 0], [0, 0, -3.0e7]]")
    with pytest.raises(ConfigError, match="not positive definite"):
        _load(config_dir, text)


def test_user_config_is_not_modified(config_dir: Path) -> None:
    p = _write(config_dir, GOOD)
    before = p.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        load_config(p)
    assert p.read_bytes() == before


def test_irf_frequency_cut_is_exposed_and_its_error_reported() -> None:
    """Cutting the radiation IRF integral at 3 rad/s (data to 5 rad/s) loses the damping
    above the cut; the Ogilvie round trip reported at export grows accordingly."""
    import re

    def reported(**radiation) -> float:
        _, cfg = default_config(radiation=radiation)
        note = next(n for n in cfg["notes"] if "round trip" in n)
        return float(re.search(r"A\(w\) .*? within ([\d.e+-]+) %", note).group(1))

    full = reported()
    cut = reported(omega_max=3.0, taper=0.2)
    assert full < 2.0
    assert cut > 5.0 * full
    with pytest.raises(ConfigError, match=r"radiation\.taper must be in \[0, 1\)"):
        default_config(radiation={"taper": 1.5})


def test_direction_in_degrees_is_recognised() -> None:
    from hydrofmu.runtime.errors import HydroDataError

    with pytest.raises(HydroDataError, match=r"looks like degrees: 90.0 deg = 1.5708 rad"):
        default_config(wave={"direction": 90.0})
    _, cfg = default_config(wave={"direction": float(np.pi / 2)})
    assert cfg["wave"]["direction"] == pytest.approx(np.pi / 2)


def test_readme_configuration_example_is_valid(config_dir: Path) -> None:
    """The TOML block of the README resolves (with its data file beside it)."""
    import re
    import tomllib

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", readme, re.S).group(1)
    _, cfg = resolve(tomllib.loads(block), config_dir)
    assert cfg["bodies"][0]["free_dofs"] == [False, False, True, False, False, False]
    assert cfg["wave"]["type"] == "regular"
