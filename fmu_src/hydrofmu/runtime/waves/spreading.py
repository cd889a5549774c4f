"""Directional spreading of an irregular sea: the cos-2s law and a user table, and the
headings of the sea's components.

A short-crested sea has the directional spectrum ``S(w, beta) = S(w) D(beta - beta0)``
with ``int D = 1`` (``beta0`` the mean heading, ``wave.direction``). Two spreading
functions:

- ``cos2s`` (Longuet-Higgins): ``D(t) = C(s) cos^{2s}(t / 2)`` on ``-pi <= t <= pi`` with
  the closed-form normalisation ``C(s) = Gamma(s + 1) / (2 sqrt(pi) Gamma(s + 1/2))``
  (:func:`cos2s_normalisation`); the larger ``s``, the narrower (``s -> inf``: long-crested;
  the standard deviation of the heading is ``sqrt(2 / (s + 1))`` rad for large ``s``);
- ``table``: directions (offsets from ``beta0``, rad) with weights (normalised to 1), as
  WEC-Sim's ``waves.direction`` / ``waves.spread``.

Discretisation: one heading per component (the single-direction-per-frequency method).
Every frequency component of the sea keeps its amplitude (so the frequency spectrum and
Hs are exactly those of the long-crested sea) and gets a heading drawn from ``D``:
stratified, ``u_i = (p_i + r_i) / N`` with ``p`` a random permutation of ``0..N-1`` and
``r_i`` uniform in [0, 1), then ``beta_i = beta0 + F^{-1}(u_i)`` (``F`` the cumulative of
``D``). Each of the ``N`` quantile bins of ``D`` receives exactly one component, so the
headings' sample distribution is ``F`` to ``1/N`` for any seed, while the pairing of
headings and frequencies is random. No two components share a frequency, so the sea has
no phase-locked pairs (the double sum over frequencies and directions makes one component
per direction at each frequency, whose cross terms do not average out in a record).

The headings are drawn from their own random stream,
``numpy.random.default_rng(SeedSequence([seed, SPREADING_STREAM]))``: the phases and
frequencies of the sea are those of the long-crested sea with the same seed (same seed,
same sea, bit-identical), and a one-row table (or ``s -> inf``) gives today's
unidirectional sea.

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, as_finite
from .models import IrregularWave, RegularWave, internal_wave

__all__ = [
    "SPREADING_KINDS",
    "SPREADING_STREAM",
    "DirectionalSpreading",
    "ShortCrestedSea",
    "cos2s_density",
    "cos2s_normalisation",
    "heading_weight_matrix",
    "internal_sea",
    "spreading_from_config",
]

#: The values of ``[wave] spreading``.
SPREADING_KINDS: tuple[str, ...] = ("none", "cos2s", "table")
#: The second entry of the seed sequence of the headings' random stream.
SPREADING_STREAM = 2718
#: Points of the grid on which the cos-2s cumulative is integrated (trapezoid); the
#: half-width of the grid is ``min(pi, 40 / sqrt(s + 1))``, beyond which ``D`` is below
#: ``exp(-400)`` of its peak, so the grid resolves sigma by ~1000 points for any s.
_CDF_POINTS = 2**14 + 1


def cos2s_normalisation(s: float) -> float:
    """``C(s) = Gamma(s + 1) / (2 sqrt(pi) Gamma(s + 1/2))``, 1/rad: the factor that makes
    ``C cos^{2s}(t / 2)`` integrate to 1 over ``[-pi, pi]`` (log-gamma: any ``s > 0``)."""
    s = float(s)
    return math.exp(math.lgamma(s + 1.0) - math.lgamma(s + 0.5)) / (2.0 * math.sqrt(math.pi))


def cos2s_density(theta: ArrayLike, s: float) -> NDArray[np.float64]:
    """The cos-2s spreading function ``D(theta)``, 1/rad, ``theta`` the offset from the
    mean heading, rad (wrapped to ``[-pi, pi]``); integrates to 1 over a turn."""
    t = np.angle(np.exp(1j * np.asarray(theta, dtype=float)))
    return cos2s_normalisation(s) * np.cos(0.5 * t) ** (2.0 * float(s))


@dataclass(frozen=True)
class DirectionalSpreading:
    """A spreading function ``D`` about the mean heading.

    Parameters
    ----------
    kind
        ``"cos2s"`` or ``"table"``.
    s
        The cos-2s exponent, > 0 (``cos2s``).
    directions
        Offsets from the mean heading, rad, shape (m,) (``table``).
    weights
        Their weights, > 0, shape (m,), normalised to sum 1 (``table``).
    """

    kind: str
    s: float = 0.0
    directions: tuple[float, ...] = ()
    weights: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.kind == "cos2s":
            s = as_finite(self.s, "wave.spreading_s")
            if s <= 0.0:
                raise ConfigError(
                    f"wave.spreading_s = {self.s!r} must be > 0 (the cos-2s exponent: 1 is "
                    "very broad, 10 to 100 typical of wind sea to swell)", value=self.s)
            object.__setattr__(self, "s", s)
        elif self.kind == "table":
            try:
                d = np.asarray(self.directions, dtype=float)
                w = np.asarray(self.weights, dtype=float)
            except (TypeError, ValueError) as exc:
                raise ConfigError(
                    f"wave.spreading_directions ({self.directions!r}) and "
                    f"wave.spreading_weights ({self.weights!r}) must be lists of numbers",
                    value=(self.directions, self.weights)) from exc
            if d.ndim != 1 or d.size == 0 or w.shape != d.shape:
                raise ConfigError(
                    f"wave.spreading_directions ({list(self.directions)!r}) and "
                    f"wave.spreading_weights ({list(self.weights)!r}) must be two lists of "
                    "the same length >= 1", value=(self.directions, self.weights))
            if not (np.all(np.isfinite(d)) and np.all(np.isfinite(w)) and np.all(w > 0.0)):
                raise ConfigError(
                    f"wave.spreading_weights = {list(self.weights)!r} must be finite and > 0 "
                    f"and the directions {list(self.directions)!r} rad finite",
                    value=self.weights)
            if np.unique(d).size != d.size:
                raise ConfigError(f"wave.spreading_directions = {list(self.directions)!r} "
                                  "repeats a direction: give each once", value=self.directions)
            order = np.argsort(d)
            object.__setattr__(self, "directions", tuple(float(x) for x in d[order]))
            object.__setattr__(self, "weights", tuple(float(x) for x in w[order] / w.sum()))
        else:
            raise ConfigError(f"spreading kind {self.kind!r}: one of cos2s, table",
                              value=self.kind)

    def cdf_grid(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(theta, F(theta))`` of the cos-2s law on a fine grid (rad; ``F`` from 0 to 1,
        the trapezoid cumulative normalised by its total)."""
        half = min(math.pi, 40.0 / math.sqrt(self.s + 1.0))
        theta = np.linspace(-half, half, _CDF_POINTS)
        dens = cos2s_density(theta, self.s)
        cum = np.concatenate([[0.0], np.cumsum(0.5 * (dens[1:] + dens[:-1]) * np.diff(theta))])
        return theta, cum / cum[-1]

    def offsets(self, n: int, seed: int) -> NDArray[np.float64]:
        """The heading offsets of ``n`` components (rad, shape (n,)), stratified samples of
        ``D`` from the stream of ``seed`` (see the module docstring)."""
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), SPREADING_STREAM]))
        u = (rng.permutation(n) + rng.uniform(0.0, 1.0, n)) / n
        if self.kind == "table":
            cum = np.cumsum(self.weights)
            k = np.minimum(np.searchsorted(cum, u * cum[-1], side="right"), cum.size - 1)
            return np.asarray(self.directions, dtype=float)[k]
        theta, cdf = self.cdf_grid()
        return np.interp(u, cdf, theta)

    def describe(self) -> str:
        """One line for the model report."""
        if self.kind == "cos2s":
            return f"cos-2s spreading, s = {self.s:.4g}"
        pairs = ", ".join(f"{math.degrees(d):.4g} deg: {w:.3g}"
                          for d, w in zip(self.directions, self.weights, strict=True))
        return f"spreading table ({pairs})"


