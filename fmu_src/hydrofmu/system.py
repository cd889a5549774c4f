"""The equation of motion of the bodies, assembled into ``y' = f(t, y)``, and its stepping.

For the stacked DOFs of all bodies (6 per body, reference point, small rotations)::

    (M + A_inf) q'' = F_hs(q) + F_rad(q') + F_exc(t) + F_pto(t) + F_visc(q') + F_moor + F_c

Added mass is on the left side and factorised once (the ``implicit`` treatment). Fixed DOFs
are removed by null-space reduction; their reaction is reported as ``F_constraint``.

:class:`Simulator` knows nothing of FMI: the FMU face (``fmi_slave.py``) calls
:meth:`Simulator.set_input_vector`, :meth:`Simulator.step` and
:meth:`Simulator.output_vector`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from .errors import (
    ConfigError,
    HydroDataError,
    InputError,
    IntegrationError,
    did_you_mean,
)
from .forces.excitation import ExcitationFromComponents, ExcitationFromInput
from .forces.hydrostatics import Hydrostatics
from .forces.radiation import ConstantRadiation, ConvolutionRadiation
from .forces.viscous import ViscousDamping
from .hydrodata.model import DOF_NAMES, HydroData
from .kernels import cutoff_fraction, excitation_irf, radiation_irf
from .parameters import (
    ADDED_MASS_METHODS,
    DISCRETIZATIONS,
    RADIATION_METHODS,
    SPECTRA,
    WAVE_TYPES,
    body_names,
    check_choice,
    check_positive,
    parameter_table,
)
from .timeschemes import make_scheme
from .waves import IrregularWave, RegularWave

#: Output quantities per body, in order; each has 6 components.
BODY_OUTPUTS: tuple[str, ...] = (
    "pose",
    "velocity",
    "acceleration",
    "F_added_mass",
    "F_radiation",
    "F_excitation",
    "F_hydrostatic",
    "F_mooring",
    "F_viscous",
    "F_constraint",
)
_UNITS = {
    "pose": ("m", "rad"),
    "velocity": ("m/s", "rad/s"),
    "acceleration": ("m/s2", "rad/s2"),
}
_FORCE_UNITS = ("N", "N.m")
#: Outputs that depend directly on the inputs (through q'' of the same solve, or the
#: excitation convolution of the elevation input).
_FEEDTHROUGH = ("acceleration", "F_added_mass", "F_constraint")

#: A preview that leaves more than this L1 fraction of the excitation IRF cut off (on any
#: excited DOF) is reported as a warning.
CUTOFF_WARNING = 0.05

#: A state beyond this magnitude (m, rad, m/s, rad/s) is taken as a diverging solution.
DIVERGENCE_LIMIT = 1.0e6


class Simulator:
    """Time-domain simulator of one or more bodies in waves.

    Parameters
    ----------
    bodies
        Hydrodynamic data, one per body, in the order of ``config["bodies"]``.
    config
        Resolved configuration (:func:`hydrofmu.config.resolve` writes it).
    parameters
        FMU parameter values overriding the configuration's defaults, by name (see
        :func:`parameter_table`). Unknown names raise :class:`ConfigError`.
    """

    def __init__(
        self,
        bodies: list[HydroData],
        config: dict[str, Any],
        parameters: dict[str, Any] | None = None,
    ) -> None:
        self.bodies = list(bodies)
        self.config = config
        self.names = body_names(config)
        if len(self.names) != len(self.bodies):
            raise ConfigError(
                f"{len(self.names)} bodies configured but {len(self.bodies)} data sets given",
                value=len(self.bodies),
            )
        table = parameter_table(bodies, config)
        self.parameters: dict[str, Any] = {p.name: p.start for p in table}
        for name, value in (parameters or {}).items():
            if name not in self.parameters:
                hint = did_you_mean(name, list(self.parameters))
                raise ConfigError(f"unknown parameter {name!r}{hint}", value=name)
            self.parameters[name] = value
        self.report: list[str] = []
        self.warnings: list[str] = []
        self._build()

    @classmethod
    def from_payload(
        cls,
        bodies: list[HydroData],
        config: dict[str, Any],
        parameters: dict[str, Any] | None = None,
    ) -> Simulator:
        """Build from the data stored in an FMU (same arguments as the constructor)."""
        return cls(bodies, config, parameters)

    # ------------------------------------------------------------------ interface
    @staticmethod
    def input_names(bodies: list[HydroData], config: dict[str, Any]) -> list[str]:
        """Scalar input names: ``<body>.F_pto[1..6]`` per body, then ``wave.elevation_input``."""
        names = [f"{b}.F_pto[{i + 1}]" for b in body_names(config) for i in range(6)]
        return [*names, "wave.elevation_input"]

    @staticmethod
    def input_units(bodies: list[HydroData], config: dict[str, Any]) -> list[str]:
        """SI units of :meth:`input_names`."""
        units = [_FORCE_UNITS[i // 3] for _ in config["bodies"] for i in range(6)]
        return [*units, "m"]

    @staticmethod
    def output_names(bodies: list[HydroData], config: dict[str, Any]) -> list[str]:
        """Scalar output names: ``<body>.<quantity>[1..6]`` per body, then ``wave.elevation``."""
        names = [
            f"{b}.{q}[{i + 1}]" for b in body_names(config) for q in BODY_OUTPUTS
            for i in range(6)
        ]
        return [*names, "wave.elevation"]

    @staticmethod
    def output_units(bodies: list[HydroData], config: dict[str, Any]) -> list[str]:
        """SI units of :meth:`output_names`."""
        units = [
            _UNITS.get(q, _FORCE_UNITS)[i // 3]
            for _ in config["bodies"] for q in BODY_OUTPUTS for i in range(6)
        ]
        return [*units, "m"]

    @staticmethod
    def output_dependencies(
        bodies: list[HydroData], config: dict[str, Any]
    ) -> dict[str, list[str]]:
        """Inputs each output depends on directly (within the same communication point).

        Accelerations, the added-mass and constraint forces come from the same solve of
        ``(M + A) q'' = F`` in which the PTO forces of every body (coupled through the
        off-diagonal blocks) and the excitation (which, for ``wave.type = input``, weighs
        the current elevation input) appear. The excitation force and the elevation in use
        depend on the elevation input only. Pose, velocity and the other forces are
        functions of the state.
        """
        inputs = Simulator.input_names(bodies, config)
        deps: dict[str, list[str]] = {}
        for name in Simulator.output_names(bodies, config):
            quantity = name.split(".")[-1].split("[")[0]
            if quantity in _FEEDTHROUGH:
                deps[name] = list(inputs)
            elif quantity == "F_excitation" or name == "wave.elevation":
                deps[name] = ["wave.elevation_input"]
            else:
                deps[name] = []
        return deps

    # ------------------------------------------------------------------ assembly
    def _build(self) -> None:
        p = self.parameters
        cfg = self.config
        nb = len(self.bodies)
        n = 6 * nb
        self.n = n
        self.dt = check_positive("max_internal_step", p["max_internal_step"])
        self.scheme = make_scheme(p["time_scheme"])
        self.wave_type = check_choice("wave.type", p["wave.type"], WAVE_TYPES)
        # Checked whatever the wave type, so that a typo never waits for a later switch.
        check_choice("wave.spectrum", p["wave.spectrum"], SPECTRA)
        check_choice("wave.discretization", self.config["wave"]["discretization"],
                     DISCRETIZATIONS)
        if int(p["wave.n_components"]) < 1:
            raise ConfigError(
                f"wave.n_components must be >= 1, got {p['wave.n_components']!r}",
                value=p["wave.n_components"],
            )
        self.radiation_method = check_choice("radiation.method", p["radiation.method"],
                                        RADIATION_METHODS)
        self.added_mass_method = check_choice("added_mass.method", p["added_mass.method"],
                                         ADDED_MASS_METHODS)
        self.ramp_time = check_positive("wave.ramp_time", p["wave.ramp_time"], allow_zero=True)
        self.preview_time = check_positive("excitation.preview_time", p["excitation.preview_time"],
                                      allow_zero=True)
        direction = float(p["wave.direction"])
        if not math.isfinite(direction):
            raise ConfigError(f"wave.direction must be finite, got {direction!r}", value=direction)
        self.direction = direction

        mass = np.zeros((n, n))
        stiffness = np.zeros((n, n))
        offset = np.zeros(n)
        lin = np.zeros((n, n))
        quad = np.zeros(n)
        free = np.zeros(n, dtype=bool)
        q0 = np.zeros(n)
        v0 = np.zeros(n)
        for k, (bc, name) in enumerate(zip(cfg["bodies"], self.names, strict=True)):
            sl = slice(6 * k, 6 * k + 6)
            mass[sl, sl] = np.asarray(bc["mass_matrix"], dtype=float)
            stiffness[sl, sl] = np.asarray(bc["hydrostatic_stiffness"], dtype=float)
            offset[sl] = np.asarray(bc["hydrostatic_offset"], dtype=float)
            lin[sl, sl] = np.asarray(bc["linear_damping"], dtype=float)
            quad[sl] = np.asarray(bc["quadratic_damping"], dtype=float)
            free[sl] = np.asarray(bc["free_dofs"], dtype=bool)
            for i in range(6):
                q0[6 * k + i] = float(p[f"{name}.initial_pose[{i + 1}]"])
                v0[6 * k + i] = float(p[f"{name}.initial_velocity[{i + 1}]"])
        if not (np.all(np.isfinite(q0)) and np.all(np.isfinite(v0))):
            raise ConfigError("initial_pose / initial_velocity must be finite", value=q0.tolist())
        if not np.any(free):
            raise ConfigError("no free degree of freedom: set 'dofs' of at least one body",
                              value=free.tolist())
        fixed_moving = ~free & ((q0 != 0.0) | (v0 != 0.0))
        if np.any(fixed_moving):
            raise ConfigError(
                "initial_pose / initial_velocity is non-zero for fixed DOFs "
                f"{np.flatnonzero(fixed_moving).tolist()}: a fixed DOF stays at equilibrium",
                value=q0.tolist(),
            )
        self.free = free
        self.free_idx = np.flatnonzero(free)
        self.nf = int(free.sum())
        self.mass = mass
        self.hydrostatics = Hydrostatics(stiffness, offset)
        self.viscous = ViscousDamping(lin, quad)
        self.q0 = q0
        self.v0 = v0

        # Radiation and the left-side added mass.
        self.wave_omega = self._representative_omega()
        added = np.zeros((n, n))
        if self.radiation_method == "convolution":
            nk = self._kernel_samples(cfg["radiation"]["irf_duration"])
            t = np.arange(nk) * self.dt
            kernel = np.zeros((nk, n, n))
            for k, hd in enumerate(self.bodies):
                sl = slice(6 * k, 6 * k + 6)
                added[sl, sl] = hd.added_mass_inf
                kernel[:, sl, sl] = radiation_irf(hd, t, **self._irf_options("radiation"))
            self.radiation: ConvolutionRadiation | ConstantRadiation = ConvolutionRadiation(
                kernel, self.dt
            )
            self.report.append(
                f"radiation: convolution, IRF {t[-1]:.3g} s at dt = {self.dt:.3g} s "
                f"({nk} samples), A_inf from "
                f"{', '.join(hd.added_mass_inf_source for hd in self.bodies)}"
            )
        else:
            damping = np.zeros((n, n))
            for k, hd in enumerate(self.bodies):
                sl = slice(6 * k, 6 * k + 6)
                self._check_in_range(hd, self.wave_omega, "radiation.method = constant")
                added[sl, sl], damping[sl, sl] = hd.coefficients_at(self.wave_omega)
            self.radiation = ConstantRadiation(damping)
            self.report.append(
                f"radiation: constant A(w), B(w) at w = {self.wave_omega:.6g} rad/s"
            )
        self.added = added
        # Added mass on the left side (implicit), or partly / not at all with the rest
        # applied to the previous internal step's acceleration (split, lagged).
        self.adj_mass_factor = float(p["added_mass.adj_mass_factor"])
        left = self._left_added_mass(added)
        self.added_left = left
        self.added_lagged = added - left
        self.lagged = bool(np.any(self.added_lagged))
        lhs = mass + left
        lff = lhs[np.ix_(self.free_idx, self.free_idx)]
        try:
            self._chol = scipy.linalg.cho_factor(lff, lower=True, check_finite=True)
        except (np.linalg.LinAlgError, ValueError) as exc:
            eig = np.linalg.eigvalsh(0.5 * (lff + lff.T))
            raise HydroDataError(
                f"the left-side mass matrix ({self.added_mass_method} added mass) on the "
                f"free DOFs is not positive definite (smallest eigenvalue "
                f"{eig[0]:.6g}): check the mass, inertia and added-mass data",
                value=float(eig[0]),
            ) from exc
        self.lhs = lhs
        # The inverse of the (constant, SPD, at most 6N x 6N) left side, from its Cholesky
        # factor: one small mat-vec per right-hand side instead of two triangular solves.
        self._lhs_inv = scipy.linalg.cho_solve(self._chol, np.eye(self.nf))

        # Excitation.
        self.exc_components: ExcitationFromComponents | None = None
        self.exc_input: ExcitationFromInput | None = None
        if self.wave_type in ("regular", "irregular"):
            self._build_wave_components()
        elif self.wave_type == "input":
            self._build_input_excitation()

        self.u = np.zeros(n + 1)
        self.initialize(float(cfg["simulation"].get("start_time", 0.0)))

    def _left_added_mass(self, added: NDArray[np.float64]) -> NDArray[np.float64]:
        """Part of the added mass that goes on the left side of the equation."""
        if self.added_mass_method == "implicit":
            return added.copy()
        if self.added_mass_method == "lagged":
            return np.zeros_like(added)
        # WEC-Sim's split: alpha * (A11 + A22 + A33) on each translational diagonal and the
        # rotational block (made symmetric from its lower triangle) of each body.
        if not (math.isfinite(self.adj_mass_factor) and self.adj_mass_factor >= 0.0):
            raise ConfigError(
                f"added_mass.adj_mass_factor must be a finite number >= 0, got "
                f"{self.adj_mass_factor!r}", value=self.adj_mass_factor,
            )
        left = np.zeros_like(added)
        for k in range(len(self.bodies)):
            b = added[6 * k : 6 * k + 6, 6 * k : 6 * k + 6]
            y = b[0, 0] + b[1, 1] + b[2, 2]
            blk = np.zeros((6, 6))
            blk[:3, :3] = self.adj_mass_factor * y * np.eye(3)
            rot = np.tril(b[3:, 3:])
            blk[3:, 3:] = rot + np.tril(rot, -1).T
            left[6 * k : 6 * k + 6, 6 * k : 6 * k + 6] = blk
        return left

    def _irf_options(self, section: str) -> dict[str, Any]:
        """Frequency cut and taper of an IRF transform, from the configuration."""
        c = self.config.get(section, {})
        omega_max = c.get("omega_max")
        taper = float(c.get("taper", 0.0) or 0.0)
        if omega_max is not None:
            omega_max = check_positive(f"{section}.omega_max", omega_max)
        if not 0.0 <= taper < 1.0:
            raise ConfigError(f"{section}.taper must be in [0, 1), got {taper!r}", value=taper)
        return {"omega_max": omega_max, "taper": taper}

    def _representative_omega(self) -> float:
        period = check_positive("wave.period", self.parameters["wave.period"])
        return 2.0 * math.pi / period

    def _kernel_samples(self, duration: float | None) -> int:
        if duration is None:
            duration = 30.0
        duration = check_positive("radiation.irf_duration", duration)
        return round(duration / self.dt) + 1

    @staticmethod
    def _check_in_range(hd: HydroData, omega: float, what: str) -> None:
        if not (hd.omega[0] <= omega <= hd.omega[-1]):
            raise ConfigError(
                f"{what}: wave frequency {omega:.6g} rad/s (period {2 * math.pi / omega:.6g} s) "
                f"is outside the data of body '{hd.name}' ({hd.omega[0]:.6g}.."
                f"{hd.omega[-1]:.6g} rad/s); choose a period in "
                f"{2 * math.pi / hd.omega[-1]:.4g}..{2 * math.pi / hd.omega[0]:.4g} s",
                value=omega,
            )

    def _build_wave_components(self) -> None:
        p = self.parameters
        height = check_positive("wave.height", p["wave.height"], allow_zero=True)
        period = check_positive("wave.period", p["wave.period"])
        if self.wave_type == "regular":
            wave = RegularWave(height=height, period=period, direction=self.direction)
            for hd in self.bodies:
                self._check_in_range(hd, 2 * math.pi / period, "wave.type = regular")
        else:
            lo = max(hd.omega[0] for hd in self.bodies)
            hi = min(hd.omega[-1] for hd in self.bodies)
            wave = IrregularWave(
                hs=height,
                tp=period,
                spectrum=check_choice("wave.spectrum", p["wave.spectrum"], SPECTRA),
                gamma=float(p["wave.gamma"]),
                direction=self.direction,
                seed=int(p["wave.seed"]),
                n_components=int(p["wave.n_components"]),
                omega_range=(lo, hi),
                discretization=check_choice(
                    "wave.discretization", self.config["wave"]["discretization"],
                    DISCRETIZATIONS,
                ),
            )
        self.wave = wave
        omega, amp, phase = wave.components()
        c_eta = amp * np.exp(1j * phase)
        coef = np.zeros((omega.size, self.n), dtype=complex)
        for k, hd in enumerate(self.bodies):
            ib = hd.direction_index(self.direction)
            x = hd.excitation[:, ib, :]
            for i in range(6):
                xi = np.interp(omega, hd.omega, x[:, i].real) + 1j * np.interp(
                    omega, hd.omega, x[:, i].imag
                )
                coef[:, 6 * k + i] = xi * c_eta
        self.exc_components = ExcitationFromComponents(omega, coef, c_eta)
        self.report.append(
            f"wave: {self.wave_type}, {omega.size} component(s), "
            f"{omega.min():.4g}..{omega.max():.4g} rad/s"
        )
        if isinstance(wave, IrregularWave):
            frac = float(wave.energy_fraction)
            self.report.append(
                f"irregular wave: {100 * frac:.3g} % of the spectrum's energy lies in the "
                f"data's frequency range (Hs of the modelled sea "
                f"{wave.hs * math.sqrt(frac):.4g} m)"
            )

    def _build_input_excitation(self) -> None:
        duration = self.config["excitation"].get("irf_duration") or 30.0
        duration = check_positive("excitation.irf_duration", duration)
        preview = self.preview_time
        nk = math.floor((preview + duration) / self.dt) + 1
        tau = -preview + np.arange(nk) * self.dt
        kernel = np.zeros((nk, self.n))
        opts = self._irf_options("excitation")
        cut = []
        for k, hd in enumerate(self.bodies):
            kernel[:, 6 * k : 6 * k + 6] = excitation_irf(hd, tau, self.direction, **opts)
            t_full = np.arange(-duration, duration + 0.5 * self.dt, self.dt)
            full = excitation_irf(hd, t_full, self.direction, **opts)
            cut.append(cutoff_fraction(full, t_full, preview))
        self.exc_input = ExcitationFromInput(kernel, self.dt, preview / self.dt)
        self.excitation_cutoff = cut
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
        self.report.append(
            f"excitation from the elevation input: preview {preview:.3g} s, kernel "
            f"{tau[0]:.3g}..{tau[-1]:.3g} s; part of the non-causal excitation IRF cut off "
            f"(L1 fraction before -preview): {', '.join(parts) or 'none'}"
        )
        large = [f"{name} {100 * f:.2g} %" for name, f in fractions if f > CUTOFF_WARNING]
        if large:
            self.warnings.append(
                f"excitation.preview_time = {preview:.3g} s cuts off more than "
                f"{100 * CUTOFF_WARNING:.0f} % of the excitation IRF ({', '.join(large)}): "
                "the excitation force is distorted; feed the elevation further ahead "
                "(a larger preview_time)"
            )

    # ------------------------------------------------------------------ state
    def initialize(self, start_time: float) -> None:
        """Reset to the initial conditions at ``start_time`` (s)."""
        if not math.isfinite(start_time):
            raise ConfigError(f"start time must be finite, got {start_time!r}", value=start_time)
        self.t0 = float(start_time)
        self.time = self.t0
        self.grid_index = 0
        self.y = np.concatenate([self.q0[self.free], self.v0[self.free]])
        self.radiation.start(self.v0)
        if self.exc_input is not None:
            self.exc_input.start(float(self.u[-1]))
        self._dirty = True
        self._out = np.zeros(len(BODY_OUTPUTS) * self.n + 1)
        self._acc_prev = np.zeros(self.n)

    @property
    def grid_time(self) -> float:
        """Time of the newest history sample, s."""
        return self.t0 + self.grid_index * self.dt

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """Every internal array, copied (the state vector, time, histories, inputs)."""
        st = {
            "y": self.y.copy(),
            "clock": np.array([self.t0, self.time]),
            "grid_index": np.array([self.grid_index], dtype=np.int64),
            "u": self.u.copy(),
            "acc_prev": self._acc_prev.copy(),
        }
        st.update(self.radiation.get_state())
        if self.exc_input is not None:
            st.update(self.exc_input.get_state())
        for k, v in self.scheme.get_state().items():
            st[f"scheme.{k}"] = v
        return st

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore a state saved by :meth:`get_state` (same model and parameters)."""
        y = np.asarray(state["y"], dtype=float)
        if y.shape != self.y.shape:
            raise ConfigError(
                f"state vector has shape {y.shape}, this model needs {self.y.shape}",
                value=y.shape,
            )
        self.y = y.copy()
        self.t0, self.time = (float(x) for x in state["clock"])
        self.grid_index = int(state["grid_index"][0])
        self.u = np.asarray(state["u"], dtype=float).copy()
        self._acc_prev = np.asarray(state["acc_prev"], dtype=float).copy()
        self.radiation.set_state(state)
        if self.exc_input is not None:
            self.exc_input.set_state(state)
        self.scheme.set_state(
            {k[len("scheme."):]: v for k, v in state.items() if k.startswith("scheme.")}
        )
        self._dirty = True

    # ------------------------------------------------------------------ dynamics
    def set_input_vector(self, u: NDArray[np.float64]) -> None:
        """Set all inputs (order of :meth:`input_names`): N, N m, then m."""
        u = np.asarray(u, dtype=float)
        if u.shape != self.u.shape:
            raise InputError(f"expected {self.u.size} inputs, got {u.size}", value=u.shape)
        self.u = u.copy()
        self._dirty = True

    def _check_inputs(self) -> None:
        bad = np.flatnonzero(~np.isfinite(self.u))
        if bad.size:
            names = self.input_names(self.bodies, self.config)
            listed = ", ".join(f"{names[i]} = {float(self.u[i])}" for i in bad)
            raise InputError(
                f"non-finite input(s) at t = {self.time:.6g} s: {listed}; the step is "
                "refused and the state kept", value=[names[i] for i in bad],
            )

    def _full(self, y: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        q = np.zeros(self.n)
        v = np.zeros(self.n)
        q[self.free_idx] = y[: self.nf]
        v[self.free_idx] = y[self.nf :]
        return q, v

    def _ramp(self, t: float) -> float:
        """Half-cosine ramp of the excitation (same as :func:`waves.ramp`, scalar)."""
        x = t - self.t0
        if self.ramp_time <= 0.0 or x >= self.ramp_time:
            return 1.0
        if x <= 0.0:
            return 0.0
        return 0.5 * (1.0 - math.cos(math.pi * x / self.ramp_time))

    def _excitation_force(self, t: float, s: float) -> NDArray[np.float64] | None:
        if self.exc_components is not None:
            return self._ramp(t) * self.exc_components.force(t)
        if self.exc_input is not None:
            return self._ramp(t) * self.exc_input.force(s, float(self.u[-1]))
        return None

    def _elevation(self, t: float, s: float) -> float:
        if self.exc_components is not None:
            return self._ramp(t) * self.exc_components.elevation(t)
        if self.exc_input is not None:
            return self._ramp(t) * self.exc_input.elevation(s, float(self.u[-1]))
        return 0.0

    def _total_force(
        self, t: float, q: NDArray[np.float64], v: NDArray[np.float64], sn: float,
        vn: NDArray[np.float64],
    ) -> NDArray[np.float64]:
        """Sum of all forces but the added-mass and constraint forces, shape (n,)."""
        s = t - self.grid_time
        total = self.hydrostatics.force(q)
        total += self.radiation.force(s, sn, v, vn)
        f_exc = self._excitation_force(t, s)
        if f_exc is not None:
            total += f_exc
        if self.viscous.active:
            total += self.viscous.force(v)
        return self._add_inputs_and_lag(total)

    def _add_inputs_and_lag(self, total: NDArray[np.float64]) -> NDArray[np.float64]:
        """Add the PTO inputs and, for split/lagged added mass, the lagged added-mass force
        to a sum of the state-dependent forces (in place); returns it."""
        total += self.u[: self.n]
        if self.lagged:
            total -= self.added_lagged @ self._acc_prev
        return total

    def _forces(
        self, t: float, y: NDArray[np.float64], sn: float, vn: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], dict[str, NDArray[np.float64]], float]:
        """Every force term separately (for the outputs)."""
        q, v = self._full(y)
        s = t - self.grid_time
        f_hs = self.hydrostatics.force(q)
        f_rad = self.radiation.force(s, sn, v, vn)
        f_exc = self._excitation_force(t, s)
        if f_exc is None:
            f_exc = np.zeros(self.n)
        f_visc = self.viscous.force(v)
        total = self._add_inputs_and_lag(f_hs + f_rad + f_exc + f_visc)
        parts = {"F_hydrostatic": f_hs, "F_radiation": f_rad, "F_excitation": f_exc,
                 "F_viscous": f_visc, "pose": q, "velocity": v}
        return total, parts, self._elevation(t, s)

    def _rhs_factory(self, t_n: float, y_n: NDArray[np.float64]):
        sn_base = t_n - self.grid_time
        _, vn = self._full(y_n)
        nf = self.nf
        free = self.free_idx
        inv = self._lhs_inv
        dy = np.empty(2 * nf)

        def rhs(t: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
            q, v = self._full(y)
            total = self._total_force(t, q, v, sn_base, vn)
            out = dy.copy()
            out[:nf] = y[nf:]
            out[nf:] = inv @ total[free]
            return out

        return rhs

    def step(self, t: float, h: float) -> None:
        """Advance from ``t`` to ``t + h`` (s) with internal steps of at most ``dt``.

        Raises
        ------
        InputError
            A non-finite input; nothing is changed.
        IntegrationError
            A non-finite or diverging state; the state is restored to ``t``.
        """
        if not (math.isfinite(h) and h > 0.0):
            raise IntegrationError(f"communication step must be > 0, got {h!r}", value=h)
        if abs(t - self.time) > 1e-9 * max(1.0, abs(t)) + 1e-12:
            raise IntegrationError(
                f"doStep from t = {t!r} s but the model is at t = {self.time!r} s",
                value=t,
            )
        self._check_inputs()
        saved = self.get_state()
        try:
            self._advance(t + h)
        except IntegrationError:
            self.set_state(saved)
            raise
        self._dirty = True

    def _advance(self, t_end: float) -> None:
        # Grid times and the importer's communication points agree to round-off, which grows
        # with t: compare with a tolerance of a few ulps of t_end, at least 1e-9 dt.
        eps = max(1e-9 * self.dt, 8.0 * float(np.spacing(abs(t_end))))
        if self.exc_input is not None and self.time - self.grid_time <= eps:
            self.exc_input.overwrite_newest(float(self.u[-1]))
        while self.time < t_end - eps:
            t_grid_next = self.t0 + (self.grid_index + 1) * self.dt
            on_grid = t_grid_next <= t_end + eps
            t_next = t_grid_next if on_grid else t_end
            h = t_next - self.time
            rhs = self._rhs_factory(self.time, self.y)
            y_new = self.scheme.step(rhs, self.time, self.y, h)
            if np.max(np.abs(y_new)) > DIVERGENCE_LIMIT:
                raise IntegrationError(
                    f"the solution diverges at t = {t_next:.6g} s (|state| = "
                    f"{np.max(np.abs(y_new)):.3g} > {DIVERGENCE_LIMIT:g}); reduce "
                    "max_internal_step or check the mass, stiffness and damping data",
                    value=t_next,
                )
            self.y = y_new
            self.time = t_next
            if self.lagged:
                self._acc_prev = self._acceleration(self.time, self.y)
            if on_grid:
                self.grid_index += 1
                self.time = self.grid_time
                _, v = self._full(self.y)
                self.radiation.commit(v)
                if self.exc_input is not None:
                    self.exc_input.commit(float(self.u[-1]))
        self.time = t_end if abs(self.time - t_end) <= eps else self.time

    def _acceleration(self, t: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """q'' at (t, y) with the current inputs and lagged acceleration, shape (n,)."""
        q, v = self._full(y)
        total = self._total_force(t, q, v, t - self.grid_time, v)
        acc = np.zeros(self.n)
        acc[self.free_idx] = self._lhs_inv @ total[self.free_idx]
        return acc

    def output_vector(self) -> NDArray[np.float64]:
        """All outputs at the current time with the current inputs (order of output_names)."""
        if self._dirty:
            self._evaluate_outputs()
        return self._out

    def _evaluate_outputs(self) -> None:
        if self.exc_input is not None and self.time - self.grid_time <= 1e-9 * self.dt:
            if np.isfinite(self.u[-1]):
                self.exc_input.overwrite_newest(float(self.u[-1]))
        if not np.all(np.isfinite(self.u)):
            return  # keep the last good outputs; step() reports the bad input
        sn = self.time - self.grid_time
        _, vn = self._full(self.y)
        total, parts, eta = self._forces(self.time, self.y, sn, vn)
        acc = np.zeros(self.n)
        acc[self.free_idx] = self._lhs_inv @ total[self.free_idx]
        # The added-mass force the model applies: -A q'' (implicit), with the lagged part
        # on the previous step's acceleration for split / lagged.
        f_am = -self.added_left @ acc - self.added_lagged @ self._acc_prev
        # Reaction on the fixed DOFs: what keeps their acceleration zero.
        f_c = self.lhs @ acc - total
        f_c[self.free_idx] = 0.0
        parts["acceleration"] = acc
        parts["F_added_mass"] = f_am
        parts["F_constraint"] = f_c
        parts["F_mooring"] = np.zeros(self.n)
        out = np.empty_like(self._out)
        j = 0
        for k in range(len(self.bodies)):
            sl = slice(6 * k, 6 * k + 6)
            for quantity in BODY_OUTPUTS:
                out[j : j + 6] = parts[quantity][sl]
                j += 6
        out[-1] = eta
        if np.all(np.isfinite(out)):
            self._out = out
            self._dirty = False
        else:  # pragma: no cover - guarded by the step checks
            raise IntegrationError("non-finite output", value=self.time)
