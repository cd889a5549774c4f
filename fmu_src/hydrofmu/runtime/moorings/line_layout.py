"""Layout of MoorDyn-C v2 lumped-mass lines: nodes, segments and their constants.

Each line of ``N`` segments has ``N + 1`` nodes, numbered line after line; the end nodes sit
on points, the ``N - 1`` internal nodes carry the state. Consecutive nodes form *pairs*: the
segments, and between two lines a pair with no stiffness (so that every pair quantity is one
array operation). Per node, over half of each adjacent segment: length, mass, diameter,
added-mass and drag coefficients, and their fully submerged values (numpy + standard library
only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from .moordyn_model import MoorDynModel

Array = NDArray[np.float64]


@dataclass
class Environment:
    """Still water: g (m/s^2), density (kg/m^3), depth (m), seabed kBot (Pa/m), cBot (Pa s/m)."""

    g: float = 9.80665
    rho: float = 1025.0
    depth: float = math.inf
    kbot: float = 3.0e6
    cbot: float = 3.0e5


class LineLayout:
    """Nodes, segments and points of a MoorDyn file, with their constant properties.

    Parameters
    ----------
    model
        The file read by :func:`~hydrofmu.runtime.moorings.moordyn_input.read_moordyn`.
    """

    def __init__(self, *, model: MoorDynModel) -> None:
        o = model.options
        self.model = model
        # as MoorDyn-C: the water is at least as deep as the lowest point of the file
        depth = max([o.WtrDpth, *(-p.position[2] for p in model.points if p.kind != "body")])
        self.env = Environment(g=o.g, rho=o.rho, depth=depth if depth > 0 else math.inf,
                               kbot=o.kBot, cbot=o.cBot)
        self.drag_scale = 1.0
        self._compression = False
        self._build(model)

    def _build(self, model: MoorDynModel) -> None:
        env = self.env
        pts = model.points
        self.n_points = len(pts)
        self.point_kind = [p.kind for p in pts]
        self.point_r0 = np.array([p.position for p in pts], dtype=float).reshape(-1, 3)
        self.point_mass = np.array([p.mass for p in pts], dtype=float)
        self.point_volume = np.array([p.volume for p in pts], dtype=float)
        self.point_cda = np.array([p.cda for p in pts], dtype=float)
        self.point_ca = np.array([p.ca for p in pts], dtype=float)
        self.point_body = [p.body for p in pts]
        self.bodies = [b for b in model.bodies]
        self.coupled_bodies = [i for i, b in enumerate(self.bodies) if b.kind == "coupled"]
        self.coupled_points = [i for i, p in enumerate(pts) if p.kind == "coupled"]
        self.free_points = np.array([i for i, p in enumerate(pts) if p.kind == "free"], dtype=int)
        self.n_coupled_dof = 6 * len(self.coupled_bodies) + 3 * len(self.coupled_points)

        starts, seg0, seg1, internal, node_line = [], [], [], [], []
        l0, ea, ba, seg_d, seg_area = [], [], [], [], []
        n_d, n_area, n_rho, n_can, n_cat, n_cdn, n_cdt, n_len, n_m = ([] for _ in range(9))
        prev, nxt = [], []
        self.end_a, self.end_b = [], []
        k = 0
        for li, ln in enumerate(model.lines):
            lt = model.line_types[ln.line_type]
            n = ln.n_segments
            area = math.pi / 4 * lt.diameter**2
            lseg = ln.length / n
            b = lt.ba
            if b < 0:
                b = -b * lseg * math.sqrt(lt.ea * lt.mass_per_length)
            starts.append(k)
            for j in range(n):
                seg0.append(k + j)
                seg1.append(k + j + 1)
                l0.append(lseg)
                ea.append(lt.ea)
                ba.append(b)
                seg_d.append(lt.diameter)
                seg_area.append(area)
            for j in range(n + 1):
                node_line.append(li)
                half = 0.5 * lseg * ((j > 0) + (j < n))
                n_len.append(half)
                n_m.append(lt.mass_per_length * half)
                n_d.append(lt.diameter)
                n_area.append(area)
                n_rho.append(lt.mass_per_length / area)
                n_can.append(lt.ca)
                n_cat.append(lt.caax)
                n_cdn.append(lt.cd)
                n_cdt.append(lt.cdax)
                prev.append(k + max(j - 1, 0))
                nxt.append(k + min(j + 1, n))
                if 0 < j < n:
                    internal.append(k + j)
            self.end_a.append(k)
            self.end_b.append(k + n)
            k += n + 1
        self.n_nodes = k
        self.line_start = np.array(starts)
        self.seg0, self.seg1 = np.array(seg0), np.array(seg1)
        self.l0, self.ea, self.ba = np.array(l0), np.array(ea), np.array(ba)
        self.seg_d = np.array(seg_d)
        self.internal = np.array(internal, dtype=int)
        self.node_line = np.array(node_line)
        self.n_len, self.n_m, self.n_d = np.array(n_len), np.array(n_m), np.array(n_d)
        self.n_area = np.array(n_area)
        self.n_can, self.n_cat = np.array(n_can), np.array(n_cat)
        self.n_cdn, self.n_cdt = np.array(n_cdn), np.array(n_cdt)
        self.prev, self.next = np.array(prev), np.array(nxt)
        self.end_a, self.end_b = np.array(self.end_a), np.array(self.end_b)
        # which end nodes sit on which point
        self.end_nodes = np.concatenate([self.end_a, self.end_b])
        self.end_points = np.array([ln.point_a - 1 for ln in model.lines]
                                   + [ln.point_b - 1 for ln in model.lines])
        self.n_internal = self.internal.size
        self.n_free = self.free_points.size
        self.n_states = 6 * self.n_internal + 6 * self.n_free
        # seabed, left/right segment of each node (for submergence)
        nseg = self.seg0.size
        self.node_left = np.full(self.n_nodes, -1)
        self.node_right = np.full(self.n_nodes, -1)
        self.node_left[self.seg1] = np.arange(nseg)
        self.node_right[self.seg0] = np.arange(nseg)
        self._has_left = self.node_left >= 0
        self._has_right = self.node_right >= 0
        self._left = np.where(self._has_left, self.node_left, 0)
        self._right = np.where(self._has_right, self.node_right, 0)
        if self.n_free and not np.all(self.point_mass[self.free_points]
                                      + self.point_volume[self.free_points] >= 0):
            raise ConfigError("free points need mass and volume >= 0", value=None)
        npair = self.n_nodes - 1
        real = np.zeros(npair, dtype=bool)
        real[self.seg0] = True
        self._pair_fake = np.where(real, 0.0, 1.0)
        self._pair_l0 = np.ones(npair)
        self._pair_ea = np.zeros(npair)
        self._pair_ba = np.zeros(npair)
        self._pair_l0[self.seg0] = self.l0
        self._pair_ea[self.seg0] = self.ea
        self._pair_ba[self.seg0] = self.ba
        vol = self.n_len * self.n_area
        self._a_full = self.n_m + env.rho * vol * self.n_can
        self._b_full = env.rho * vol * (self.n_cat - self.n_can)
        self._wz_full = -env.g * (self.n_m - env.rho * vol)
        self._cdn_d = self.n_cdn * self.n_d
        self._cdt_d = math.pi * self.n_cdt * self.n_d
