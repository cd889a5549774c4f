"""Impulse-response functions: the Fourier transforms, their length and their checks (run time)."""
