"""The drift part: second-order wave loads (mean drift, slow drift by Newman's
approximation or by the full difference-frequency QTF, optionally the sum-frequency QTF)
on every body with ``drift`` in its configuration, reported as ``<body>.F_drift[1..6]``.

The data travel in the resolved configuration (``bodies[k]["drift"]``, written at build time
by :mod:`hydrofmu.config.drift`): the mean drift ``D(w, beta)`` on its frequency and heading
grids and the QTFs at the headings with ``beta1 = beta2``. When the part is built (with the
FMU parameters) they are interpolated at the internal wave's components (the wave
excitation's: same spectrum, seed and frequency range), at the wave heading, and the pair
coefficients are precomputed (:class:`~hydrofmu.runtime.forces.drift_loads.DriftLoad`).

Fade-in: the load is multiplied by ``ramp(t)^2``, the square of the excitation's
half-cosine ramp, as a load quadratic in the ramped wave amplitude is; ``wave.height``
(tunable) scales it by ``(height / built height)^2``.

The load is a function of time only (a pure forcing) but not a sum of sinusoids with the
excitation's ramp: the part declares no linear form, so the ``exact`` scheme refuses it,
naming it (``etdrk4`` takes it in its stages, as the quadratic drag). The native FMU steps
it in its Runge-Kutta mode: the loads' products assembled here are written to the blob
(``export/native/drift_blob.py``) and evaluated in C term for term.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..hydrodata.model import HydroData
from ..parts.linear import ramp_factor
from ..parts.part import Context, ModelInfo, Part
from ..waves.models import IrregularWave, RegularWave
from ..waves.spreading import ShortCrestedSea, internal_sea
from .drift_loads import DriftLoad, bilinear, interp_frequency
from .headings import heading_map, is_axisymmetric
from .wave_excitation import position_phase

__all__ = ["DriftPart", "heading_weights", "pair_headings", "spread_tables"]


def heading_weights(grid: NDArray[np.float64], direction: float, where: str
                    ) -> list[tuple[int, float]]:
    """Linear-interpolation weights ``[(index, weight)]`` of ``direction`` (rad) on the
    heading ``grid`` (rad); a :class:`ConfigError` outside it (angles compared modulo 2 pi).
    """
    grid = np.asarray(grid, dtype=float)
    d = np.angle(np.exp(1j * (grid - direction)))
    near = int(np.argmin(np.abs(d)))
    if abs(d[near]) <= 1e-6:
        return [(near, 1.0)]
    order = np.argsort(grid)
    g = grid[order]
    x = g[0] + (direction - g[0]) % (2.0 * math.pi)
    if grid.size > 1 and x <= g[-1]:
        k = min(int(np.searchsorted(g, x, side="right")) - 1, g.size - 2)
        f = (x - g[k]) / (g[k + 1] - g[k])
        return [(int(order[k]), 1.0 - f), (int(order[k + 1]), f)]
    raise ConfigError(
        f"{where}: wave direction {direction!r} rad is outside the drift data's headings "
        f"({np.round(grid, 6).tolist()} rad); choose a heading within them",
        value=direction)


def _at_heading(table: dict[str, Any], key: str, direction: float, where: str
                ) -> NDArray[Any]:
    """A payload table's values interpolated at the heading (first axis of the values)."""
    if "re" in table:
        values = np.asarray(table["re"], dtype=float) + 1j * np.asarray(table["im"], dtype=float)
    else:
        values = np.asarray(table["values"], dtype=float)
    weights = heading_weights(np.asarray(table[key], dtype=float), direction, where)
    return sum(w * values[k] for k, w in weights)


def _complex_values(table: dict[str, Any]) -> NDArray[Any]:
    if "re" in table:
        return np.asarray(table["re"], dtype=float) + 1j * np.asarray(table["im"], dtype=float)
    return np.asarray(table["values"], dtype=float)


