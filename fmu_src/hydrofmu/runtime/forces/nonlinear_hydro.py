"""Nonlinear hydrostatics and Froude-Krylov force: pressure integrated over the wetted mesh.

For each body with ``nonlinear = "mean" | "instantaneous"`` (its closed hull mesh embedded
by :mod:`hydrofmu.config.nonlinear`), at every evaluation the compiled panel kernel
(:mod:`hydrofmu.runtime.panels.kernel`) places the mesh at the body's pose (translation
``q[0:3]`` of the reference point, rotation ``Rz(yaw) Ry(pitch) Rx(roll)`` of
``q[3:6]``: :func:`hydrofmu.runtime.panels.pose.rotation_matrix`; the simulator's bodies
stay in small rotations, for which this is the linear model's rotation to first order),
cuts it at the free surface (z = 0 for ``"mean"``, the incident wave's elevation for
``"instantaneous"``) and integrates the pressure over the wetted part. Two parts:

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
from ..panels.pose import rotation_matrix
from ..parts.linear import ramp_factor
from ..parts.part import Context, ModelInfo, Part
from ..waves.kinematics import wave_number
from ..waves.models import internal_wave

Array = NDArray[np.float64]


def nonlinear_bodies(config: dict[str, Any]) -> list[int]:
    """Indices of the bodies with nonlinear hydrostatics in a resolved configuration."""
    return [k for k, b in enumerate(config.get("bodies") or []) if b.get("nonlinear")]


class PanelBodies:
    """The nonlinear bodies' kernels and the wave they see (owned by one part).

    Parameters
    ----------
    model
        The model (bodies, resolved configuration with each nonlinear body's
        ``"nonlinear"`` entry, parameters).
    pressure
        :data:`~hydrofmu.runtime.panels.kernel.STATIC` or
        :data:`~hydrofmu.runtime.panels.kernel.WAVE`: which pressure this owner integrates.
    """

    def __init__(self, model: ModelInfo, pressure: int) -> None:
        p = model.parameters
        self.pressure = pressure
        self.indices = nonlinear_bodies(model.config)
        self.wave_type = p["wave.type"]
        self.ramp_time = float(p["wave.ramp_time"])
        height = float(p["wave.height"])
        self.built_height = height if height > 0.0 else 1.0
        self.scale = height / self.built_height
        has_wave = self.wave_type in ("regular", "irregular")
        if self.wave_type == "input" and self.indices:
            names = [model.names[k] for k in self.indices]
            raise ConfigError(
                f"bodies {names} have nonlinear hydrostatics, which need the internal wave "
                "(its pressure and elevation over the hull): wave.type = input gives only "
                "the elevation at one point; use wave.type = regular or irregular",
                value="input")
        omega = amp = phase = np.zeros(0)
        direction = float(p["wave.direction"])
        if has_wave and self.indices:
            bodies = model.bodies
            wave = internal_wave(
                p, height=self.built_height,
                discretization=model.config["wave"]["discretization"],
                omega_range=(max(hd.omega[0] for hd in bodies),
                             min(hd.omega[-1] for hd in bodies)))
            omega, amp, phase = wave.components()
        self.kernels: list[PanelKernel] = []
        self.modes: list[int] = []
        self.origins: list[Array] = []
        self.weights: list[tuple[float, Array]] = []
        self.linear_stiffness: list[Array] = []
        for k in self.indices:
            bc, hd = model.config["bodies"][k], model.bodies[k]
            entry = bc["nonlinear"]
            comps = WaveComponents(
                amp, omega, wave_number(omega, hd.water_depth, hd.g),
                np.full(omega.size, direction), phase, hd.water_depth)
            self.kernels.append(PanelKernel(
                np.asarray(entry["vertices"], dtype=float),
                np.asarray(entry["triangles"], dtype=np.int64),
                rho=hd.rho, g=hd.g, wave=comps))
            mode = pressure | (INSTANTANEOUS if entry["mode"] == "instantaneous" else 0)
            self.modes.append(mode)
            x, y = (float(v) for v in bc.get("position", (0.0, 0.0)))
            self.origins.append(np.asarray(hd.reference_point, dtype=float)
                                + np.array([x, y, 0.0]))
            self.weights.append((float(bc["mass"]) * hd.g, np.asarray(bc["cog"], dtype=float)))
            self.linear_stiffness.append(np.asarray(entry["linear_stiffness"], dtype=float))
        self.needs_wave = has_wave and any(
            pressure == WAVE or m & INSTANTANEOUS for m in self.modes)
        if pressure == STATIC:  # one line per body, from the first of the two parts
            for k, kernel in zip(self.indices, self.kernels, strict=True):
                entry = model.config["bodies"][k]["nonlinear"]
                model.report.append(
                    f"{model.names[k]}: nonlinear hydrostatics and Froude-Krylov force on "
                    f"{len(kernel.triangles)} triangles, {entry['mode']} surface, "
                    f"{omega.size} wave component(s)")

    def set_parameter(self, name: str, value: Any) -> bool:
        """Take ``wave.height`` and ``wave.ramp_time`` (as the linear excitation does)."""
        if name == "wave.height":
            self.scale = float(value) / self.built_height
            return True
        if name == "wave.ramp_time":
            self.ramp_time = float(value)
            return True
        return False

    def load(self, ctx: Context, out: Array) -> Array:
        """Fill ``out`` (shape (n,)) with this owner's pressure load (plus the weight for
        the static one) on every nonlinear body, N and N m, about each reference point in
        world axes."""
        out[:] = 0.0
        scale = self.scale * ramp_factor(ctx.t - ctx.t0, self.ramp_time) if self.needs_wave \
            else 0.0
        for kernel, k, mode, origin, (weight, cog) in zip(
                self.kernels, self.indices, self.modes, self.origins, self.weights,
                strict=True):
            q = ctx.q[6 * k: 6 * k + 6]
            rot = rotation_matrix(float(q[3]), float(q[4]), float(q[5]))
            result = kernel.evaluate(rot, origin + q[:3], t=ctx.t, scale=scale, mode=mode)
            sl = slice(6 * k, 6 * k + 6)
            if self.pressure == STATIC:
                out[sl] = result[STATIC_LOAD]
                arm = rot @ cog
                out[6 * k + 2] -= weight  # the weight -m g at the rotated centre of gravity
                out[6 * k + 3] -= arm[1] * weight
                out[6 * k + 4] += arm[0] * weight
            else:
                out[sl] = result[WAVE_LOAD]
        return out

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
                  "over the instantaneous wetted mesh: not a linear form; the native FMU and "
                  "the exact scheme do not step it yet: use the Python FMU and a Runge-Kutta "
                  "time scheme (rk4, the default), or remove nonlinear")


class NonlinearHydrostatics(Part):
    """Buoyancy minus weight on the wetted mesh of each nonlinear body (``F_hydrostatic``)."""

    kind = "hydrostatics.nonlinear"
    channel = "F_hydrostatic"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        self.panels = PanelBodies(model, STATIC)
        self.dofs = _dof_mask(model.n, self.panels.indices)
        self.active = bool(self.panels.indices)
        self.buffer = np.zeros(model.n)

    def force(self, ctx: Context) -> Array:
        return self.panels.load(ctx, self.buffer).copy()

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
        self.panels = PanelBodies(model, WAVE)
        self.dofs = _dof_mask(model.n, self.panels.indices)
        self.active = bool(self.panels.indices) and self.panels.needs_wave
        self.buffer = np.zeros(model.n)

    def force(self, ctx: Context) -> Array | None:
        if not self.active:
            return None
        return self.panels.load(ctx, self.buffer).copy()

    def set_parameter(self, name: str, value: Any) -> bool:
        return self.panels.set_parameter(name, value)

    def linear_system(self) -> None:
        return None

    def why_not_linear(self) -> str:
        return WHY_NOT_LINEAR
