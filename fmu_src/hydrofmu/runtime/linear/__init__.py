"""The linear model: its assembly, exact discretisation and interval stepping (run time)."""
