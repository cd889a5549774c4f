"""Frequency-domain hydrodynamic data: the in-memory model, readers and checks."""

from .model import DOF_NAMES, HydroData

__all__ = ["DOF_NAMES", "HydroData"]
