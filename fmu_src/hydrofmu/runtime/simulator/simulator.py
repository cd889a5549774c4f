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

:class:`Simulator` knows nothing of FMI: the FMU face (``fmi_slave.py``) calls its
``set_input_vector``, ``step`` and ``output_vector``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, InputError, IntegrationError
from ..hydrodata.model import HydroData
from ..linear.model import assemble
from ..linear.stepper import SinusoidBank
from ..parameters.checks import check_parameters
from ..parameters.table import body_names
from ..parts.part import Context, Part
from ..schemes.base import DIVERGENCE_LIMIT
from ..schemes.registry import make_scheme
from .assembly import Assembly, body_arrays
from .intervals import interval_stepper
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
from .outputs import OutputMap
from .rhs import RHS, LinearForm, part_sum_rhs
from .simulator_outputs import SimulatorOutputs
from .tunable import Tunable

__all__ = ["DIVERGENCE_LIMIT", "Simulator"]


class Simulator(Tunable, SimulatorOutputs, ModelInterface):
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
        The assembled structure, read-only (:class:`~.assembly.Assembly`): what the output
        assembly, the linear model and the steppers read.
    interval_stepper
        The linear model's map over a communication step chosen for the scheme
        (``intervals.py``), or ``None`` (internal steps); setting it to ``None`` steps
        stagewise (comparisons), until a tunable parameter changes.
    """

    def __init__(
        self,
        bodies: list[HydroData],
        config: dict[str, Any],
        parameters: dict[str, Any] | None = None,
        *,
        parts: Sequence[PartSpec] = (),
    ) -> None:
        self.bodies = list(bodies)
        self.config = config
        self.names = body_names(config)
        if len(self.names) != len(self.bodies):
            raise ConfigError(
                f"{len(self.names)} bodies configured but {len(self.bodies)} data sets given",
                value=len(self.bodies),
            )
        self.extra_parts = list(parts)
        # The one check (parameters/checks.py): the sizes before anything is allocated,
        # then every entry and the cross-conditions.
        self.parameters = check_parameters(
            parameter_table(bodies, config, self.extra_parts), config, parameters)
        self.report: list[str] = []
        self.warnings: list[str] = []
        self._build()

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
        self._multiplier_map, self._acc_map, self.lhs = a.multiplier_map, a.acc_map, a.lhs
        self.added, self.added_left, self.added_lagged = a.added, a.added_left, a.added_lagged
        self.lagged = a.lagged
        self.warnings.extend(asymmetry_warning(a.added))
        self._stateful = [q for q in self.parts if q.n_states]
        self._forces = [q.force for q in self.parts if q.active]
        self._committing = [q for q in self.parts if type(q).commit is not Part.commit]
        self._listening = [q for q in self.parts if type(q).new_inputs is not Part.new_inputs]
        # Local time steps (local_steps.py).
        self.partition = StatePartition.build(self.assembly, self.report)
        self._ctx = Context()
        self.u = np.zeros(len(self.table.inputs))
        self.set_input_vector(self.u)
        self.initialize(float(cfg["simulation"].get("start_time", 0.0)))
        self._retuned()

    # ------------------------------------------------------------------ state
    def initialize(self, start_time: float) -> None:
        """Reset to the initial conditions at ``start_time`` (s)."""
        if not math.isfinite(start_time):
            raise ConfigError(f"start time must be finite, got {start_time!r}", value=start_time)
        self.t0 = float(start_time)
        self.time = self.t0
        self.grid_index = 0
        c = self.constraints
        parts_x = [p.initial_states() for p in self._stateful]
        self.y = np.concatenate([c.reduce(self.q0), c.reduce(self.v0), *parts_x])
        ctx = self._context(self.time, self.y, 0.0)
        for part in self.parts:
            part.start(ctx)
        self._dirty = True
        self._out = np.zeros(len(self.table.outputs))
        self._acc_prev = np.zeros(self.n)

    def grid_tolerance(self, t: float) -> float:
        """How far (s) a communication time ``t`` may be from a grid time and still be it.

        An importer that computes its times as ``t += h`` adds about one rounding of ``t``
        per step (measured: 2.2e-8 s after 3 hours of 0.1 s steps, 1.8e-6 s after 30
        hours): allowed, one ulp of ``t`` per internal step since the start (a bound for
        steps of at least ``dt``), at least 8 ulps and 1e-9 ``dt``, at most ``dt / 4``.
        """
        ulp = math.ulp(t)
        return min(0.25 * self.dt, max(1e-9 * self.dt,
                                       ulp * max(8.0, (t - self.t0) / self.dt)))

    @property
    def grid_time(self) -> float:
        """Time of the newest history sample, s."""
        return self.t0 + self.grid_index * self.dt

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """Every internal array, copied (the state vector, time, memories, inputs)."""
        st = {
            "y": self.y.copy(),
            "clock": np.array([self.t0, self.time]),
            "grid_index": np.array([self.grid_index], dtype=np.int64),
            "u": self.u.copy(),
            "acc_prev": self._acc_prev.copy(),
        }
        for part in self.parts:
            st.update(part.get_memory())
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
        self.set_input_vector(np.asarray(state["u"], dtype=float))
        self._acc_prev = np.asarray(state["acc_prev"], dtype=float).copy()
        for part in self.parts:
            part.set_memory(state)
        self.scheme.set_state(
            {k[len("scheme."):]: v for k, v in state.items() if k.startswith("scheme.")}
        )
        self._dirty = True

    # ------------------------------------------------------------------ dynamics
    def set_input_vector(self, u: NDArray[np.float64]) -> None:
        """Set all inputs (order of :meth:`input_names`)."""
        u = np.array(u, dtype=float)  # a copy
        if u.shape != self.u.shape:
            raise InputError(f"expected {self.u.size} inputs, got {u.size}", value=u.shape)
        self.u = u
        total = float(u.sum())  # finite inputs give 0.0 below (or overflow: checked then)
        self._u_finite = total - total == 0.0 or bool(np.isfinite(u).all())
        self._dirty = True

    def _check_inputs(self) -> None:
        if self._u_finite:
            return
        bad = np.flatnonzero(~np.isfinite(self.u))
        names = [p.name for p in self.table.inputs]
        listed = ", ".join(f"{names[i]} = {float(self.u[i])}" for i in bad)
        raise InputError(
            f"non-finite input(s) at t = {self.time:.6g} s: {listed}; the step is "
            "refused and the state kept", value=[names[i] for i in bad],
        )

    def _context(self, t: float, y: NDArray[np.float64], sn: float,
                 vn: NDArray[np.float64] | None = None,
                 u: NDArray[np.float64] | None = None) -> Context:
        """Fill the shared evaluation context for time ``t``, state ``y`` and inputs ``u``
        (default: the current inputs)."""
        ctx = self._ctx
        ctx.t, ctx.t0, ctx.sn = t, self.t0, sn
        ctx.s = t - (self.t0 + self.grid_index * self.dt)
        ctx.q, ctx.v = self.constraints.expand_pair(y)
        ctx.vn = ctx.v if vn is None else vn
        ctx.u = self.u if u is None else u
        ctx.y = y
        return ctx

    def _rhs_factory(self, t_n: float, y_n: NDArray[np.float64]) -> RHS:
        """``f(t, y)`` for the internal step from ``(t_n, y_n)`` (rhs.py): the assembled
        linear form (plus the stateless parts that are not linear) unless a part with
        states is not linear or a local-time-step scheme runs; else the sum over the parts."""
        t_grid = self.grid_time
        lag = (self.added_lagged @ self._acc_prev) if self.lagged else None
        ctx = self._ctx
        ctx.t0, ctx.sn, ctx.u = self.t0, t_n - t_grid, self.u
        expand = self.constraints.expand_pair
        ctx.vn = expand(y_n)[1]
        if self._linear is not None and self.partition is None:
            rhs = self._linear.rhs(ctx, t_grid, lag, expand)
        else:
            rhs = part_sum_rhs(ctx, expand, self._forces, self._stateful, self._acc_map,
                               self.nr, t_grid, lag)
            if self.partition is not None:
                rhs = self.partition.rhs(rhs, ctx, expand, t_grid)
        if self.scheme.uses_linear_part:  # etdrk4: the assembled linear part (schemes/base)
            rhs.linear_part = self.linear_model.f  # type: ignore[attr-defined]
        return rhs

    def _retuned(self) -> None:
        """(Re)assemble what the parameters determine: the linear form of the right-hand
        side, the linear model (its output map, if linear) and the interval stepper of the
        linear model (intervals.py: exact, or a Runge-Kutta scheme's map; exact refuses a
        model it cannot step)."""
        self._linear = LinearForm.assemble(self.parts, self.constraints.basis, self._acc_map,
                                           self.assembly.n_states)
        self.linear_model = assemble(self.assembly)
        self.sinusoids = SinusoidBank(self.linear_model.omega)
        self._output_map = None if self.partition is not None else OutputMap.build(
            self.assembly, self.linear_model, self.sinusoids, reference=self._part_outputs,
            context=self._output_context, t0=self.t0, warnings=self.warnings)
        self.interval_stepper = interval_stepper(
            self.scheme, self.linear_model, dt=self.dt, bank=self.sinusoids, t0=self.t0,
            added_mass_method=self.added_mass_method, local_steps=self.partition is not None)
        self._dirty = True

    def step(self, t: float, h: float) -> None:
        """Advance from ``t`` to ``t + h`` (s) with internal steps of at most ``dt``.

        Raises :class:`InputError` for a non-finite input (nothing changed) and
        :class:`IntegrationError` for a non-finite or diverging state (restored to ``t``).
        """
        if not (math.isfinite(h) and h > 0.0):
            raise IntegrationError(f"communication step must be > 0, got {h!r}", value=h)
        if abs(t - self.time) > 1e-9 * max(1.0, abs(t)) + 1e-12:
            raise IntegrationError(
                f"doStep from t = {t!r} s but the model is at t = {self.time!r} s", value=t,
            )
        self._check_inputs()
        t_end = t + h
        # exact, or a Runge-Kutta map of a linear model (intervals.py): the new state is
        # committed here; nothing changed when it raises. None: stagewise.
        stepper = self.interval_stepper
        done = None if stepper is None else stepper.advance(
            self.y, self.u, t0=self.t0, time=self.time, grid_index=self.grid_index,
            t_end=t_end, eps=self.grid_tolerance(t_end))
        if done is None:
            self.advance_stagewise(t_end)
        else:
            self.y, self.time, self.grid_index = done
        self._dirty = True

    def advance_stagewise(self, t_end: float) -> None:
        """Advance to ``t_end`` (s) by the scheme's internal steps; restored to the start
        when it raises :class:`IntegrationError`."""
        saved = self.get_state()
        try:
            self._advance(t_end)
        except IntegrationError:
            self.set_state(saved)
            raise

    def _advance(self, t_end: float) -> None:
        eps = self.grid_tolerance(t_end)
        if abs(self.time - self.grid_time) <= eps:
            # On the grid up to the importer's round-off: step from the grid time itself,
            # so that every internal step is dt (the round-off is absorbed, not stepped).
            self.time = self.grid_time
            ctx = self._context(self.time, self.y, 0.0)
            for part in self._listening:
                part.new_inputs(ctx)
        while self.time < t_end - eps:
            t_grid_next = self.t0 + (self.grid_index + 1) * self.dt
            on_grid = t_grid_next <= t_end + eps
            t_next = t_grid_next if on_grid else t_end
            h = t_next - self.time
            rhs = self._rhs_factory(self.time, self.y)
            y_new = self.scheme.step(rhs, self.time, self.y, h)
            if np.max(np.abs(y_new)) > DIVERGENCE_LIMIT:
                raise IntegrationError(
                    f"the solution diverges at t = {t_next:.6g} s with time scheme '"
                    f"{self.scheme.label}' (h = {h:.3g} s, |state| = {np.max(np.abs(y_new)):.3g}"
                    f" > {DIVERGENCE_LIMIT:g}); reduce max_internal_step or use an implicit "
                    "scheme (e.g. midpoint5), and check the mass, stiffness and damping data",
                    value=t_next)
            self.y = y_new
            self.time = t_next
            if self.lagged:
                self._acc_prev = self._acceleration(self.time, self.y)
            if on_grid:
                self.grid_index += 1
                self.time = self.grid_time
                ctx = self._context(self.time, self.y, 0.0)
                for part in self._committing:
                    part.commit(ctx)
        # Ended on the grid: the time stays the grid time, where the state is (the importer's
        # t_end differs by round-off, within grid_tolerance; step() accepts it next).

    def _acceleration(self, t: float, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """q'' at (t, y) with the current inputs and lagged acceleration, shape (n,)."""
        y_dot = self._rhs_factory(t, y)(t, y)
        return self.constraints.basis @ y_dot[self.nr : 2 * self.nr]