def pair_headings(headings: NDArray[np.float64]) -> NDArray[np.float64]:
    """The heading of each pair of components, rad, shape (n, n): the mean of the two
    along the shorter arc (``b_i`` on the diagonal)."""
    b = np.asarray(headings, dtype=float)
    return b[:, None] + 0.5 * np.angle(np.exp(1j * (b[None, :] - b[:, None])))


def spread_tables(entry: dict[str, Any], mode: str, omega: NDArray[np.float64],
                  omega_in: NDArray[np.float64], headings: NDArray[np.float64], where: str,
                  axisymmetric: bool = False
                  ) -> tuple[dict[str, Any], NDArray[np.complex128] | None]:
    """The :class:`DriftLoad` tables of a short-crested sea: the mean drift at each
    component's own heading (``mean``, ``newman``), the QTFs at each pair's mean heading
    (:func:`pair_headings`; the data hold the QTFs with ``beta1 = beta2`` only, so a pair
    from two headings takes the unidirectional QTF at their mean heading; its diagonal is
    the mean drift at the component's heading), each linear in heading; outside the data's
    headings the nearest one's turned for an ``axisymmetric`` body
    (:func:`~hydrofmu.runtime.forces.headings.heading_map`), refused otherwise."""
    n = omega.size

    def pairs(table: dict[str, Any], freqs: NDArray[np.float64]) -> NDArray[np.complex128]:
        grid = np.asarray(table["omega"], dtype=float)
        values = _complex_values(table)
        plan = heading_map(np.asarray(table["direction"], dtype=float),
                           pair_headings(headings), where, axisymmetric)
        used = plan.used()
        per = [bilinear(freqs, grid, values[k]) if k in used else None
               for k in range(values.shape[0])]
        return plan.apply([p if p is not None else np.zeros((n, n, 6)) for p in per],
                          rows=(n, n))

    total_sum = pairs(entry["qtf_sum"], omega) if "qtf_sum" in entry else None
    if mode == "qtf":
        return {"difference": pairs(entry["qtf"], omega_in)}, total_sum
    table = entry["mean"]
    grid = np.asarray(table["omega"], dtype=float)
    values = np.moveaxis(np.asarray(table["values"], dtype=float), 1, 0)  # (nb, nw, 6)
    plan = heading_map(np.asarray(table["direction"], dtype=float), headings, where,
                       axisymmetric)
    used = plan.used()
    per = [interp_frequency(omega_in, grid, values[k]) if k in used else np.zeros((n, 6))
           for k in range(values.shape[0])]
    return {"mean": plan.apply(per)}, total_sum


