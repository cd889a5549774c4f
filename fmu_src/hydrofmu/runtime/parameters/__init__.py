"""The model's parameters: their table, their one check, tunable changes (run time)."""
