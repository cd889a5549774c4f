"""A compliant synthetic line, whose tension is set by its stretch, against the elastic
catenary closed form computed here (not the package's catenary solver).

The line tests elsewhere use steel chains (EA = 2e8 N or more): their tension is their
weight's, and 2 % of EA moves it by less than their tolerances. A polyester-like rope of
EA = 2e6 N pulled taut (3.4 % strain, its weight 16 % of the tension) carries a tension
that follows EA almost one for one (2 % of EA is 1.8 % of the tension), so the tension at
its ends checks EA itself.

The configuration goes through the public face only (a ``[[moorings]] type = "moordyn"``
entry of a model's configuration, its outputs ``mooring.line1.T_fairlead``,
``T_anchor`` and ``body.F_mooring``), so it holds whatever the lines' modules look like
inside.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import scipy.optimize

from physics_helpers import column, default_sphere_body, make_simulator, run

RHO = 1025.0  # kg/m^3
G = 9.80665  # m/s^2, MoorDyn-C's default gravity (the file sets none)
DIAMETER = 0.16  # m
MASS_PER_LENGTH = 30.0  # kg/m
EA = 2.0e6  # N
LENGTH = 125.0  # m, unstretched
N_SEGMENTS = 20
ANCHOR = np.array([-120.0, 0.0, -50.0])  # m, on a pile 10 m above the 60 m seabed
FAIRLEAD = np.array([0.0, 0.0, -2.0])  # m, on the sphere, its reference point at 0

#: Relative tolerance on the tensions and forces. The lumped-mass line puts the weight at
#: the nodes: its end forces differ from the continuous line's at second order in the
#: segment length, measured 6.4e-5 with 20 segments (1.6e-5 with 40); the equilibrium
#: solver's tolerance is far below that. 2 % of EA moves the tension by 1.8 % (checked in
#: the test), 36 times this bound.
RTOL = 5e-4

LINES_FILE = f"""--------------------- MoorDyn Input File ------------------------------------
One taut polyester-like rope on the default sphere (hydrofmu test)
----------------------- LINE TYPES ------------------------------------------
TypeName   Diam    Mass/m     EA         BA/-zeta    EI         Cd     Ca     CdAx    CaAx
(name)     (m)     (kg/m)     (N)        (N-s/-)     (N-m^2)    (-)    (-)    (-)     (-)
rope       {DIAMETER}    {MASS_PER_LENGTH}       {EA:.6e}    -0.8   0   1.2   1.0   0.2   0.0
---------------------- POINTS ----------------------------------------------
ID    Attachment  X         Y         Z       Mass   Volume  CdA    Ca
(#)   (-)         (m)       (m)       (m)     (kg)   (m^3)   (m^2)  (-)
1     Fixed       {ANCHOR[0]}    {ANCHOR[1]}       {ANCHOR[2]}   0      0       0      0
2     Coupled     {FAIRLEAD[0]}       {FAIRLEAD[1]}       {FAIRLEAD[2]}    0      0       0      0
---------------------- LINES -----------------------------------------------
ID   LineType   AttachA  AttachB  UnstrLen  NumSegs  LineOutputs
(#)   (name)     (#)      (#)       (m)       (-)     (-)
1     rope       1        2         {LENGTH}     {N_SEGMENTS}       -
---------------------- OPTIONS ---------------------------------------------
0.001         dtM           time step of the lines (s; hydrofmu uses max_internal_step)
{RHO}        WtrDnsty      water density (kg/m^3)
60            WtrDpth       water depth (m)
{G}       g             gravity (m/s^2)
---------------------- OUTPUTS ---------------------------------------------
FairTen1
------------------------- need this line -----------------------------------
"""


def elastic_catenary(ea: float) -> tuple[float, float, float]:
    """Horizontal tension H and vertical tensions at the fairlead and the anchor, N, of
    the suspended elastic catenary (no seabed contact) from :data:`ANCHOR` to
    :data:`FAIRLEAD`; Irvine's equations with the submerged weight ``w`` per unit length::

        x = H/w (asinh(V/H) - asinh((V - wL)/H)) + H L / EA
        z = H/w (sqrt(1 + (V/H)^2) - sqrt(1 + ((V - wL)/H)^2)) + (V L - w L^2 / 2) / EA
    """
    w = (MASS_PER_LENGTH - RHO * math.pi / 4 * DIAMETER**2) * G
    x, z = math.hypot(*(FAIRLEAD - ANCHOR)[:2]), float(FAIRLEAD[2] - ANCHOR[2])

    def residual(p: np.ndarray) -> list[float]:
        h, v = p
        va = v - w * LENGTH
        return [h / w * (math.asinh(v / h) - math.asinh(va / h)) + h * LENGTH / ea - x,
                h / w * (math.hypot(1, v / h) - math.hypot(1, va / h))
                + (v * LENGTH - w * LENGTH**2 / 2) / ea - z]

    chord = math.hypot(x, z)
    t0 = ea * (chord / LENGTH - 1)  # the weightless straight line, as the first guess
    sol = scipy.optimize.root(residual, [t0 * x / chord, t0 * z / chord + w * LENGTH / 2],
                              tol=1e-13)
    assert sol.success, sol.message
    h, v = sol.x
    assert v - w * LENGTH > 0  # the line leaves the anchor upwards: no seabed contact
    return float(h), float(v), float(v - w * LENGTH)


@pytest.fixture(scope="module")
def rope(tmp_path_factory: pytest.TempPathFactory):
    folder: Path = tmp_path_factory.mktemp("rope")
    (folder / "rope.txt").write_text(LINES_FILE)
    # yaw alone is free: the fairlead sits on the yaw axis, so the line exerts no yaw
    # moment and the body (and so the fairlead) stays where it is
    sim = make_simulator(default_sphere_body(dofs=["yaw"]),
                         wave={"type": "none"},
                         moorings=[{"type": "moordyn", "file": str(folder / "rope.txt"),
                                    "body": "body"}])
    return sim


def test_the_closed_form_has_teeth() -> None:
    """2 % more EA moves the closed-form fairlead tension by over 30 times :data:`RTOL`
    (the line is taut: its tension follows EA)."""
    h, v, _ = elastic_catenary(EA)
    h2, v2, _ = elastic_catenary(1.02 * EA)
    assert math.hypot(h2, v2) / math.hypot(h, v) - 1 > 30 * RTOL


def test_taut_rope_tensions_match_the_elastic_catenary(rope) -> None:
    """At the start (the lines' static equilibrium) and after 5 s held still (the dynamics:
    the state must stay at rest, so the derivative's EA is checked too), the fairlead and
    anchor tensions and the force on the body against the closed form, :data:`RTOL`."""
    h, v, va = elastic_catenary(EA)
    sim = rope
    _, out = run(sim, 5.0, 0.5)
    for row in (out[0], out[-1]):
        assert row[column(sim, "mooring.line1.T_fairlead")] == pytest.approx(
            math.hypot(h, v), rel=RTOL)
        assert row[column(sim, "mooring.line1.T_anchor")] == pytest.approx(
            math.hypot(h, va), rel=RTOL)
        # the line pulls the body towards the anchor (-x) and down
        force = [row[column(sim, f"body.F_mooring[{k}]")] for k in (1, 2, 3)]
        np.testing.assert_allclose(force, [-h, 0.0, -v], rtol=RTOL, atol=RTOL * h)
