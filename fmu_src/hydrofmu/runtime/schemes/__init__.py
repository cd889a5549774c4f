"""MoorDyn-C v2's family of time schemes for ``y' = f(t, y)`` (see :mod:`.registry`).

Modules: :mod:`.base` (the protocol, :meth:`TimeScheme.advance`), :mod:`.stagewise` (the
base class of the schemes of internal steps), :mod:`.right_hand_side` (the typed
``f(t, y)``), :mod:`.runge_kutta` (euler, heun, rk2heun, rk2, rk3,
rk4), :mod:`.adams_bashforth` (ab2..ab5), :mod:`.semi_implicit` (beulerN, midpointN,
andersonN, acaN, wilsonN), :mod:`.local` (leuler, lab2..lab5 and the partitioned right-hand side),
:mod:`.registry` (``SCHEMES``, ``make_scheme``). Bundled in the FMU: modules import each
other, never this ``__init__`` (it is regenerated empty in the FMU).
"""

from .base import TimeScheme
from .local import PartitionedRHS
from .registry import SCHEMES, make_scheme, scheme_names
from .right_hand_side import RightHandSide
from .stagewise import StagewiseScheme

__all__ = ["SCHEMES", "PartitionedRHS", "RightHandSide", "StagewiseScheme", "TimeScheme",
           "make_scheme", "scheme_names"]
