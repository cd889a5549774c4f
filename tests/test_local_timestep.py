"""Local time steps (``leuler``, ``labP``): a slow body coupled to a stiff fast part.

Body: M = 1 kg, K = 1 N/m, C = 0.2 N s/m (w = 1 rad/s, zeta = 0.1). Fast part: a 0.01 kg
mass on a 25 N/m spring with 0.5 N s/m damping to the body (w = 50 rad/s, zeta = 0.5):
explicit Euler needs h < 2 zeta / w = 0.02 s for it, the body alone 0.2 s. The two parts
offer the partition protocol; the global step is 0.002 s, and the body's own step H is
0.01 or 0.02 s (evaluated 5 or 10 times less often). Reference: the exact solution (matrix
exponential of the linear system).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import expm

from hydrofmu.runtime.schemes.local import PartitionedRHS
from hydrofmu.runtime.schemes.registry import make_scheme

M, K, C = 1.0, 1.0, 0.2
MF, KF, CF = 0.01, 25.0, 0.5
J = np.array([
    [0.0, 1.0, 0.0, 0.0],
    [-(K + KF) / M, -(C + CF) / M, KF / M, CF / M],
    [0.0, 0.0, 0.0, 1.0],
    [KF / MF, CF / MF, -KF / MF, -CF / MF],
])
PARTS = [slice(0, 2), slice(2, 4)]
Y0 = np.array([1.0, 0.0, 1.01, 0.0])
T_END = 10.0
H = 0.002


def run(name: str, h: float, slow_step: float | None) -> tuple[np.ndarray, list[int]]:
    """Final state and evaluations per part; ``slow_step`` None: no partition protocol."""
    counts = [0, 0]

    def evaluate(t: float, y: np.ndarray, parts: list[int], out: np.ndarray) -> None:
        for p in parts:
            counts[p] += 1
            out[PARTS[p]] = J[PARTS[p]] @ y

    if slow_step is None:
        def f(t: float, y: np.ndarray) -> np.ndarray:
            counts[0] += 1
            counts[1] += 1
            return J @ y
    else:
        f = PartitionedRHS(evaluate=evaluate, partition=PARTS, part_steps=[slow_step, 0.0])
    scheme = make_scheme(name)
    y = Y0.copy()
    for i in range(round(T_END / h)):
        y = scheme.step(f, i * h, y, h)
    return y, counts


EXACT = expm(J * T_END) @ Y0


def error(y: np.ndarray) -> float:
    return float(np.max(np.abs(y - EXACT)))


@pytest.mark.parametrize(("local", "base", "factor"), [("leuler", "euler", 1.0),
                                                      ("lab2", "ab2", 3.0)])
def test_local_matches_global_within_the_error_at_the_slow_step(
    local: str, base: str, factor: float
) -> None:
    """The local scheme differs from its global counterpart at 0.002 s by no more than the
    global scheme's own error at the slow part's step (0.01 s), times ``factor``: 1 for
    leuler (holding the derivative IS Euler at the part's step, measured 0.79x); 3 for
    lab2, whose linear extrapolation over up to H has an error constant about twice AB2's
    (measured 1.9x). Meanwhile the body is evaluated 5 times less often, the fast part
    at every step."""
    y_glob, c_glob = run(base, H, None)
    y_loc, c_loc = run(local, H, 0.01)
    y_ref, _ = run(base, 0.01, None)
    assert float(np.max(np.abs(y_loc - y_glob))) <= factor * error(y_ref)
    steps = round(T_END / H)
    assert c_loc[1] >= steps  # the fast part: every step (plus the starter's stages)
    assert c_loc[0] <= steps / 5 + 3  # the body: once per 5 steps (+ start-up)
    assert c_glob[0] >= steps


@pytest.mark.parametrize(("local", "order"), [("leuler", 1), ("lab2", 2)])
def test_local_error_has_the_order_of_the_scheme_at_the_slow_step(local: str, order: int) -> None:
    """Doubling the body's own step (0.01 -> 0.02 s) multiplies the difference to the
    global scheme at 0.002 s by 2^order: measured order within 0.3 (0.01 s is 1/600 of
    the body period: asymptotic regime)."""
    base = {"leuler": "euler", "lab2": "ab2"}[local]
    y_glob, _ = run(base, H, None)
    d1 = float(np.max(np.abs(run(local, H, 0.01)[0] - y_glob)))
    d2 = float(np.max(np.abs(run(local, H, 0.02)[0] - y_glob)))
    assert math.log2(d2 / d1) == pytest.approx(order, abs=0.3)


@pytest.mark.parametrize("name", ["leuler", "lab2", "lab4"])
def test_without_the_protocol_local_is_global(name: str) -> None:
    base = {"leuler": "euler", "lab2": "ab2", "lab4": "ab4"}[name]
    y_loc, _ = run(name, 0.005, None)
    y_glob, _ = run(base, 0.005, None)
    assert np.array_equal(y_loc, y_glob)


def test_fast_parts_and_restore_are_exact() -> None:
    """Parts whose own step is not above the global one are evaluated at every step, so
    the result is the global scheme's; a restored memory continues bit-identically."""
    y_glob, _ = run("ab3", H, None)
    y_loc, counts = run("lab3", H, H)
    assert np.allclose(y_loc, y_glob, rtol=0.0, atol=1e-14)  # same operations, reordered
    assert counts[0] == counts[1]

    def evaluate(t: float, y: np.ndarray, parts: list[int], out: np.ndarray) -> None:
        for p in parts:
            out[PARTS[p]] = J[PARTS[p]] @ y

    f = PartitionedRHS(evaluate=evaluate, partition=PARTS, part_steps=[0.01, 0.0])
    a = make_scheme("lab2")
    y = Y0.copy()
    for i in range(23):
        y = a.step(f, i * H, y, H)
    saved, y_saved = a.get_state(), y.copy()
    assert all(np.all(np.isfinite(v)) for v in saved.values())
    ref = [y := a.step(f, i * H, y, H) for i in range(23, 40)]
    b = make_scheme("lab2")
    b.set_state(saved)
    y = y_saved
    for i, r in zip(range(23, 40), ref, strict=True):
        y = b.step(f, i * H, y, H)
        assert np.array_equal(y, r)
