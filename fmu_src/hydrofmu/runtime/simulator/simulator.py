"""The equation of motion assembled from parts, ``y' = f(t, y)``, and its stepping.

For the stacked DOFs of all bodies (6 per body, reference point, small rotations)::

    (M + A) q'' = sum of the parts' forces + F_c,      q = T q_r

The parts (``parts.py``; the built-in ones are listed in ``forces/catalog.py``) declare
their inputs, outputs, added mass, states and memory; this module assembles them and names
none. ``A`` (the parts' added mass) is on the left side and factorised once (the
``implicit`` treatment; ``split`` and ``lagged`` move part of it to the previous internal
step's acceleration). The constraints (``constraints.py``) reduce the coordinates; their
reaction is reported as ``F_constraint``. The state vector is ``[q_r, v_r, x_1, x_2...]``
with ``x_k`` the continuous states of part k.

:class:`Simulator` knows nothing of FMI: the FMU face (``fmi/slave.py``) calls its
``set_input_vector``, ``step`` and ``output_vector``. Its collaborators are its own typed
fields: the read-only :class:`~.assembly.Assembly`, the time scheme (which advances the
simulator through the :class:`~hydrofmu.runtime.schemes.base.SteppedSystem` face below),
the :class:`~.output_cache.OutputCache` and the :class:`~.tunable.ParameterTuner`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..bodies.dynamics import LargeRotationDynamics
from ..errors import ConfigError, InputError, IntegrationError
from ..hydrodata.model import HydroData
from ..linear.model import assemble
from ..linear.stepper import SinusoidBank
from ..parameters.checks import check_parameters
from ..parameters.table import ParameterSpec, body_names, config_value
from ..parts.part import Context, Part
from ..schemes.base import DIVERGENCE_LIMIT, Interval, IntervalStepper, grid_tolerance
from ..schemes.registry import make_scheme
from ..schemes.right_hand_side import RightHandSide
from .assembly import Assembly, body_arrays
from .layout import (
    ModelInterface,
    PartSpec,
    asymmetry_warning,
    build_parts,
    output_table,
    parameter_table,
    part_specs,
)
from .local_steps import StatePartition
from .output_cache import OutputCache
from .outputs import OutputMap, general_outputs
from .rhs import LinearForm, PartSumRHS
from .step_rhs import RhsBuilder
from .tunable import ParameterTuner

__all__ = ["DIVERGENCE_LIMIT", "Simulator"]


class Simulator(ModelInterface):
    """Time-domain simulator of one or more bodies in waves.

    Parameters
    ----------
    bodies
        Hydrodynamic data, one per body, in the order of ``config["bodies"]``.
    config
        Resolved configuration (:func:`hydrofmu.config.configuration.resolve` writes it).
    parameters
        FMU parameter values overriding the configuration's defaults, by name (see
        :func:`~hydrofmu.runtime.simulator.layout.parameter_table`); validated by
        :func:`~hydrofmu.runtime.parameters.checks.check_parameters`.
    parts
        Extra part classes (or ``(class, options)`` pairs) after the configured ones.

    Attributes
    ----------
    assembly
        The assembled structure, read-only (:class:`~.assembly.Assembly`: its
        ``multiplier_map``, ``acc_map``, ``lhs``...), what the output assembly, the linear
        model and the steppers read.
    scheme
        The time scheme, bound to the linear model; it advances the simulator.
    linear_model, linear_form
        The linear model (:mod:`hydrofmu.runtime.linear.model`); the assembled
        ``y' = J y + E g(t)`` (:class:`~.rhs.LinearForm`) or ``None`` (a nonlinear state).
    output_cache, rhs_builder, tuner, partition
        The collaborators: :class:`~.output_cache.OutputCache`,
        :class:`~.step_rhs.RhsBuilder`, :class:`~.tunable.ParameterTuner`, the
        :class:`~.local_steps.StatePartition` (or ``None``).
    y, u, time, t0, grid_index, dt, acc_prev
        The state (n_states,), the inputs (n_in,), the time (s), the start of the run (s),
        the newest history sample's index, the history grid's step (s), the previous
        internal step's acceleration (n,) for the lagged added mass.
    ctx
        The evaluation context shared by the parts (filled in place).
    """

    def __init__(self, bodies: list[HydroData], config: dict[str, Any],
                 parameters: dict[str, Any] | None = None, *,
                 parts: Sequence[PartSpec] = ()) -> None:
        self.bodies = list(bodies)
        self.config = config
        self.names = body_names(config)
        if len(self.names) != len(self.bodies):
            raise ConfigError(f"{len(self.names)} bodies configured but {len(self.bodies)} "
                              "data sets given", value=len(self.bodies))
        self.extra_parts = list(parts)
        # The one check (parameters/checks.py): the sizes before anything is allocated,
        # then every entry and the cross-conditions.
        table = parameter_table(bodies, config, self.extra_parts)
        self.parameters = check_parameters(table, config, parameters)
        self.report: list[str] = []
        self.warnings: list[str] = []
        self._build()
        self.tuner = ParameterTuner(table, config, self.parts)

    @classmethod
    def from_payload(cls, bodies: list[HydroData], config: dict[str, Any],
                     parameters: dict[str, Any] | None = None, *,
                     parts: Sequence[PartSpec] = ()) -> Simulator:
        """Build from the data stored in an FMU (same arguments as the constructor)."""
        return cls(bodies, config, parameters, parts=parts)

    def part(self, kind: str) -> Part:
        """The first part of registry name ``kind`` (for inspection and tests)."""
        for p in self.parts:
            if p.kind == kind:
                return p
        raise KeyError(f"no part {kind!r}; parts: {[p.kind for p in self.parts]}")

    # ------------------------------------------------------------------ assembly
    def _build(self) -> None:
        p, cfg = self.parameters, self.config
        self.n = n = 6 * len(self.bodies)
        self.dt = float(p["max_internal_step"])
        self.scheme = make_scheme(p["time_scheme"])
        self.added_mass_method = p["added_mass.method"]
        self.adj_mass_factor = float(p["added_mass.adj_mass_factor"])

        mass, free, self.q0, self.v0 = body_arrays(cfg, p)
        self.mass = mass

        # The parts, their inputs, states and outputs.
        self.table = output_table(self.bodies, cfg, self.extra_parts)
        self.parts = build_parts(
            part_specs(cfg, self.extra_parts), n_outputs=n * (5 + len(self.table.channels)),
            info=dict(bodies=self.bodies, config=cfg, parameters=p, names=self.names, n=n,
                      dt=self.dt, report=self.report, warnings=self.warnings))
        # A joint's initial angle moves its first body into the consistent initial pose.
        self.q0 = q0 = self.q0 + sum((p.initial_shift() for p in self.parts
                                      if hasattr(p, "initial_shift")), np.zeros(n))
        # The constraints, the left side and its map to the accelerations (read-only, what
        # the output assembly, the linear model and the steppers read; assembly.py). The
        # parts' state slices are shifted past [q_r, v_r] there.
        a = self.assembly = Assembly.build(
            parts=self.parts, table=self.table, mass=mass, free=free,
            added_mass_method=self.added_mass_method, adj_mass_factor=self.adj_mass_factor,
            initial=(q0, self.v0))
        self.constraints, self.nr, self.free = a.constraints, a.nr, a.constraints.free
        self.lhs, self.lagged = a.lhs, a.lagged
        self.added, self.added_left, self.added_lagged = a.added, a.added_left, a.added_lagged
        self.warnings.extend(asymmetry_warning(a.added))
        self._committing = [q for q in self.parts if type(q).commit is not Part.commit]
        self._listening = [q for q in self.parts if type(q).new_inputs is not Part.new_inputs]
        # Local time steps (local_steps.py).
        self.partition = StatePartition.build(self.assembly, self.report)
        self.ctx, self.large = Context(), LargeRotationDynamics.build(  # bodies/dynamics.py
            a, mass, self.added_mass_method, self.partition)
        self.rhs_builder = RhsBuilder(self.assembly, self.ctx, self.partition, self.large)
        self.output_cache = OutputCache(len(self.table.outputs), by_parts=self.outputs_by_parts,
                                        context=self.output_context)
        self.u = np.zeros(len(self.table.inputs))
        self.set_input_vector(self.u)
        self.initialize(float(config_value(cfg, "simulation", "start_time")))
        self.reassemble()

    # ------------------------------------------------------------------ state
    def initialize(self, start_time: float) -> None:
        """Reset to the initial conditions at ``start_time`` (s)."""
        if not math.isfinite(start_time):
            raise ConfigError(f"start time must be finite, got {start_time!r}", value=start_time)
        self.t0 = float(start_time)
        self.time = self.t0
        self.grid_index = 0
        c = self.constraints
        parts_x = [p.initial_states() for p in self.rhs_builder.stateful]
        self.y = np.concatenate([c.reduce(self.q0), c.reduce(self.v0), *parts_x])
        ctx = self._context(self.time, self.y, 0.0)
        for part in self.parts:
            part.start(ctx)
        self.output_cache.reset()
        self.acc_prev = np.zeros(self.n)

    def grid_tolerance(self, t: float) -> float:
        """How far (s) a communication time ``t`` (s) may be from a grid time and still be
        it (:func:`~hydrofmu.runtime.schemes.base.grid_tolerance`)."""
        return grid_tolerance(t, self.t0, self.dt)

    @property
    def grid_time(self) -> float:
        """Time of the newest history sample, s."""
        return self.t0 + self.grid_index * self.dt

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """Every internal array, copied (the state vector, time, memories, inputs)."""
        st = {"y": self.y.copy(), "clock": np.array([self.t0, self.time]),
              "grid_index": np.array([self.grid_index], dtype=np.int64),
              "u": self.u.copy(), "acc_prev": self.acc_prev.copy()}
        for part in self.parts:
            st.update(part.get_memory())
        for k, v in self.scheme.get_state().items():
            st[f"scheme.{k}"] = v
        return st

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore a state saved by :meth:`get_state` (same model and parameters)."""
        y = np.asarray(state["y"], dtype=float)
        if y.shape != self.y.shape:
            raise ConfigError(f"state vector has shape {y.shape}, this model needs "
                              f"{self.y.shape}", value=y.shape)
        self.y = y.copy()
        self.t0, self.time = (float(x) for x in state["clock"])
        self.grid_index = int(state["grid_index"][0])
        self.set_input_vector(np.asarray(state["u"], dtype=float))
        self.acc_prev = np.asarray(state["acc_prev"], dtype=float).copy()
        for part in self.parts:
            part.set_memory(state)
        self.scheme.set_state({k[len("scheme."):]: v for k, v in state.items()
                               if k.startswith("scheme.")})
        self.output_cache.invalidate()

    # ------------------------------------------------------------------ dynamics
    def set_input_vector(self, u: NDArray[np.float64]) -> None:
        """Set all inputs (order of :meth:`input_names`)."""
        u = np.array(u, dtype=float)  # a copy
        if u.shape != self.u.shape:
            raise InputError(f"expected {self.u.size} inputs, got {u.size}", value=u.shape)
        self.u = u
        total = float(u.sum())  # finite inputs give 0.0 below (or overflow: checked then)
        self._u_finite = total - total == 0.0 or bool(np.isfinite(u).all())
        self.output_cache.invalidate()

    def _check_inputs(self) -> None:
        if self._u_finite:
            return
        bad = np.flatnonzero(~np.isfinite(self.u))
        names = [p.name for p in self.table.inputs]
        listed = ", ".join(f"{names[i]} = {float(self.u[i])}" for i in bad)
        raise InputError(f"non-finite input(s) at t = {self.time:.6g} s: {listed}; the step "
                         "is refused and the state kept", value=[names[i] for i in bad])

    def _context(self, t: float, y: NDArray[np.float64], sn: float,
                 vn: NDArray[np.float64] | None = None,
                 u: NDArray[np.float64] | None = None) -> Context:
        """Fill the shared evaluation context for time ``t``, state ``y`` and inputs ``u``
        (default: the current inputs)."""
        ctx = self.ctx
        ctx.t, ctx.t0, ctx.sn = t, self.t0, sn
        ctx.s = t - (self.t0 + self.grid_index * self.dt)
        ctx.q, ctx.v = (self.large or self.constraints).expand_pair(y)
        ctx.vn = ctx.v if vn is None else vn
        ctx.u = self.u if u is None else u
        ctx.y = y
        return ctx

    def _step_args(self) -> dict[str, Any]:  # the run's values for step_rhs.py
        return dict(t0=self.t0, t_grid=self.grid_time, u=self.u,
                    lag=(self.added_lagged @ self.acc_prev) if self.lagged else None)

    def part_sum(self, t_n: float, y_n: NDArray[np.float64]) -> PartSumRHS:
        """``f(t, y)`` for the internal step from ``(t_n, y_n)`` (s, state) as the sum over
        the parts, whatever the model (what the linear form is checked against)."""
        return self.rhs_builder.part_sum(t_n, y_n, **self._step_args())

    def right_hand_side(self, t_n: float, y_n: NDArray[np.float64]) -> RightHandSide:
        """``f(t, y)`` for the internal step from ``(t_n, y_n)``
        (:meth:`~.step_rhs.RhsBuilder.build`: by :attr:`linear_form` if not ``None``)."""
        return self.rhs_builder.build(
            t_n, y_n, linear_form=self.linear_form, **self._step_args(),
            linear_part=self.linear_model.f if self.scheme.uses_linear_part else None)

    def reassemble(self) -> None:
        """(Re)assemble what the parameters determine: the linear form, the linear model
        (its output map) and the scheme's binding to it (``TimeScheme.bind``)."""
        self.linear_form = LinearForm.assemble(self.parts, self.constraints.basis,
                                               self.assembly.acc_map, self.assembly.n_states)
        self.linear_model = assemble(self.assembly)
        self.sinusoids = SinusoidBank(self.linear_model.omega)
        self.output_cache.output_map = None if self.partition is not None else OutputMap.build(
            self.assembly, self.linear_model, self.sinusoids, reference=self.outputs_by_parts,
            context=self.output_context, t0=self.t0, warnings=self.warnings)
        self.scheme.bind(self.linear_model, dt=self.dt, bank=self.sinusoids, t0=self.t0,
                         added_mass_method=self.added_mass_method,
                         local_steps=self.partition is not None)
        self.output_cache.invalidate()

    @property
    def interval_stepper(self) -> IntervalStepper | None:
        """The scheme's ``interval_map``, or ``None`` (internal steps); setting it to ``None``
        steps stagewise (comparisons), until a tunable parameter changes."""
        return self.scheme.interval_map

    @interval_stepper.setter
    def interval_stepper(self, stepper: IntervalStepper | None) -> None:
        self.scheme.interval_map = stepper

    def step(self, t: float, h: float) -> None:
        """Advance from ``t`` to ``t + h`` (s) with internal steps of at most ``dt``.

        Raises :class:`InputError` for a non-finite input (nothing changed) and
        :class:`IntegrationError` for a non-finite or diverging state (restored to ``t``).
        """
        if not (math.isfinite(h) and h > 0.0):
            raise IntegrationError(f"communication step must be > 0, got {h!r}", value=h)
        if abs(t - self.time) > 1e-9 * max(1.0, abs(t)) + 1e-12:
            raise IntegrationError(f"doStep from t = {t!r} s but the model is at "
                                   f"t = {self.time!r} s", value=t)
        self._check_inputs()
        self.scheme.advance(self, t + h)  # by its map, or internal steps (the hooks below)
        self.output_cache.invalidate()

    # ------------------------------------------------------------------ the scheme's hooks
    def start_on_grid(self) -> None:
        """Step from the grid time itself (the importer's round-off absorbed, so that every
        internal step is ``dt``); the parts that listen take the new inputs."""
        self.time = self.grid_time
        ctx = self._context(self.time, self.y, 0.0)
        for part in self._listening:
            part.new_inputs(ctx)

    def accept_step(self, y: NDArray[np.float64], time: float, on_grid: bool) -> None:
        """Commit an internal step's state ``y`` at ``time`` (s); ``on_grid``: the step
        ends on the next grid time, where the parts commit their memories."""
        self.y = y
        self.time = time
        if self.lagged:
            self.acc_prev = self._acceleration(self.time, self.y)
        if on_grid:
            self.grid_index += 1
            self.time = self.grid_time
            ctx = self._context(self.time, self.y, 0.0)
            for part in self._committing:
                part.commit(ctx)

    def accept_interval(self, interval: Interval) -> None:
        """Commit the end of an interval taken by the scheme's map."""
        self.y, self.time, self.grid_index = interval

    def _acceleration(self, t: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """q'' at (t, y) with the current inputs and lagged acceleration, shape (n,)."""
        y_dot = self.right_hand_side(t, y)(t, y)
        return self.constraints.basis @ y_dot[self.nr : 2 * self.nr]

    # ------------------------------------------------------------------ outputs
    def output_context(self, t: float, y: NDArray[np.float64], u: NDArray[np.float64]) -> Context:
        """The context of the outputs at ``(t, y, u)`` (off the history grid's time)."""
        return self._context(t, y, t - self.grid_time, u=u)

    def outputs_by_parts(self, t: float, y: NDArray[np.float64],
                         u: NDArray[np.float64]) -> NDArray[np.float64]:
        """All outputs at ``(t, y, u)`` asked of the parts one by one (outputs.py), shape
        (n_out,); on the history grid the parts that listen to new inputs take them first."""
        if t - self.grid_time <= 1e-9 * self.dt:
            ctx = self._context(t, y, 0.0, u=u)
            for part in self._listening:
                part.new_inputs(ctx)
        return general_outputs(self.assembly, self.output_context(t, y, u), self.acc_prev,
                               self.large)

    @property
    def output_map(self) -> OutputMap | None:
        """The linear output map the outputs come from, or ``None`` (part by part: a model
        not linear, local time steps, or a map that failed its check, in ``warnings``)."""
        return self.output_cache.output_map

    def part_outputs(self) -> NDArray[np.float64]:
        """All outputs now, asked of the parts one by one, shape (n_out,)."""
        return self.outputs_by_parts(self.time, self.y, self.u)

    def output_vector(self) -> NDArray[np.float64]:
        """All outputs at the current time with the current inputs (order of output_names)."""
        return self.output_cache.vector(self.time, self.y, self.u, self.t0, self._u_finite)

    # ------------------------------------------------------------------ parameters
    def parameter_specs(self) -> dict[str, ParameterSpec]:
        """The model's parameter table by name."""
        return self.tuner.specs

    def set_parameter(self, name: str, value: Any) -> Any:
        """Change the ``tunable`` parameter ``name`` (e.g. ``"pto.float.damping"``) to
        ``value`` (in its unit) between steps; it acts from the next step on, states,
        memories and time kept. Returns the validated value; :class:`ConfigError` for an
        unknown or ``fixed`` parameter or a value the table refuses (nothing changed;
        :meth:`~.tunable.ParameterTuner.tune`)."""
        v, self.parameters = self.tuner.tune(name, value, self.parameters)
        self.reassemble()  # the linear model, its output map, the scheme's binding
        return v
