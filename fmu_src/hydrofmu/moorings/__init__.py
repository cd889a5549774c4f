"""Mooring lines, standalone physics free of FMI and of the body simulator.

- :mod:`.catenary` — the quasi-static elastic catenary with seabed contact (run time).
- :mod:`.quasistatic` — a catenary line between an anchor and a body fairlead: force,
  moment and 6x6 stiffness at the body (run time).
- :mod:`.moordyn_model` — the plain data model of a MoorDyn v2 file (run time).
- :mod:`.moordyn_input` — MoorDyn v2 input files read into that model (run time: the FMU
  parses its embedded file).
- :mod:`.line_layout` — nodes, segments and their constants (run time).
- :mod:`.lines` — MoorDyn-C v2 lumped-mass lines as one first-order system (run time).
- :mod:`.equilibrium` — their initial static equilibrium, free points included (run time;
  it imports :mod:`.lines`, never the reverse).
- :mod:`.frames` — roll-pitch-yaw rotation (run time).
- :mod:`.replay` — ``hydrofmu mooring replay``: lines driven by a prescribed motion.
- :mod:`.kernel` — the compiled derivative (``line_kernel.c``) through ctypes, numpy as the
  fallback (run time); :mod:`.kernel_build` compiles it (build time; registered below, so
  that the installed package compiles the kernel on first use; an FMU never does).

Run-time modules import only each other, numpy and the standard library (and
``..errors``, ``..timeschemes``).
"""

from . import kernel as _kernel
from .catenary import Catenary, CatenaryError, CatenarySolution
from .kernel_build import build_library as _build_library
from .lines import LineSystem
from .moordyn_input import MoorDynInputError, MoorDynModel, parse_moordyn, read_moordyn
from .quasistatic import CatenaryMooring

_kernel.set_builder(_build_library)

__all__ = [
    "Catenary",
    "CatenaryError",
    "CatenaryMooring",
    "CatenarySolution",
    "LineSystem",
    "MoorDynInputError",
    "MoorDynModel",
    "parse_moordyn",
    "read_moordyn",
]
