"""Moorings as parts of the model (issue 10): the quasi-static catenary part, the MoorDyn
lines part (line states in the state vector, every scheme), their outputs in the FMU.

The body is the default sphere with constant-coefficient radiation (a pure ODE), moored by
three chains 120 degrees apart (the example ``examples/moored_body.toml``).
"""

from __future__ import annotations

import csv
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.config.configuration import default_config_data, load_config, resolve
from hydrofmu.runtime.errors import ConfigError, IntegrationError
from hydrofmu.runtime.moorings.catenary import Catenary
from hydrofmu.runtime.simulator.simulator import Simulator

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "moored_body.toml"
W = (50.0 - 1025.0 * math.pi / 4 * 0.05**2) * 9.80665  # chain's weight in water, N/m


def _catenary_lines() -> list[dict]:
    lines = []
    for ang in (0.0, 120.0, 240.0):
        c, s = math.cos(math.radians(ang)), math.sin(math.radians(ang))
        lines.append({"anchor": [150.0 * c, 150.0 * s, -50.0],
                      "fairlead": [4.6 * c, 4.6 * s, -2.0],
                      "length": 170.0, "weight": W, "ea": 2.0e8})
    return lines


def _catenary_sim(extra: list[dict] | None = None, **params) -> Simulator:
    data = default_config_data(wave={"type": "none"}, radiation={"method": "constant"})
    data["bodies"] = [{"name": "body", "hydro": "builtin:sphere", "dofs": ["surge"]}]
    data["moorings"] = [{"type": "catenary", "body": "body", "lines": _catenary_lines()},
                        *(extra or [])]
    bodies, cfg = resolve(data, Path.cwd())
    return Simulator(bodies, cfg, params)


def _names(sim: Simulator) -> list[str]:
    return [p.name for p in sim.table.outputs]


def test_catenary_part_static_offset_matches_the_catenary_stiffness() -> None:
    """A constant surge force F: the settled offset is F / K11 of the lines' stiffness."""
    sim0 = _catenary_sim()
    k11 = sim0.part("mooring.catenary").stiffness_estimate()[0, 0]
    m11 = sim0.lhs[0, 0]
    # critical damping of the surge mode (a linear damper without stiffness), so that
    # the offset settles in a few natural periods
    c = np.zeros((6, 6))
    c[0, 0] = 2.0 * math.sqrt(k11 * m11)
    settle = 25.0 / math.sqrt(k11 / m11)  # e^-25 of the initial error left (critical)

    def settled(force: float) -> np.ndarray:
        sim = _catenary_sim([{"type": "linear", "body": "body", "damping": c.tolist()}],
                            max_internal_step=0.25)
        u = np.zeros(sim.u.size)
        u[0] = force
        sim.set_input_vector(u)
        t = 0.0
        while t < settle:
            sim.step(t, 1.0)
            t += 1.0
        return sim.output_vector()

    names = _names(sim0)
    # small force: linear response. The catenary softens as the body drifts (measured:
    # +2 % at 0.8 m, +0.5 % at 0.2 m, linear in the offset); 1 % at 0.2 m allows for it
    small = settled(500.0)
    assert small[names.index("body.pose[1]")] == pytest.approx(500.0 / k11, rel=1e-2)
    force = 2.0e3  # N: 0.85 m offset
    out = settled(force)
    x = out[names.index("body.pose[1]")]
    assert x > 0.5  # a real offset, not a motionless body
    # the lines hold the force: F_mooring = -F in surge, to the settling residual
    assert out[names.index("body.F_mooring[1]")] == pytest.approx(-force, rel=1e-6)
    # the nonlinear static balance from the closed-form catenary alone (bisection on the
    # surge offset): the settled offset agrees to the settling residual
    def surge_force(xb: float) -> float:
        total = 0.0
        for line in _catenary_lines():
            rel = np.array([xb, 0, 0]) + np.array(line["fairlead"]) - np.array(line["anchor"])
            span = math.hypot(rel[0], rel[1])
            sol = Catenary(length=170.0, weight=W, ea=2.0e8).solve(span, float(rel[2]))
            total -= sol.HF * rel[0] / span
        return total + force

    lo, hi = 0.0, 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if surge_force(mid) > 0 else (lo, mid)
    assert x == pytest.approx(0.5 * (lo + hi), rel=1e-6)
    # each line's tensions are the closed-form catenary's at the settled fairlead
    for k, line in enumerate(_catenary_lines(), start=1):
        rel = np.array([x, 0.0, 0.0]) + np.array(line["fairlead"]) - np.array(line["anchor"])
        sol = Catenary(length=170.0, weight=W, ea=2.0e8).solve(math.hypot(rel[0], rel[1]),
                                                                 float(rel[2]))
        assert out[names.index(f"mooring.line{k}.T_fairlead")] == pytest.approx(
            sol.fairlead_tension, rel=1e-9)
        assert out[names.index(f"mooring.line{k}.T_anchor")] == pytest.approx(
            sol.anchor_tension, rel=1e-9)
    # line 1 (anchor downstream at +x) slackens, lines 2 and 3 tighten
    assert (out[names.index("mooring.line1.T_fairlead")]
            < out[names.index("mooring.line2.T_fairlead")])


