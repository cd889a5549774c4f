"""What goes into every Python FMU, and nothing else (numpy and the standard library only).

The export copies this folder, whole, into the FMU as a package with a unique name
(``_hydrofmu_<hash>``); its ``__init__`` files are regenerated empty there, so modules
import each other with relative imports, never from a package ``__init__``. See
docs/ARCHITECTURE.md.
"""
