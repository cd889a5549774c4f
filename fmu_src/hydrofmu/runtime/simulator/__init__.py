"""The equation of motion assembled from the parts, its state, outputs and stepping (run time)."""