def test_catenary_part_rejects_bad_lines() -> None:
    lines = _catenary_lines()
    lines[1]["length"] = 100.0  # shorter than the 153 m between anchor and fairlead
    data = default_config_data(wave={"type": "none"}, radiation={"method": "constant"})
    data["bodies"] = [{"name": "body", "hydro": "builtin:sphere", "dofs": ["surge"]}]
    data["moorings"] = [{"type": "catenary", "lines": lines}]
    with pytest.raises(ConfigError, match="initial pose"):
        resolve(data, Path.cwd())
    lines = _catenary_lines()
    lines[0]["EA"] = 1.0
    data["moorings"] = [{"type": "catenary", "lines": lines}]
    with pytest.raises(ConfigError, match="unknown key 'EA'"):
        resolve(data, Path.cwd())


# ----------------------------------------------------------------------------- moordyn
def _moored_run(scheme: str, h: float, stop: float = 30.0) -> dict[str, np.ndarray]:
    """The example with a constant surge force of 50 kN, sampled every 0.1 s."""
    bodies, cfg = load_config(EXAMPLE)
    sim = Simulator(bodies, cfg, {"time_scheme": scheme, "max_internal_step": h})
    names = _names(sim)
    u = np.zeros(sim.u.size)
    u[0] = 5.0e4
    sim.set_input_vector(u)
    cols = ("body.pose[1]", "body.pose[3]", "mooring.line1.T_fairlead",
            "mooring.line2.T_anchor")
    idx = [names.index(c) for c in cols]
    rows, t = [], 0.0
    while t < stop - 1e-9:
        sim.step(t, 0.1)
        t = round(t + 0.1, 10)
        rows.append([t, *sim.output_vector()[idx]])
    r = np.array(rows)
    return {"t": r[:, 0], **{c: r[:, j + 1] for j, c in enumerate(cols)}}


@pytest.mark.slow
def test_moored_body_in_waves_rk4_and_midpoint5_agree_at_their_largest_steps() -> None:
    """rk4 at 0.009 s (0.01 s diverges: the seabed damping cBot makes a real eigenvalue of
    -300 1/s), midpoint5 at 0.02 s (0.025 s is stable but its tension amplitude is already
    1.6 % off, 0.04 s diverges)."""
    a = _moored_run("rk4", 0.009)
    b = _moored_run("midpoint5", 0.02)
    last = a["t"] > 20.0  # two wave periods after the 20 s ramp
    surge_a, surge_b = a["body.pose[1]"][last].mean(), b["body.pose[1]"][last].mean()
    assert surge_a > 5.0  # the 50 kN force pushes the body well off its rest position
    # measured: mean surge 21.6892 m both; tension amplitude 1798.5 N and 1813 N (0.8 %)
    assert surge_b == pytest.approx(surge_a, rel=0.01)
    ten_a, ten_b = a["mooring.line1.T_fairlead"][last], b["mooring.line1.T_fairlead"][last]
    amp_a, amp_b = np.ptp(ten_a) / 2, np.ptp(ten_b) / 2
    assert amp_a > 500.0  # the waves load the lines
    assert amp_b == pytest.approx(amp_a, rel=0.01)
    assert ten_b.mean() == pytest.approx(ten_a.mean(), rel=0.01)


def test_rk4_beyond_its_largest_step_diverges_with_advice() -> None:
    with pytest.raises(IntegrationError, match="rk4") as exc:
        _moored_run("rk4", 0.01, stop=1.0)
    assert "max_internal_step" in str(exc.value) and "implicit" in str(exc.value)


