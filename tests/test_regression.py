"""Nothing changes for today's users: the outputs recorded before the model was reshaped
into parts (``tests/regression/recorded.npz``, written by ``tests/regression/record.py``)
are reproduced.

Norm: for every case and every output quantity (a body's 6 components of one quantity,
or ``wave.elevation``), ``max_t,i |new - recorded| <= 1e-12 * scale``: the scale of a
force quantity (``F_*``) is the largest force output of the case (a reaction on a fixed
DOF that is physically zero, e.g. sway of a sphere in head seas, is round-off of sums of
forces of that size); of any other quantity its own ``max_t,i |recorded|``; a quantity
recorded as exactly zero must stay exactly zero. Why 1e-12: the reshaped code sums the
same forces in another order and factorises the same matrix by another library call,
which changes round-off (1e-16 relative per operation) but not the computation; 1e-12
leaves room for its growth over the ~1000 internal steps of a case, and any real change
of the model (a force term, a kernel sample, a step rule) moves the outputs far more.
"""

from __future__ import annotations

import numpy as np
import pytest

from regression.cases import CASES, RECORD, output_names, run_case

REL = 1e-12


def _groups(names: list[str]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        groups.setdefault(n.split("[")[0], []).append(i)
    return groups


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_outputs_match_the_recording(case: str) -> None:
    rec = np.load(RECORD)
    ref = rec[case]
    names = [str(x) for x in rec[f"{case}:names"]]
    assert output_names(case) == names, "the output channels changed"
    new = run_case(case)
    assert new.shape == ref.shape
    groups = _groups(names)
    forces = [c for q, cols in groups.items() if q.split(".")[-1].startswith("F_")
              for c in cols]
    force_scale = float(np.max(np.abs(ref[:, forces])))
    bad = []
    for quantity, cols in groups.items():
        own = float(np.max(np.abs(ref[:, cols])))
        is_force = quantity.split(".")[-1].startswith("F_")
        scale = REL * (force_scale if is_force and own > 0.0 else own)
        err = float(np.max(np.abs(new[:, cols] - ref[:, cols])))
        if not err <= scale:
            bad.append(f"{quantity}: {err:.3g} > {scale:.3g}")
    assert not bad, "; ".join(bad)
