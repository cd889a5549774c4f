"""The hydrodynamic-load model: the model's force parts evaluated at a prescribed motion.

An importer's multibody solver integrates the bodies and hands the load model each body's
pose, velocity and acceleration; the load model returns the hydrodynamic force split as a
strongly coupled importer needs it::

    F_total = F_hydro - A_inf a,     F_hydro = sum of the parts' forces at (t, q, v, memory)

with ``A_inf`` (6N x 6N, the parts' added mass) handed out so that the importer puts it on
its own left side, ``(M + A_inf) a = F_hydro + F_other``, as the motion FMU does inside.

Physics once: the parts are the simulator's own (a
:class:`~hydrofmu.runtime.simulator.simulator.Simulator` built from the same configuration
and parameters, never stepped), evaluated through the same
:class:`~hydrofmu.runtime.parts.part.Context`; the motion FMU's force outputs at a
communication point are what these parts return there, so the load model driven with the
motion FMU's own motion reproduces its forces (``tests/test_loads_fmu.py``).

Memory: the radiation history is sampled on the grid ``t0 + k dt`` (``dt`` the parameter
``max_internal_step``), as in the motion FMU. The communication step must be a whole
number of ``dt``; inside a longer step the samples come from the cubic Hermite
interpolation of the velocity between the step's two ends (velocity and acceleration at
both), and the parts' continuous states (state-space radiation, MoorDyn lines) are
integrated by RK4 on the grid along the quintic Hermite motion (exactly over the step with
``time_scheme = "exact"``: :mod:`~hydrofmu.runtime.loads.exact`). Memory is committed only
by ``step``: outputs evaluated for a new input (an importer's iteration) see the samples up
to the current time with that input as the newest, and change nothing.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, InputError, IntegrationError
from ..hydrodata.model import HydroData
from ..parameters.checks import check_parameters
from ..parts.part import Context, Part
from ..simulator.layout import PartSpec, parameter_table
from ..simulator.simulator import Simulator
from .exact import ExactStates
from .interface import LoadTable, load_table

__all__ = ["LoadModel", "hermite_motion"]


def hermite_motion(h: float, start: NDArray[np.float64], end: NDArray[np.float64],
                   tau: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Position and velocity at ``tau`` (s, ``0 <= tau <= h``) of the quintic Hermite motion
    through ``start = (q, v, a)`` and ``end`` (rows), over a step of ``h`` s; its velocity
    is the derivative (a quartic through both ends' velocity and acceleration)."""
    s = tau / h
    q0, v0, a0 = start
    q1, v1, a1 = end
    s2, s3, s4, s5 = s * s, s**3, s**4, s**5
    h00 = 1 - 10 * s3 + 15 * s4 - 6 * s5
    h10 = s - 6 * s3 + 8 * s4 - 3 * s5
    h20 = 0.5 * (s2 - 3 * s3 + 3 * s4 - s5)
    h01 = 10 * s3 - 15 * s4 + 6 * s5
    h11 = -4 * s3 + 7 * s4 - 3 * s5
    h21 = 0.5 * (s3 - 2 * s4 + s5)
    d00 = (-30 * s2 + 60 * s3 - 30 * s4) / h
    d10 = 1 - 18 * s2 + 32 * s3 - 15 * s4
    d20 = 0.5 * h * (2 * s - 9 * s2 + 12 * s3 - 5 * s4)
    d11 = -12 * s2 + 28 * s3 - 15 * s4
    d21 = 0.5 * h * (3 * s2 - 8 * s3 + 5 * s4)
    q = h00 * q0 + h * h10 * v0 + h * h * h20 * a0 + h01 * q1 + h * h11 * v1 + h * h * h21 * a1
    v = d00 * q0 + d10 * v0 + d20 * a0 - d00 * q1 + d11 * v1 + d21 * a1
    return q, v


