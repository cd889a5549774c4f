"""Messages of the FMI face and the mark of a refused call (a mixin of the slave).

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

from pythonfmu.enums import Fmi2Status

from . import state_machine as fsm

#: Log category that marks a refused call (the shim returns fmi2Error for it).
REFUSED = "hydrofmu.refused"


class FmiLog:
    """Logging helpers of :class:`~hydrofmu.runtime.fmi.slave.HydroSlave` (uses ``self.log`` and
    ``self._phase``)."""

    _phase: str

    def _error(self, message: str, status: Fmi2Status = Fmi2Status.error,
               category: str | None = None) -> None:
        """Log ``message`` (status ``status``); the text is escaped for printf hosts."""
        # The wrapper hands the text to the FMI logger as its printf-style format string,
        # where '%' and '#' (variable references, FMI 2.0 2.1.5) are special.
        self.log(message.replace("%", "%%").replace("#", "##"), status, category)

    def _refuse(self, message: str) -> None:
        """Log ``message`` as the refusal of the current call: fmi2Error through the shim."""
        self._error(message, Fmi2Status.error, REFUSED)

    def _internal(self, where: str, exc: BaseException) -> str:
        """Log an unexpected exception (a bug) as a refusal; return the message."""
        text = "".join(traceback.format_exception(exc)).rstrip()
        message = (
            f"internal error in {where} (a bug in hydrofmu; please report it with this "
            f"message): {text}"
        )
        self._refuse(message)
        return message

    def _refused(self, call: str, type_name: str = "Real") -> bool:
        """Check ``call`` against the state machine; refuse and return True if not allowed."""
        if self._phase in fsm.ALLOWED[call]:
            return False
        self._refuse(fsm.refusal(call, self._phase, type_name=type_name) or call)
        return True

    def _refused_fixed(self, name: str, type_name: str) -> bool:
        """A set of the fixed parameter ``name``: refused after initialization."""
        message = fsm.refusal("set_parameter", self._phase, type_name=type_name)
        if message is not None:
            self._refuse(
                f"parameter '{name}' is fixed: it cannot be changed after initialization; "
                f"the value is ignored ({message})"
            )
        return message is not None
