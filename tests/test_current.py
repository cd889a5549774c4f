"""A steady current (issue 27, point 2): on the MoorDyn lines against MoorDyn-C (the
``moordyn`` package with the same current as its ``Currents = 1`` table), on a body's
quadratic drag against the closed form, the profiles, and the native FMU's refusal.

- A chain in a uniform current across it, and in a power-law current: the static shape
  (every node) and the end tensions of hydrofmu's Newton equilibrium against MoorDyn-C's
  line settled in the current.
- A body on a linear spring in a uniform current settles at ``B_quad U^2 / k``.
- The C kernel and the numpy one agree with a current on.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.moorings.equilibrium import initial_state
from hydrofmu.runtime.moorings.lines import LineSystem
from hydrofmu.runtime.moorings.moordyn_input import parse_moordyn
from hydrofmu.runtime.waves.current import Current, current_from_config

HERE = Path(__file__).parent
TEXT = (HERE / "data" / "moorings" / "chain_1line.txt").read_text()
FAIRLEAD = np.array([0.0, 0.0, -10.0])
DEPTH = 100.0


def _moordyn_settled(tmp_path: Path, rows: list[tuple[float, ...]]) -> dict[str, Any]:
    """MoorDyn-C's line settled 120 s in the current ``rows`` (its current_profile.txt)."""
    text = TEXT.replace("100           WtrDpth", "100           WtrDpth\n"
                        "1             Currents      steady current (current_profile.txt)")
    (tmp_path / "lines.txt").write_text(text)
    table = "\n".join(" ".join(repr(float(v)) for v in row) for row in rows)
    (tmp_path / "current_profile.txt").write_text(
        "--- MoorDyn steady currents file ---\nwritten by hydrofmu's test\nz ux uy uz\n"
        + table + "\n")
    out = tmp_path / "md.json"
    proc = subprocess.run([sys.executable, str(HERE / "moordyn_static_runner.py"),
                           str(tmp_path / "lines.txt"), *map(str, FAIRLEAD), "120", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(out.read_text())


def _hydrofmu_settled(rows: list[tuple[float, ...]]) -> tuple[np.ndarray, float, float]:
    md = parse_moordyn(TEXT)
    md.current = rows
    system = LineSystem(model=md)
    x, info = initial_state(system, FAIRLEAD)
    assert info["converged"], info
    ev = system.evaluate(x, FAIRLEAD, np.zeros(3))
    fair, anch = system.tensions(x, FAIRLEAD, np.zeros(3))
    return ev["r"], float(fair[0]), float(anch[0])


@pytest.mark.parametrize("current", [
    Current(profile="uniform", speed=1.0, direction=math.radians(60.0)),
    Current(profile="power", speed=1.5, direction=math.radians(90.0)),
], ids=["uniform", "power"])
def test_line_in_current_agrees_with_moordyn(tmp_path: Path, current: Current) -> None:
    rows = current.table(DEPTH)
    md = _moordyn_settled(tmp_path, rows)
    nodes, fair, anch = _hydrofmu_settled(rows)
    still, fair0, _ = _hydrofmu_settled([])
    md_nodes = np.asarray(md["nodes"])
    # MoorDyn's line has settled: its fairlead tension moved < 1e-5 over the last 10 s
    assert md["fair_change"] < 1e-5 * md["fair"]
    # the current moves the line by metres (the check below is not of a still line)
    moved = np.max(np.linalg.norm(nodes - still, axis=1))
    assert moved > 1.0
    # shape: every node within 0.5 % of the current's displacement of the line; tension
    # within 0.5 % (the bound; measured ~1e-4: two discretisations of one
    # lumped-mass model, Newton against MoorDyn's settled dynamics)
    assert np.max(np.linalg.norm(nodes - md_nodes, axis=1)) < 5e-3 * moved
    assert fair == pytest.approx(md["fair"], rel=5e-3)
    assert anch == pytest.approx(md["anch"], rel=5e-3)
    assert abs(fair - fair0) > 1e-3 * fair0  # the current changes the tension


@pytest.mark.parametrize("name", sorted(p.name for p in (HERE / "data" / "moorings")
                                        .glob("*.txt")))
def test_c_kernel_equals_numpy_in_a_current(name: str) -> None:
    """The compiled kernel's relative velocity (nodes, points, free points) against numpy's,
    at seeded states with some nodes above the surface: to 1e-12 of the largest term
    (tests/test_moorings_kernel.py's round-off argument)."""
    from hydrofmu.export.line_kernel_build import compiled_library
    from hydrofmu.runtime.moorings.equilibrium import initial_profile
    from hydrofmu.runtime.moorings.moordyn_input import read_moordyn

    assert compiled_library() is not None
    model = read_moordyn(HERE / "data" / "moorings" / name)
    model.current = Current(profile="power", speed=2.0, direction=0.7).table(80.0)
    c, n = LineSystem(model=model, kernel="c"), LineSystem(model=model, kernel="numpy")
    assert c.kernel == "c" and n.kernel == "numpy"
    a = n.arrays
    cp = np.concatenate([np.asarray(model.bodies[b].pose, dtype=float)
                         for b in a.coupled_bodies] + [a.point_r0[i] for i in a.coupled_points])
    rng = np.random.default_rng(27)
    x = initial_profile(n, cp)
    ni = a.n_internal
    x[3 * ni:6 * ni] = rng.normal(scale=0.5, size=3 * ni)
    cv = rng.normal(scale=1.0, size=cp.size)
    for label, lift in (("submerged", 0.0), ("lifted", 12.0)):
        cpl = cp.copy()
        if a.coupled_bodies.size:
            cpl[2] += lift
        else:
            cpl[2::3] += lift
        xl = initial_profile(n, cpl)
        xl[3 * ni:] = x[3 * ni:]
        dn, dc = n.derivative(0.0, xl, cpl, cv), c.derivative(0.0, xl, cpl, cv)
        assert np.max(np.abs(dc - dn)) <= 1e-12 * np.max(np.abs(dn)), label
        en, ec = n.evaluate(xl, cpl, cv), c.evaluate(xl, cpl, cv)
        for key in ("fnet", "point_f"):
            assert np.max(np.abs(ec[key] - en[key])) <= 1e-12 * np.max(np.abs(en[key])), key
    # the current changes the derivative (the check above is not of still water)
    still = read_moordyn(HERE / "data" / "moorings" / name)
    d0 = LineSystem(model=still, kernel="c").derivative(0.0, x, cp, cv)
    assert np.max(np.abs(d0 - c.derivative(0.0, x, cp, cv))) > 1e-3 * np.max(np.abs(d0))


# ------------------------------------------------------------------ the profiles
def test_profiles_and_table() -> None:
    cur = Current(profile="power", speed=2.0, direction=math.radians(30.0))
    z = np.linspace(-DEPTH, 0.0, 1001)
    exact = cur.speed_at(z, DEPTH)
    assert exact[-1] == 2.0 and exact[0] == 0.0
    assert cur.speed_at(-DEPTH / 2, DEPTH) == pytest.approx(2.0 * 0.5 ** (1 / 7), rel=1e-15)
    rows = np.array(cur.table(DEPTH))
    speed = np.hypot(rows[:, 1], rows[:, 2])
    table = np.interp(z, rows[:, 0], speed)
    # the module's bound: a (1 - a) (r - 1)^2 / 8 = 1.5e-4 of the local speed between the
    # levels (checked above the lowest level, 1e-4 h over the seabed, where the table
    # goes linearly to 0)
    above = z > -DEPTH * (1 - 1e-4)
    assert np.max(np.abs(table - exact)[above] / exact[above]) < 2e-4
    np.testing.assert_allclose(rows[1:, 2] / rows[1:, 1], math.tan(math.radians(30.0)),
                               rtol=1e-12)
    uni = Current(profile="uniform", speed=0.5)
    assert uni.table(math.inf) == [(0.0, 0.5, 0.0, 0.0)]
    with pytest.raises(ConfigError, match="finite water depth"):
        cur.table(math.inf)
    with pytest.raises(ConfigError, match=">= 0"):
        Current(profile="uniform", speed=-1.0)
    with pytest.raises(ConfigError, match="choose one of"):
        current_from_config({"current": {"profile": "tidal", "speed": 1.0}})
    assert current_from_config({"current": {"profile": "uniform", "speed": 0.0}}) is None
    assert current_from_config({}) is None


# ------------------------------------------------------------------ a body's drag
def _spring_model(current: dict[str, Any], quad: float, k: float, **sim: Any):
    import hydrofmu

    return hydrofmu.Model.from_dict({
        "simulation": {"time_scheme": "rk4", "max_internal_step": 0.05, **sim},
        "wave": {"type": "none"},
        "current": current,
        "radiation": {"method": "constant"},
        "bodies": [{"name": "body", "hydro": "builtin:sphere", "dofs": ["surge", "sway"],
                    "quadratic_damping": [quad, quad, 0.0, 0.0, 0.0, 0.0]}],
        "moorings": [{"type": "linear", "body": "body",
                      "stiffness": np.diag([k, k, 0, 0, 0, 0]).tolist()}],
    })


def test_body_drag_in_a_uniform_current_settles_at_the_closed_form() -> None:
    # B_quad = 0.5 rho Cd A: a sphere of radius 5 m half submerged, Cd = 1: A = pi 25 / 2
    rho, cd, area = 1025.0, 1.0, math.pi * 25.0 / 2.0
    quad, k, speed, heading = 0.5 * rho * cd * area, 2.0e4, 1.2, math.radians(30.0)
    model = _spring_model({"profile": "uniform", "speed": speed, "direction": heading},
                          quad, k)
    ds = model.simulate(600.0, 1.0)
    offset = quad * speed**2 / k  # 0.5 rho Cd A U^2 / k
    x = float(ds["body.pose[1]"][-1])
    y = float(ds["body.pose[2]"][-1])
    # the surge-sway oscillator (period 2 pi sqrt((m + A) / k) ~ 1 min) is damped by the
    # drag itself: after 600 s the transient is ~2e-10 of the offset (measured); the
    # quadratic drag on each DOF separately gives the offset along each axis:
    # B_quad (U cos b)^2 / k and B_quad (U sin b)^2 / k
    assert x == pytest.approx(offset * math.cos(heading) ** 2, rel=1e-6)
    assert y == pytest.approx(offset * math.sin(heading) ** 2, rel=1e-6)
    # the drag reported in F_viscous balances the spring's -k x
    assert float(ds["body.F_viscous[1]"][-1]) == pytest.approx(k * x, rel=1e-6)


def test_native_fmu_steps_the_current_drag() -> None:
    """The current drag is stepped natively (tests/test_native_drift.py compares it with
    the Python FMU); the 'exact' scheme, which needs a linear model, refuses it by name."""
    from hydrofmu.export.native.assemble import refusal
    from hydrofmu.runtime.simulator.simulator import Simulator

    model = _spring_model({"profile": "uniform", "speed": 1.0}, 1.0e4, 2.0e4)
    assert refusal(Simulator(model.bodies, model.config)) == ""
    with pytest.raises(ConfigError, match="current_drag: the bodies' quadratic drag"):
        _spring_model({"profile": "uniform", "speed": 1.0}, 1.0e4, 2.0e4,
                      time_scheme="exact")


def test_moordyn_mooring_takes_the_current() -> None:
    import hydrofmu

    example = Path(__file__).resolve().parents[1] / "examples" / "moored_body.toml"
    still = hydrofmu.Model.from_toml(example)
    moving = hydrofmu.Model.from_toml(example, current={"profile": "power", "speed": 1.0})
    from hydrofmu.runtime.simulator.simulator import Simulator

    a = Simulator(still.bodies, still.config).part("mooring.moordyn")
    b = Simulator(moving.bodies, moving.config).part("mooring.moordyn")
    assert a.system.arrays.current_z.size == 0
    rows = Current(profile="power", speed=1.0).table(50.0)  # the file's WtrDpth
    np.testing.assert_array_equal(b.system.arrays.current_z, [r[0] for r in rows])
    # the lines' initial equilibrium moves with the current
    assert np.max(np.abs(a.x0 - b.x0)) > 1e-2
