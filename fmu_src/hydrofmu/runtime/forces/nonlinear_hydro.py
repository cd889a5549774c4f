"""Nonlinear hydrostatics and Froude-Krylov force: pressure integrated over the wetted mesh.

For each body with ``nonlinear = "mean" | "instantaneous"`` (its closed hull mesh embedded
by :mod:`hydrofmu.config.nonlinear`), at every evaluation the compiled panel kernel
(:mod:`hydrofmu.runtime.panels.kernel`) places the mesh at the body's pose (translation
``q[0:3]`` of the reference point, rotation ``Rz(yaw) Ry(pitch) Rx(roll)`` of
``q[3:6]``, built in C by the kernel's ``hp_body_pose`` as
:func:`hydrofmu.runtime.bodies.rotations.matrix_from_euler` builds it; the simulator's
bodies stay in small rotations, for which this is the linear model's rotation to first order),
cuts it at the free surface (z = 0 for ``"mean"``, the incident wave's elevation for
``"instantaneous"``) and integrates the pressure over the wetted part. One kernel call
per body and evaluation (``hp_body_loads``) gives both pressures and the weight; the two
parts share it (:class:`PanelBodies`, handed to both by the catalog). Two parts:

- :class:`NonlinearHydrostatics` (``hydrostatics.nonlinear``, channel ``F_hydrostatic``):
  the static pressure ``-rho g z`` plus the weight ``-m g`` at the rotated centre of
  gravity: buoyancy minus weight, about the body's reference point, world axes;
- :class:`NonlinearFroudeKrylov` (``froude_krylov.nonlinear``, channel ``F_excitation``,
  where the linear excitation now holds the diffraction part only): the incident wave's
  linear pressure on the same wetted part (above z = 0, in a crest, ``rho g eta``: the
  total pressure ``rho g (eta - z)`` then vanishes at the surface).

The wave is the internal one (``wave.type = regular | irregular``), built by
:func:`hydrofmu.runtime.waves.models.internal_wave` as the linear excitation builds it (the
same components), faded in by the same ramp and scaled by ``wave.height`` as it is; the
wave numbers from the data's depth. The linear hydrostatics and the linear Froude-Krylov
force of these bodies are removed at build (see :mod:`hydrofmu.config.nonlinear`).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..panels.kernel import (
    INSTANTANEOUS,
    STATIC,
    STATIC_LOAD,
    WAVE,
    WAVE_LOAD,
    PanelKernel,
    WaveComponents,
)
from ..parts.linear import ramp_factor
from ..parts.part import Context, ModelInfo, Part
from ..waves.kinematics import wave_number
from ..waves.models import internal_wave

Array = NDArray[np.float64]


def nonlinear_bodies(config: dict[str, Any]) -> list[int]:
    """Indices of the bodies with nonlinear hydrostatics in a resolved configuration."""
    return [k for k, b in enumerate(config.get("bodies") or []) if b.get("nonlinear")]


class PanelBodies:
    """The nonlinear bodies' kernels and the wave they see, shared by the two parts: one
    kernel call per body and evaluation gives both pressures (one pass over the panels).

    Parameters
    ----------
    model
        The model (bodies, resolved configuration with each nonlinear body's
        ``"nonlinear"`` entry, parameters).
    fk
        Whether the Froude-Krylov part is active (a wave): the kernel then integrates the
        wave's pressure too.

    Attributes
    ----------
    static, wave
        The last evaluation's loads (buoyancy minus weight; the wave's pressure), (n,)
        each, N and N m about each reference point, world axes.
    """

    def __init__(self, model: ModelInfo) -> None:
        p = model.parameters
        self.indices = nonlinear_bodies(model.config)
        self.wave_type = p["wave.type"]
        self.ramp_time = float(p["wave.ramp_time"])
        height = float(p["wave.height"])
        self.built_height = height if height > 0.0 else 1.0
        self.scale = height / self.built_height
        self.has_wave = self.wave_type in ("regular", "irregular")
        if self.wave_type == "input" and self.indices:
            names = [model.names[k] for k in self.indices]
            raise ConfigError(
                f"bodies {names} have nonlinear hydrostatics, which need the internal wave "
                "(its pressure and elevation over the hull): wave.type = input gives only "
                "the elevation at one point; use wave.type = regular or irregular",
                value="input")
        omega = amp = phase = np.zeros(0)
        direction = float(p["wave.direction"])
        if self.has_wave and self.indices:
            bodies = model.bodies
            wave = internal_wave(
                p, height=self.built_height,
                discretization=model.config["wave"]["discretization"],
                omega_range=(max(hd.omega[0] for hd in bodies),
                             min(hd.omega[-1] for hd in bodies)))
            omega, amp, phase = wave.components()
        self.kernels: list[PanelKernel] = []
        self.modes: list[int] = []
        self.linear_stiffness: list[Array] = []
        for k in self.indices:
            bc, hd = model.config["bodies"][k], model.bodies[k]
            entry = bc["nonlinear"]
            comps = WaveComponents(
                amp, omega, wave_number(omega, hd.water_depth, hd.g),
                np.full(omega.size, direction), phase, hd.water_depth)
            kernel = PanelKernel(np.asarray(entry["vertices"], dtype=float),
                                 np.asarray(entry["triangles"], dtype=np.int64),
                                 rho=hd.rho, g=hd.g, wave=comps)
            x, y = (float(v) for v in bc.get("position", (0.0, 0.0)))
            kernel.set_body(np.asarray(hd.reference_point, dtype=float)
                            + np.array([x, y, 0.0]),
                            np.asarray(bc["cog"], dtype=float), float(bc["mass"]) * hd.g)
            self.kernels.append(kernel)
            self.modes.append(STATIC | (WAVE if self.has_wave else 0)
                              | (INSTANTANEOUS if entry["mode"] == "instantaneous" else 0))
            self.linear_stiffness.append(np.asarray(entry["linear_stiffness"], dtype=float))
        self.needs_wave = self.has_wave and bool(self.indices)
        self.static = np.zeros(model.n)
        self.wave = np.zeros(model.n)
        self.key_q = np.full(model.n, np.nan)  # the last evaluation's point (NaN: none)
        self.key_t = self.key_t0 = math.nan
        for k, kernel in zip(self.indices, self.kernels, strict=True):
            entry = model.config["bodies"][k]["nonlinear"]
            model.report.append(
                f"{model.names[k]}: nonlinear hydrostatics and Froude-Krylov force on "
                f"{len(kernel.triangles)} triangles, {entry['mode']} surface, "
                f"{omega.size} wave component(s)")

    @classmethod
    def shared(cls, model: ModelInfo) -> PanelBodies:
        """The evaluator the two parts share (``options["panel_cache"]``, a dict the
        catalog gives both), made by the first part built; a new one without it."""
        cache = model.options.get("panel_cache")
        if not isinstance(cache, dict):
            return cls(model)
        if "panels" not in cache:
            cache["panels"] = cls(model)
        return cache["panels"]

    def set_parameter(self, name: str, value: Any) -> bool:
        """Take ``wave.height`` and ``wave.ramp_time`` (as the linear excitation does)."""
        if name == "wave.height":
            self.scale = float(value) / self.built_height
        elif name == "wave.ramp_time":
            self.ramp_time = float(value)
        else:
            return False
        self.key_t = math.nan  # the next evaluation is a new one
        return True

    def evaluate(self, ctx: Context) -> None:
        """Both loads at ``ctx`` into :attr:`static` and :attr:`wave`: one kernel call per
        body, none when the last evaluation was at the same time and displacements."""
        if ctx.t == self.key_t and ctx.t0 == self.key_t0 and np.array_equal(ctx.q,
                                                                             self.key_q):
            return
        scale = self.scale * ramp_factor(ctx.t - ctx.t0, self.ramp_time) if self.needs_wave \
            else 0.0
        for kernel, k, mode in zip(self.kernels, self.indices, self.modes, strict=True):
            sl = slice(6 * k, 6 * k + 6)
            result = kernel.body_loads(ctx.q[sl], t=ctx.t, scale=scale, mode=mode)
            self.static[sl] = result[STATIC_LOAD]
            self.wave[sl] = result[WAVE_LOAD]
        self.key_q[:] = ctx.q
        self.key_t, self.key_t0 = ctx.t, ctx.t0

    def stiffness(self, n: int) -> Array:
        """The bodies' linear hydrostatic stiffness at rest, (n, n) (for the stable step)."""
        k_all = np.zeros((n, n))
        for k, kk in zip(self.indices, self.linear_stiffness, strict=True):
            k_all[6 * k: 6 * k + 6, 6 * k: 6 * k + 6] = kk
        return k_all


