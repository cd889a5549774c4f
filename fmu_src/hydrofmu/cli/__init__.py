"""The command line, a thin client of the Python API (build time)."""
