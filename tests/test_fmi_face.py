"""The FMI face in process (no C wrapper): per-step bookkeeping without repeated checks.

Issue 11 item 3: in ``do_step`` and the getters, the common case (the FMU's own time, a
step no longer than one already accepted, every input finite, the call allowed) does no
per-step dictionary building and repeats no check; structural, not timed. The slave is
the package's own ``HydroSlave`` on a resources folder holding the payload, as the
export's own check builds it (``export.fmu.inspect_slave``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from hydrofmu.config.configuration import default_config
from hydrofmu.runtime.fmi import lifecycle as fmi_lifecycle
from hydrofmu.runtime.fmi import slave as fmi_slave
from hydrofmu.runtime.fmi import state_machine as fmi_states
from hydrofmu.runtime.hydrodata.store import save_model

H = 0.1  # s, communication step


@pytest.fixture
def slave(tmp_path: Path) -> Any:
    bodies, config = default_config()
    config = json.loads(json.dumps(config, allow_nan=True))  # as the payload stores it
    save_model(tmp_path / fmi_slave.MODEL_FILE, {"bodies": list(bodies), "config": config})
    s = fmi_slave.HydroSlave(instance_name="face", resources=str(tmp_path))
    s.setup_experiment(0.0, None, None)
    s.enter_initialization_mode()
    s.exit_initialization_mode()
    assert s.initialization_error == ""
    return s


def _names(s: Any, causality: str) -> list[int]:
    table = s.variables
    lo, hi = {"input": (table.input_lo, table.input_hi),
              "output": (table.output_lo, table.output_hi)}[causality]
    return list(range(lo, hi))


def test_common_step_repeats_no_check(slave: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"step_refusal": 0, "refusal": 0}

    def counting(name: str, function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(fmi_lifecycle, "step_refusal",
                        counting("step_refusal", fmi_lifecycle.step_refusal))
    monkeypatch.setattr(fmi_states, "refusal", counting("refusal", fmi_states.refusal))
    inputs, outputs = _names(slave, "input"), _names(slave, "output")
    t = 0.0
    for k in range(50):
        slave.set_real(inputs, [1.0e3 * (k % 5)] + [0.0] * (len(inputs) - 1))
        assert slave.do_step(t, H) is True
        assert all(map(math.isfinite, slave.get_real(outputs)))
        t += H
    # The time arguments and the work limit are checked once, for the first step of that
    # size; the state machine's message builder is never called while nothing is refused.
    assert calls == {"step_refusal": 1, "refusal": 0}
    assert slave.run.time == pytest.approx(50 * H, rel=1e-12)  # 50 additions of 0.1 s
    # A longer step is checked again; a refused one still is, with its message.
    assert slave.do_step(t, 2 * H) is True
    assert calls["step_refusal"] == 2
    assert slave.do_step(t, H) is False  # wrong time: t is now behind by 2 H
    assert calls["step_refusal"] == 3
    assert any("currentCommunicationPoint" in m.msg for m in slave.log_queue)


def test_non_finite_input_still_refused_after_the_fast_path(slave: Any) -> None:
    inputs = _names(slave, "input")
    assert slave.do_step(0.0, H) is True
    for bad in (math.nan, math.inf, -math.inf):
        slave.set_real(inputs[:1], [bad])
        assert slave.do_step(H, H) is False
        assert "non-finite input" in slave.log_queue[-1].msg
    # Finite inputs whose sum overflows are not refused (the exact check clears them).
    slave.set_real(inputs[:2], [1.0e308, 1.0e308])
    table = slave.variables
    assert not math.isfinite(sum(table.reals[table.input_lo:table.input_hi]))
    messages = len(slave.log_queue)
    slave.do_step(H, H)  # the model may diverge with 1e308 N; the input check passes
    assert not any("non-finite input" in m.msg for m in slave.log_queue[messages:])
