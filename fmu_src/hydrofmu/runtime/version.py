"""The version of hydrofmu (run time too: the bundled package carries it)."""

__version__ = "0.1.0"
