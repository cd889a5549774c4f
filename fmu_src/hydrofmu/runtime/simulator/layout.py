"""The model's layout from the parts' declarations: FMU inputs and outputs in order, their
units and direct dependencies, and the added-mass treatments of the left side.

Per body the outputs are ``pose``, ``velocity``, ``acceleration``, ``F_added_mass``, the
force channels (:data:`~hydrofmu.runtime.forces.catalog.BODY_CHANNELS`, then any new channel a
part declares) and ``F_constraint``, 6 components each; then every part's own outputs.
The inputs are the parts' inputs in part order.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, HydroDataError
from ..forces.catalog import BODY_CHANNELS, configured_parts
from ..hydrodata.model import HydroData
from ..parameters.table import ParameterSpec, body_names, model_parameter_specs
from ..parts.part import ALL_INPUTS, FORCE_UNITS, ModelInfo, Part, Port
from .dependency_kinds import SOLVED, output_kinds

#: A part given to the simulator: its class, or ``(class, options)``.
PartSpec = type[Part] | tuple[type[Part], dict[str, Any]]

_KINEMATIC_UNITS = {
    "pose": ("m", "rad"),
    "velocity": ("m/s", "rad/s"),
    "acceleration": ("m/s2", "rad/s2"),
}



@dataclass(frozen=True)
class Table:
    """Inputs and outputs of a model (ports in order) and its body force channels."""

    inputs: list[Port]
    outputs: list[Port]
    channels: tuple[str, ...]


def part_specs(config: dict[str, Any],
               extra: Sequence[PartSpec] = ()) -> list[tuple[type[Part], dict[str, Any]]]:
    """The configured parts, then ``extra``, as ``(class, options)`` pairs."""
    out = configured_parts(config)
    for e in extra:
        out.append(e if isinstance(e, tuple) else (e, {}))
    return out


def parameter_table(bodies: list[HydroData], config: dict[str, Any],
                    parts: Sequence[PartSpec] = ()) -> list[ParameterSpec]:
    """The FMU parameters of a model: the model's own
    (:func:`~hydrofmu.runtime.parameters.table.model_parameter_specs`), then every
    configured part's and every extra part's
    :meth:`~hydrofmu.runtime.parts.part.Part.parameter_specs`, with defaults from the
    configuration."""
    table = model_parameter_specs(bodies, config)
    for cls, options in part_specs(config, parts):
        table.extend(cls.parameter_specs(bodies, config, options))
    return table


def output_table(bodies: list[HydroData], config: dict[str, Any],
                 extra: Sequence[PartSpec] = ()) -> Table:
    """Inputs, outputs and channels declared by the parts of a configuration."""
    specs = part_specs(config, extra)
    inputs: list[Port] = []
    per_part_inputs = []
    for cls, options in specs:
        ports = cls.input_ports(bodies, config, options)
        per_part_inputs.append(ports)
        inputs.extend(ports)
    all_inputs = tuple(p.name for p in inputs)
    channels = list(BODY_CHANNELS)
    direct: dict[str, list[str]] = {c: [] for c in BODY_CHANNELS}
    for (cls, _), ports in zip(specs, per_part_inputs, strict=True):
        ch = cls.channel
        if ch is None:
            continue
        if ch not in direct:
            channels.append(ch)
            direct[ch] = []
        if cls.feedthrough:
            direct[ch].extend(p.name for p in ports if p.name not in direct[ch])
    quantities = ["pose", "velocity", "acceleration", "F_added_mass", *channels,
                  "F_constraint"]
    outputs: list[Port] = []
    for b in body_names(config):
        for q in quantities:
            units = _KINEMATIC_UNITS.get(q, FORCE_UNITS)
            deps = all_inputs if q in SOLVED else tuple(direct.get(q, ()))
            outputs.extend(Port(f"{b}.{q}[{i + 1}]", units[i // 3], deps) for i in range(6))
    for cls, options in specs:
        outputs.extend(p if p.feedthrough != ALL_INPUTS else Port(p.name, p.unit, all_inputs)
                       for p in cls.output_ports(bodies, config, options))
    names = [p.name for p in [*inputs, *outputs]]
    if len(set(names)) != len(names):
        dup = sorted({x for x in names if names.count(x) > 1})
        raise ConfigError(f"variable names declared twice by the parts: {dup}", value=dup)
    return Table(inputs, outputs, tuple(channels))


def build_parts(specs: Sequence[tuple[type[Part], dict[str, Any]]], *, n_outputs: int,
                info: dict[str, Any]) -> list[Part]:
    """Build the parts of ``specs`` in order, each with its
    :class:`~hydrofmu.runtime.parts.part.ModelInfo`
    (``info`` plus its options) and its slices of the FMU inputs, of the parts' states
    (from 0: the simulator shifts them past the body coordinates) and of the outputs
    (after the ``n_outputs`` body outputs)."""
    parts: list[Part] = []
    n_in = n_x = 0
    n_out = n_outputs
    for cls, options in specs:
        part = cls(model=ModelInfo(options=options, **info))
        k_in = len(cls.input_ports(info["bodies"], info["config"], options))
        k_out = len(cls.output_ports(info["bodies"], info["config"], options))
        part.input_slice = slice(n_in, n_in + k_in)
        part.state_slice = slice(n_x, n_x + part.n_states)
        part.output_slice = slice(n_out, n_out + k_out)
        n_in, n_x, n_out = n_in + k_in, n_x + part.n_states, n_out + k_out
        parts.append(part)
    return parts


def body_outputs(
    q: NDArray[np.float64], v: NDArray[np.float64], acc: NDArray[np.float64],
    f_am: NDArray[np.float64], f_c: NDArray[np.float64],
    channels: NDArray[np.float64], out: NDArray[np.float64],
) -> None:
    """Write the body outputs in table order into ``out[:n_bodies * 6 * n_quantities]``.

    ``channels`` holds the force channels in table order, shape (n_channels, n); the
    quantities are q, v, q'', the added-mass force, the channels, the constraint force.
    """
    nb = q.size // 6
    rows = out[: nb * 6 * (5 + channels.shape[0])].reshape(nb, -1, 6)  # (bodies, quantity, 6)
    for i, r in enumerate((q, v, acc, f_am)):
        rows[:, i] = r.reshape(nb, 6)
    rows[:, 4:-1] = channels.reshape(-1, nb, 6).transpose(1, 0, 2)
    rows[:, -1] = f_c.reshape(nb, 6)


def added_mass_split(added: NDArray[np.float64], method: str,
                     factor: float) -> NDArray[np.float64]:
    """Part of the added mass that goes on the left side of the equation.

    ``implicit``: all of it. ``lagged``: none. ``split`` (WEC-Sim): ``factor * (A11 + A22 +
    A33)`` on each translational diagonal and the rotational block (made symmetric from
    its lower triangle) of each body; the rest acts on the previous acceleration.
    """
    if method == "implicit":
        return added.copy()
    if method == "lagged":
        return np.zeros_like(added)
    left = np.zeros_like(added)
    for k in range(added.shape[0] // 6):
        b = added[6 * k : 6 * k + 6, 6 * k : 6 * k + 6]
        y = b[0, 0] + b[1, 1] + b[2, 2]
        blk = np.zeros((6, 6))
        blk[:3, :3] = factor * y * np.eye(3)
        rot = np.tril(b[3:, 3:])
        blk[3:, 3:] = rot + np.tril(rot, -1).T
        left[6 * k : 6 * k + 6, 6 * k : 6 * k + 6] = blk
    return left


#: Asymmetry of the added mass ``max |A - A^T| / max |A|`` above which the simulator warns.
#: The left side ``L = M + A`` is used as given (not symmetrised) at any asymmetry, as WEC-Sim's
#: ``(m + A) x'' = F``; a BEM solution is symmetric only to its discretisation (RM3's WAMIT
#: A_inf: 0.93 % of its largest entry), and 1e-3 is where a coarse mesh or a typing error
#: becomes worth a look (the data readers refuse 1e-2 of the largest diagonal term).
LEFT_ASYMMETRY_WARN: float = 1e-3


def left_asymmetry(lhs: NDArray[np.float64]) -> float:
    """``max |L - L^T| / max |L|`` of a square matrix (0 for a zero matrix)."""
    scale = float(np.max(np.abs(lhs), initial=0.0))
    return float(np.max(np.abs(lhs - lhs.T), initial=0.0)) / scale if scale > 0.0 else 0.0


def asymmetry_warning(added: NDArray[np.float64]) -> list[str]:
    """The warning for an added mass asymmetric above :data:`LEFT_ASYMMETRY_WARN`, or none."""
    asym = left_asymmetry(added)
    if asym <= LEFT_ASYMMETRY_WARN:
        return []
    return [f"the added mass A_inf is asymmetric by {asym:.3g} of its largest entry "
            f"(> {LEFT_ASYMMETRY_WARN:g}); it is used as given (LU), not symmetrised: "
            "check the added-mass data if that is not the BEM's discretisation"]


def reduced_inverse(
    lhs: NDArray[np.float64], basis: NDArray[np.float64], method: str
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(L_r^-1, L_r^-1 T^T)`` of the reduced left side ``L_r = T^T L T``.

    The (constant, at most 6N x 6N) matrix is inverted once by LU (numpy), the whole
    matrix as the data give it: an asymmetric ``A_inf`` is not symmetrised (a Cholesky
    factorisation would read its lower triangle only). ``L_r^-1 T^T`` maps the force sum to
    ``q_r''`` in one small mat-vec.

    Raises
    ------
    HydroDataError
        The symmetric part of ``L_r`` is not positive definite (names the smallest
        eigenvalue): the kinetic energy ``v^T L v / 2`` would not be positive.
    """
    lr = basis.T @ lhs @ basis
    eig = np.linalg.eigvalsh(0.5 * (lr + lr.T))
    if not eig[0] > 0.0:
        raise HydroDataError(
            f"the left-side mass matrix ({method} added mass) on the free DOFs is not "
            f"positive definite (smallest eigenvalue {eig[0]:.6g}): check the mass, "
            "inertia and added-mass data",
            value=float(eig[0]),
        )
    inv = np.linalg.solve(lr, np.eye(lr.shape[0]))
    return inv, inv @ basis.T


