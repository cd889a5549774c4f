"""Helpers of ``tests/test_native_examples.py`` and ``tests/test_native_long_run.py``: the
native FMU and the Python FMU of a shipped configuration, its tolerance class, the PTO input
driven, and the comparison of every output against its scale."""

from __future__ import annotations

import copy
import tomllib
import warnings
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np

from hydrofmu.api.model import Model
from hydrofmu.export.native import build_native_fmu

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

#: Issue 31's tolerances, of each output's scale, by model class, decided from the built
#: model (:meth:`Pair.tolerance`), by what the two runtimes do differently:
#:
#: - ``exact`` (a linear model, its exact discretisation): both evaluate the same matrix
#:   exponential products and phasors, in C loops against BLAS: round-off of ~1e-16 of
#:   the terms per step, carried by the stable linear map.
EXACT_TOLERANCE = 1e-12
#: - an explicit Runge-Kutta scheme (convolution radiation, quadratic drag, the elevation
#:   input, or a linear model stepped by ``rk4``): the same internal steps and stages; the
#:   history sums and matrices in C loops against numpy's batched products, the wave
#:   phasors rotated in C against ``cos(w t)`` in Python: ~1e-16 of the terms per stage,
#:   fed through a stable recursion for 10,000-40,000 internal steps and, where a body has
#:   no restoring force (the spheres' surge), integrated into the position undamped.
RK_TOLERANCE = 1e-10
#: - MoorDyn lines (or a catenary): the same line kernel (``line_kernel.c``) called by
#:   both, but the body's pose from the state and the coupled points' moments summed in C
#:   loops against numpy's; the stiff segments (EA/l of 2e7-4e8 N/m against the bodies'
#:   hydrostatic 1e5-1e6 N/m) amplify a rounding difference of a fairlead's position into
#:   the tensions, and the semi-implicit iteration carries it.
LINES_TOLERANCE = 1e-9

#: An output held at zero by the model (a locked joint's angle, a DOF no load moves) reads
#: the round-off of the terms it is computed from (~1e-16 of them, e.g. 3e-16 rad for the
#: F3OF's locked hinges beside a 0.17 rad pitch): an output whose peak is at or below this
#: share of the largest peak among the outputs of its unit is compared against that
#: largest peak, the scale of those terms. Every other output against its own peak.
ROUNDOFF_ZERO = 1e-12

#: A body's loads that vanish by symmetry but are sums of panel pressures (nonlinear
#: hydrostatics and Froude-Krylov: terms of ~1e4 N over a float32 STL mesh cancelling to
#: ~1 N, e.g. a heaving sphere's moments) read the rounding of those sums, which a pose
#: differing by round-off moves by ~1e-9 N. Such a component, below this share of the
#: largest of the body's loads ``F_*`` (N and N m alike: a body of metres), is measured
#: against that share of the largest; every load above it against its own peak.
PANEL_NOISE_FLOOR = 1e-3


def is_bem_solve(path: Path) -> bool:
    """Whether ``path`` is an input of ``hydrofmu bem`` (a ``[bem]`` table), not a model."""
    return "bem" in tomllib.loads(path.read_text())


def shipped_configurations() -> list[str]:
    """Every model configuration under ``examples/``, relative to it."""
    return sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*.toml")
                  if not is_bem_solve(p))


class Pair:
    """The native FMU and the Python FMU of one shipped configuration (linux64 only), the
    input driven and its amplitude; an ``ExportError`` when the native build refuses."""

    def __init__(self, name: str, folder: Path) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # BEM data's notes; not what is tested here
            model = Model.from_toml(EXAMPLES / name)
        stem = "".join(c for c in Path(name).stem.title() if c.isalnum())
        self.python = folder / "python" / f"{stem}.fmu"
        self.native = build_native_fmu(model.bodies, copy.deepcopy(model.config),
                                       folder / f"{stem}.fmu", model_name=stem,
                                       python_fmu=self.python, platforms=("linux64",))
        root = ET.fromstring(zipfile.ZipFile(self.native).read("modelDescription.xml"))
        found = {v.get("name"): v for v in root.find("ModelVariables")}
        #: the scheme the native FMU steps, and the one the file names
        self.scheme = found["time_scheme"][0].get("start")
        self.configured = model.config["simulation"]["time_scheme"]
        self.moorings = {m.get("type") for m in model.config.get("moorings", [])}
        #: a body integrates panel pressures (nonlinear hydrostatics, Froude-Krylov)
        self.panels = any(b.get("nonlinear") for b in model.config["bodies"])
        self.units = [v[0].get("unit", "") for v in found.values()
                      if v.get("causality") == "output"]
        self.input = pto_input([n for n, v in found.items() if v.get("causality") == "input"])
        masses = [float(b["mass"]) for b in model.config["bodies"]]
        #: 5 % of the lightest body's weight, N (or N m on a hinge): a PTO load that moves
        #: the bodies well beyond round-off and stays small beside the wave loads
        self.amplitude = 0.05 * 9.81 * min(masses)

    def tolerance(self) -> float:
        """Issue 31's tolerance of this model, of each output's scale (see above)."""
        if self.moorings & {"moordyn", "catenary"}:
            return LINES_TOLERANCE
        return EXACT_TOLERANCE if self.scheme == "exact" else RK_TOLERANCE


def pto_input(inputs: list[str]) -> str:
    """The PTO input driven: a joint's PTO force when the model has one, else the first
    body's heave PTO force."""
    joints = [n for n in inputs if "F_pto" in n and "[" not in n]
    if joints:
        return joints[0]
    heave = [n for n in inputs if n.endswith(".F_pto[3]")]
    assert heave, f"no PTO input among {inputs}"
    return heave[0]


def output_scales(ref: dict, units: list[str], panels: bool = False) -> np.ndarray:
    """Every output's scale: its peak in ``ref``, or for an output that is round-off zero
    the largest peak of its unit (:data:`ROUNDOFF_ZERO`); with panel loads
    (``panels=True``), a body's loads at least :data:`PANEL_NOISE_FLOOR` of its largest;
    1 where all are zero."""
    assert len(units) == len(ref["names"])
    peak = np.max(np.abs(np.array(ref["rows"])), axis=0)
    scale = peak.copy()
    for unit in set(units):
        mine = np.array([u == unit for u in units])
        top = peak[mine].max()
        scale[mine & (peak <= ROUNDOFF_ZERO * top)] = top
    if panels:
        bodies = {n.split(".")[0] for n in ref["names"] if ".F_" in n}
        for body in bodies:
            loads = np.array([n.startswith(f"{body}.F_") for n in ref["names"]])
            scale[loads] = np.maximum(scale[loads], PANEL_NOISE_FLOOR * peak[loads].max())
    return np.where(scale > 0, scale, 1.0)


def scaled_errors(ref: dict, got: dict, units: list[str], panels: bool = False
                  ) -> np.ndarray:
    """|native - Python| of every output at every step (rows) over its scale
    (:func:`output_scales`; ``panels``: the model integrates panel pressures)."""
    assert ref["names"] == got["names"]
    x, y = np.array(ref["rows"]), np.array(got["rows"])
    assert x.shape == y.shape and np.all(np.isfinite(y))
    return np.abs(x - y) / output_scales(ref, units, panels)
