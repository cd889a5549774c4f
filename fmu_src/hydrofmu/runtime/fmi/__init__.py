"""The FMI 2.0 co-simulation face over the simulator (run time): the pythonfmu slave
(:mod:`.slave`) and the collaborators it owns -- the model
(:mod:`hydrofmu.runtime.fmi.model`), the variable table (:mod:`.variables`), the run state
(:mod:`.run_state`), the log (:mod:`.log`), the getters and setters (:mod:`.access`), the
life cycle (:mod:`.lifecycle`) and the FMU state (:mod:`.state_blob`,
:mod:`.state_schema`)."""