class DriftPart(Part):
    """Second-order wave loads on the bodies with ``drift`` configured (``F_drift``)."""

    kind = "drift"
    channel = "F_drift"
    forcing = True

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        p = model.parameters
        self.ramp_time = float(p["wave.ramp_time"])
        self.loads: list[tuple[int, DriftLoad]] = []
        self.scale = 1.0
        self.built_height = 1.0
        wave_type = p["wave.type"]
        configured = [(k, b["drift"]) for k, b in enumerate(model.config["bodies"])
                      if b.get("drift")]
        names = [model.names[k] for k, _ in configured]
        if wave_type == "input":
            raise ConfigError(
                f"drift on {', '.join(names)} needs the internal wave (wave.type = regular or "
                "irregular): the second-order load is built from the wave's components, "
                "which the elevation input does not give", value=wave_type)
        if wave_type in ("regular", "irregular"):
            height = float(p["wave.height"])
            self.built_height = height if height > 0.0 else 1.0
            self.scale = height / self.built_height
            wave = internal_sea(
                p, model.config["wave"], height=self.built_height,
                discretization=model.config["wave"]["discretization"],
                omega_range=(max(hd.omega[0] for hd in model.bodies),
                             min(hd.omega[-1] for hd in model.bodies)))
            for k, entry in configured:
                self.loads.append((k, self._build(model, k, entry, wave)))
        self.active = bool(self.loads)

    def _build(self, model: ModelInfo, k: int, entry: dict[str, Any],
               wave: RegularWave | IrregularWave | ShortCrestedSea) -> DriftLoad:
        """The :class:`DriftLoad` of body ``k`` from its payload ``entry``."""
        name = model.names[k]
        where = f"body '{name}': drift"
        hd: HydroData = model.bodies[k]
        omega, amp, phase = wave.components()
        a = amp * np.exp(1j * phase)
        position = model.config["bodies"][k].get("position", (0.0, 0.0))
        spread = isinstance(wave, ShortCrestedSea)
        if any(position):
            a = a * position_phase(hd, position, omega,
                                   wave.headings if spread else wave.direction)
        mode = entry["mode"]
        table = entry["qtf"] if mode == "qtf" else entry["mean"]
        grid = np.asarray(table["omega"], dtype=float)
        outside = (omega < grid[0] - 1e-9) | (omega > grid[-1] + 1e-9)
        if isinstance(wave, RegularWave) and outside.any():
            raise ConfigError(
                f"{where}: the wave frequency {omega[0]:.6g} rad/s is outside the drift "
                f"data's {grid[0]:.6g}..{grid[-1]:.6g} rad/s", value=float(omega[0]))
        energy = np.abs(a) ** 2
        kept = 1.0 - float(energy[outside].sum() / energy.sum())
        omega_in = np.clip(omega, grid[0], grid[-1])
        omega_in[outside] = omega[outside]  # zero weight there (interpolation gives 0)
        total_sum = None
        if spread:
            load_kw, total_sum = spread_tables(entry, mode, omega, omega_in, wave.headings,
                                                where, is_axisymmetric(hd))
        elif mode == "qtf":
            q = _at_heading(table, "direction", wave.direction, where)
            load_kw: dict[str, Any] = {"difference": bilinear(omega_in, grid, q)}
        else:
            d = _at_heading({"direction": table["direction"],
                             "values": np.moveaxis(np.asarray(table["values"]), 1, 0)},
                            "direction", wave.direction, where)
            load_kw = {"mean": interp_frequency(omega_in, grid, d)}
        if "qtf_sum" in entry and not spread:
            ts = entry["qtf_sum"]
            sgrid = np.asarray(ts["omega"], dtype=float)
            total_sum = bilinear(omega, sgrid, _at_heading(ts, "direction", wave.direction,
                                                           where))
        load = DriftLoad(omega, a, mode, total_sum=total_sum, **load_kw)
        mean = load.constant * self.scale ** 2
        model.report.append(
            f"{name}: drift '{mode}'{' + sum frequency' if total_sum is not None else ''} from "
            f"{entry.get('source', '?')}: {omega.size} component(s), "
            f"{100 * kept:.3g} % of the wave energy within the data's "
            f"{grid[0]:.4g}..{grid[-1]:.4g} rad/s; mean load "
            f"{np.array2string(mean, precision=4)} N, N m")
        return load

    def set_parameter(self, name: str, value: Any) -> bool:
        if name == "wave.height":
            self.scale = float(value) / self.built_height
            return True
        if name == "wave.ramp_time":
            self.ramp_time = float(value)
            return True
        return False

    def force(self, ctx: Context) -> NDArray[np.float64] | None:
        if not self.loads:
            return None
        factor = (self.scale * ramp_factor(ctx.t - ctx.t0, self.ramp_time)) ** 2
        out = np.zeros(self.n)
        if factor == 0.0:
            return out
        for k, load in self.loads:
            out[6 * k: 6 * k + 6] = factor * load.force(ctx.t)
        return out

    def why_not_linear(self) -> str:
        return ("drift: the second-order wave load (quadratic in the wave, faded in by the "
                "ramp squared) has no linear form; the 'exact' scheme does not step it: use a "
                "Runge-Kutta time_scheme ('rk4'; the native FMU steps it too), MoorDyn's "
                "semi-implicit ones or 'etdrk4', or remove 'drift' from the bodies")
