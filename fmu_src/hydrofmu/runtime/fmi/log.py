"""Messages of the FMI face and the mark of a refused call (run time).

This module is run time (bundled in the FMU): standard library and pythonfmu only.

pythonfmu 0.7.0's C wrapper can only return ``fmi2OK`` from a Python callback (or
``fmi2Discard`` when ``do_step`` returns False; an exception is ``fmi2Fatal`` and kills the
instance). A refused call is therefore *marked*: its message is logged with status error
and the category :data:`REFUSED`. hydrofmu's shim in front of pythonfmu's Linux binary
(``uri_shim.c``, :mod:`hydrofmu.export.python_binary`) sees the mark before the call returns
(pythonfmu hands the queued messages to the logger at the end of every call) and returns
``fmi2Error`` for that call, forwarding the message to the host under the category
``logStatusError`` if the host asked for logging. Without the shim (no C compiler at
build time, Windows, macOS) the message is all there is and the call returns ``fmi2OK``
(``fmi2Discard`` from ``fmi2DoStep``).
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping

from pythonfmu.enums import Fmi2Status
from pythonfmu.logmsg import LogMsg

from . import state_machine as fsm

__all__ = ["REFUSED", "FmiLog"]

#: Log category that marks a refused call (the shim returns fmi2Error for it).
REFUSED = "hydrofmu.refused"


class FmiLog:
    """The messages of one instance, queued for pythonfmu's wrapper.

    Parameters
    ----------
    queue
        The list pythonfmu's wrapper empties at the end of every call (the slave's
        ``Fmi2Slave.log_queue``); messages are appended to it as ``LogMsg`` entries,
        exactly as ``Fmi2Slave.log`` appends them.
    categories
        The FMU's log categories (``Fmi2Slave.log_categories``): a message without a
        category gets ``logStatus<Status>`` when that category exists, else ``logAll``.

    Attributes
    ----------
    queue, categories
        As given.
    """

    def __init__(self, queue: list[LogMsg], categories: Mapping[str, str]) -> None:
        self.queue = queue
        self.categories = categories

    def error(self, message: str, status: Fmi2Status = Fmi2Status.error,
              category: str | None = None) -> None:
        """Log ``message`` (status ``status``); the text is escaped for printf hosts."""
        # The wrapper hands the text to the FMI logger as its printf-style format string,
        # where '%' and '#' (variable references, FMI 2.0 2.1.5) are special.
        text = message.replace("%", "%%").replace("#", "##")
        if category is None:
            category = f"logStatus{status.name.capitalize()}"
            if category not in self.categories:
                category = "logAll"
        self.queue.append(LogMsg(status, category, text))

    def refuse(self, message: str) -> None:
        """Log ``message`` as the refusal of the current call: fmi2Error through the shim."""
        self.error(message, Fmi2Status.error, REFUSED)

    def internal(self, where: str, exc: BaseException) -> str:
        """Log an unexpected exception (a bug) as a refusal; return the message."""
        text = "".join(traceback.format_exception(exc)).rstrip()
        message = (
            f"internal error in {where} (a bug in hydrofmu; please report it with this "
            f"message): {text}"
        )
        self.refuse(message)
        return message

    def refused(self, call: str, phase: str, type_name: str = "Real") -> bool:
        """Check ``call`` against the state machine in state ``phase``; refuse it and
        return True if it is not allowed there."""
        if phase in fsm.ALLOWED[call]:
            return False
        self.refuse(fsm.refusal(call, phase, type_name=type_name) or call)
        return True

    def refused_fixed(self, name: str, type_name: str, phase: str) -> bool:
        """A set of the fixed parameter ``name`` in state ``phase``: refused (and True)
        after initialization."""
        message = fsm.refusal("set_parameter", phase, type_name=type_name)
        if message is not None:
            self.refuse(
                f"parameter '{name}' is fixed: it cannot be changed after initialization; "
                f"the value is ignored ({message})"
            )
        return message is not None
