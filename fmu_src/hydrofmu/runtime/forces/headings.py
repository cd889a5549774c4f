"""A body's data at the headings of a short-crested sea: for a body axisymmetric by its
data, the data's first heading's loads turned to each heading; for any other body, linear
interpolation between the data's headings, refused outside them.

An axisymmetric body (a vertical axis through its reference point) meets a wave from any
heading as it meets the data's: its loads turn with the heading. A load six-vector
``(Fx, Fy, Fz, Mx, My, Mz)`` at heading ``b`` is the one at ``b0`` with ``(Fx, Fy)`` and
``(Mx, My)`` turned by ``b - b0`` about z and ``Fz``, ``Mz`` unchanged (the excitation, the
mean drift, the QTFs: all loads per wave amplitude or its square). "Axisymmetric by data"
(:func:`is_axisymmetric`): the added mass and damping are invariant under rotations about z
(``A11 = A22``, ``A44 = A55``, ``A15 = -A24``, every other off-diagonal term and ``A66``
negligible, to :data:`AXISYMMETRY_RTOL` of the largest term of its group), and the
excitation at every heading has no component across the heading (sway along ``b + 90 deg``,
its roll, and yaw), to the same tolerance. Other bodies outside the data's headings are
refused (:func:`~hydrofmu.runtime.waves.spreading.heading_weight_matrix`).

Run-time module: numpy and the standard library only.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..hydrodata.model import HydroData
from ..waves.spreading import heading_weight_matrix

__all__ = ["AXISYMMETRY_RTOL", "HeadingMap", "heading_map", "is_axisymmetric", "rotate_loads"]

#: Relative tolerance of :func:`is_axisymmetric` (BEM meshes of a body of revolution are
#: symmetric to a few 1e-4; 1e-3 accepts them and refuses any real asymmetry).
AXISYMMETRY_RTOL = 1e-3


def is_axisymmetric(hd: HydroData, rtol: float = AXISYMMETRY_RTOL) -> bool:
    """Whether the body's first-order data are those of a body of revolution about the
    vertical through its reference point (see the module docstring)."""
    allowed = np.eye(6, dtype=bool)  # the diagonal, and surge-pitch, sway-roll
    allowed[0, 4] = allowed[4, 0] = allowed[1, 3] = allowed[3, 1] = True
    rot = np.arange(6) >= 3
    for m in (hd.added_mass, hd.radiation_damping):
        scale_t = float(np.max(np.abs(m[:, :3, :3]))) or 1.0
        scale_r = float(np.max(np.abs(m[:, 3:, 3:]))) or 1.0
        scale = np.where(rot[:, None] & rot[None, :], scale_r,
                         np.where(rot[:, None] | rot[None, :], math.sqrt(scale_t * scale_r),
                                  scale_t))
        if (np.max(np.abs(m[:, 0, 0] - m[:, 1, 1])) > rtol * scale_t
                or np.max(np.abs(m[:, 3, 3] - m[:, 4, 4])) > rtol * scale_r
                or np.max(np.abs(m[:, 0, 4] + m[:, 1, 3])) > rtol * scale[0, 4]
                or np.any(np.max(np.abs(m), axis=0)[~allowed] > rtol * scale[~allowed])):
            return False
    x = hd.excitation  # (nw, nb, 6)
    b = hd.wave_direction[None, :]
    across_f = -np.sin(b) * x[:, :, 0] + np.cos(b) * x[:, :, 1]
    across_m = np.cos(b) * x[:, :, 3] + np.sin(b) * x[:, :, 4]  # the moment about b's axis
    scale_f = np.max(np.abs(x[:, :, :3])) or 1.0
    scale_m = np.max(np.abs(x[:, :, 3:])) or 1.0
    return bool(np.max(np.abs(across_f)) <= rtol * scale_f
                and np.max(np.abs(across_m)) <= rtol * scale_m
                and np.max(np.abs(x[:, :, 5])) <= rtol * scale_m)


def rotate_loads(values: NDArray, angle: NDArray[np.float64]) -> NDArray:
    """``values`` (..., 6) with ``(Fx, Fy)`` and ``(Mx, My)`` turned by ``angle`` (rad,
    broadcast against ``values[..., 0]``) about z."""
    c, s = np.cos(angle), np.sin(angle)
    out = np.array(values, copy=True)
    for i, j in ((0, 1), (3, 4)):
        out[..., i] = c * values[..., i] - s * values[..., j]
        out[..., j] = s * values[..., i] + c * values[..., j]
    return out


class HeadingMap:
    """How each of ``n`` headings takes the data's: ``weights`` (n, m) on the data's
    headings, then ``angle`` (n,), rad, the rotation of the weighted loads (0 inside the
    data's headings).

    Attributes
    ----------
    weights
        Linear-interpolation weights, each row summing to 1.
    angle
        The rotation about z applied after the weighting, rad.
    """

    def __init__(self, weights: NDArray[np.float64], angle: NDArray[np.float64]) -> None:
        self.weights = weights
        self.angle = angle

    def apply(self, per_heading: list[NDArray], rows: tuple[int, ...] | None = None) -> NDArray:
        """``sum_k weights[:, k] values_k`` turned by ``angle``: ``per_heading[k]`` holds the
        values at data heading k, shape (n, ..., 6) (a row per heading of this map, unless
        ``rows`` reshapes the weights, e.g. (N, N) for pairs)."""
        shape = rows or (self.weights.shape[0],)
        out = None
        for k, values in enumerate(per_heading):
            w = self.weights[:, k]
            if not np.any(w):
                continue
            term = w.reshape(shape + (1,) * (values.ndim - len(shape))) * values
            out = term if out is None else out + term
        if out is None:  # pragma: no cover - every row has a weight
            raise ValueError("no heading weights")
        if np.any(self.angle):
            out = rotate_loads(out, self.angle.reshape(shape + (1,) * (out.ndim - 1
                                                                       - len(shape))))
        return out

    def used(self) -> NDArray[np.intp]:
        """The data headings with a nonzero weight."""
        return np.flatnonzero(np.any(self.weights != 0.0, axis=0))


def heading_map(grid: NDArray[np.float64], headings: NDArray[np.float64], where: str,
                axisymmetric: bool) -> HeadingMap:
    """The :class:`HeadingMap` of ``headings`` (rad) on the data's ``grid`` (rad): for an
    ``axisymmetric`` body the data's first heading turned by the difference (exact for a
    body of revolution, continuous and mirror-symmetric in the heading; the data's other
    headings are the same loads turned, to the mesh's symmetry); for any other body linear
    interpolation between the data's headings, and the refusal of
    :func:`~hydrofmu.runtime.waves.spreading.heading_weight_matrix` outside them."""
    g = np.asarray(grid, dtype=float)
    h = np.asarray(headings, dtype=float).ravel()
    if not axisymmetric:
        return HeadingMap(heading_weight_matrix(g, h, where), np.zeros(h.size))
    w = np.zeros((h.size, g.size))
    w[:, 0] = 1.0
    return HeadingMap(w, np.angle(np.exp(1j * (h - g[0]))))
