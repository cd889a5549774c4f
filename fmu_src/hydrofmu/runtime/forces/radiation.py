"""Radiation force as a part: memory convolution of the IRF (``convolution.py``), constant
coefficients, or the state-space realisation (``radiation_ss.py``)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..hydrodata.model import HydroData
from ..irf.transforms import radiation_irf, radiation_irf_from_arrays
from ..parameters.table import irf_duration, irf_options
from ..parts.part import Context, LinearSystem, ModelInfo, Part
from .convolution import NEGLIGIBLE, ConvolutionRadiation, active_pairs
from .radiation_ss import StateSpaceRadiation, stored_realisation

__all__ = ["NEGLIGIBLE", "ConstantRadiation", "ConvolutionRadiation", "RadiationPart",
           "active_pairs", "check_in_range", "coupling_blocks"]


class ConstantRadiation:
    """``F_rad = -B(w) v`` at one frequency (added mass A(w) goes on the left side).

    Parameters
    ----------
    damping
        ``B(w)``, shape (n, n), SI.
    """

    def __init__(self, damping: NDArray[np.float64]) -> None:
        self.damping = np.asarray(damping, dtype=float)

    def force(
        self, s: float, sn: float, v: NDArray[np.float64], vn: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Radiation force for velocity ``v``, shape (n,); the other arguments are unused."""
        return -self.damping @ v

    def start(self, v0: NDArray[np.float64]) -> None:
        """Nothing to remember."""

    def commit(self, v: NDArray[np.float64]) -> None:
        """Nothing to remember."""

    def get_state(self) -> dict[str, NDArray[np.float64]]:
        """No internal arrays."""
        return {}

    def set_state(self, state: dict[str, NDArray[np.float64]]) -> None:
        """No internal arrays."""


def check_in_range(hd: HydroData, omega: float, what: str) -> None:
    """A :class:`ConfigError` if ``omega`` (rad/s) is outside the body's BEM frequencies."""
    if not (hd.omega[0] <= omega <= hd.omega[-1]):
        raise ConfigError(
            f"{what}: wave frequency {omega:.6g} rad/s (period {2 * math.pi / omega:.6g} s) "
            f"is outside the data of body '{hd.name}' ({hd.omega[0]:.6g}.."
            f"{hd.omega[-1]:.6g} rad/s); choose a period in "
            f"{2 * math.pi / hd.omega[-1]:.4g}..{2 * math.pi / hd.omega[0]:.4g} s",
            value=omega,
        )


def coupling_blocks(model: ModelInfo):
    """The body-to-body radiation blocks of the configuration, ``(k, j, arrays)`` per
    ordered pair of bodies sharing one multi-body data file (none when ``b2b`` is off).

    ``arrays`` has ``added_mass_inf`` (6, 6), ``added_mass`` and ``radiation_damping``
    (nw, 6, 6), SI, the force on body ``k`` from the motion of body ``j``
    (:func:`hydrofmu.config.configuration.resolve` stores them in ``config["coupling"]``).
    """
    if not bool(model.config.get("multibody", {}).get("b2b", True)):
        return []
    out = []
    for c in model.config.get("coupling") or []:
        k, j = (int(x) for x in c["bodies"])
        out.append((k, j, {key: np.asarray(c[key], dtype=float)
                           for key in ("added_mass_inf", "added_mass", "radiation_damping")}))
    return out