def _dof_mask(n: int, indices: list[int]) -> NDArray[np.bool_]:
    mask = np.zeros(n, dtype=bool)
    for k in indices:
        mask[6 * k: 6 * k + 6] = True
    return mask


WHY_NOT_LINEAR = ("nonlinear hydrostatics ([[bodies]] nonlinear = ...) integrate the pressure "
                  "over the instantaneous wetted mesh: not a linear form, which the exact "
                  "scheme does not step: use a Runge-Kutta time scheme (rk4, the default; "
                  "the native and the Python FMU step it), or remove nonlinear")


class NonlinearHydrostatics(Part):
    """Buoyancy minus weight on the wetted mesh of each nonlinear body (``F_hydrostatic``)."""

    kind = "hydrostatics.nonlinear"
    channel = "F_hydrostatic"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        self.panels = PanelBodies.shared(model)
        self.dofs = _dof_mask(model.n, self.panels.indices)
        self.active = bool(self.panels.indices)

    def force(self, ctx: Context) -> Array:
        self.panels.evaluate(ctx)
        return self.panels.static.copy()

    def set_parameter(self, name: str, value: Any) -> bool:
        return self.panels.set_parameter(name, value)

    def stiffness_estimate(self) -> Array:
        return self.panels.stiffness(self.n)

    def linear_system(self) -> None:
        return None

    def why_not_linear(self) -> str:
        return WHY_NOT_LINEAR


class NonlinearFroudeKrylov(Part):
    """The incident wave's pressure on the wetted mesh of each nonlinear body
    (``F_excitation``, beside the linear diffraction force)."""

    kind = "froude_krylov.nonlinear"
    channel = "F_excitation"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        self.panels = PanelBodies.shared(model)
        self.dofs = _dof_mask(model.n, self.panels.indices)
        self.active = bool(self.panels.indices) and self.panels.needs_wave

    def force(self, ctx: Context) -> Array | None:
        if not self.active:
            return None
        self.panels.evaluate(ctx)
        return self.panels.wave.copy()

    def set_parameter(self, name: str, value: Any) -> bool:
        return self.panels.set_parameter(name, value)

    def linear_system(self) -> None:
        return None

    def why_not_linear(self) -> str:
        return WHY_NOT_LINEAR
