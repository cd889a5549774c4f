"""The registry of time schemes by MoorDyn-C v2 name, and :func:`make_scheme`.

Fixed names map to a class; the semi-implicit families are registered as ``beulerN``,
``midpointN``, ``andersonN``, ``acaN``, ``wilsonN`` and instantiated with the integer N
>= 1 the user appends (``midpoint5``). Adding a scheme is one class plus one entry here.

:data:`SCHEMES` holds the integrators of any ``y' = f(t, y)``; :data:`MODEL_SCHEMES` the
names that need the model's linear part: ``exact`` (the linear model's exact
discretisation, bound to the simulator's linear model, ``exact.py``) and ``etdrk4``
(exponential RK4, reading the right-hand side's ``linear_part``).
"""

from __future__ import annotations

import re

from ..errors import ConfigError, did_you_mean
from .adams_bashforth import ADAMS_BASHFORTH
from .base import TimeScheme
from .exact import Exact
from .exponential import ExponentialRK4
from .local import LOCAL
from .runge_kutta import RUNGE_KUTTA, Heun
from .semi_implicit import SEMI_IMPLICIT, SemiImplicit

#: Every scheme by its registry name; families with substeps end in ``N``.
SCHEMES: dict[str, type[TimeScheme]] = {
    **{cls.name: cls for cls in (*RUNGE_KUTTA, Heun, *ADAMS_BASHFORTH, *LOCAL)},
    **{f"{cls.name}N": cls for cls in SEMI_IMPLICIT},
}

#: Schemes that step the simulator's assembled linear part (not any f(t, y)).
MODEL_SCHEMES: dict[str, type[TimeScheme]] = {c.name: c for c in (Exact, ExponentialRK4)}

_FAMILY = re.compile(r"^(" + "|".join(c.name for c in SEMI_IMPLICIT) + r")(.*)$")


def scheme_names() -> list[str]:
    """The valid names, families written with their ``N`` suffix, sorted."""
    return sorted([*SCHEMES, *MODEL_SCHEMES])


def make_scheme(name: str | type[TimeScheme]) -> TimeScheme:
    """Instantiate a scheme by name (``rk4``, ``ab3``, ``midpoint5``...) or from a class.

    Parameters
    ----------
    name
        Registry name, case-insensitive; the semi-implicit families take an integer
        number of substeps N >= 1 as suffix. Or a user subclass of :class:`TimeScheme`
        (usually of :class:`~.stagewise.StagewiseScheme`, implementing ``_step_impl``; a
        semi-implicit subclass is built with one substep).

    Raises
    ------
    ConfigError
        Unknown name (the message lists the valid names and the closest match), or a
        semi-implicit family without a valid integer N >= 1.
    """
    if isinstance(name, type) and issubclass(name, TimeScheme):
        return name(substeps=1) if issubclass(name, SemiImplicit) else name()
    key = str(name).strip().lower()
    if key in SCHEMES and not issubclass(SCHEMES[key], SemiImplicit):
        return SCHEMES[key]()
    if key in MODEL_SCHEMES:
        return MODEL_SCHEMES[key]()
    match = _FAMILY.match(key)
    if match:
        family, suffix = match.groups()
        if suffix.isdigit() and int(suffix) >= 1:
            return SCHEMES[f"{family}N"](substeps=int(suffix))
        if suffix.isdigit():
            why = "needs at least one substep"
        elif not suffix:
            why = "needs its number of substeps"
        else:
            why = f"needs an integer number of substeps after '{family}', not {suffix!r}"
        raise ConfigError(
            f"time_scheme {name!r}: '{family}' {why}; write {family}N with an integer "
            f"N >= 1, e.g. '{family}5'",
            value=name,
        )
    hint = did_you_mean(key, scheme_names())
    raise ConfigError(
        f"unknown time_scheme {name!r}{hint}; available: {', '.join(scheme_names())} "
        "(N: an integer number of substeps >= 1)",
        value=name,
    )