class ModelInterface:
    """The FMU interface of a model from its configuration alone (static methods that the
    FMI face calls before any simulator exists)."""

    @staticmethod
    def input_names(bodies: list[HydroData], config: dict[str, Any],
                    parts: Sequence[PartSpec] = ()) -> list[str]:
        """Scalar input names, in the order of the parts that declare them."""
        return [p.name for p in output_table(bodies, config, parts).inputs]

    @staticmethod
    def input_units(bodies: list[HydroData], config: dict[str, Any],
                    parts: Sequence[PartSpec] = ()) -> list[str]:
        """SI units of :meth:`input_names`."""
        return [p.unit for p in output_table(bodies, config, parts).inputs]

    @staticmethod
    def output_names(bodies: list[HydroData], config: dict[str, Any],
                     parts: Sequence[PartSpec] = ()) -> list[str]:
        """Scalar output names: ``<body>.<quantity>[1..6]`` per body, then the parts'."""
        return [p.name for p in output_table(bodies, config, parts).outputs]

    @staticmethod
    def output_units(bodies: list[HydroData], config: dict[str, Any],
                     parts: Sequence[PartSpec] = ()) -> list[str]:
        """SI units of :meth:`output_names`."""
        return [p.unit for p in output_table(bodies, config, parts).outputs]

    @staticmethod
    def output_dependencies(
        bodies: list[HydroData], config: dict[str, Any], parts: Sequence[PartSpec] = ()
    ) -> dict[str, dict[str, str]]:
        """Inputs each output depends on directly (within the same communication point),
        with their FMI ``dependenciesKind``
        (:func:`~hydrofmu.runtime.simulator.dependency_kinds.output_kinds`).

        Accelerations, the added-mass and constraint forces come from the same solve of
        ``(M + A) q'' = F`` in which every input appears; a part's force channel and
        outputs depend on the inputs of the parts that declare feedthrough; pose, velocity
        and the other forces are functions of the state.
        """
        return output_kinds(output_table(bodies, config, parts), part_specs(config, parts),
                            bodies, config)
