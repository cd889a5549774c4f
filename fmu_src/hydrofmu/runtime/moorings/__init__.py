"""Mooring lines: catenaries, MoorDyn-C v2 lumped-mass lines, their compiled kernel (run time)."""
