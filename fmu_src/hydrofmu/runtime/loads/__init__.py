"""The hydrodynamic-load model (``[export] kind = "loads"``, run time): the model's force
parts evaluated at a prescribed motion (:mod:`hydrofmu.runtime.loads.model`) and its FMU interface
(:mod:`hydrofmu.runtime.loads.interface`)."""
