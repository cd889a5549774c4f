"""The ``run --plot`` figure: panels chosen from the model's outputs (build-time side).

:func:`choose_panels` reads the names of a result (the FMU's outputs) and picks:

- the wave elevation, when the model has a wave (not identically zero);
- per body, its moving DOFs (peak-to-peak above :data:`MOVING`): one panel of the
  translations (m), one of the rotations (deg);
- per body and moving DOF, the force terms on it (every nonzero ``<body>.F_*`` channel of
  that DOF);
- the joints' relative motions (``<joint>.position``), the mooring lines' tensions
  (``mooring.line<k>.T_fairlead`` / ``T_anchor``) and the PTOs' absorbed power
  (``pto.<name>.power``).

Forces, moments, tensions and powers are drawn in the SI multiple that keeps their largest
value between 1 and 1000 (N, kN or MN; W, kW or MW). :func:`make_figure` draws them with a
title naming the case and every legend outside its panel; :func:`plot` writes the PNG.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: Peak-to-peak below which a DOF is not drawn as moving: 1e-6 m or rad (1 um, 1 urad),
#: far above the round-off of a DOF the waves do not excite (~1e-15) and far below any
#: motion worth a panel.
MOVING = 1e-6

DOF_NAMES = ("surge", "sway", "heave", "roll", "pitch", "yaw")
#: The force channels of a body, in the order drawn (the FMU's ``<body>.<channel>[i]``).
FORCE_CHANNELS = ("F_excitation", "F_radiation", "F_hydrostatic", "F_added_mass",
                  "F_viscous", "F_mooring", "F_constraint")
_PREFIXES = ((1e6, "M"), (1e3, "k"), (1.0, ""))


@dataclass
class Panel:
    """One panel: curves ``(field, label, style)``, the y label's quantity and unit, and
    the factor the values are divided by (e.g. 1e3 for kN)."""

    quantity: str
    unit: str
    curves: list[tuple[str, str, str]] = field(default_factory=list)
    scale: float = 1.0

    @property
    def ylabel(self) -> str:
        """``"[<unit>]"`` (the quantity is the panel's title)."""
        return f"[{self.unit}]"


def _unit(name: str, units: dict[str, str]) -> str:
    """The unit of an output: from the model description, else from its name."""
    if units.get(name):
        return units[name]
    m = re.fullmatch(r".+\.(\w+)\[(\d)\]", name)
    if m:
        rot = int(m.group(2)) > 3
        quantity = m.group(1)
        if quantity.startswith("F_"):
            return "N.m" if rot else "N"
        base = {"pose": "", "velocity": "/s", "acceleration": "/s2"}.get(quantity, "")
        return ("rad" if rot else "m") + base
    if name.endswith(".power"):
        return "W"
    if ".T_" in name or name.endswith(".force"):
        return "N"
    return "m" if name.endswith(("elevation", ".position")) else ""


def scale_panel(panel: Panel, result: NDArray[Any]) -> Panel:
    """Choose N / kN / MN (or W, N.m...) so that the largest value is below 1000."""
    if panel.unit not in ("N", "N.m", "W"):
        return panel
    peak = max((float(np.max(np.abs(result[f]))) for f, _, _ in panel.curves), default=0.0)
    for factor, prefix in _PREFIXES:
        if peak >= factor or factor == 1.0:
            panel.scale, panel.unit = factor, prefix + panel.unit
            return panel
    return panel


def _ptp(result: NDArray[Any], name: str) -> float:
    """Peak-to-peak of an output; 0 when it was not recorded."""
    if name not in (result.dtype.names or ()):
        return 0.0
    values = np.asarray(result[name], dtype=float)
    return float(np.ptp(values)) if values.size else 0.0


def choose_panels(result: NDArray[Any], units: dict[str, str] | None = None) -> list[Panel]:
    """The panels of a result, from its field names (see the module docstring).

    Parameters
    ----------
    result
        Structured array with a ``time`` field and the FMU's outputs.
    units
        Unit of each output (the model description's); inferred from the name otherwise.
    """
    units = units or {}
    names = [n for n in (result.dtype.names or ()) if n != "time"]
    panels: list[Panel] = []
    if "wave.elevation" in names and np.any(np.asarray(result["wave.elevation"]) != 0.0):
        panels.append(Panel("wave elevation", "m", [("wave.elevation", "elevation", "-")]))
    bodies = [n[: -len(".pose[1]")] for n in names if n.endswith(".pose[1]")]
    for body in bodies:
        moving = [i for i in range(6) if _ptp(result, f"{body}.pose[{i + 1}]") > MOVING]
        if not moving:  # say so rather than drop the body
            panels.append(Panel(f"{body}: no DOF moves; heave", "m",
                                [(f"{body}.pose[3]", "heave", "-")]))
            continue
        for group, unit in (([i for i in moving if i < 3], "m"),
                            ([i for i in moving if i >= 3], "deg")):
            if group:
                kind = "translation" if unit == "m" else "rotation"
                panels.append(Panel(f"{body} {kind}", unit,
                                    [(f"{body}.pose[{i + 1}]", DOF_NAMES[i], "-")
                                     for i in group]))
        for i in moving:
            curves = [(f"{body}.{c}[{i + 1}]", c, "-") for c in FORCE_CHANNELS
                      if f"{body}.{c}[{i + 1}]" in names
                      and np.any(np.asarray(result[f"{body}.{c}[{i + 1}]"]) != 0.0)]
            if curves:
                what = "force" if i < 3 else "moment"
                panels.append(Panel(f"{body} {DOF_NAMES[i]} {what}",
                                    _unit(curves[0][0], units), curves))
    joints: dict[str, list[tuple[str, str, str]]] = {}
    for n in names:  # "<joint>.position" (a PTO's outputs are "pto.<name>.<quantity>")
        if n.endswith(".position") and n.count(".") == 1:
            joints.setdefault(_unit(n, units), []).append((n, n[: -len(".position")], "-"))
    for unit, curves in joints.items():
        panels.append(Panel("joint motion (first body relative to the second)", unit,
                            curves))
    tensions = []  # a line's fairlead solid, its anchor dashed, one colour per line
    lines = [n for n in names if n.startswith("mooring.") and ".T_" in n]
    for n in lines:
        line, end = n[len("mooring."):].split(".T_")
        colour = list(dict.fromkeys(m.split(".T_")[0] for m in lines)).index(f"mooring.{line}")
        tensions.append((n, f"{line} {end}", f"C{colour % 10}{'--' if end == 'anchor' else '-'}"))
    if tensions:
        panels.append(Panel("mooring line tension", _unit(tensions[0][0], units), tensions))
    power = [(n, n[len("pto."): -len(".power")], "-") for n in names
             if n.startswith("pto.") and n.endswith(".power")]
    if power:
        panels.append(Panel("PTO absorbed power", _unit(power[0][0], units), power))
    return [scale_panel(p, result) for p in panels]


def case_title(case: str, cfg: dict[str, Any]) -> str:
    """The plot's title: ``"<case>: <bodies>; regular waves, H = 2 m, T = 8 s"`` from a
    resolved configuration."""
    wave = cfg["wave"]
    kind = wave["type"]
    if kind == "regular":
        sea = f"regular waves, H = {wave['height']:g} m, T = {wave['period']:g} s"
    elif kind == "irregular":
        sea = (f"irregular waves ({wave['spectrum']}), Hs = {wave['height']:g} m, "
               f"Tp = {wave['period']:g} s, seed {wave['seed']}")
    elif kind == "input":
        sea = "wave elevation input"
    else:
        sea = "no waves"
    names = ", ".join(b["name"] for b in cfg["bodies"])
    return f"{case}: {names}; {sea}"


def check_plot_format(path: str | Path) -> None:
    """Refuse, before any work, a plot file whose suffix matplotlib cannot write (no
    suffix: PNG)."""
    from matplotlib.backend_bases import FigureCanvasBase

    from ..runtime.errors import ConfigError

    suffix = Path(path).suffix.lower().lstrip(".")
    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise ConfigError(f"--plot {path}: matplotlib cannot write '.{suffix}' files; use one "
                          f"of {', '.join('.' + f for f in sorted(formats))}", value=str(path))


def make_figure(result: NDArray[Any], *, title: str,
                units: dict[str, str] | None = None) -> Any:
    """A matplotlib figure of :func:`choose_panels`, one row per panel, shared time axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = choose_panels(result, units)
    t = np.asarray(result["time"])
    # constrained layout keeps the title and the legends outside the panels in the figure
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 1.0 + 1.6 * len(panels)),
                             sharex=True, squeeze=False, layout="constrained")
    for ax, panel in zip(axes[:, 0], panels, strict=True):
        for name, label, style in panel.curves:
            y = np.asarray(result[name], dtype=float)
            y = np.degrees(y) if panel.unit == "deg" else y / panel.scale
            ax.plot(t, y, style, label=label, linewidth=1.2)
        ax.set_ylabel(panel.ylabel)
        ax.set_title(panel.quantity, fontsize=10, loc="left")
        ax.grid(True, alpha=0.3)
        # Outside the data, on the right of the panel.
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    axes[-1, 0].set_xlabel("time [s]")
    fig.suptitle(title, fontsize=11)
    return fig


def plot(result: NDArray[Any], path: str | Path, *, title: str = "hydrofmu run",
         units: dict[str, str] | None = None) -> Path:
    """Write the PNG of :func:`make_figure` to ``path``; returns the path."""
    import matplotlib.pyplot as plt

    fig = make_figure(result, title=title, units=units)
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