def spreading_from_config(wave: Mapping[str, Any]) -> DirectionalSpreading | None:
    """The spreading of a ``[wave]`` section (``None`` for ``spreading = "none"`` or
    absent: a long-crested sea)."""
    kind = str(wave.get("spreading", "none") or "none").strip().lower()
    if kind not in SPREADING_KINDS:
        raise ConfigError(f"wave.spreading = {wave.get('spreading')!r}: choose one of "
                          f"{', '.join(SPREADING_KINDS)}", value=wave.get("spreading"))
    if kind == "none":
        return None
    if kind == "cos2s":
        return DirectionalSpreading("cos2s", s=wave.get("spreading_s", 0.0))
    directions, weights = wave.get("spreading_directions", ()), wave.get("spreading_weights", ())
    if isinstance(directions, str) or isinstance(weights, str):
        raise ConfigError(f"wave.spreading_directions = {directions!r} and "
                          f"wave.spreading_weights = {weights!r} must be lists of numbers",
                          value=(directions, weights))
    return DirectionalSpreading("table", directions=tuple(np.atleast_1d(directions)),
                                weights=tuple(np.atleast_1d(weights)))


def heading_weight_matrix(grid: ArrayLike, headings: ArrayLike, where: str
                          ) -> NDArray[np.float64]:
    """Linear-interpolation weights of ``headings`` (rad, shape (n,)) on the data's heading
    ``grid`` (rad, shape (m,)): ``W`` (n, m), each row summing to 1, so that
    ``X(beta_i) = sum_k W[i, k] X(grid_k)``. A heading equal (to 1e-6 rad, modulo 2 pi) to
    a grid heading takes it exactly (weight 1.0); one outside the grid's range raises a
    :class:`ConfigError` naming it, the range and the fix.
    """
    g = np.asarray(grid, dtype=float)
    h = np.atleast_1d(np.asarray(headings, dtype=float)).ravel()
    w = np.zeros((h.size, g.size))
    order = np.argsort(g)
    gs = g[order]
    d = np.abs(np.angle(np.exp(1j * (g[None, :] - h[:, None]))))   # (n, m)
    near = np.argmin(d, axis=1)
    exact = d[np.arange(h.size), near] <= 1e-6
    x = gs[0] + (h - gs[0]) % (2.0 * math.pi)
    bad = ~exact & ((x > gs[-1]) if g.size > 1 else np.ones(h.size, dtype=bool))
    if np.any(bad):
        beta = float(h[np.flatnonzero(bad)[0]])
        raise ConfigError(
            f"{where}: the wave heading {beta:.6g} rad ({math.degrees(beta):.4g} deg; "
            f"{int(bad.sum())} of {h.size} component heading(s)) is outside the data's "
            f"headings ({np.round(np.degrees(gs), 4).tolist()} deg): recompute the BEM data "
            "for headings that cover the sea's directions, or narrow the spreading (a "
            "larger wave.spreading_s, a smaller table)", value=beta)
    rows = np.flatnonzero(exact)
    w[rows, near[rows]] = 1.0
    rows = np.flatnonzero(~exact)
    if rows.size:
        k = np.minimum(np.searchsorted(gs, x[rows], side="right") - 1, gs.size - 2)
        f = (x[rows] - gs[k]) / (gs[k + 1] - gs[k])
        np.add.at(w, (rows, order[k]), 1.0 - f)
        np.add.at(w, (rows, order[k + 1]), f)
    return w


