"""The wave excitation part: the internal wave model (regular, irregular) or the
elevation input, faded in by the half-cosine ramp; reported as ``F_excitation``, with the
elevation in use as the output ``wave.elevation``.

The FMU always has the input ``wave.elevation_input`` (m) and the output
``wave.elevation`` (m): ``wave.type`` is a parameter, the interface is fixed.

``wave.height`` and ``wave.ramp_time`` are tunable: the internal wave's components are built
once at the height given at initialization (1 m when it is 0) and scaled by
``height / built height`` (the excitation is linear in the amplitude, so the wave's phases
and spectrum shape are kept and the response scales); a new ramp time is used from the
next step on, measured from the start of the run as before. For ``wave.type = input`` or
``none`` the height is not used.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..hydrodata.model import DOF_NAMES, HydroData
from ..irf.checks import cutoff_fraction
from ..irf.transforms import excitation_irf
from ..parameters.table import irf_duration, irf_options
from ..parts.linear import ramp_factor
from ..parts.part import (
    Context,
    LinearOutputs,
    LinearSystem,
    ModelInfo,
    Part,
    Port,
    SinusoidalForcing,
)
from ..waves.models import IrregularWave, RegularWave, wave_number
from ..waves.spreading import ShortCrestedSea, internal_sea, spreading_from_config
from .excitation import ExcitationFromComponents, ExcitationFromInput
from .headings import heading_map, is_axisymmetric
from .radiation import check_in_range


def position_phase(hd: HydroData, position: Any, omega: NDArray[np.float64],
                   direction: float | NDArray[np.float64]) -> NDArray[np.complex128]:
    """``exp(-i k(w) (x cos beta + y sin beta))`` at the frequencies ``omega`` (rad/s): the
    factor that moves a body's excitation from its data's origin to ``position`` (x, y), m.

    Every reader gives ``X(w, beta)`` with its phase relative to the incident wave at the
    origin (0, 0) of the data's own horizontal frame: WAMIT (a multi-body run places each
    body at XBODY, YBODY and phases every body on the global origin), BEMIO .h5 (the
    origin of the BEM run it converts) and Capytaine (the mesh frame; a multi-body dataset
    puts every body in one frame). A body moved by ``(x, y)`` meets the wave
    ``k (x cos beta + y sin beta)`` later in phase (``eta = Re(a e^{i(w t - k x cos beta
    - k y sin beta)})``, ``e^{+i w t}``), with the finite-depth wave number
    (:func:`hydrofmu.runtime.waves.kinematics.wave_number`, the data's water depth and g). Bodies of
    one multi-body file are already placed by it: their ``position`` stays (0, 0).

    The factor is applied at the wave's own component frequencies, after X is
    interpolated: it turns by ``d dk/dw`` per rad/s (40 rad for 250 m at 8 s), far too
    fast to be interpolated on the BEM frequencies.
    """
    x, y = (float(v) for v in position)
    k = wave_number(omega, hd.water_depth, hd.g)
    if np.ndim(direction):  # a short-crested sea: each component its heading
        b = np.asarray(direction, dtype=float)
        return np.exp(-1j * k * (x * np.cos(b) + y * np.sin(b)))
    return np.exp(-1j * k * (x * math.cos(direction) + y * math.sin(direction)))


def excitation_at(hd: HydroData, omega: NDArray[np.float64], headings: NDArray[np.float64],
                  where: str) -> NDArray[np.complex128]:
    """``X(w_i, beta_i)`` of each component, shape (n, 6): linear in frequency on the
    data's grid, then linear in heading between the data's headings; outside them the
    nearest heading's turned for a body axisymmetric by its data, refused for any other
    (:func:`~hydrofmu.runtime.forces.headings.heading_map`)."""
    plan = heading_map(hd.wave_direction, headings, where, is_axisymmetric(hd))
    per_heading = []
    for ib in range(hd.wave_direction.size):
        xk = np.zeros((omega.size, 6), dtype=complex)
        if ib in plan.used():
            x = hd.excitation[:, ib, :]
            for i in range(6):
                xk[:, i] = np.interp(omega, hd.omega, x[:, i].real) + 1j * np.interp(
                    omega, hd.omega, x[:, i].imag)
        per_heading.append(xk)
    return plan.apply(per_heading)


#: A preview that leaves more than this L1 fraction of the excitation IRF cut off (on any
#: excited DOF) is reported as a warning.
CUTOFF_WARNING = 0.05


class WaveExcitation(Part):
    """Excitation by the wave of ``wave.type`` (``none``, ``regular``, ``irregular``,
    ``input``) on every body."""

    kind = "wave_excitation"
    channel = "F_excitation"

    @classmethod
    def motion_kind(cls, config: dict[str, Any], options: dict[str, Any]) -> str:
        return "constant"  # the wave's force does not read the motion (a factor 0)
    feedthrough = True
    forcing = True

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        p = model.parameters
        self.bodies = model.bodies
        self.positions = [tuple(b.get("position", (0.0, 0.0))) for b in model.config["bodies"]]
        self.names = model.names
        self.dt = model.dt
        self.wave_type = p["wave.type"]
        self.ramp_time = float(p["wave.ramp_time"])
        self.scale = 1.0  # wave.height / the height the components were built with
        self.direction = float(p["wave.direction"])
        self.preview_time = float(p["excitation.preview_time"])
        self.components: ExcitationFromComponents | None = None
        self.from_input: ExcitationFromInput | None = None
        self.wave: RegularWave | IrregularWave | ShortCrestedSea | None = None
        self.cutoff: list[NDArray[np.float64]] = []
        if self.wave_type in ("regular", "irregular"):
            self._build_components(model)
        elif self.wave_type == "input":
            self._build_input(model)
        self.active = self.wave_type != "none"

    @classmethod
    def input_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                    options: dict[str, Any]) -> list[Port]:
        return [Port("wave.elevation_input", "m")]

    @classmethod
    def output_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        return [Port("wave.elevation", "m", ("wave.elevation_input",))]

    # ---------------------------------------------------------------- build
    def _build_components(self, model: ModelInfo) -> None:
        p = model.parameters
        height = float(p["wave.height"])
        self.built_height = height if height > 0.0 else 1.0
        self.scale = height / self.built_height
        height = self.built_height
        if self.wave_type == "regular":
            for hd in self.bodies:
                check_in_range(hd, 2 * math.pi / float(p["wave.period"]), "wave.type = regular")
        wave = internal_sea(
            p, model.config["wave"], height=height,
            discretization=model.config["wave"]["discretization"],
            omega_range=(max(hd.omega[0] for hd in self.bodies),
                         min(hd.omega[-1] for hd in self.bodies)))
        self.wave = wave
        omega, amp, phase = wave.components()
        c_eta = amp * np.exp(1j * phase)
        coef = np.zeros((omega.size, model.n), dtype=complex)
        spread = isinstance(wave, ShortCrestedSea)
        for k, hd in enumerate(self.bodies):
            if spread:
                xk = excitation_at(hd, omega, wave.headings,
                                   f"body '{self.names[k]}': wave excitation")
                coef[:, 6 * k : 6 * k + 6] = xk * c_eta[:, None]
            else:
                ib = hd.direction_index(self.direction)
                x = hd.excitation[:, ib, :]
                for i in range(6):
                    xi = np.interp(omega, hd.omega, x[:, i].real) + 1j * np.interp(
                        omega, hd.omega, x[:, i].imag
                    )
                    coef[:, 6 * k + i] = xi * c_eta
            if any(self.positions[k]):
                coef[:, 6 * k : 6 * k + 6] *= position_phase(
                    hd, self.positions[k], omega,
                    wave.headings if spread else self.direction)[:, None]
        self.components = ExcitationFromComponents(omega, coef, c_eta)
        model.report.append(
            f"wave: {self.wave_type}, {omega.size} component(s), "
            f"{omega.min():.4g}..{omega.max():.4g} rad/s"
        )
        if spread:
            model.report.append(f"short-crested sea: {wave.spreading.describe()} about "
                                f"{math.degrees(self.direction):.4g} deg, one heading per "
                                "component")
        if isinstance(wave, IrregularWave | ShortCrestedSea):
            frac = float(wave.energy_fraction)
            model.report.append(
                f"irregular wave: {100 * frac:.3g} % of the spectrum's energy lies in the "
                f"data's frequency range (Hs of the modelled sea "
                f"{self.scale * wave.hs * math.sqrt(frac):.4g} m)"
            )

    def _build_input(self, model: ModelInfo) -> None:
        spreading = spreading_from_config(model.config["wave"])
        if spreading is not None:
            raise ConfigError(
                f"wave.type = input with wave.spreading = {model.config['wave']['spreading']!r}:"
                " the elevation input is one long-crested record at the reference point; "
                "use wave.type = irregular for a short-crested sea, or spreading = 'none'",
                value=model.config["wave"]["spreading"])
        moved = [self.names[k] for k, p in enumerate(self.positions) if any(p)]
        if moved:
            raise ConfigError(
                f"wave.type = input with bodies away from the data's origin ({moved}: "
                "position != [0, 0]) is not supported: the excitation IRF of a far body "
                "is delayed by its distance over the group velocity, beyond the kernel; "
                "use an internal wave (regular, irregular) or the data's own origin",
                value=moved)
        duration = irf_duration(model.config, "excitation")
        dt = self.dt
        preview = self.preview_time
        nk = math.floor((preview + duration) / dt) + 1
        tau = -preview + np.arange(nk) * dt
        kernel = np.zeros((nk, model.n))
        opts = irf_options(model.config, "excitation")
        cut = []
        for k, hd in enumerate(self.bodies):
            kernel[:, 6 * k : 6 * k + 6] = excitation_irf(hd, tau, self.direction, **opts)
            t_full = np.arange(-duration, duration + 0.5 * dt, dt)
            full = excitation_irf(hd, t_full, self.direction, **opts)
            cut.append(cutoff_fraction(full, t_full, preview))
        self.from_input = ExcitationFromInput(kernel, dt, preview / dt)
        self.cutoff = cut
        fractions: list[tuple[str, float]] = []
        for k, (hd, c) in enumerate(zip(self.bodies, cut, strict=True)):
            ib = hd.direction_index(self.direction)
            xmax = np.max(np.abs(hd.excitation[:, ib, :]), axis=0)
            for group in (slice(0, 3), slice(3, 6)):
                ref = xmax[group].max()
                for i in range(group.start, group.stop):
                    # DOFs with no excitation (e.g. sway in head seas) carry only noise.
                    if xmax[i] > 1e-6 * ref:
                        fractions.append((f"{self.names[k]}.{DOF_NAMES[i]}", float(c[i])))
        parts = [f"{name} {100 * f:.2g} %" for name, f in fractions]
        model.report.append(
            f"excitation from the elevation input: preview {preview:.3g} s, kernel "
            f"{tau[0]:.3g}..{tau[-1]:.3g} s; part of the non-causal excitation IRF cut off "
            f"(L1 fraction before -preview): {', '.join(parts) or 'none'}"
        )
        large = [f"{name} {100 * f:.2g} %" for name, f in fractions if f > CUTOFF_WARNING]
        if large:
            model.warnings.append(
                f"excitation.preview_time = {preview:.3g} s cuts off more than "
                f"{100 * CUTOFF_WARNING:.0f} % of the excitation IRF ({', '.join(large)}): "
                "the excitation force is distorted; feed the elevation further ahead "
                "(a larger preview_time)"
            )

    def set_parameter(self, name: str, value: Any) -> bool:
        if name == "wave.height":
            if self.components is not None:
                self.scale = float(value) / self.built_height
            return True
        if name == "wave.ramp_time":
            self.ramp_time = float(value)
            return True
        return False

    # ---------------------------------------------------------------- evaluation
    def _ramp(self, t: float, t0: float) -> float:
        """Half-cosine ramp of the excitation
        (:func:`~hydrofmu.runtime.parts.linear.ramp_factor`)."""
        return ramp_factor(t - t0, self.ramp_time)

    def force(self, ctx: Context) -> NDArray[np.float64] | None:
        if self.components is not None:
            return (self.scale * self._ramp(ctx.t, ctx.t0)) * self.components.force(ctx.t)
        if self.from_input is not None:
            eta = float(ctx.u[self.input_slice][0])
            return self._ramp(ctx.t, ctx.t0) * self.from_input.force(ctx.s, eta)
        return None

    def outputs(self, ctx: Context) -> NDArray[np.float64]:
        if self.components is not None:
            eta = self.scale * self._ramp(ctx.t, ctx.t0) * self.components.elevation(ctx.t)
        elif self.from_input is not None:
            u = float(ctx.u[self.input_slice][0])
            eta = self._ramp(ctx.t, ctx.t0) * self.from_input.elevation(ctx.s, u)
        else:
            eta = 0.0
        return np.array([eta])

    # ---------------------------------------------------------------- linear form
    def linear_system(self) -> LinearSystem | None:
        if self.from_input is not None:
            return None
        return LinearSystem()  # the internal wave is all in sinusoidal_forcing

    def sinusoidal_forcing(self) -> SinusoidalForcing | None:
        if self.components is None:
            return None
        return SinusoidalForcing(omega=self.components.omega,
                                 coefficients=self.scale * self.components.coefficients,
                                 ramp_time=max(self.ramp_time, 0.0))

    def linear_outputs(self) -> LinearOutputs | None:
        """The elevation: ``ramp Re(sum_k a_k e^{i w_k t})`` at the forcing's frequencies
        (zero without a wave; not linear from the elevation input's history)."""
        if self.from_input is not None:
            return None
        if self.components is None:
            return LinearOutputs()
        return LinearOutputs(
            sinusoids=(self.scale * self.components.elevation_coefficients)[:, None])

    def why_not_linear(self) -> str:
        return ("wave.type = input: the excitation is a convolution of the elevation input "
                "history (memory of the input, not a state vector): use wave.type = regular "
                "or irregular (the internal wave, stepped exactly), or a Runge-Kutta scheme")

    # ---------------------------------------------------------------- memory
    def start(self, ctx: Context) -> None:
        if self.from_input is not None:
            self.from_input.start(float(ctx.u[self.input_slice][0]))

    def new_inputs(self, ctx: Context) -> None:
        u = float(ctx.u[self.input_slice][0])
        if self.from_input is not None and math.isfinite(u):
            self.from_input.overwrite_newest(u)

    def commit(self, ctx: Context) -> None:
        if self.from_input is not None:
            self.from_input.commit(float(ctx.u[self.input_slice][0]))

    def get_memory(self) -> dict[str, NDArray[np.float64]]:
        return {} if self.from_input is None else self.from_input.get_state()

    def set_memory(self, state: dict[str, NDArray[np.float64]]) -> None:
        if self.from_input is not None:
            self.from_input.set_state(state)
