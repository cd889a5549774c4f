"""Run ``hydrofmu`` on damaged copies of one file, in-process, one case at a time.

Used by ``tests/test_fmi_misuse.py::test_fuzzed_files_give_one_line_errors`` as
``python fuzz_cli_worker.py <request.json>`` (one interpreter per format, so a crash in a C
parser fails one format, not the suite). The request names the original file, the command
(``info`` or ``check``), the number of variants and the seed; every variant is written to
the work folder, ``hydrofmu.cli.commands`` runs on it with stdout and stderr captured and a
per-case alarm, and the JSON result lists each case's exit status and stderr.
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import sys
import time
from pathlib import Path

import numpy as np

from hydrofmu.cli import commands as cli


class CaseTimeout(BaseException):
    """Raised by the alarm: not an Exception, so the CLI cannot swallow it."""


def _alarm(signum: int, frame: object) -> None:
    raise CaseTimeout


def variants(data: bytes, n: int, seed: int) -> list[tuple[str, bytes]]:
    """``n`` damaged copies: truncations, byte flips anywhere, byte flips in the header."""
    rng = np.random.default_rng(seed)
    out = []
    size = len(data)
    for k in range(n):
        kind = k % 3
        if kind == 0:
            cut = int(rng.integers(0, size))
            out.append((f"truncated at {cut}", data[:cut]))
            continue
        buf = bytearray(data)
        span = size if kind == 1 else min(size, 4096)
        positions = rng.integers(0, span, size=int(rng.integers(1, 33)))
        for pos in positions:
            buf[pos] ^= int(rng.integers(1, 256))
        where = "anywhere" if kind == 1 else "in the first 4 KiB"
        out.append((f"{positions.size} byte(s) flipped {where}", bytes(buf)))
    return out


def main() -> None:
    request = json.loads(Path(sys.argv[1]).read_text())
    original = Path(request["file"])
    work = Path(request["workdir"])
    signal.signal(signal.SIGALRM, _alarm)
    cases = []
    for i, (label, blob) in enumerate(
        variants(original.read_bytes(), request["n"], request["seed"])
    ):
        target = work / f"case{i:03d}{original.suffix}"
        target.write_bytes(blob)
        args = [request["command"], str(target), *request.get("extra", [])]
        out, err = io.StringIO(), io.StringIO()
        t0 = time.perf_counter()
        signal.alarm(int(request["case_timeout"]))
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = cli.main(args)
        except CaseTimeout:
            status = "timeout"
        except SystemExit as exc:  # argparse
            status = f"SystemExit {exc.code}"
        finally:
            signal.alarm(0)
        cases.append({
            "label": label, "status": status, "stderr": err.getvalue(),
            "seconds": time.perf_counter() - t0,
        })
        target.unlink()
    Path(request["result"]).write_text(json.dumps(cases))


if __name__ == "__main__":
    main()