class LoadModel:
    """The force parts of a model driven by a prescribed motion (the load FMU's model).

    It offers the face the FMI collaborators call on a simulator (``initialize``,
    ``set_input_vector``, ``step``, ``output_vector``, ``get_state``, ``set_state``,
    ``set_parameter``, ``report``, ``warnings``, ``dt``, ``scheme``) and the static
    interface of :class:`~hydrofmu.runtime.simulator.layout.ModelInterface`.

    Parameters
    ----------
    bodies, config, parameters, parts
        As for :class:`~hydrofmu.runtime.simulator.simulator.Simulator`.

    Attributes
    ----------
    sim
        The simulator whose parts are evaluated (never stepped).
    table
        The load model's :class:`~hydrofmu.runtime.loads.interface.LoadTable`.
    added_mass
        ``A_inf``, every part's added mass, shape (6N, 6N), kg, kg m, kg m^2.
    time, t0, t_last
        The current time, the start time and the time of the newest committed sample, s
        (``t_last`` is NaN before the first step).
    """

    def __init__(self, bodies: list[HydroData], config: dict[str, Any],
                 parameters: dict[str, Any] | None = None, *,
                 parts: Sequence[PartSpec] = ()) -> None:
        self.table: LoadTable = load_table(bodies, config, parts)
        self.sim = sim = Simulator(bodies, config, parameters, parts=parts)
        self.report = [*sim.report, "export kind 'loads': the forces at the importer's "
                       "motion; A_inf handed out (outputs A_inf[i,j])"]
        self.warnings = sim.warnings
        self.dt = sim.dt
        self.scheme = sim.scheme
        self.n = sim.n
        asm = sim.assembly
        self.added_mass = np.array(asm.added)
        self.parts: list[Part] = [p for p in asm.parts if p.active]
        self._stateful = [p for p in asm.parts if p.n_states > 0]
        self._exact: ExactStates | None = None  # time_scheme = "exact": loads/exact.py
        self._x_offset = 2 * sim.nr  # the parts' state slices follow [q_r, v_r]
        self._rows = asm.channel_rows
        self._part_in = np.array(self.table.part_inputs, dtype=np.intp)
        self._sim_body_out = self.table.n_bodies * 6 * (5 + len(self.table.channels))
        self._sim_part_out = sim.table.outputs[self._sim_body_out:]
        self.u = np.zeros(len(self.table.inputs))
        self.ctx = Context()
        self.initialize(sim.t0)

    # ------------------------------------------------------------------ interface
    @staticmethod
    def input_names(bodies: list[HydroData], config: dict[str, Any],
                    parts: Sequence[PartSpec] = ()) -> list[str]:
        """Scalar input names (motion per body, then the parts' non-PTO inputs)."""
        return [p.name for p in load_table(bodies, config, parts).inputs]

    @staticmethod
    def input_units(bodies: list[HydroData], config: dict[str, Any],
                    parts: Sequence[PartSpec] = ()) -> list[str]:
        """SI units of :meth:`input_names`."""
        return [p.unit for p in load_table(bodies, config, parts).inputs]

    @staticmethod
    def output_names(bodies: list[HydroData], config: dict[str, Any],
                     parts: Sequence[PartSpec] = ()) -> list[str]:
        """Scalar output names (the forces per body, the parts' outputs, ``A_inf[i,j]``)."""
        return [p.name for p in load_table(bodies, config, parts).outputs]

    @staticmethod
    def output_units(bodies: list[HydroData], config: dict[str, Any],
                     parts: Sequence[PartSpec] = ()) -> list[str]:
        """SI units of :meth:`output_names`."""
        return [p.unit for p in load_table(bodies, config, parts).outputs]

    @staticmethod
    def output_dependencies(bodies: list[HydroData], config: dict[str, Any],
                            parts: Sequence[PartSpec] = ()) -> dict[str, dict[str, str]]:
        """Output name -> {input name: ``dependenciesKind``} of its direct inputs."""
        return dict(load_table(bodies, config, parts).kinds)

    @staticmethod
    def check(bodies: list[HydroData], config: dict[str, Any],
              parameters: dict[str, Any] | None = None,
              parts: Sequence[PartSpec] = ()) -> dict[str, Any]:
        """The parameters checked as the constructor checks them (no allocation)."""
        load_table(bodies, config, parts)
        return check_parameters(parameter_table(bodies, config, parts), config, parameters)

    # ------------------------------------------------------------------ state
    def initialize(self, start_time: float) -> None:
        """Reset to the start at ``start_time`` (s): no sample committed, parts at rest."""
        if not math.isfinite(start_time):
            raise ConfigError(f"start time must be finite, got {start_time!r}",
                              value=start_time)
        self.sim.initialize(start_time)
        self.t0 = self.time = float(start_time)
        self.t_last = math.nan
        self.motion_last = np.zeros((3, self.n))
        self.u_last = self.sim_inputs()
        self.x = self.sim.y[self._x_offset:].copy()

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """Every internal array, copied (times, last motion, part states and memories)."""
        st = {"loads.clock": np.array([self.t0, self.time, self.t_last]),
              "loads.motion": self.motion_last.copy(), "loads.x": self.x.copy(),
              "loads.u": self.u.copy(), "loads.u_last": self.u_last.copy()}
        for part in self.parts:
            st.update(part.get_memory())
        return st

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore a state saved by :meth:`get_state` (same model and parameters)."""
        x = np.asarray(state["loads.x"], dtype=float)
        if x.shape != self.x.shape:
            raise ConfigError(f"part states of shape {x.shape}, this model needs "
                              f"{self.x.shape}", value=x.shape)
        self.t0, self.time, self.t_last = (float(v) for v in state["loads.clock"])
        self.motion_last = np.array(state["loads.motion"], dtype=float)
        self.u_last = np.array(state["loads.u_last"], dtype=float)
        self.x = x.copy()
        self.set_input_vector(np.asarray(state["loads.u"], dtype=float))
        for part in self.parts:
            part.set_memory(state)

    def set_parameter(self, name: str, value: Any) -> Any:
        """A tunable parameter (e.g. ``wave.height``), as
        :meth:`hydrofmu.runtime.simulator.simulator.Simulator.set_parameter`."""
        return self.sim.set_parameter(name, value)

    # ------------------------------------------------------------------ inputs
    def set_input_vector(self, u: NDArray[np.float64]) -> None:
        """Set all inputs (order of :meth:`input_names`)."""
        u = np.array(u, dtype=float)
        if u.shape != self.u.shape:
            raise InputError(f"expected {self.u.size} inputs, got {u.size}", value=u.shape)
        self.u = u

    def motion(self) -> NDArray[np.float64]:
        """The current motion inputs as rows ``(q, v, a)``, shape (3, 6N)."""
        nb = self.table.n_bodies
        return self.u[: 18 * nb].reshape(nb, 3, 6).transpose(1, 0, 2).reshape(3, -1)

    def sim_inputs(self) -> NDArray[np.float64]:
        """The simulator's inputs from the current inputs (a PTO force input held at 0)."""
        out = np.zeros(self._part_in.size)
        used = self._part_in >= 0
        out[used] = self.u[self._part_in[used]]
        return out

    # ------------------------------------------------------------------ evaluation
    def _context(self, t: float, q: NDArray[np.float64], v: NDArray[np.float64],
                 x: NDArray[np.float64], u: NDArray[np.float64]) -> Context:
        ctx = self.ctx
        ctx.t, ctx.t0, ctx.s, ctx.sn = t, self.t0, 0.0, 0.0
        ctx.q, ctx.v, ctx.vn, ctx.u = q, v, v, u
        ctx.y = np.concatenate([np.zeros(self._x_offset), x])
        return ctx

    def _samples(self, t: float) -> int:
        """Number of grid samples from the newest committed one to ``t`` (s)."""
        k = (t - self.t_last) / self.dt
        n = round(k)
        if n < 1 or abs(k - n) > 1e-6:
            raise IntegrationError(
                f"the load model's step from t = {self.t_last!r} s to {t!r} s is not a whole "
                f"number of max_internal_step = {self.dt!r} s (the radiation history's "
                "grid): use a communication step that is a multiple of max_internal_step, or "
                "set max_internal_step to the communication step", value=t - self.t_last)
        return n

    def _advance_memory(self, t: float, motion: NDArray[np.float64],
                        u: NDArray[np.float64]) -> None:
        """Commit the samples from the newest committed one up to ``t`` (s, the motion's
        time) into the parts' memories and integrate their states there."""
        if math.isnan(self.t_last):  # the first sample: the parts start at rest before it
            ctx = self._context(t, motion[0], motion[1], self.x, u)
            for part in self.parts:
                part.start(ctx)
        else:
            # As in the motion FMU: over the step the inputs of its start are held (the
            # samples committed with them), the newest sample then takes the new inputs.
            k = self._samples(t)
            h = t - self.t_last
            start, held = self.motion_last, self.u_last
            for j in range(1, k + 1):
                tau_a, tau_b = (j - 1) * h / k, j * h / k
                if self._stateful and self.sim.parameters["time_scheme"] != "exact":
                    self.x = self._rk4(h, start, motion, (tau_a, tau_b), held)
                elif self._stateful and j == k:  # exact over the step (linear parts: their
                    self.x = self._exact_step(h, start, motion, held)  # commits read no x)
                q, v = ((motion[0], motion[1]) if j == k
                        else hermite_motion(h, start, motion, tau_b))
                ctx = self._context(self.t_last + tau_b, q, v, self.x, held)
                for part in self.parts:
                    part.commit(ctx)
            ctx = self._context(t, motion[0], motion[1], self.x, u)
            for part in self.parts:
                part.new_inputs(ctx)
        self.t_last = t
        self.motion_last = np.array(motion)
        self.u_last = np.array(u)

    def _rk4(self, h_all: float, start: NDArray[np.float64], end: NDArray[np.float64],
             taus: tuple[float, float], u: NDArray[np.float64]) -> NDArray[np.float64]:
        """The parts' states from ``t_last + tau_a`` to ``t_last + tau_b`` (s; one RK4 step
        along the Hermite motion from ``start`` to ``end`` over ``h_all`` s)."""
        tau_a, tau_b = taus
        h = tau_b - tau_a

        def f(tau: float, x: NDArray[np.float64]) -> NDArray[np.float64]:
            q, v = hermite_motion(h_all, start, end, tau)
            return self.state_derivative(self.t_last + tau, q, v, x, u)

        x = self.x
        k1 = f(tau_a, x)
        k2 = f(tau_a + h / 2, x + h / 2 * k1)
        k3 = f(tau_a + h / 2, x + h / 2 * k2)
        k4 = f(tau_b, x + h * k3)
        return x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    def _exact_step(self, h: float, start: NDArray[np.float64], end: NDArray[np.float64],
                    u: NDArray[np.float64]) -> NDArray[np.float64]:
        if self._exact is None:
            self._exact = ExactStates(self.state_derivative, self.x.size, self.n, self.t0, u)
        return self._exact.step(self.t_last, h, start, end, u, self.x)

    def state_derivative(self, t: float, q: NDArray[np.float64], v: NDArray[np.float64],
                         x: NDArray[np.float64], u: NDArray[np.float64]
                         ) -> NDArray[np.float64]:
        """The part states' derivative at ``t`` (s), pose ``q``, velocity ``v``, states ``x``
        and the simulator's inputs ``u``."""
        ctx = self._context(t, q, v, x, u)
        dx = np.zeros_like(x)
        for part in self._stateful:
            sl = slice(part.state_slice.start - self._x_offset,
                       part.state_slice.stop - self._x_offset)
            dx[sl] = part.derivative(ctx)
        return dx

    def evaluate(self, t: float, motion: NDArray[np.float64], u: NDArray[np.float64],
                 x: NDArray[np.float64]) -> NDArray[np.float64]:
        """The outputs at ``t`` (s) for the motion rows ``(q, v, a)``, the simulator's
        inputs ``u`` and the part states ``x`` as given (no memory advanced): the map the
        native load FMU assembles (:mod:`hydrofmu.export.native.load_blob`)."""
        saved = self.time, self.x
        self.time, self.x = float(t), np.asarray(x, dtype=float)
        try:
            return self._evaluate(motion, u)
        finally:
            self.time, self.x = saved

    def output_vector(self) -> NDArray[np.float64]:
        """All outputs at the current time with the current inputs (order of
        :meth:`output_names`); the memories are left as committed."""
        motion = self.motion()
        u = self.sim_inputs()
        saved = self._memories()
        try:
            self._advance_memory(self.time, motion, u)
            out = self._evaluate(motion, u)
        finally:
            self._restore(saved)
        return out

    def _memories(self) -> tuple[Any, ...]:
        return (self.t_last, self.motion_last.copy(), self.u_last.copy(), self.x.copy(),
                [p.get_memory() for p in self.parts])

    def _restore(self, saved: tuple[Any, ...]) -> None:
        self.t_last, self.motion_last, self.u_last, self.x, memories = saved
        for part, memory in zip(self.parts, memories, strict=True):
            if memory:
                part.set_memory(memory)

    def _evaluate(self, motion: NDArray[np.float64], u: NDArray[np.float64]
                  ) -> NDArray[np.float64]:
        n, nb = self.n, self.table.n_bodies
        ctx = self._context(self.time, motion[0], motion[1], self.x, u)
        channels = np.zeros((len(self._rows), n))
        total = np.zeros(n)
        for part in self.parts:
            f = part.force(ctx)
            if f is None:
                continue
            total += f
            if part.channel is not None:
                channels[self._rows[part.channel]] += f
        f_am = -self.added_mass @ motion[2]
        blocks = [total, f_am, total + f_am, *channels]  # each (n,), per body below
        body = np.stack([b.reshape(nb, 6) for b in blocks], axis=1).reshape(-1)
        extra = np.zeros(len(self._sim_part_out))
        offset = self._sim_body_out
        for part in self.parts:
            sl = part.output_slice
            if sl.stop > sl.start:
                extra[sl.start - offset: sl.stop - offset] = part.outputs(ctx)
        return np.concatenate([body, extra, self.added_mass.reshape(-1)])

    def step(self, t: float, h: float) -> None:
        """Commit the memory up to the current inputs' time ``t`` (s) and move to ``t + h``
        (s); ``h`` a whole number of ``dt`` (:class:`IntegrationError` otherwise, nothing
        changed), a non-finite input refused (:class:`InputError`)."""
        if not (math.isfinite(h) and h > 0.0):
            raise IntegrationError(f"communication step must be > 0, got {h!r}", value=h)
        if abs(t - self.time) > 1e-9 * max(1.0, abs(t)) + 1e-12:
            raise IntegrationError(f"doStep from t = {t!r} s but the model is at "
                                   f"t = {self.time!r} s", value=t)
        if not np.all(np.isfinite(self.u)):
            raise InputError(f"non-finite input at t = {t:.6g} s; the step is refused",
                             value=t)
        k = (h / self.dt)
        if abs(k - round(k)) > 1e-6 or round(k) < 1:
            raise IntegrationError(
                f"communication step {h!r} s is not a whole number of max_internal_step = "
                f"{self.dt!r} s (the radiation history's grid): use a multiple of it, or set "
                "max_internal_step to the communication step", value=h)
        self._advance_memory(self.time, self.motion(), self.sim_inputs())
        self.time = t + h
