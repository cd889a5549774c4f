"""The frequency-domain hydrodynamic data in memory, its checks and the model file (run time)."""
