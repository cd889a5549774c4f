"""Pressure integration over a body's wetted mesh: the compiled panel kernel (run time)."""
