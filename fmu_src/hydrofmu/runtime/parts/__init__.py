"""The part interface every force model implements, and its linear declarations (run time)."""
