"""The FMI 2.0 co-simulation face over the simulator: slave, variables, state (run time)."""
