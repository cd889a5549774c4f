"""Readers of BEM files (Capytaine NetCDF, BEMIO HDF5, WAMIT .out) into HydroData (build time)."""
