"""hydrofmu: floating bodies in waves, from BEM data to an FMI 2.0 co-simulation FMU."""

__version__ = "0.1.0"
