"""The part interface: every force model is a :class:`Part` that declares what it needs.

A part declares, from the configuration alone (so that the FMU's interface is fixed before
any parameter is set):

- its FMU inputs (:meth:`Part.input_ports`) and extra FMU outputs (:meth:`Part.output_ports`),
  with units and whether each output depends directly on the inputs;
- the body output quantity its force is reported in (:attr:`Part.channel`, e.g.
  ``"F_mooring"``; several parts may add to one channel);
- its FMU parameters (:meth:`Part.parameter_specs`, validated with the model's table);

and, once built with the validated parameters (:class:`ModelInfo`):

- the body DOFs it acts on (:attr:`Part.dofs`);
- a constant mass it adds to the left side (:meth:`Part.left_mass`) or an added mass
  (:meth:`Part.added_mass`, e.g. ``A_inf``) treated as ``added_mass.method`` says;
- its continuous states (:attr:`Part.n_states`, :meth:`Part.initial_states`,
  :meth:`Part.derivative`), which the simulator appends to the state vector;
- its memory committed only after an accepted step (:meth:`Part.start`,
  :meth:`Part.commit`, :meth:`Part.get_memory`, :meth:`Part.set_memory`);
- whether it is linear (:meth:`Part.linear_matrices` for a force ``f0 - K q - C v``;
  :meth:`Part.linear_system` for the general linear form with states and inputs, which the
  ``exact`` and ``etdrk4`` time schemes assemble, see ``linear_model.py``; the wave
  excitation's sum of sinusoids through :meth:`Part.sinusoidal_forcing`), and its extra
  outputs (:meth:`Part.linear_outputs`). When every part is linear, the simulator steps
  and reports the assembled linear model and does not call :meth:`Part.new_inputs` or
  :meth:`Part.commit`: a part that declares a linear form keeps no memory of the inputs
  between steps.

The simulator (``system.py``) evaluates parts only through this interface with a
:class:`Context`, one part at a time, so a scheme may evaluate a fast part more often than a
slow one. A new force is one subclass and one :func:`register_part` line.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, did_you_mean
from ..hydrodata.model import HydroData
from ..parameters.table import ParameterSpec
from .linear import LinearOutputs, LinearSystem, SinusoidalForcing

__all__ = ["ALL_INPUTS", "FORCE_UNITS", "Context", "LinearOutputs", "LinearSystem",
           "ModelInfo", "Part", "Port", "SinusoidalForcing", "part_class", "register_part"]

FORCE_UNITS = ("N", "N.m")


#: :attr:`Port.feedthrough` of an output that depends on every input of the model.
ALL_INPUTS: tuple[str, ...] = ("<all inputs>",)


@dataclass(frozen=True)
class Port:
    """One scalar FMU input or output of a part.

    Attributes
    ----------
    name
        FMU variable name, e.g. ``"wave.elevation"``.
    unit
        SI unit (``"m"``, ``"N"``...).
    feedthrough
        Outputs only: the inputs (names) it depends on directly; ``()`` for none,
        :data:`ALL_INPUTS` for every input of the model (the layout fills them in).
    """

    name: str
    unit: str
    feedthrough: tuple[str, ...] = ()


@dataclass
class ModelInfo:
    """What a part may know of the model when it is built.

    Attributes
    ----------
    bodies
        Hydrodynamic data, one per body.
    config
        Resolved configuration.
    parameters
        Validated FMU parameter values by name.
    names
        Body names.
    n
        Number of stacked body DOFs (6 per body).
    dt
        Internal step and grid spacing of histories, s.
    options
        The part's own configuration entry (e.g. one ``[[moorings]]`` table), or ``{}``.
    report, warnings
        Lines the part adds to the model's report and warnings.
    """

    bodies: list[HydroData]
    config: dict[str, Any]
    parameters: dict[str, Any]
    names: list[str]
    n: int
    dt: float
    options: dict[str, Any] = field(default_factory=dict)
    report: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class Context:
    """The data of one evaluation, shared by all parts (mutated in place by the simulator).

    Attributes
    ----------
    t
        Time, s.
    t0
        Start time of the run, s.
    s
        Time since the newest grid sample of the histories, s (``0 <= s <= dt``).
    sn
        Start of the current internal step since the newest grid sample, s.
    q, v
        Displacement and velocity of every body DOF, shape (n,), m, rad, m/s, rad/s.
    vn
        Velocity at the start of the current internal step, shape (n,).
    u
        The full FMU input vector (a part reads its own :attr:`Part.input_slice`).
    y
        The full state vector (a part reads its own :attr:`Part.state_slice`).
    multipliers
        When outputs are evaluated: the multipliers ``lambda`` of the stacked constraint
        rows ``G`` with ``F_c = G^T lambda`` (a joint reads its own rows).
    """

    __slots__ = ("multipliers", "q", "s", "sn", "t", "t0", "u", "v", "vn", "y")

    def __init__(self) -> None:
        self.t = self.t0 = self.s = self.sn = 0.0
        empty = np.zeros(0)
        self.q = self.v = self.vn = self.u = self.y = empty
        #: Constraint multipliers of the stacked constraint rows (outputs only).
        self.multipliers = empty


class Part:
    """Base class of a force model (see the module docstring for the contract).

    Subclasses set :attr:`kind` and :attr:`channel`, implement :meth:`force`, and override
    what they need. ``__init__`` receives the :class:`ModelInfo` as its only keyword.
    """

    #: Registry name.
    kind: ClassVar[str] = ""
    #: Body output quantity the force is reported in (``None``: not reported).
    channel: ClassVar[str | None] = None
    #: The force depends directly on the inputs (through :attr:`input_slice`).
    feedthrough: ClassVar[bool] = False
    #: FMI ``dependenciesKind`` of the force (and the part's outputs) on its own inputs:
    #: ``"constant"`` when it is the inputs times a factor fixed at export (no parameter,
    #: no state, no time), else ``"dependent"`` (the default, e.g. a user part)
    #: (:mod:`hydrofmu.runtime.simulator.dependency_kinds`).
    input_kind: ClassVar[str] = "dependent"
    #: Number of continuous states.
    n_states: int = 0
    #: False when :meth:`force` always returns ``None`` (the simulator skips the call).
    active: bool = True
    #: True when :meth:`force` depends on time, the inputs and the part's memory only (not
    #: on ``q``, ``v`` or any state): a pure forcing, for the assembled linear form (rhs.py).
    forcing: ClassVar[bool] = False

    def __init__(self, *, model: ModelInfo) -> None:
        self.n = model.n
        self.dofs = np.ones(model.n, dtype=bool)
        self.input_slice = slice(0, 0)
        self.state_slice = slice(0, 0)
        self.output_slice = slice(0, 0)

    # ---------------------------------------------------------------- declarations
    @classmethod
    def input_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                    options: dict[str, Any]) -> list[Port]:
        """FMU inputs of the part (from the configuration alone)."""
        return []

    @classmethod
    def output_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        """Extra FMU outputs of the part, after every body's outputs."""
        return []

    @classmethod
    def motion_kind(cls, config: dict[str, Any], options: dict[str, Any]) -> str:
        """FMI ``dependenciesKind`` of the force on the bodies' motion (pose, velocity,
        acceleration) at a fixed memory, as the load FMU (``[export] kind = "loads"``)
        declares it: ``"constant"`` when the force is linear in them with matrices fixed at
        export (or does not read them), else ``"dependent"`` (the default)."""
        return "dependent"

    @classmethod
    def parameter_specs(cls, bodies: list[HydroData], config: dict[str, Any],
                        options: dict[str, Any]) -> list[ParameterSpec]:
        """FMU parameters of the part (name, type, unit, default, min/max, choices, check);
        their validated values reach the part in :attr:`ModelInfo.parameters`."""
        return []

    # ---------------------------------------------------------------- evaluation
    def force(self, ctx: Context) -> NDArray[np.float64] | None:
        """Generalized force on every body DOF, shape (n,), N and N m; ``None`` for none."""
        raise NotImplementedError

    def outputs(self, ctx: Context) -> NDArray[np.float64]:
        """Values of :meth:`output_ports`."""
        return np.zeros(0)

    def left_mass(self) -> NDArray[np.float64] | None:
        """Constant mass always on the left side (e.g. a PTO's inertia), (n, n), or None."""
        return None

    def added_mass(self) -> NDArray[np.float64] | None:
        """Hydrodynamic added mass, (n, n), or None: on the left side as
        ``added_mass.method`` says (implicit, split, lagged)."""
        return None

    def linear_matrices(
        self,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None:
        """``(K, C, f0)`` if the force is ``f0 - K q - C v`` exactly, else ``None``."""
        return None

    def linear_system(self) -> LinearSystem | None:
        """The part's force and states as a :class:`LinearSystem`, or ``None`` when they
        are not linear (the model is then nonlinear: :meth:`why_not_linear` says why).

        The default covers a part without states whose force is always ``None`` (zero) or
        is declared by :meth:`linear_matrices`; a part with states or inputs overrides it.
        Called after the simulator set :attr:`input_slice` and :attr:`state_slice`.
        """
        if self.n_states:
            return None
        if not self.active:
            return LinearSystem()
        lin = self.linear_matrices()
        if lin is None:
            return None
        k, c, f0 = lin
        return LinearSystem(f0=f0, force_q=-np.asarray(k), force_v=-np.asarray(c))

    def linear_outputs(self) -> LinearOutputs | None:
        """The part's extra outputs as :class:`LinearOutputs`, or ``None`` when they are not
        linear (the simulator then calls :meth:`outputs`). The default covers a part
        without extra outputs."""
        return LinearOutputs() if type(self).outputs is Part.outputs else None

    def sinusoidal_forcing(self) -> SinusoidalForcing | None:
        """The part's force terms that are a ramped sum of sinusoids of time (on top of
        :meth:`linear_system`), or ``None``."""
        return None

    def why_not_linear(self) -> str:
        """Why :meth:`linear_system` is ``None`` and what to change, for the refusal of a
        scheme that needs a linear model."""
        return (f"part '{self.kind}' does not declare a linear form (Part.linear_system): "
                "its force is taken as nonlinear")

    def set_parameter(self, name: str, value: Any) -> bool:
        """Take the new value of a ``tunable`` parameter between steps.

        ``value`` was validated by the parameter table (entry check, bounds, cross
        conditions). The change takes effect from the next evaluation on; the states and
        memories are kept. Returns ``True`` when the part uses the parameter (the
        simulator refuses a tunable parameter no part takes).
        """
        return False

    # ---------------------------------------------------------------- states
    def initial_states(self) -> NDArray[np.float64]:
        """Initial value of the part's continuous states, shape (n_states,)."""
        return np.zeros(self.n_states)

    def derivative(self, ctx: Context) -> NDArray[np.float64]:
        """Time derivative of the part's states, shape (n_states,)."""
        return np.zeros(self.n_states)

    def stable_step(self) -> float | None:
        """The part's own stable step for its states, s, or ``None``: its states then go
        with the bodies' (local-time-step schemes evaluate a part with its own step only
        when going on without it would exceed that step)."""
        return None

    def stiffness_estimate(self) -> NDArray[np.float64] | None:
        """Linearised stiffness on the body DOFs at the initial pose, (n, n), N/m...; for
        the bodies' own stable step only (``None``: use :meth:`linear_matrices`)."""
        return None

    # ---------------------------------------------------------------- memory
    def start(self, ctx: Context) -> None:
        """Reset the memory at the start of a run (``ctx`` at the first grid time)."""

    def new_inputs(self, ctx: Context) -> None:
        """New inputs arrived for the newest grid time (before a step or an output)."""

    def commit(self, ctx: Context) -> None:
        """An internal step was accepted and ended on a new grid time."""

    def get_memory(self) -> dict[str, NDArray[np.float64]]:
        """Arrays that restore the memory exactly (keys unique to the part)."""
        return {}

    def set_memory(self, state: dict[str, NDArray[np.float64]]) -> None:
        """Restore the memory saved by :meth:`get_memory`."""


#: Part classes by registry name.
PARTS: dict[str, type[Part]] = {}


def register_part(name: str, cls: type[Part]) -> type[Part]:
    """Register a part class under ``name`` (used by the configuration's ``type`` keys)."""
    if not (isinstance(cls, type) and issubclass(cls, Part)):
        raise TypeError(f"{cls!r} is not a subclass of hydrofmu.parts.Part")
    PARTS[name] = cls
    return cls


def unregister_part(name: str) -> type[Part]:
    """Remove the part class registered as ``name`` and return it (a user's part, or a
    test's, that should not outlive its use); a :class:`ConfigError` when none is."""
    if name not in PARTS:
        hint = did_you_mean(str(name), list(PARTS))
        raise ConfigError(f"no part is registered as {name!r}{hint}", value=name)
    return PARTS.pop(name)


def part_class(name: str, where: str) -> type[Part]:
    """The part class registered as ``name``; a :class:`ConfigError` naming the choices."""
    cls = PARTS.get(str(name))
    if cls is None:
        hint = did_you_mean(str(name), list(PARTS))
        raise ConfigError(
            f"{where}: unknown type {name!r}{hint}; available: {', '.join(sorted(PARTS))}",
            value=name,
        )
    return cls
