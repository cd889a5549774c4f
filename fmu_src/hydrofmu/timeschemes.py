"""The integrator family, chosen by name as in MoorDyn-C v2 (facade of :mod:`.schemes`).

The schemes live in the package :mod:`hydrofmu.schemes`; this module keeps the historical
import path (``from .timeschemes import make_scheme``) working, in the source tree and in
the FMU, where package ``__init__`` files are generated empty and modules must import
from modules.

Names: explicit ``euler``, ``heun`` (MoorDyn's one-evaluation predictor-corrector),
``rk2heun`` (the classical explicit trapezoid, hydrofmu's former ``heun``), ``rk2``,
``rk3``, ``rk4``, ``ab2``..``ab5``; local time step ``leuler``, ``lab2``..``lab5``;
semi-implicit ``beulerN``, ``midpointN``, ``andersonN``, ``acaN``, ``wilsonN`` (N >= 1).
"""

from __future__ import annotations

from .schemes.adams_bashforth import AdamsBashforth
from .schemes.base import RHS, TimeScheme
from .schemes.local import PartitionedRHS
from .schemes.registry import SCHEMES, make_scheme, scheme_names
from .schemes.runge_kutta import ExplicitRungeKutta
from .schemes.semi_implicit import SemiImplicit

__all__ = [
    "RHS", "SCHEMES", "AdamsBashforth", "ExplicitRungeKutta", "PartitionedRHS",
    "SemiImplicit", "TimeScheme", "make_scheme", "scheme_names",
]
