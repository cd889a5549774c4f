"""The Python API: :class:`Model`, :func:`simulate_fmu` and labelled results (build time)."""
