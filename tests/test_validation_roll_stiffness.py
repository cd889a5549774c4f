"""The roll (and pitch) hydrostatic stiffness against values that do not come from the
model: the BEM file's own C44 read with h5py (``bemio_raw.py``), its gravity term for
another centre of gravity computed here, and the closed form of a floating sphere.

The Task 10 sphere (r = 5 m, half immersed, ``sphere_bemio.h5``) has its coefficients about
its centre of gravity, 2 m below the centre. The file's ``C44 = rho g (I_wp + V (z_B -
z_G))`` there (the gravity term ``-m g z_G`` is zero about the cg itself); a model whose
cog sits ``dz`` below the reference point has ``K44 = C44 - m g (-dz)``: lowering the
weight by 0.5 m adds ``0.5 m g`` (25 % of C44 here). The other roll tests take K44 from
the part they check; these take it from the file and the formula, so a stiffness scaled
inside the model fails them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bemio_raw import read_raw_sphere
from hydrofmu.io.hydro_checks import HydroDataWarning
from physics_helpers import BEMIO_SPHERE, column, log_decrement, make_simulator, peaks, run

RADIUS = 5.0  # m, the Task 10 sphere
COG_DROP = 0.5  # m: the model's cog below the file's (the reference point)
INERTIA = [2.0e7, 2.0e7, 3.0e7]  # kg m^2 about the cog, as the sphere


def _simulator(body: dict[str, object], **sections: dict[str, object]):
    """The model, with the file's own note (B33 dips below zero at 12 rad/s)."""
    with pytest.warns(HydroDataWarning, match="dips to"):
        return make_simulator(body, **sections)


def _body(**extra: object) -> dict[str, object]:
    body: dict[str, object] = {"name": "body", "hydro": str(BEMIO_SPHERE),
                               "mass": "equilibrium", "inertia": INERTIA,
                               "cog": [0.0, 0.0, -COG_DROP]}
    body.update(extra)
    return body


def _expected_k44() -> tuple[float, float]:
    """``K44`` of the model (N m/rad) from the file and the gravity term, and ``m``."""
    raw = read_raw_sphere()
    mass = raw.rho * raw.volume
    return raw.stiffness[3, 3] + mass * raw.g * COG_DROP, mass


def test_the_files_c44_is_the_floating_sphere_closed_form() -> None:
    """The file's C44 and C55 (about cg) against ``rho g (pi r^4 / 4 + V (z_B - z_G))``
    with the file's V, cb and cg: 0.1 % (the panel mesh's waterplane; measured 0.03 %).
    This ties the reference value of the tests below to the geometry, not only to the
    file."""
    raw = read_raw_sphere()
    closed = raw.rho * raw.g * (math.pi * RADIUS**4 / 4 + raw.volume * (raw.cb[2] - raw.cg[2]))
    assert raw.stiffness[3, 3] == pytest.approx(closed, rel=1e-3)
    assert raw.stiffness[4, 4] == pytest.approx(closed, rel=1e-3)


def test_restoring_moment_of_a_heeled_sphere_is_the_files_c44_plus_the_gravity_term() -> None:
    """The model's hydrostatic moment output at an initial heel (roll 0.02 rad, pitch
    -0.03 rad) is ``-K44 theta`` with K44 from the file plus ``m g dz``: the output is a
    product of the same numbers, so 1e-9 relative (a 5 % error in K44 is 5e7 times
    that)."""
    k44, _ = _expected_k44()
    roll, pitch = 0.02, -0.03
    sim = _simulator(_body(initial_pose=[0, 0, 0, roll, pitch, 0]), wave={"type": "none"})
    out = sim.output_vector()
    assert out[column(sim, "body.F_hydrostatic[4]")] == pytest.approx(-k44 * roll, rel=1e-9)
    assert out[column(sim, "body.F_hydrostatic[5]")] == pytest.approx(-k44 * pitch, rel=1e-9)


def test_roll_decay_period_from_the_files_c44_and_the_gravity_term() -> None:
    """Free roll decay with A44 and B44 held at one of the file's frequencies (radiation
    ``constant``: the model is ``(I44 + A44) x'' + B44 x' + K44 x = 0``), the frequency
    being the file's nearest to the natural one. I44 about the reference point by the
    parallel axes (``I_cog + m dz^2``), A44, B44 and K44 from the file with h5py.

    Period and decrement of the first 3 cycles against the closed form: 1e-3 (RK4 at
    10 ms and the peaks' parabola on 50 ms samples; measured 5e-8 and 2e-6). A stiffness
    5 % off moves the period by 2.4 %."""
    raw = read_raw_sphere()
    k44, mass = _expected_k44()
    i44 = INERTIA[0] + mass * COG_DROP**2
    a44, b44 = raw.added_mass[3, 3], raw.damping[3, 3]
    # the file's frequency nearest to the natural one sqrt(K44 / (I44 + A44(w))) there
    j = int(np.argmin(np.abs(raw.omega - np.sqrt(k44 / (i44 + a44)))))
    w0 = float(raw.omega[j])
    sim = _simulator(_body(dofs=["roll"], initial_pose=[0, 0, 0, 0.05, 0, 0]),
                     wave={"type": "none", "period": 2.0 * math.pi / w0},
                     radiation={"method": "constant"}, simulation={"max_internal_step": 0.01})
    m_a = i44 + a44[j]
    wnj = math.sqrt(k44 / m_a)
    zeta = b44[j] / (2.0 * m_a * wnj)
    period = 2.0 * math.pi / (wnj * math.sqrt(1.0 - zeta**2))
    t, out = run(sim, 3.3 * period, 0.05)
    tp, xp = peaks(t, out[:, column(sim, "body.pose[4]")])
    measured_period, delta = log_decrement(tp, xp, 2)
    assert measured_period == pytest.approx(period, rel=1e-3)
    assert delta == pytest.approx(2.0 * math.pi * zeta / math.sqrt(1.0 - zeta**2), rel=1e-3)
