"""Plain-language descriptions of the FMU's structured variable names.

Run-time module: the standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence

_DOF_TEXT = ("surge", "sway", "heave", "roll", "pitch", "yaw")

#: Plain-language text of the quantities the simulator exposes, for the descriptions.
_QUANTITY_TEXT = {
    "F_pto": "power-take-off force on the body reference point, inertial frame",
    "pose": "position and orientation of the body reference point, inertial frame",
    "velocity": "velocity of the body reference point, inertial frame",
    "acceleration": "acceleration of the body reference point, inertial frame",
    "F_added_mass": "added-mass force (-A_inf times the acceleration)",
    "F_radiation": "radiation (memory) force",
    "F_excitation": "wave excitation force",
    "F_hydrostatic": "hydrostatic restoring force",
    "F_mooring": "mooring force",
    "F_viscous": "viscous drag force",
    "F_constraint": "constraint force",
    "elevation_input": "wave elevation input (preview_time ahead), at the reference point",
    "elevation": "wave elevation in use at the reference point",
}


def describe(name: str) -> str:
    """A one-line description of a structured variable name such as ``body.pose[3]``.

    Parameters
    ----------
    name
        ``<owner>.<quantity>`` or ``<owner>.<quantity>[i]``, i = 1..6 for the DOFs.
    """
    owner, _, rest = name.partition(".")
    quantity, _, index = rest.partition("[")
    text = _QUANTITY_TEXT.get(quantity, quantity.replace("_", " "))
    if index:
        i = int(index.rstrip("]"))
        if 1 <= i <= len(_DOF_TEXT):
            text = f"{text}, {_DOF_TEXT[i - 1]}"
        else:
            text = f"{text}, component {i}"
    if owner != "wave":
        text = f"{text} ('{owner}')"
    return text


def with_choices(description: str, choices: Sequence[str] | None) -> str:
    """``description`` followed by the allowed values of a String parameter, if any."""
    if not choices:
        return description
    return f"{description} (one of: {', '.join(choices)})"
