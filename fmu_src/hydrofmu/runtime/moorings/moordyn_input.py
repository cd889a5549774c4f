"""Read MoorDyn v2 input files into a plain data model (build time).

Sections read: LINE TYPES, POINTS, BODIES (coupled and fixed bodies), LINES, OPTIONS and
OUTPUTS. Anything the line model does not reproduce — rods, nonlinear or viscoelastic line
types, VIV, wave kinematics, currents, seafloor files, line failures — is refused with a
:class:`MoorDynInputError` naming the section, option or channel and the file's line; options
that only concern MoorDyn's own files or logs are accepted and listed in
:attr:`MoorDynModel.notes`.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from ..errors import MoorDynInputError, did_you_mean
from .moordyn_model import BodySpec, LineSpec, LineType, MoorDynModel, Options, PointSpec

__all__ = [
    "BodySpec", "LineSpec", "LineType", "MoorDynInputError", "MoorDynModel", "Options",
    "PointSpec", "parse_moordyn", "read_moordyn",
]


SECTIONS = {
    "LINE TYPES": "types", "LINE DICTIONARY": "types",
    "POINTS": "points", "POINT LIST": "points", "POINT PROPERTIES": "points",
    "CONNECTION PROPERTIES": "points", "NODE PROPERTIES": "points",
    "BODIES": "bodies", "BODY LIST": "bodies", "BODY PROPERTIES": "bodies",
    "LINES": "lines", "LINE LIST": "lines", "LINE PROPERTIES": "lines",
    "OPTIONS": "options", "SOLVER OPTIONS": "options",
    "OUTPUTS": "outputs", "OUTPUT": "outputs",
}
UNSUPPORTED_SECTIONS = ("ROD", "FAILURE", "CONTROL", "EXTERNAL")
OPTION_NAMES = {
    "dtm": "dtM", "dt": "dtM", "tscheme": "tScheme", "g": "g", "gravity": "g",
    "rho": "rho", "wtrdnsty": "rho", "wtrdpth": "WtrDpth", "kbot": "kBot", "kb": "kBot",
    "cbot": "cBot", "cb": "cBot", "dtic": "dtIC", "icdt": "dtIC", "tmaxic": "TmaxIC",
    "ictmax": "TmaxIC", "cdscaleic": "CdScaleIC", "icdfac": "CdScaleIC",
    "threshic": "threshIC", "icthresh": "threshIC", "dtout": "dtOut",
}
#: options that change nothing in the line physics (MoorDyn's own files and logs)
HARMLESS_OPTIONS = {"writelog", "writeunits", "disableoutput", "disableouttime", "echo", "cfl"}
#: options accepted only at their "off" value
OFF_OPTIONS = {"wavekin": "0", "currents": "0", "frictioncoefficient": "0",
               "gendynamicic": "0", "icgendynamic": "0"}
POINT_KINDS = {"fixed": "fixed", "fix": "fixed", "anchor": "fixed", "coupled": "coupled",
               "vessel": "coupled", "ves": "coupled", "cpld": "coupled", "fairlead": "coupled",
               "free": "free", "point": "free", "connect": "free", "con": "free"}
CHANNEL_RE = re.compile(
    r"^(?:(FAIRTEN|ANCHTEN)(\d+)|(?:POINT|CON)(\d+)(F[XYZ]|P[XYZ]|V[XYZ])"
    r"|L(?:INE)?(\d+)N(\d+)(P[XYZ]|V[XYZ]|T|TEN))$"
)


def _number(token: str, what: str, where: str) -> float:
    try:
        value = float(token)
    except ValueError as exc:
        raise MoorDynInputError(f"{where}: {what}={token!r} is not a number", value=token) from exc
    if not math.isfinite(value):
        raise MoorDynInputError(f"{where}: {what}={token!r} must be finite", value=token)
    return value


def _scalar(token: str, what: str, where: str) -> float:
    if "|" in token:
        raise MoorDynInputError(
            f"{where}: {what}={token!r}: the '|' (nonlinear/viscoelastic) form is not "
            "supported; give one constant value",
            value=token,
        )
    if token.endswith((".dat", ".txt", ".csv")):
        raise MoorDynInputError(
            f"{where}: {what}={token!r}: a lookup-table file is not supported; give one constant",
            value=token,
        )
    return _number(token, what, where)


def read_moordyn(path: str | Path) -> MoorDynModel:
    """Read a MoorDyn v2 input file.

    Raises
    ------
    MoorDynInputError
        Missing file, malformed row, unknown or unsupported section, option or channel.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise MoorDynInputError(f"cannot read MoorDyn file {path}: {exc}", value=str(path)) from exc
    return parse_moordyn(text, path=path)


