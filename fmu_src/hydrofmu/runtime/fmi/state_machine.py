"""The FMI 2.0 co-simulation state machine of an instance, as one table.

This module is run time (bundled in the FMU): standard library only.

:data:`ALLOWED` lists, for every call that pythonfmu 0.7 routes to the Python slave, the
states in which FMI 2.0 (section 4.2.4, "state machine of calling sequence from master to
slave") allows it; :func:`refusal` answers whether a call is allowed and, if not, the
message to log; :data:`NEXT` gives the state after a successful call.

Calls the wrapper answers itself and never routes to Python (so not in the table):
``fmi2GetTypesPlatform``, ``fmi2GetVersion``, ``fmi2SetDebugLogging``, ``fmi2FreeInstance``,
``fmi2GetStatus`` and its typed variants, ``fmi2CancelStep``, ``fmi2FreeFMUstate``,
``fmi2SerializedFMUstateSize``, ``fmi2SerializeFMUstate`` and ``fmi2DeSerializeFMUstate``
(these call static methods of the class, with no instance), and the input derivatives
(``canInterpolateInputs = false``). ``fmi2Reset`` makes the wrapper construct a new Python
instance, which starts in :data:`INSTANTIATED`. hydrofmu's shim in front of pythonfmu's
binary answers a second ``fmi2FreeInstance`` (and any call on a freed instance) itself, and
returns ``fmi2Error`` for a call refused here (:mod:`hydrofmu.runtime.fmi.log`).

``fmi2GetDirectionalDerivative`` reaches the slave through the shim as a flagged
``fmi2SetReal`` and ``fmi2GetReal`` (:mod:`hydrofmu.runtime.fmi.derivative`), so it is
checked as a getter (``"get"``): allowed in initialization mode (differentiating the
simulator the parameters set so far make), step complete, terminated and error (refused
there when initialization failed: no model exists), as FMI 2.0 allows and as the native FMU
answers. ``fmi2SetFMUstate`` is allowed in every state, error included: FMI 2.0 (section
2.1.3) restarts from a stored state after ``fmi2Error``; a state saved after a failed
initialization restores that failure, parameter values the importer set included (they are
checked when the simulator is built, not when a state without one is restored).

Deviation on purpose: a step that is refused before any work (bad time arguments, the work
limit, a non-finite input, a step whose integration failed and was rolled back) leaves the
instance exactly as it was, in ``STEP_COMPLETE``, so the master may retry with other
arguments; FMI would put it in ``stepFailed``, where only terminate, reset and the getters
remain.
"""

from __future__ import annotations

INSTANTIATED = "instantiated"
INITIALIZATION_MODE = "initialization mode"
STEP_COMPLETE = "step complete"
STEP_FAILED = "step failed"
TERMINATED = "terminated"
ERROR = "error"

#: The FMI 2.0 co-simulation states this table knows, in their life-cycle order.
STATES = (INSTANTIATED, INITIALIZATION_MODE, STEP_COMPLETE, STEP_FAILED, TERMINATED, ERROR)

#: FMI name of every call the Python slave receives.
CALLS = {
    "setup_experiment": "fmi2SetupExperiment",
    "enter_initialization_mode": "fmi2EnterInitializationMode",
    "exit_initialization_mode": "fmi2ExitInitializationMode",
    "do_step": "fmi2DoStep",
    "terminate": "fmi2Terminate",
    "get": "fmi2Get{type}",
    "set_parameter": "fmi2Set{type} (parameter)",
    "set_input": "fmi2Set{type} (input)",
    "set_tunable": "fmi2Set{type} (tunable parameter)",
    "get_fmu_state": "fmi2GetFMUstate",
    "set_fmu_state": "fmi2SetFMUstate",
}

_ANY_LIVE = frozenset(STATES)

#: Call -> states in which it is allowed (FMI 2.0 co-simulation).
ALLOWED: dict[str, frozenset[str]] = {
    "setup_experiment": frozenset({INSTANTIATED}),
    "enter_initialization_mode": frozenset({INSTANTIATED}),
    "exit_initialization_mode": frozenset({INITIALIZATION_MODE}),
    "do_step": frozenset({STEP_COMPLETE}),
    "terminate": frozenset({STEP_COMPLETE, STEP_FAILED, ERROR}),
    # Getters: every state but "instantiated" (no values are computed yet). The values
    # returned there are the start values; the call is logged as an error all the same.
    "get": frozenset({INITIALIZATION_MODE, STEP_COMPLETE, STEP_FAILED, TERMINATED, ERROR}),
    # Fixed parameters: before initialization ends.
    "set_parameter": frozenset({INSTANTIATED, INITIALIZATION_MODE}),
    # Inputs: also between steps.
    "set_input": frozenset({INSTANTIATED, INITIALIZATION_MODE, STEP_COMPLETE}),
    # Tunable parameters: also between steps (they act from the next step on).
    "set_tunable": frozenset({INSTANTIATED, INITIALIZATION_MODE, STEP_COMPLETE}),
    "get_fmu_state": _ANY_LIVE,
    "set_fmu_state": _ANY_LIVE,
}

#: Call -> state after it succeeded (calls that do not change the state are absent).
NEXT: dict[str, str] = {
    "enter_initialization_mode": INITIALIZATION_MODE,
    "exit_initialization_mode": STEP_COMPLETE,
    "terminate": TERMINATED,
}

#: What the master may do in each state, for the messages.
_HINT = {
    INSTANTIATED: "call fmi2SetupExperiment and fmi2EnterInitializationMode first",
    INITIALIZATION_MODE: "call fmi2ExitInitializationMode first",
    STEP_COMPLETE: "the instance is stepping",
    STEP_FAILED: "only fmi2Terminate, fmi2Reset, the getters and fmi2FreeInstance remain",
    TERMINATED: "the instance has been terminated; fmi2Reset it or instantiate a new one",
    ERROR: "initialization failed; fmi2Reset the instance or instantiate a new one",
}


def refusal(call: str, state: str, *, type_name: str = "Real") -> str | None:
    """Why ``call`` is not allowed in ``state``, or None when it is.

    Parameters
    ----------
    call
        A key of :data:`ALLOWED`.
    state
        One of :data:`STATES`.
    type_name
        Real, Integer, Boolean or String, for the getters and setters' names.

    Returns
    -------
    str or None
        A one-line message naming the FMI call, the state and what to do instead.
    """
    if state in ALLOWED[call]:
        return None
    name = CALLS[call].format(type=type_name)
    return f"{name} is not allowed in state '{state}' (FMI 2.0 co-simulation): {_HINT[state]}"


def next_state(call: str, state: str) -> str:
    """State after ``call`` succeeded in ``state``."""
    return NEXT.get(call, state)
