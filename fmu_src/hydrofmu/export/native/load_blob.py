"""The native load FMU (``[export] kind = "loads"``): what the C runtime evaluates, assembled
from the Python load model (:class:`~hydrofmu.runtime.loads.model.LoadModel`).

Physics stays in Python: the load model's own parts are evaluated here, at probe motions,
inputs and part states, and their maps are stored:

* the outputs ``y = C [x; u; 1] + ramp(t) Re(sum_k H_k e^{i w_k t})`` with ``u`` the load
  FMU's inputs (each body's pose, velocity and acceleration, then the parts' inputs) and
  ``x`` the parts' states; ``H`` is the simulator's own output map's sinusoid rows (the
  excitation channel, the elevation output), summed into ``F_hydro`` and ``F_total``;
* the parts' states' derivative ``x' = F x + G [u; 1]`` (state-space radiation reads the
  velocity).

Each map is checked affine at a seeded random point, ``H`` at three times and ``F, G`` at a
second time, against the load model itself. The runtime (``csrc/hfn_load.c``) carries the
states along the Hermite motion between communication points as the load model does.

Convolution radiation is the motion FMU's native convolution (``convolution_blob.py``,
``csrc/hfn_conv.c``), taken from the same part object: its kernel, its live pairs and its
grid; the runtime keeps the DOF velocities of the load FMU's velocity INPUT on the grid, as
the load model commits them (the Hermite motion's velocity at the grid times inside a step,
the input's at its end), and reads the force on the grid. ``OC``, the outputs of the
radiation part's force (``F_radiation``, ``F_hydro``, ``F_total`` of its DOF), is checked
against the load model at a seeded random velocity history.

Quadratic drag ``-BQ v |v|`` (the viscous part's coefficients; the maps are probed with them
set to zero) is evaluated by the runtime on each DOF's velocity input into ``F_viscous``,
``F_hydro`` and ``F_total`` (``OG``, the Runge-Kutta mode's layout), checked against the
load model at the random point.

What it carries: hydrostatics, radiation by convolution, state space or constant
coefficients, the excitation of a regular or irregular sea, linear and quadratic viscous
damping (not in a current: the current's drag part), linear moorings
(:data:`NATIVE_LOAD_KINDS`). Everything else is refused, named, with ``--python`` as the
way out: the elevation input, a current, MoorDyn and catenary moorings, second-order and
nonlinear loads, user parts.

Build time only.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ...runtime.errors import ExportError
from ...runtime.hydrodata.model import HydroData
from ...runtime.linear.model import assemble
from ...runtime.loads.interface import load_table, refused_parts
from ...runtime.loads.model import LoadModel
from ...runtime.schemes.base import DIVERGENCE_LIMIT
from ...runtime.simulator.layout import part_specs
from ...runtime.simulator.outputs import map_rows
from .convolution_blob import NativeConvolution, conv_section, convolution_model, native_convolution
from .packing import pack_f64 as _f64

if TYPE_CHECKING:
    from .blob import NativeModel

__all__ = ["NATIVE_LOAD_KINDS", "NativeLoad", "load_model_description", "load_refusal",
           "load_section", "native_load_model"]

#: The parts the native load FMU carries (the PTO force inputs are the importer's).
NATIVE_LOAD_KINDS = frozenset({"pto_inputs", "hydrostatics", "radiation", "wave_excitation",
                               "viscous", "mooring.linear"})
#: The size of a probe (in the input's or state's unit): the maps are affine, so any size
#: gives their columns; a large one keeps the rounding of the constant part small.
PROBE = 1e3
#: Agreement of the assembled maps with the load model at a random point, relative to the
#: largest value compared: the maps are affine up to the rounding of sums of a few dozen
#: terms (~1e-14); 1e-9 is far above that and far below any nonlinearity worth the name.
AFFINE = 1e-9
#: The outputs that sum the force channels: ``<body>.F_hydro[i]``, ``<body>.F_total[i]``.
SUM = re.compile(r"(.*)\.(F_hydro|F_total)(\[\d+\])")
FIX = "build the Python load FMU (hydrofmu build --python, or [export] runtime = 'python')"


#: The radiation methods the native load FMU carries.
METHODS = ("convolution", "state_space", "constant")


@dataclass
class NativeLoad:
    """The load FMU's data in the blob: its number of bodies (their motion inputs come
    first), the internal step of the part states' and the radiation history's grid (s) and
    its convolution radiation (``None`` without)."""

    bodies: int
    dt: float
    conv: NativeConvolution | None = None
    exact: bool = False  # time_scheme = "exact": the part states exactly along the motion
    #: quadratic drag: ``BQ`` (6 N,) and the outputs of ``[drag; 0]`` (p, 12 N), or None
    drag: tuple[NDArray, NDArray] | None = None


def load_section(load: NativeLoad, p: int) -> bytes:
    """The load FMU's data in the blob's last section (``derivative_blob.py``; ``p``
    outputs): ``u32`` bodies, ``f64`` internal step (s), then ``u32 has_conv`` and the
    convolution over the 6 N body DOFs (the Runge-Kutta mode's layout, ``csrc/hfn_model.h``),
    then ``u32`` 1 when the part states are stepped exactly (``time_scheme = "exact"``:
    :mod:`~hydrofmu.runtime.loads.exact`), else 0; then ``u32`` 1 and the quadratic drag
    (``f64 BQ[6 N]``, the outputs of ``[drag; 0]``, ``f64 OG[p, 12 N]``: the Runge-Kutta
    mode's layout), or ``u32`` 0."""
    q = 6 * load.bodies
    drag = [struct.pack("<I", 0)] if load.drag is None else [
        struct.pack("<I", 1), _f64(load.drag[0], (q,)), _f64(load.drag[1], (p, 2 * q))]
    return b"".join([struct.pack("<Id", load.bodies, load.dt),
                     *conv_section(load.conv, q, p), struct.pack("<I", int(load.exact)),
                     *drag])


def load_refusal(config: dict[str, Any], parts: Sequence[Any] = ()) -> str:
    """Why the native load FMU cannot carry the model ("" when it can), naming the parts.

    Raises
    ------
    ConfigError
        What no load FMU takes (joints, PTOs, large rotations:
        :func:`~hydrofmu.runtime.loads.interface.refused_parts`).
    """
    refused_parts(config, parts)
    reasons = [k for k in sorted({cls.kind for cls, _ in part_specs(config)})
               if k not in NATIVE_LOAD_KINDS]
    if parts:
        reasons.append("user parts")
    method = (config.get("radiation") or {}).get("method")
    if method not in METHODS:
        reasons.append(f"radiation.method = '{method}' (the native load FMU carries "
                       f"{', '.join(METHODS)})")
    if (config.get("wave") or {}).get("type") == "input":
        reasons.append("wave.type = 'input' (the elevation input's filter)")
    if not reasons:
        return ""
    return ("the native load FMU carries hydrostatics, radiation (convolution, state space or "
            "constant), a regular or irregular sea's excitation, linear and quadratic damping "
            "and linear moorings; this model has "
            f"{'; '.join(reasons)}. Fix: {FIX}")


def _check(what: str, got: NDArray, want: NDArray) -> None:
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-300)
    err = float(np.max(np.abs(got - want), initial=0.0))
    if err > AFFINE * scale:
        raise ExportError(f"the load model's {what} is not affine in the motion, the inputs "
                          f"and the part states ({err:.3g} of {scale:.3g}); {FIX}",
                          value=err)


def native_load_model(bodies: Sequence[HydroData], config: dict[str, Any],
                      step: float) -> NativeModel:
    """The native load FMU's model of a configuration (``[export] kind = "loads"``) with its
    default parameters; ``step`` the default communication step (s).

    Raises
    ------
    ExportError
        A part it does not carry (:func:`load_refusal`), or a map that is not affine.
    """
    from .blob import NativeModel

    why = load_refusal(config)
    if why:
        raise ExportError(why, value=None)
    lm = LoadModel(list(bodies), config)
    m, n, t0 = len(lm.table.inputs), lm.x.size, lm.t0
    # the quadratic drag is evaluated by the runtime (below): the maps are probed without it
    viscous = [p for p in lm.parts if p.kind == "viscous"]
    drag = [np.array(p.model.quadratic, dtype=float) for p in viscous]
    for part in viscous:
        part.model.quadratic[:] = 0.0

    def out(u: NDArray, x: NDArray, t: float) -> NDArray:
        lm.set_input_vector(u)
        return lm.evaluate(t, lm.motion(), lm.sim_inputs(), x)

    def rate(u: NDArray, x: NDArray, t: float) -> NDArray:
        lm.set_input_vector(u)
        q, v, _ = lm.motion()
        return lm.state_derivative(t, q, v, x, lm.sim_inputs())

    zu, zx = np.zeros(m), np.zeros(n)
    eu, ex = PROBE * np.eye(m), PROBE * np.eye(n)
    base, d0 = out(zu, zx, t0), rate(zu, zx, t0)
    p = base.size
    cm = np.array([out(e, zx, t0) - base for e in eu]).reshape(m, p).T / PROBE
    cx = np.array([out(zu, e, t0) - base for e in ex]).reshape(n, p).T / PROBE
    g = np.array([rate(e, zx, t0) - d0 for e in eu]).reshape(m, n).T / PROBE
    f = np.array([rate(zu, e, t0) - d0 for e in ex]).reshape(n, n).T / PROBE
    # the sinusoids: the simulator's own output map, by output name (summed into the sums)
    sim = lm.sim
    model = assemble(sim.assembly)
    omap = sim.output_map
    # the sinusoid rows: the simulator's checked map, or (a part that is not linear: the
    # convolution, the drag) the same rows of the linear parts' declarations; both checked
    # against the load model below
    sim_h = omap.h if omap is not None else map_rows(sim.assembly, model)[1]
    rows = {p.name: i for i, p in enumerate(sim.table.outputs)}
    k = model.omega.size
    h = np.zeros((len(lm.table.outputs), k), dtype=complex)
    own = tuple(f"{b}.F_added_mass[" for b in {p.name.split(".")[0]
                                               for p in lm.table.inputs[:18 * lm.table.n_bodies]})
    for i, port in enumerate(lm.table.outputs):
        total = SUM.fullmatch(port.name)
        if total:  # the sum of the channels
            body, index = total.group(1, 3)
            h[i] = sum((sim_h[rows[f"{body}.{ch}{index}"]] for ch in lm.table.channels),
                       np.zeros(k, dtype=complex))
        elif port.name in rows and not port.name.startswith(own):
            # a channel (a force of its own, as in the motion FMU) or a part's output; not
            # the motion FMU's F_added_mass, which follows its acceleration there
            h[i] = sim_h[rows[port.name]]

    def sines(t: float) -> NDArray:
        s, ramp = t - t0, model.ramp_time
        factor = 1.0 if ramp <= 0.0 or s >= ramp else 0.0 if s <= 0.0 else 0.5 * (
            1.0 - math.cos(math.pi * s / ramp))
        return factor * (h @ np.exp(1j * model.omega * t)).real if k else np.zeros(len(h))

    c0 = base - sines(t0)
    rng = np.random.default_rng(29)
    ur, xr = rng.standard_normal(m), rng.standard_normal(n)
    later = t0 + 0.37 * max(model.ramp_time, 1.0)
    for t in (t0, later, t0 + 3.1 * max(model.ramp_time, 1.0)):
        _check("outputs", out(ur, xr, t), c0 + cm @ ur + cx @ xr + sines(t))
    _check("part states' derivative", rate(ur, xr, later), d0 + g @ ur + f @ xr)
    conv = _convolution(lm, out, lambda u, x, t: c0 + cm @ u + cx @ x + sines(t),
                        (ur, xr, later))
    for part, quadratic in zip(viscous, drag, strict=True):
        part.model.quadratic[:] = quadratic
    bq = sum(drag, np.zeros(lm.n))
    og = None
    if np.any(bq):  # -BQ v |v| on each DOF's velocity input, into F_viscous and the sums
        og = np.concatenate([_force_rows(lm, "F_viscous"), np.zeros((p, lm.n))], axis=1)
        v = ur[np.arange(lm.n) // 6 * 18 + 6 + np.arange(lm.n) % 6]
        _check("outputs with quadratic drag", out(ur, xr, later),
               c0 + cm @ ur + cx @ xr + sines(later) + og[:, :lm.n] @ (-bq * v * np.abs(v)))
    live = np.flatnonzero(np.any(h != 0.0, axis=1))
    zk = np.zeros((k, n), dtype=complex)
    return NativeModel(
        y0=np.array(lm.x, dtype=float), u0=np.zeros(m), f=f,
        g=np.concatenate([g, d0[:, None]], axis=1), h0=float(step),
        fused0=np.zeros((n, n + m + 1)), omega=np.array(model.omega, dtype=float),
        steady=zk, ramped=(zk, zk, zk) if model.ramp_time > 0.0 and k else None,
        ramp_time=float(model.ramp_time), t0=float(t0), divergence_limit=DIVERGENCE_LIMIT,
        c=np.concatenate([cx, cm, c0[:, None]], axis=1), h_rows=live, h=h[live],
        load=NativeLoad(bodies=lm.table.n_bodies, dt=float(lm.dt), conv=conv,
                        exact=conv is None and lm.sim.parameters["time_scheme"] == "exact",
                        drag=None if og is None else (bq, og)))


def _force_rows(lm: LoadModel, channel: str) -> NDArray:
    """The outputs of a part's DOF force, (p, 6 N): its channel, ``F_hydro`` and ``F_total``
    of the DOF, by the outputs' names."""
    names = {port.name: i for i, port in enumerate(lm.table.outputs)}
    bodies = [port.name.split(".")[0] for port in lm.table.inputs[: 18 * lm.table.n_bodies:18]]
    rows = np.zeros((len(names), lm.n))
    for j in range(lm.n):
        body, dof = bodies[j // 6], j % 6 + 1
        for name in ("F_hydro", "F_total", channel):
            rows[names[f"{body}.{name}[{dof}]"], j] = 1.0
    return rows


def _convolution(lm: LoadModel, out: Any, affine: Any, point: tuple[NDArray, NDArray, float]
                 ) -> NativeConvolution | None:
    """The load model's convolution radiation for the runtime (``None`` without): the same
    part's kernel, every DOF's velocity an input; ``OC`` by the outputs' names (the force
    in ``F_radiation``, ``F_hydro`` and ``F_total`` of its DOF), checked against the load
    model with a seeded random history (``out``, the load model's outputs; ``affine``, the
    assembled map without the convolution; ``point``, where both are compared)."""
    found = [(p, convolution_model(p)) for p in lm.parts]
    found = [(p, m) for p, m in found if m is not None]
    if not found:
        return None
    if len(found) > 1:
        raise ExportError(f"{len(found)} convolution radiation parts; the native load FMU "
                          f"carries one. Fix: {FIX}", value=len(found))
    part, model = found[0]
    oc = _force_rows(lm, str(part.channel))
    if float(model.dt) != float(lm.dt) or model.n != lm.n:
        raise ExportError(f"the convolution's grid ({model.dt} s, {model.n} DOFs) is not the "
                          f"load model's ({lm.dt} s, {lm.n} DOFs); {FIX}", value=model.dt)
    saved = part.get_memory()
    rng = np.random.default_rng(2929)
    try:
        for _ in range(min(model.nk, 7)):
            model.commit(rng.standard_normal(model.n))
        u, x, t = point
        zero = np.zeros(model.n)
        _check("outputs with a velocity history", out(u, x, t),
               affine(u, x, t) + oc @ model.force(0.0, 0.0, zero, zero))
    finally:
        part.set_memory(saved)
    return native_convolution(model, np.ones((model.n, 1)), oc)


def load_model_description(bodies: Sequence[HydroData], config: dict[str, Any],
                           model_name: str, description: str) -> bytes:
    """The load FMU's model description as the Python load FMU declares it (the same
    variables, value references, units and dependencies with their kinds)."""
    from ...runtime.simulator.layout import parameter_table
    from .description import described

    table = load_table(list(bodies), config)
    return described(parameter_table(list(bodies), config), table, config, model_name,
                     description, dict(table.kinds))