def parse_moordyn(text: str, *, path: Path | None = None) -> MoorDynModel:
    """Parse the text of a MoorDyn v2 input file; see :func:`read_moordyn`."""
    model = MoorDynModel(path=path)
    name = str(path) if path else "<MoorDyn input>"
    section: str | None = None
    seen_section = False
    skip = 0
    opts: dict[str, float | str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"{name}, line {number}"
        line = raw.split("#")[0].strip() if not raw.lstrip().startswith("-") else raw.strip()
        if not line:
            continue
        if line.startswith("---"):
            title = re.sub(r"[-=]+", " ", line).strip().upper()
            title = re.sub(r"\s*\(.*\)\s*$", "", title)
            key = next((v for k, v in SECTIONS.items() if title.startswith(k)), None)
            if key is None and any(title.startswith(u) for u in UNSUPPORTED_SECTIONS):
                raise MoorDynInputError(
                    f"{where}: section '{title}' is not supported by hydrofmu's line model "
                    "(rods, failures and controls are MoorDyn features it does not reproduce)",
                    value=title,
                )
            if key is None and not seen_section:
                continue  # front matter (the file's title)
            if key is None and section == "outputs":
                section = None  # the closing line of the file
                continue
            if key is None:
                raise MoorDynInputError(
                    f"{where}: unknown section '{title}'{did_you_mean(title, SECTIONS)}; "
                    f"known: {', '.join(sorted(set(SECTIONS)))}",
                    value=title,
                )
            section = key
            seen_section = True
            skip = 2 if key in ("types", "points", "bodies", "lines") else 0
            continue
        if section is None:
            continue  # front matter
        if skip:
            skip -= 1
            continue
        tokens = line.split()
        if section == "types":
            _type_row(model, tokens, where)
        elif section == "points":
            _point_row(model, tokens, where)
        elif section == "bodies":
            _body_row(model, tokens, where)
        elif section == "lines":
            _line_row(model, tokens, where)
        elif section == "options":
            _option_row(model, opts, tokens, where)
        elif section == "outputs":
            if tokens[0].upper() == "END":
                section = None
                continue
            for tok in tokens:
                tok = tok.strip('"\',')
                if tok and not CHANNEL_RE.match(tok.upper()):
                    raise MoorDynInputError(
                        f"{where}: output channel '{tok}' is not supported; supported: "
                        "FairTen<k>, AnchTen<k>, Point<k>Fx/Fy/Fz/Px/Py/Pz/Vx/Vy/Vz, "
                        "L<k>N<j>Px/Py/Pz/Vx/Vy/Vz/T",
                        value=tok,
                    )
                if tok:
                    model.outputs.append(tok)
    model.options = Options(**opts)  # type: ignore[arg-type]
    _check(model, name)
    return model


def _type_row(model: MoorDynModel, t: list[str], where: str) -> None:
    if len(t) < 10:
        raise MoorDynInputError(
            f"{where}: a LINE TYPES row needs 10 columns (TypeName Diam Mass/m EA BA/-zeta EI "
            f"Cd Ca CdAx CaAx), got {len(t)}",
            value=t,
        )
    cols = ("Diam", "Mass/m", "EA", "BA/-zeta", "EI", "Cd", "Ca", "CdAx", "CaAx")
    v = [_scalar(tok, c, where) for tok, c in zip(t[1:10], cols, strict=True)]
    if v[4] != 0:
        raise MoorDynInputError(
            f"{where}: line type '{t[0]}' has EI={t[5]}: bending stiffness is not supported; "
            "set EI to 0", value=t[5])
    if len(t) > 10 and any(_number(x, "Cl", where) != 0 for x in t[10:11]):
        raise MoorDynInputError(
            f"{where}: line type '{t[0]}' has Cl={t[10]}: VIV is not supported; set Cl to 0",
            value=t[10])
    if v[0] <= 0 or v[1] <= 0 or v[2] <= 0:
        raise MoorDynInputError(
            f"{where}: line type '{t[0]}' needs Diam, Mass/m and EA > 0", value=v[:3])
    model.line_types[t[0]] = LineType(t[0], *v)


def _attachment(token: str, where: str) -> tuple[str, int | None]:
    low = token.lower()
    if low in POINT_KINDS:
        return POINT_KINDS[low], None
    m = re.fullmatch(r"(?:body|turbine)(\d+)", low)
    if m:
        return "body", int(m.group(1))
    raise MoorDynInputError(
        f"{where}: attachment '{token}' is not supported; use Fixed/Anchor, Coupled/Vessel, "
        "Free or Body<k>",
        value=token,
    )


def _point_row(model: MoorDynModel, t: list[str], where: str) -> None:
    if len(t) < 9:
        raise MoorDynInputError(
            f"{where}: a POINTS row needs 9 columns (ID Attachment X Y Z Mass Volume CdA Ca)",
            value=t)
    kind, body = _attachment(t[1], where)
    x, y, z, mass, vol, cda, ca = (_scalar(tok, c, where) for tok, c in zip(
        t[2:9], ("X", "Y", "Z", "Mass", "Volume", "CdA", "Ca"), strict=True))
    model.points.append(PointSpec(int(_number(t[0], "ID", where)), kind, (x, y, z),
                                  mass, vol, cda, ca, body))


def _body_row(model: MoorDynModel, t: list[str], where: str) -> None:
    if len(t) < 8:
        raise MoorDynInputError(f"{where}: a BODIES row needs ID Attachment X0 Y0 Z0 r0 p0 y0 "
                                "Mass CG I Volume CdA Ca", value=t)
    kind, _ = _attachment(t[1], where)
    if kind not in ("coupled", "fixed"):
        raise MoorDynInputError(
            f"{where}: body attachment '{t[1]}' is not supported: a body must be Coupled "
            "(moved by the host or the replay) or Fixed; free bodies belong to hydrofmu's "
            "own body model", value=t[1])
    p = [_number(tok, "pose", where) for tok in t[2:8]]
    for col, label in ((8, "Mass"), (11, "Volume")):
        if len(t) > col and t[col] not in ("0", "0.0", "0.") and _scalar(t[col], label, where):
            raise MoorDynInputError(
                f"{where}: body {t[0]} has {label}={t[col]}: the body's own mass and buoyancy "
                "belong to hydrofmu's body model; set them to 0 in the MoorDyn file",
                value=t[col])
    pose = (p[0], p[1], p[2], *(math.radians(a) for a in p[3:]))
    model.bodies.append(BodySpec(int(_number(t[0], "ID", where)), kind, pose))  # type: ignore[arg-type]


def _line_row(model: MoorDynModel, t: list[str], where: str) -> None:
    if len(t) < 6:
        raise MoorDynInputError(
            f"{where}: a LINES row needs ID LineType AttachA AttachB UnstrLen NumSegs", value=t)
    ends = []
    for tok in t[2:4]:
        m = re.fullmatch(r"(?:point|con|connect)?(\d+)", tok.lower())
        if not m:
            raise MoorDynInputError(
                f"{where}: line end '{tok}' is not supported (rod ends are not); give a point "
                "ID", value=tok)
        ends.append(int(m.group(1)))
    length = _number(t[4], "UnstrLen", where)
    if length <= 0:
        raise MoorDynInputError(
            f"{where}: UnstrLen={t[4]} must be > 0 (the negative, relative form of MoorDyn is "
            "not supported)", value=t[4])
    nseg = int(_number(t[5], "NumSegs", where))
    if nseg < 1:
        raise MoorDynInputError(f"{where}: NumSegs={t[5]} must be >= 1", value=t[5])
    model.lines.append(LineSpec(int(_number(t[0], "ID", where)), t[1], ends[0], ends[1],
                                length, nseg))


def _option_row(model: MoorDynModel, opts: dict, t: list[str], where: str) -> None:
    if len(t) < 2:
        raise MoorDynInputError(f"{where}: an OPTIONS row needs 'value name'", value=t)
    value, key = t[0], t[1].lower()
    if key in OPTION_NAMES:
        name = OPTION_NAMES[key]
        opts[name] = value.lower() if name == "tScheme" else _number(value, t[1], where)
    elif key in HARMLESS_OPTIONS:
        model.notes.append(f"{where}: option {t[1]}={value} concerns MoorDyn's own output; "
                           "ignored")
    elif key in OFF_OPTIONS and value.strip() in (OFF_OPTIONS[key], "0.0"):
        model.notes.append(f"{where}: option {t[1]}={value} (off) accepted")
    else:
        raise MoorDynInputError(
            f"{where}: option '{t[1]}' = {value} is not supported by hydrofmu's line model "
            f"(still water, constant EA, no seafloor file); supported: "
            f"{', '.join(sorted(set(OPTION_NAMES.values())))}"
            f"{did_you_mean(key, list(OPTION_NAMES))}",
            value=t[1],
        )


def _check(model: MoorDynModel, name: str) -> None:
    if not model.lines:
        raise MoorDynInputError(f"{name}: no LINES: MoorDyn needs at least one line",
                                value=name)
    ids = [p.id for p in model.points]
    if ids != list(range(1, len(ids) + 1)):
        raise MoorDynInputError(f"{name}: point IDs must be 1, 2, ... in order; got {ids}",
                                value=ids)
    body_ids = {b.id for b in model.bodies}
    for p in model.points:
        if p.kind == "body" and p.body not in body_ids:
            raise MoorDynInputError(f"{name}: point {p.id} is attached to Body{p.body}, which "
                                    "the BODIES section does not define", value=p.body)
    for ln in model.lines:
        if ln.line_type not in model.line_types:
            raise MoorDynInputError(
                f"{name}: line {ln.id} uses line type '{ln.line_type}', not defined"
                f"{did_you_mean(ln.line_type, model.line_types)}; defined: "
                f"{', '.join(model.line_types)}", value=ln.line_type)
        for end in (ln.point_a, ln.point_b):
            if not 1 <= end <= len(model.points):
                raise MoorDynInputError(f"{name}: line {ln.id} attaches to point {end}, which "
                                        "is not defined", value=end)
    if not (model.options.dtM > 0):
        raise MoorDynInputError(f"{name}: OPTIONS must give dtM > 0 (the line time step, s)",
                                value=model.options.dtM)
    for ch in model.outputs:
        m = CHANNEL_RE.match(ch.upper())
        assert m is not None
        k = int(m.group(2) or m.group(5) or 0)
        if (m.group(2) or m.group(5)) and not 1 <= k <= len(model.lines):
            raise MoorDynInputError(f"{name}: output channel {ch} names line {k}, which is not "
                                    "defined", value=ch)
        if m.group(3) and not 1 <= int(m.group(3)) <= len(model.points):
            raise MoorDynInputError(f"{name}: output channel {ch} names point {m.group(3)}, "
                                    "which is not defined", value=ch)
        if m.group(6) and int(m.group(6)) > model.lines[k - 1].n_segments:
            raise MoorDynInputError(f"{name}: output channel {ch} names a node beyond the "
                                    f"{model.lines[k - 1].n_segments} segments of line {k}",
                                    value=ch)
