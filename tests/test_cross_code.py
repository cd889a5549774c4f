"""One hemisphere, two BEM codes: the embedded Capytaine sphere against the WAMIT sphere
of the BEMIO file, through both readers.

Both describe a floating sphere of radius 5 m (heave does not depend on the reference
point). Agreement checks the readers' de-normalisation (BEMIO's rho, rho w, rho g) and the
time convention (Capytaine's excitation conjugated) against an independent code.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from hydrofmu.config.configuration import builtin_path
from hydrofmu.io.readers import read_hydro

SHARED_SPHERE = "sphere_bemio.h5"
#: Up to 2 rad/s (ka = 2): there both codes are within ~1 % of Hulme's table in heave
#: (Capytaine: A33 0.4 %, B33 1.1 % at ka = 2); above it the embedded mesh is coarse
#: for the short waves and B33 drifts (+7 % at 3 rad/s).
OMEGAS = np.linspace(0.2, 2.0, 10)


@pytest.fixture(scope="module")
def pair(data_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_hydro(builtin_path("sphere")), read_hydro(data_dir / SHARED_SPHERE)


def test_heave_radiation_coefficients_agree(pair) -> None:
    cpt, wamit = pair
    for w in OMEGAS:
        ac, bc = cpt.coefficients_at(w)
        aw, bw = wamit.coefficients_at(w)
        assert ac[2, 2] == pytest.approx(aw[2, 2], rel=0.01), w
        assert bc[2, 2] == pytest.approx(bw[2, 2], rel=0.02), w
    assert cpt.added_mass_inf[2, 2] == pytest.approx(wamit.added_mass_inf[2, 2], rel=0.01)
    # Waterplane: 56-sided polygon vs WAMIT's mesh, both within 0.3 % of rho g pi a^2.
    assert cpt.hydrostatic_stiffness[2, 2] == pytest.approx(
        wamit.hydrostatic_stiffness[2, 2], rel=0.005)


def test_heave_excitation_agrees_in_amplitude_and_phase(pair) -> None:
    """A sign error in either reader's time convention would show as a phase of 2 arg X
    (0.1-1 rad over this band); measured <= 0.009 rad, bound 0.02."""
    cpt, wamit = pair
    for w in OMEGAS:
        xc = cpt.excitation_at(w, 0.0)[2]
        xw = wamit.excitation_at(w, 0.0)[2]
        assert abs(xc) == pytest.approx(abs(xw), rel=0.01), w
        assert abs(np.angle(xc / xw)) < 0.02, w
    # The test would see a conjugation error: arg X33 is not small over the band.
    assert max(abs(np.angle(wamit.excitation_at(w, 0.0)[2])) for w in OMEGAS) > 0.1
