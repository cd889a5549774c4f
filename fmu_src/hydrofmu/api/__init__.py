"""The Python API: :class:`Model`, :func:`simulate_fmu` and labelled results with
dimensions (build time)."""
