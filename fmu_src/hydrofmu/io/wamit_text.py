"""Text scanning of WAMIT ``.out`` files (build time; standard library only): the
regular expressions, the per-body and per-period records and the line-by-line parser.
The de-normalisation and assembly into :class:`~hydrofmu.runtime.hydrodata.model.HydroData` are
in :mod:`hydrofmu.io.wamit` (which documents the file layout read).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..runtime.errors import HydroDataError

_FLOAT = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[EeDd][-+]?\d+)?"
_RE_GRAV = re.compile(rf"Gravity:\s*({_FLOAT})\s+Length scale:\s*({_FLOAT})")
_RE_DEPTH = re.compile(r"Water depth:\s*(\S+)")
_RE_BODY = re.compile(r"Body number:\s*N=\s*(\d+)")
_RE_POS = re.compile(rf"XBODY\s*=\s*({_FLOAT})\s+YBODY\s*=\s*({_FLOAT})\s+ZBODY\s*=\s*"
                     rf"({_FLOAT})\s+PHIBODY\s*=\s*({_FLOAT})")
_RE_VOL = re.compile(rf"Volumes \(VOLX,VOLY,VOLZ\):\s*({_FLOAT})\s+({_FLOAT})\s+({_FLOAT})")
_RE_COB = re.compile(rf"Center of Buoyancy \(Xb,Yb,Zb\):\s*({_FLOAT})\s+({_FLOAT})\s+({_FLOAT})")
_RE_COG = re.compile(rf"Center of Gravity\s+\(Xg,Yg,Zg\):\s*({_FLOAT})\s+({_FLOAT})\s+"
                     rf"({_FLOAT})")
_RE_C = re.compile(r"^\s*((?:C\(\d,\d\),?)+):\s*(.*)$")
_RE_PERIOD = re.compile(rf"Wave period \(sec\)\s*=\s*({_FLOAT})")
_RE_HEADING = re.compile(rf"Wave Heading \(deg\)\s*:\s*({_FLOAT})")


@dataclass
class WamitBody:
    number: int
    line: int
    position: list[float] | None = None
    phibody: float = 0.0
    volumes: list[float] | None = None
    cob: list[float] | None = None
    cog: list[float] | None = None
    stiffness: dict[tuple[int, int], float] = field(default_factory=dict)


@dataclass
class WamitPeriod:
    period: float               # s; inf for omega = 0, 0 for omega = inf
    line: int
    a: dict[tuple[int, int], float] = field(default_factory=dict)
    b: dict[tuple[int, int], float] = field(default_factory=dict)
    # kind ("DIFFRACTION"/"HASKIND") -> heading (deg) -> {i: (mod, phase deg)}
    x: dict[str, dict[float, dict[int, tuple[float, float]]]] = field(default_factory=dict)


class WamitParser:
    """Line-by-line state machine over the ``.out`` text."""

    def __init__(self, path: Path, lines: list[str]) -> None:
        self.path = path
        self.lines = lines
        self.g: float | None = None
        self.ulen: float | None = None
        self.depth: float | None = None
        self.gdf: list[str] = []
        self.bodies: list[WamitBody] = []
        self.periods: list[WamitPeriod] = []
        #: Symmetry planes the file states (``"X=0"``, ``"Y=0"``): WAMIT then omits the
        #: coefficients that couple modes of opposite parity (they vanish).
        self.symmetry_planes: set[str] = set()

    def error(self, lineno: int, what: str) -> HydroDataError:
        text = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else "<end>"
        return HydroDataError(f"{self.path}, line {lineno}: {what} (line reads: {text!r}); "
                              "the file looks truncated or edited: use WAMIT's own .out",
                              value=lineno)

    def numbers(self, lineno: int, text: str, count: int, what: str) -> list[float]:
        parts = text.split()
        if len(parts) != count:
            raise self.error(lineno, f"expected {count} numbers ({what})")
        try:
            return [float(x.replace("D", "E").replace("d", "e")) for x in parts]
        except ValueError:
            raise self.error(lineno, f"expected {count} numbers ({what})") from None

    def parse(self) -> tuple:
        section = ""          # current coefficient table
        period: WamitPeriod | None = None
        heading: float | None = None
        body: WamitBody | None = None
        for n, raw in enumerate(self.lines, start=1):
            line = raw.strip()
            if not line:
                continue
            if m := re.search(r"N=\s*\d+\s+(\S+)\.(gdf|GDF)", line):
                self.gdf.append(m.group(1))
                continue
            if m := _RE_GRAV.search(line):
                self.g, self.ulen = float(m.group(1)), float(m.group(2))
                continue
            if line.startswith("Water depth:") and self.depth is None:
                word = _RE_DEPTH.search(line).group(1)
                if word.lower().startswith("infinite"):
                    self.depth = math.inf
                else:
                    self.depth = self.numbers(n, word, 1, "water depth, m")[0]
                continue
            if m := _RE_BODY.search(line):
                body = WamitBody(number=int(m.group(1)), line=n)
                self.bodies.append(body)
                continue
            if period is None and (m := re.search(r"Symmetries:\s*(\S+)", line)):
                self.symmetry_planes |= set(re.findall(r"[XY]=0", m.group(1)))
            if body is None and period is None and _RE_POS.search(line):
                # a one-body file of WAMIT 7.3 prints no 'Body number:' line
                body = WamitBody(number=1, line=n)
                self.bodies.append(body)
            if body is not None and period is None:
                if m := _RE_POS.search(line):
                    body.position = [float(m.group(k)) for k in (1, 2, 3)]
                    body.phibody = float(m.group(4))
                elif m := _RE_VOL.search(line):
                    body.volumes = [float(m.group(k)) for k in (1, 2, 3)]
                elif m := _RE_COB.search(line):
                    body.cob = [float(m.group(k)) for k in (1, 2, 3)]
                elif m := _RE_COG.search(line):
                    body.cog = [float(m.group(k)) for k in (1, 2, 3)]
                elif m := _RE_C.match(line):
                    keys = re.findall(r"C\((\d),(\d)\)", m.group(1))
                    vals = self.numbers(n, m.group(2), len(keys), "restoring coefficients")
                    for (i, j), v in zip(keys, vals, strict=True):
                        body.stiffness[(int(i), int(j))] = v
            if line.startswith("Wave period"):
                if re.match(r"Wave period\s*=\s*infinite", line):
                    period = WamitPeriod(period=math.inf, line=n)
                elif re.match(r"Wave period\s*=\s*zero", line):
                    period = WamitPeriod(period=0.0, line=n)
                elif m := _RE_PERIOD.search(line):
                    period = WamitPeriod(period=float(m.group(1)), line=n)
                else:
                    raise self.error(n, "expected 'Wave period (sec) = <T>', 'Wave period = "
                                        "infinite' or 'Wave period = zero'")
                self.periods.append(period)
                section, heading = "", None
                continue
            if period is None:
                continue
            if line.startswith("ADDED-MASS AND DAMPING"):
                section = "AB"
                continue
            if line.startswith("ADDED-MASS COEFFICIENTS"):
                section = "A"
                continue
            if "EXCITING FORCES AND MOMENTS" in line:
                kind = line.split()[0].upper()
                section = kind if kind in ("DIFFRACTION", "HASKIND") else ""
                heading = None
                continue
            if "DRIFT FORCES" in line:   # mean drift tables: io/wamit_drift.py reads them
                section = ""
                continue
            if re.fullmatch(r"[A-Z][A-Z0-9 ,&()/-]+", line) and not line.startswith("I "):
                section = ""          # another table (RAOs, drift forces, ...): skipped
                continue
            if section in ("DIFFRACTION", "HASKIND"):
                if m := _RE_HEADING.search(line):
                    heading = float(m.group(1))
                    period.x.setdefault(section, {})[heading] = {}
                    continue
                if line[0].isdigit() and heading is not None:
                    v = self.numbers(n, line, 3, "I, Mod[X(I)], Pha[X(I)]")
                    period.x[section][heading][int(v[0])] = (v[1], v[2])
                continue
            if section in ("A", "AB") and line[0].isdigit():
                count = 3 if section == "A" else 4
                what = "I, J, A(I,J)" if section == "A" else "I, J, A(I,J), B(I,J)"
                v = self.numbers(n, line, count, what)
                key = (int(v[0]), int(v[1]))
                period.a[key] = v[2]
                if section == "AB":
                    period.b[key] = v[3]
        return self.g, self.ulen, self.depth, self.gdf, self.bodies, self.periods, \
            len(self.lines)


