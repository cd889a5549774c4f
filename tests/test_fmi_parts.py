"""The collaborators of the FMI face, each used alone (no slave, no simulator, no FMU).

``HydroSlave`` owns a variable table, a run state, a log, the getters and setters: each is
an object with public fields that can be built and checked by itself (issue 32).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from pythonfmu.enums import Fmi2Status

from hydrofmu.runtime.errors import HydroFMUError
from hydrofmu.runtime.fmi import state_machine as fsm
from hydrofmu.runtime.fmi.access import FmiAccess
from hydrofmu.runtime.fmi.log import REFUSED, FmiLog
from hydrofmu.runtime.fmi.run_state import RunState
from hydrofmu.runtime.fmi.variables import INPUT, OUTPUT, PARAMETER, VariableTable
from hydrofmu.runtime.parameters.table import ParameterSpec

CATEGORIES = {"logStatusWarning": "", "logStatusError": "", "logAll": ""}


def _table(**changes: Any) -> VariableTable:
    arguments: dict[str, Any] = dict(
        parameters=[
            ParameterSpec("wave.height", "Real", 1.0, "m", "wave height", tunable=True),
            ParameterSpec("body.mass", "Real", 2.0, "kg", "mass"),
            ParameterSpec("steps", "Integer", 3, None, "steps"),
            ParameterSpec("scheme", "String", "rk4", None, "scheme", choices=("rk4", "ab2")),
        ],
        input_names=["body.F_pto[3]", "wave.elevation_input"],
        output_names=["body.pose[3]"],
        input_units=["N", "m"],
        output_units=["m"],
        dependencies={"body.pose[3]": []},
    )
    arguments.update(changes)
    return VariableTable(**arguments)


def test_the_table_lays_out_value_references() -> None:
    table = _table()
    assert (table.input_lo, table.input_hi, table.output_lo, table.output_hi) == (2, 4, 4, 5)
    assert (table.n_real, table.int_base, table.str_base) == (5, 5, 6)
    assert table.real_kind == [PARAMETER, PARAMETER, INPUT, INPUT, OUTPUT]
    assert table.reals == [1.0, 2.0, 0.0, 0.0, 0.0]
    assert (table.ints, table.strs, table.tunable) == ([3], ["rk4"], {"wave.height"})
    assert table.units["body.mass"] == "kg" and table.units["wave.elevation_input"] == "m"
    assert table.parameter_values() == {"wave.height": 1.0, "body.mass": 2.0, "steps": 3,
                                        "scheme": "rk4"}


def test_the_registered_getters_read_the_live_values() -> None:
    registered: list[Any] = []

    def register_variable(variable: Any, nested: bool = True) -> None:
        assert nested is False
        variable.value_reference = len(registered)
        registered.append(variable)

    table = _table()
    table.register(register_variable)
    assert [v.name for v in registered] == [*table.real_names, "steps", "scheme"]
    assert "one of: rk4, ab2" in registered[-1].description
    table.restore_values([9.0, 8.0, 7.0, 6.0, 5.0], [4], ["ab2"])
    assert [v.getter() for v in registered] == [9.0, 8.0, 7.0, 6.0, 5.0, 4, "ab2"]


def test_registration_out_of_order_is_refused() -> None:
    def register_variable(variable: Any, nested: bool = True) -> None:
        variable.value_reference = 7  # another variable came first

    with pytest.raises(HydroFMUError, match="value reference 7, expected 0"):
        _table().register(register_variable)


@pytest.mark.parametrize(("changes", "message"), [
    ({"output_names": ["wave.elevation_input"]}, "duplicated FMU variable names"),
    ({"input_units": ["N"]}, "input_units and input_names differ"),
    ({"dependencies": {"body.pose[3]": ["nope"]}}, "names unknown variables"),
])
def test_an_inconsistent_interface_is_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(HydroFMUError, match=message):
        _table(**changes)


def test_the_log_marks_refusals_and_escapes_printf_characters() -> None:
    queue: list[Any] = []
    log = FmiLog(queue, CATEGORIES)
    log.refuse("50% of #3")
    log.error("careful", Fmi2Status.warning)
    log.error("fine", Fmi2Status.ok)  # no logStatusOk category: logAll, as pythonfmu does
    assert [(m.status, m.category, m.msg) for m in queue] == [
        (Fmi2Status.error, REFUSED, "50%% of ##3"),
        (Fmi2Status.warning, "logStatusWarning", "careful"),
        (Fmi2Status.ok, "logAll", "fine"),
    ]
    assert log.refused("do_step", fsm.STEP_COMPLETE) is False
    assert log.refused("do_step", fsm.INSTANTIATED) is True
    assert queue[-1].msg.startswith("fmi2DoStep is not allowed in state 'instantiated'")


def test_access_alone_refuses_bad_references_and_fixed_parameters() -> None:
    queue: list[Any] = []
    table, run = _table(), RunState()
    access = FmiAccess(variables=table, run=run, log=FmiLog(queue, CATEGORIES))
    access.set_real([2, 3], [5.0, 6.0])  # inputs, the fast path
    assert table.reals[2:4] == [5.0, 6.0] and run.inputs_dirty and queue == []
    run.phase = fsm.STEP_COMPLETE
    access.set_real([4, 1, 99], [1.0, 3.0, 1.0])
    assert [m.msg for m in queue] == [
        "'body.pose[3]' is an output and cannot be set",
        "parameter 'body.mass' is fixed: it cannot be changed after initialization; the "
        "value is ignored (fmi2SetReal (parameter) is not allowed in state 'step complete' "
        "(FMI 2.0 co-simulation): the instance is stepping)",
        "no Real variable has value reference 99",
    ]
    assert table.reals[1] == 2.0  # unchanged
    values = access.get_real([0, 99])
    assert values[0] == 1.0 and math.isnan(values[1])
    assert access.get_integer([5]) == [3] and access.get_string([6]) == ["rk4"]
    assert all(m.category == REFUSED for m in queue)
