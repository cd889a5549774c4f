"""From a resolved model to a ``.fmu``: the bundle, the model description, binaries (build time)."""