@dataclass(frozen=True, eq=False)
class ShortCrestedSea:
    """An irregular sea whose components travel in their own headings.

    Parameters
    ----------
    sea
        The long-crested sea whose components (frequencies, amplitudes, phases) are kept.
    spreading
        The spreading function about ``sea.direction``.
    """

    sea: IrregularWave
    spreading: DirectionalSpreading
    _headings: NDArray[np.float64] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        out = self.sea.direction + self.spreading.offsets(self.sea.n_components, self.sea.seed)
        out.setflags(write=False)
        object.__setattr__(self, "_headings", out)

    @property
    def direction(self) -> float:
        """The mean heading, rad."""
        return self.sea.direction

    @property
    def headings(self) -> NDArray[np.float64]:
        """The components' headings, rad, shape (n,) (read-only; the mean heading plus
        :meth:`DirectionalSpreading.offsets` of the sea's seed)."""
        return self._headings

    @property
    def hs(self) -> float:
        """Significant wave height of the spectrum, m."""
        return self.sea.hs

    @property
    def energy_fraction(self) -> float:
        """Fraction of ``Hs^2 / 16`` kept in the frequency range (the long-crested sea's)."""
        return self.sea.energy_fraction

    @property
    def wave_numbers(self) -> NDArray[np.float64]:
        """Wave numbers of the components, rad/m."""
        return self.sea.wave_numbers

    def components(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Components (omega rad/s, amplitude m, phase rad), each shape (n,)."""
        return self.sea.components()

    def elevation(self, t: ArrayLike, x: float = 0.0, y: float = 0.0) -> NDArray[np.float64]:
        """Free-surface elevation at (x, y), m, same shape as ``t`` (s); no ramp applied:
        ``sum_i a_i cos(w_i t - k_i (x cos b_i + y sin b_i) + phi_i)``."""
        omega, amp, phase = self.sea.components()
        b = self.headings
        shift = phase - self.sea.wave_numbers * (as_finite(x, "x") * np.cos(b)
                                                 + as_finite(y, "y") * np.sin(b))
        tv = np.asarray(t, dtype=float)
        return (np.cos(np.multiply.outer(tv.reshape(-1), omega) + shift) @ amp).reshape(tv.shape)


def internal_sea(parameters: Mapping[str, Any], wave: Mapping[str, Any], *, height: float,
                 omega_range: tuple[float, float], discretization: str
                 ) -> RegularWave | IrregularWave | ShortCrestedSea:
    """The FMU's internal wave (:func:`~hydrofmu.runtime.waves.models.internal_wave`),
    spread in direction as the ``[wave]`` section ``wave`` says: the one construction of
    every part driven by the internal wave (the excitation, the drift loads).

    Raises
    ------
    ConfigError
        Spreading asked for a regular wave (one frequency cannot be spread by giving each
        component a heading: use an irregular sea).
    """
    sea = internal_wave(parameters, height=height, omega_range=omega_range,
                        discretization=discretization)
    spreading = spreading_from_config(wave)
    if spreading is None:
        return sea
    if isinstance(sea, RegularWave):
        raise ConfigError(
            f"wave.spreading = {wave.get('spreading')!r} needs wave.type = irregular (each "
            "component of the sea gets a heading; a regular wave has one component)",
            value=wave.get("spreading"))
    return ShortCrestedSea(sea=sea, spreading=spreading)
