"""User parts inside an FMU: the part classes a model was exported with, found again.

At export (:mod:`hydrofmu.export.user_parts`) each user module is copied into the bundled
package as ``user_parts/<module>.py`` and the configuration lists the classes
(``config["user_parts"]``: ``{"module", "class", "options"}``). Inside the FMU this module
imports them from the bundled package, so the user's own module need not be importable.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import ConfigError
from .part import Part

#: Folder of the bundled package that holds the user modules.
USER_FOLDER = "user_parts"


def user_part_specs(
    config: dict[str, Any], package: str
) -> list[tuple[type[Part], dict[str, Any]]]:
    """The ``(class, options)`` pairs of ``config["user_parts"]``, imported from the bundled
    package ``package`` (the run-time package's name inside the FMU).

    Raises
    ------
    ConfigError
        A listed module or class that the FMU does not carry.
    """
    specs: list[tuple[type[Part], dict[str, Any]]] = []
    for entry in config.get("user_parts") or []:
        name = f"{package}.{USER_FOLDER}.{entry['module']}"
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise ConfigError(f"the FMU's user part module {entry['module']!r} does not "
                              f"import: {exc}; rebuild the FMU", value=entry["module"]) from exc
        cls = getattr(module, entry["class"], None)
        if not (isinstance(cls, type) and issubclass(cls, Part)):
            raise ConfigError(f"the FMU's user module {entry['module']!r} has no part class "
                              f"{entry['class']!r}; rebuild the FMU", value=entry["class"])
        specs.append((cls, dict(entry.get("options") or {})))
    return specs
