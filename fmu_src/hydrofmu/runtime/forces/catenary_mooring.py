"""Quasi-static catenary mooring lines on one body (``[[moorings]] type = "catenary"``).

Configuration::

    [[moorings]]
    type = "catenary"
    body = "body"                     # the body it holds (default: the only body)
    [[moorings.lines]]
    anchor = [-300.0, 0.0, -100.0]    # m, global frame, z up (z = 0: still water level)
    fairlead = [-5.0, 0.0, -2.0]      # m, body axes, from the body's reference point
    length = 330.0                    # unstretched length, m
    weight = 700.0                    # weight per length in water, N/m
    ea = 5.0e8                        # axial stiffness, N
    seabed = true                     # the anchor lies on the seabed (default true)
    seabed_friction = 0.0             # CB, >= 0 (default 0)

The body's reference point is at its displacement ``q[:3]`` (m) from the origin, rotated
by ``q[3:]`` (roll, pitch, yaw, rad). Each line is the elastic catenary of
:mod:`hydrofmu.runtime.moorings.catenary` in its vertical plane (solved in C, the kernel
the native FMU calls too); the force and moment of all lines
on the body go to ``<body>.F_mooring[1..6]`` and each line ``k`` (numbered from 1 over all
``[[moorings]]`` entries, in order) reports ``mooring.line<k>.T_fairlead`` and
``mooring.line<k>.T_anchor`` (N).

Run-time module: numpy, the standard library and the run-time mooring modules.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import CatenaryError, ConfigError, IntegrationError
from ..hydrodata.model import HydroData
from ..moorings.catenary import Catenary, CatenaryKernelUnavailable
from ..moorings.quasistatic import CatenaryBody, CatenaryMooring
from ..parts.part import Context, ModelInfo, Part, Port
from .mooring_common import body_dofs, check_keys, initial_pose, mooring_body, tension_ports

_KEYS = ("type", "body", "lines")
_LINE_KEYS = ("anchor", "fairlead", "length", "weight", "ea", "seabed", "seabed_friction")


def _vector(value: Any, what: str) -> NDArray[np.float64]:
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what} must be 3 numbers (m), got {value!r}", value=value) from exc
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise ConfigError(f"{what} must be 3 finite numbers (m), got {value!r}", value=value)
    return v


def _positive(line: dict[str, Any], key: str, where: str) -> float:
    value = line.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ConfigError(f"{where}: '{key}' must be a number > 0, got {value!r}", value=value)
    return float(value)


class CatenaryPart(Part):
    """Quasi-static catenary lines between fixed anchors and fairleads on one body."""

    kind = "mooring.catenary"
    channel = "F_mooring"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        opts = model.options
        check_keys(opts, _KEYS, "[[moorings]] catenary")
        body, k = mooring_body(model, "[[moorings]] catenary")
        where = f"[[moorings]] catenary on '{body}'"
        lines = opts.get("lines")
        if not isinstance(lines, list) or not lines or not all(isinstance(x, dict)
                                                               for x in lines):
            raise ConfigError(f"{where}: give at least one [[moorings.lines]] table (anchor, "
                              "fairlead, length, weight, ea)", value=lines)
        self.lines: list[CatenaryMooring] = []
        for i, ln in enumerate(lines):
            w = f"{where}, line {i + 1}"
            check_keys(ln, _LINE_KEYS, w)
            for key in ("anchor", "fairlead", "length", "weight", "ea"):
                if key not in ln:
                    raise ConfigError(f"{w}: '{key}' is missing", value=None)
            cb = ln.get("seabed_friction", 0.0)
            if isinstance(cb, bool) or not isinstance(cb, (int, float)) or not cb >= 0:
                raise ConfigError(f"{w}: 'seabed_friction' must be a number >= 0, got {cb!r}",
                                  value=cb)
            cat = Catenary(length=_positive(ln, "length", w), weight=_positive(ln, "weight", w),
                           ea=_positive(ln, "ea", w), seabed=bool(ln.get("seabed", True)),
                           cb=float(cb))
            self.lines.append(CatenaryMooring(anchor=_vector(ln["anchor"], f"{w}: anchor"),
                                              fairlead=_vector(ln["fairlead"],
                                                               f"{w}: fairlead"),
                                              line=cat))
        self.body = body
        self.lines_c = CatenaryBody(self.lines)
        self.sl, self.dofs = body_dofs(model, k)
        pose0 = initial_pose(model, body)
        try:
            f0, tensions = self.evaluate(pose0)
        except CatenaryKernelUnavailable as exc:
            raise ConfigError(f"{where}: {exc}", value=exc.value) from exc
        except CatenaryError as exc:
            raise ConfigError(f"{where}: at the initial pose {pose0.tolist()}: {exc}",
                              value=exc.value) from exc
        self.pose0 = pose0
        self._key = pose0.copy()
        self._cache = (f0, tensions)
        model.report.append(
            f"mooring: {len(self.lines)} catenary line(s) on '{body}', fairlead tensions at "
            f"the initial pose {np.round(tensions[0::2], 1).tolist()} N")

    @classmethod
    def output_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        return tension_ports(config, options)

    def evaluate(self, pose: NDArray[np.float64]
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Force and moment on the body (N, N m, shape (6,)) and the tensions
        ``[T_fairlead_1, T_anchor_1, ...]`` (N) at the body pose ``pose`` (m, rad): one call
        of the C kernel (:class:`~hydrofmu.runtime.moorings.quasistatic.CatenaryBody`)."""
        return self.lines_c.evaluate(pose)

    def _state(self, ctx: Context) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        pose = ctx.q[self.sl]
        if not np.array_equal(pose, self._key):
            try:
                self._cache = self.evaluate(pose)
            except CatenaryError as exc:
                raise IntegrationError(
                    f"catenary mooring on '{self.body}' at t = {ctx.t:.6g} s, pose "
                    f"{np.round(pose, 4).tolist()}: {exc}; the body has moved too far for "
                    "its lines (longer lines, or a smaller wave)", value=ctx.t) from exc
            self._key = pose.copy()
        return self._cache

    def force(self, ctx: Context) -> NDArray[np.float64]:
        out = np.zeros(self.n)
        out[self.sl] = self._state(ctx)[0]
        return out

    def outputs(self, ctx: Context) -> NDArray[np.float64]:
        return self._state(ctx)[1].copy()

    def why_not_linear(self) -> str:
        return (f"mooring.catenary on '{self.body}': the catenary force is nonlinear in the "
                "pose: use a [[moorings]] type = 'linear' (its stiffness matrix) or "
                "time_scheme = 'etdrk4' (exponential integrator, the lines by its stages)")

    def stiffness_estimate(self) -> NDArray[np.float64]:
        """6x6 stiffness of the lines at the initial pose, placed on the body, (n, n)."""
        k = np.zeros((self.n, self.n))
        k[self.sl, self.sl] = self.lines_c.stiffness(self.pose0)
        return k