class RadiationPart(Part):
    """Radiation of every body, reported as ``F_radiation``; the added mass it declares
    (``A_inf``, or ``A(w)`` for the constant method) goes on the left side.

    ``radiation.method``: ``convolution`` (:class:`ConvolutionRadiation`, memory committed
    on the grid), ``constant`` (:class:`ConstantRadiation` at ``2 pi / wave.period``) or
    ``state_space`` (:class:`~hydrofmu.runtime.forces.radiation_ss.StateSpaceRadiation`, the
    realisation stored in ``config["radiation"]["state_space"]`` at build time; its states
    join the model's state vector, ``F_rad = -C x - D v``, ``A_inf`` on the left side as
    for the convolution).
    """

    kind = "radiation"
    channel = "F_radiation"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        p = model.parameters
        n = model.n
        dt = model.dt
        self.method = p["radiation.method"]
        added = np.zeros((n, n))
        self.ss: StateSpaceRadiation | None = None
        if self.method == "state_space":
            self.ss = stored_realisation(model.config["radiation"].get("state_space"),
                                         model.names)
            self.n_states = self.ss.n_states
            for k, hd in enumerate(model.bodies):
                sl = slice(6 * k, 6 * k + 6)
                added[sl, sl] = hd.added_mass_inf
            for k, j, blocks in coupling_blocks(model):  # realised with the kernel's too
                added[6 * k:6 * k + 6, 6 * j:6 * j + 6] = blocks["added_mass_inf"]
            entry = model.config["radiation"]["state_space"]
            model.report.append(
                f"radiation: state space, {self.n_states} states (tolerance "
                f"{entry.get('tolerance')}, max order {entry.get('max_order')}), A_inf from "
                f"{', '.join(hd.added_mass_inf_source for hd in model.bodies)}"
            )
            model.report.extend(entry.get("report", []))
            self.model = None
        elif self.method == "convolution":
            duration = irf_duration(model.config, "radiation")
            nk = round(duration / dt) + 1
            t = np.arange(nk) * dt
            kernel = np.zeros((nk, n, n))
            opts = irf_options(model.config, "radiation")
            for k, hd in enumerate(model.bodies):
                sl = slice(6 * k, 6 * k + 6)
                added[sl, sl] = hd.added_mass_inf
                kernel[:, sl, sl] = radiation_irf(hd, t, **opts)
            for k, j, blocks in coupling_blocks(model):
                rows, cols = slice(6 * k, 6 * k + 6), slice(6 * j, 6 * j + 6)
                added[rows, cols] = blocks["added_mass_inf"]
                kernel[:, rows, cols] = radiation_irf_from_arrays(
                    model.bodies[k].omega, blocks["radiation_damping"], t, **opts)
            self.model: ConvolutionRadiation | ConstantRadiation | None = ConvolutionRadiation(
                kernel, dt
            )
            model.report.append(
                f"radiation: convolution, IRF {t[-1]:.3g} s at dt = {dt:.3g} s "
                f"({nk} samples), A_inf from "
                f"{', '.join(hd.added_mass_inf_source for hd in model.bodies)}"
            )
        else:
            omega = 2.0 * math.pi / float(p["wave.period"])
            damping = np.zeros((n, n))
            for k, hd in enumerate(model.bodies):
                sl = slice(6 * k, 6 * k + 6)
                check_in_range(hd, omega, "radiation.method = constant")
                added[sl, sl], damping[sl, sl] = hd.coefficients_at(omega)
            for k, j, blocks in coupling_blocks(model):
                rows, cols = slice(6 * k, 6 * k + 6), slice(6 * j, 6 * j + 6)
                w = model.bodies[k].omega
                for arr, name in ((added, "added_mass"), (damping, "radiation_damping")):
                    data = blocks[name].reshape(w.size, 36)
                    arr[rows, cols] = np.array(
                        [np.interp(omega, w, data[:, i]) for i in range(36)]).reshape(6, 6)
            self.model = ConstantRadiation(damping)
            model.report.append(f"radiation: constant A(w), B(w) at w = {omega:.6g} rad/s")
        self.added = added

    def added_mass(self) -> NDArray[np.float64]:
        return self.added

    def force(self, ctx: Context) -> NDArray[np.float64]:
        if self.ss is not None:
            return self.ss.force(ctx.y[self.state_slice], ctx.v)
        return self.model.force(ctx.s, ctx.sn, ctx.v, ctx.vn)

    def initial_states(self) -> NDArray[np.float64]:
        if self.ss is not None:
            return self.ss.initial_state()
        return np.zeros(0)

    def derivative(self, ctx: Context) -> NDArray[np.float64]:
        return self.ss.derivative(ctx.y[self.state_slice], ctx.v)

    def linear_matrices(self):
        if isinstance(self.model, ConstantRadiation):
            d = self.model.damping
            return np.zeros_like(d), d, np.zeros(self.n)
        return None

    def linear_system(self) -> LinearSystem | None:
        if self.ss is not None:  # x' = A x + B v, F = -C x - D v
            a, b, c = self.ss.dense()
            return LinearSystem(force_x=-c, force_v=-np.diag(self.ss.feedthrough),
                                state_x=a, state_v=b)
        return super().linear_system()  # constant: linear_matrices; convolution: None

    def why_not_linear(self) -> str:
        return ("radiation.method = convolution is linear but not finite-dimensional (its "
                "memory is a convolution over the IRF, not a state vector): use radiation = "
                "state_space (FMU parameter radiation.method = 'state_space')")

    def start(self, ctx: Context) -> None:
        if self.model is not None:
            self.model.start(ctx.v)

    def commit(self, ctx: Context) -> None:
        if self.model is not None:
            self.model.commit(ctx.v)

    def get_memory(self) -> dict[str, NDArray[np.float64]]:
        return {} if self.model is None else self.model.get_state()

    def set_memory(self, state: dict[str, NDArray[np.float64]]) -> None:
        if self.model is not None:
            self.model.set_state(state)