def test_moordyn_part_starts_in_static_equilibrium() -> None:
    """At rest (no waves, no force), the lines stay where the IC put them."""
    data = default_config_data(wave={"type": "none"}, radiation={"method": "constant"})
    data["bodies"] = [{"name": "body", "hydro": "builtin:sphere", "dofs": ["surge"]}]
    data["moorings"] = [{"type": "moordyn", "file": "data/moored_body_lines.txt",
                         "body": "body"}]
    bodies, cfg = resolve(data, ROOT / "examples")
    sim = Simulator(bodies, cfg, {"max_internal_step": 0.005})
    names = _names(sim)
    part = sim.part("mooring.moordyn")
    x0 = sim.y[part.state_slice].copy()
    t0 = sim.output_vector()[names.index("mooring.line1.T_fairlead")]
    for k in range(5):
        sim.step(0.1 * k, 0.1)
    # the node positions move by less than 1 mm in 0.5 s (the Newton IC's residual force
    # is 1e-9 of the tensions; the symmetric lines pull the body nowhere in surge)
    assert np.max(np.abs(sim.y[part.state_slice][: part.system.arrays.n_internal * 3]
                         - x0[: part.system.arrays.n_internal * 3])) < 1e-3
    assert sim.output_vector()[names.index("mooring.line1.T_fairlead")] == pytest.approx(
        t0, rel=1e-4)
    # the lumped lines (8 segments) against the closed-form catenary: 1.5 % (measured 1.1 %,
    # the coarse segments' chords; see test_moorings_lines for the convergence)
    sol = Catenary(length=170.0, weight=W, ea=2.0e8).solve(150.0 - 4.6, 48.0)
    assert t0 == pytest.approx(sol.fairlead_tension, rel=0.015)


def test_the_api_compiles_the_line_kernel_before_it_resolves(tmp_path: Path,
                                                              monkeypatch) -> None:
    """Nothing is registered at import: ``Model.from_toml`` compiles the kernel into the
    (empty) cache before the configuration's check runs, so the model's report and its
    in-process simulator run the compiled kernel, not the numpy fallback."""
    from hydrofmu import Model
    from hydrofmu.runtime.moorings import kernel_files, kernel_loader
    from hydrofmu.runtime.simulator.simulator import Simulator

    monkeypatch.setenv("HYDROFMU_CACHE_DIR", str(tmp_path / "cache"))
    kernel_loader.forget()
    try:
        assert not kernel_files.cached_library().exists()
        model = Model.from_toml(EXAMPLE)
        assert kernel_files.cached_library().is_file()
        assert any(line.endswith("c kernel") for line in model.report), model.report
        sim = Simulator(model.bodies, model.config, {}, parts=model.parts)
        assert sim.part("mooring.moordyn").system.kernel == "c"
    finally:
        kernel_loader.forget()


def test_moordyn_file_is_embedded_and_errors_are_clear(tmp_path: Path) -> None:
    _, cfg = load_config(EXAMPLE)
    text = (ROOT / "examples" / "data" / "moored_body_lines.txt").read_text()
    assert cfg["moorings"][0]["text"] == text  # in the configuration the FMU stores
    data = default_config_data(wave={"type": "none"}, radiation={"method": "constant"})
    data["bodies"] = [{"name": "body", "hydro": "builtin:sphere"}]
    data["moorings"] = [{"type": "moordyn", "file": "nowhere.txt"}]
    with pytest.raises(ConfigError, match=r"nowhere\.txt.*not found"):
        resolve(data, tmp_path)
    (tmp_path / "bad.txt").write_text(text.replace("LINE TYPES", "ROD TYPES", 1))
    data["moorings"] = [{"type": "moordyn", "file": "bad.txt"}]
    with pytest.raises(ConfigError):
        resolve(data, tmp_path)


