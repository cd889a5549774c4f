"""A progress display for long build-time jobs (``hydrofmu bem``, ``hydrofmu sweep``).

tqdm when it is installed, else a plain ``\\r<desc>: done/total <unit>s`` counter on
stderr; nothing at all when disabled.
"""

from __future__ import annotations

import sys
from typing import Any


class Progress:
    """Progress over ``total`` items of ``unit`` (e.g. ``"problem"``), labelled ``desc``."""

    def __init__(self, total: int, *, enabled: bool, unit: str, desc: str) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self.unit, self.desc = unit, desc
        self._bar: Any = None
        if enabled:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=total, unit=unit, desc=desc, file=sys.stderr)
            except ImportError:
                self._bar = None

    def update(self, n: int = 1) -> None:
        """``n`` more items are done."""
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.enabled:
            print(f"\r{self.desc}: {self.done}/{self.total} {self.unit}s", end="",
                  file=sys.stderr, flush=True)

    def close(self) -> None:
        """End the display (a new line after the plain counter)."""
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            print(file=sys.stderr)
