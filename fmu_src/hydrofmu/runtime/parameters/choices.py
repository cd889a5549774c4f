"""Every choice parameter settable as an enumeration too (importers without String
parameters: Simulink's FMU block, most C hosts).

Each String parameter with choices (``wave.type``, ``wave.spectrum``, ``radiation.method``,
``added_mass.method``, ``time_scheme``) has an Integer twin ``<name>_enum``: the choices
numbered from 1 in their order, declared in the model description as an FMI
``<Enumeration>`` type named after the parameter (``hydrofmu.export.enumerations``). The
time scheme's families with substeps (``beulerN``, ``midpointN``, ``acaN``, ``andersonN``,
``wilsonN``) are listed for N = 1 to :data:`MAX_SUBSTEPS` (the String takes any N).

Which one holds (:func:`resolve_choices`, in the one validation of the parameters): a twin
set to anything but its start value sets the choice; a twin at its start value leaves the
String's value. Both changed and naming different choices is refused, naming both. Then
the pair agree: the String holds the choice and the twin its number (its start value when
the String holds a choice the enumeration does not list, e.g. ``midpoint40``).

Run-time module (bundled in the FMU): the standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError

#: Suffix of a choice parameter's Integer twin.
TWIN_SUFFIX = "_enum"
#: The substeps listed for each family of the time scheme (``midpoint1`` .. ``midpoint10``).
MAX_SUBSTEPS = 10


def items(choices: Sequence[str], start: Any) -> tuple[str, ...]:
    """The enumeration's items: ``choices`` with each family ``xN`` listed for N = 1 ..
    :data:`MAX_SUBSTEPS`, and the start value when it is none of them."""
    listed: list[str] = []
    for c in choices:
        if c.endswith("N") and c[:-1].isalpha():
            listed += [f"{c[:-1]}{n}" for n in range(1, MAX_SUBSTEPS + 1)]
        else:
            listed.append(c)
    label = label_of(start)
    if label not in listed:
        listed.append(label)
    return tuple(listed)


def label_of(value: Any) -> str:
    """A choice as the enumeration names it (a class given as a scheme: its ``name``)."""
    return value if isinstance(value, str) else str(getattr(value, "name", value))


def twin_specs(specs: Sequence[Any]) -> list[Any]:
    """The Integer twin of every String parameter with choices in ``specs``
    (:class:`~hydrofmu.runtime.parameters.table.ParameterSpec`), in their order; each twin
    of the String's own class."""
    twins = []
    for p in specs:
        if p.kind != "String" or not p.choices:
            continue
        listed = items(p.choices, p.start)
        numbered = ", ".join(f"{i} {c}" for i, c in enumerate(listed, 1))
        twins.append(type(p)(
            f"{p.name}{TWIN_SUFFIX}", "Integer", listed.index(label_of(p.start)) + 1, None,
            f"{p.name} as an enumeration ({numbered}); at its start value it leaves "
            f"{p.name} as set", choices=listed, min=1, max=len(listed),
            check=_index_check(listed)))
    return twins


def _index_check(listed: tuple[str, ...]):
    def check(name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or value != int(value) or not 1 <= int(value) <= len(listed):
            raise ConfigError(f"{name} = {value!r} is not one of 1..{len(listed)} ("
                              + ", ".join(f"{i} {c}" for i, c in enumerate(listed, 1))
                              + ")", value=value)
        return int(value)
    return check


def resolve_choices(table: Sequence[Any], values: dict[str, Any]) -> None:
    """Make each String parameter and its twin in ``values`` agree, in place (see the
    module docstring); ``table`` gives the start values.

    Raises
    ------
    ConfigError
        A String and its twin both changed from their start values to different choices.
    """
    specs = {p.name: p for p in table}
    for twin in table:
        if not twin.name.endswith(TWIN_SUFFIX) or twin.kind != "Integer" or not twin.choices:
            continue
        base = specs.get(twin.name[: -len(TWIN_SUFFIX)])
        if base is None or base.kind != "String":
            continue
        number, chosen = int(values[twin.name]), label_of(values[base.name])
        by_number = twin.choices[number - 1]
        if number != twin.start:
            if chosen != label_of(base.start) and chosen != by_number:
                raise ConfigError(
                    f"{base.name} = {chosen!r} and {twin.name} = {number} ({by_number!r}) "
                    f"disagree: set one of them (the other at its start value)",
                    value=[chosen, number])
            values[base.name] = base.validate(by_number)
        label = label_of(values[base.name])
        if label in twin.choices:  # else the twin stays at its start value
            values[twin.name] = twin.choices.index(label) + 1