@pytest.mark.fmu
def test_hydrofmu_run_reports_the_mooring_outputs(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    proc = subprocess.run([sys.executable, "-m", "hydrofmu", "run", str(EXAMPLE), "-o",
                           str(out), "--stop-time", "1"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with out.open() as fh:
        rows = list(csv.reader(fh))
    assert "mooring.line1.T_fairlead [N]" in rows[0]  # columns are "name [unit]"
    header = [h.rsplit(" [", 1)[0] for h in rows[0]]
    for k in (1, 2, 3):
        assert f"mooring.line{k}.T_fairlead" in header
        assert f"mooring.line{k}.T_anchor" in header
    assert "body.F_mooring[1]" in header
    last = dict(zip(header, (float(v) for v in rows[-1]), strict=True))
    assert float(last["time"]) == pytest.approx(1.0)
    # the FMU's tensions are the simulator's (same code, same step): to round-off
    bodies, cfg = load_config(EXAMPLE)
    sim = Simulator(bodies, cfg)
    for k in range(10):
        sim.step(0.1 * k, 0.1)
    names = _names(sim)
    ref = sim.output_vector()
    for name in ("mooring.line1.T_fairlead", "mooring.line3.T_anchor", "body.F_mooring[3]"):
        assert last[name] == pytest.approx(ref[names.index(name)], rel=1e-9, abs=1e-6)


def _counted_run(monkeypatch, scheme: str, h: float, stop: float) -> tuple[np.ndarray, dict]:
    """Outputs every 0.1 s and how often the body (its hydrostatics) and the lines were
    evaluated."""
    from hydrofmu.runtime.forces.hydrostatics import HydrostaticsPart
    from hydrofmu.runtime.forces.moordyn_mooring import MoorDynPart

    counts = {"body": 0, "lines": 0}
    body_force, lines_derivative = HydrostaticsPart.force, MoorDynPart.derivative

    def force(self, ctx):
        counts["body"] += 1
        return body_force(self, ctx)

    def derivative(self, ctx):
        counts["lines"] += 1
        return lines_derivative(self, ctx)

    monkeypatch.setattr(HydrostaticsPart, "force", force)
    monkeypatch.setattr(MoorDynPart, "derivative", derivative)
    bodies, cfg = load_config(EXAMPLE)
    sim = Simulator(bodies, cfg, {"time_scheme": scheme, "max_internal_step": h})
    names = _names(sim)
    idx = [names.index(c) for c in ("body.pose[1]", "body.pose[3]",
                                    "mooring.line1.T_fairlead")]
    u = np.zeros(sim.u.size)
    u[0] = 5.0e4
    sim.set_input_vector(u)
    rows, t = [], 0.0
    while t < stop - 1e-9:
        sim.step(t, 0.1)
        t = round(t + 0.1, 10)
        rows.append(sim.output_vector()[idx])
    monkeypatch.undo()
    return np.array(rows), counts


def test_lab2_updates_the_body_at_its_own_rate_and_matches_ab2(monkeypatch) -> None:
    """Local time steps: the lines' own step (CFL and damping, 1.7 ms) and the body's
    (its shortest period with the lines' axial stiffness / 50, 11.6 ms) at h = 1 ms."""
    ref, c_ref = _counted_run(monkeypatch, "ab2", 0.001, 2.0)
    loc, c_loc = _counted_run(monkeypatch, "lab2", 0.001, 2.0)
    # ab2 evaluates both at every step; lab2 the lines at every step (their own step is
    # under 2 h) and the body about every 11th (measured: 204 against 2001 in 2 s)
    assert c_ref["body"] >= c_ref["lines"] > 2000
    assert c_loc["lines"] == c_ref["lines"]
    assert c_loc["body"] < c_loc["lines"] / 8
    # the slow body's derivative extrapolated (second order at its own step): measured
    # 8e-6 (surge), 5e-5 (heave), 6e-5 (tension) of each signal's largest value in 2 s,
    # 2.5e-4 at most over 10 s; 1e-3 of each signal
    err = np.max(np.abs(loc - ref), axis=0) / np.max(np.abs(ref), axis=0)
    assert np.all(err < 1e-3), err


@pytest.mark.parametrize("scheme", ["lab3", "midpoint5"])
def test_rollback_with_the_lines_in_the_state_is_bit_identical(scheme: str) -> None:
    """Get the state at t1, run to t2, restore, run to t2 again: the same bits (the line
    states, the scheme's history and the local clock are all in the state)."""
    bodies, cfg = load_config(EXAMPLE)
    sim = Simulator(bodies, cfg, {"time_scheme": scheme, "max_internal_step": 0.002})
    for k in range(3):
        sim.step(0.1 * k, 0.1)
    saved = sim.get_state()
    for k in range(3, 6):
        sim.step(0.1 * k, 0.1)
    y1, out1 = sim.y.copy(), sim.output_vector().copy()
    sim.set_state(saved)
    for k in range(3, 6):
        sim.step(0.1 * k, 0.1)
    assert np.array_equal(sim.y, y1)
    assert np.array_equal(sim.output_vector(), out1)
    assert sim.y.size > 100  # the 126 line states are there
