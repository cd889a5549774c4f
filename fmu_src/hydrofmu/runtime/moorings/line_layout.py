"""Layout of MoorDyn-C v2 lumped-mass lines: nodes, segments and their constants.

Each line of ``N`` segments has ``N + 1`` nodes, numbered line after line; the end nodes sit
on points, the ``N - 1`` internal nodes carry the state. Consecutive nodes form *pairs*: the
segments, and between two lines a pair with no stiffness (so that every pair quantity is one
array operation). Per node, over half of each adjacent segment: length, mass, diameter,
added-mass and drag coefficients, and their fully submerged values.

:func:`line_arrays` computes them once from a MoorDyn file into one frozen record,
:class:`LineArrays`, which the line system (:mod:`.lines`), the compiled kernel's
marshalling (:mod:`.line_kernel`) and the equilibrium solver (:mod:`.equilibrium`) read
through its public fields; its arrays are read-only (numpy + standard library only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from .moordyn_model import MoorDynModel

Array = NDArray[np.float64]
IntArray = NDArray[np.int64]

__all__ = ["BodyGroup", "Environment", "LineArrays", "line_arrays"]


@dataclass(frozen=True)
class Environment:
    """Still water: g (m/s^2), density (kg/m^3), depth (m), seabed kBot (Pa/m), cBot (Pa s/m)."""

    g: float = 9.80665
    rho: float = 1025.0
    depth: float = math.inf
    kbot: float = 3.0e6
    cbot: float = 3.0e5


@dataclass(frozen=True)
class BodyGroup:
    """The points carried by one body of the file (coupled or fixed).

    Attributes
    ----------
    coupled
        Index of the body among the coupled bodies (its 6 coupled coordinates start at
        ``6 coupled``); -1 for a fixed body.
    pose
        The body's pose in the file: position (m) and roll-pitch-yaw (rad), shape (6,).
    points
        Indices of its points, shape (k,).
    r0
        Their positions in the body's frame, m, shape (k, 3).
    """

    coupled: int
    pose: Array
    points: IntArray
    r0: Array


def _no_current_z() -> Array:
    return np.zeros(0)


def _no_current_u() -> Array:
    return np.zeros((0, 3))


@dataclass(frozen=True)
class LineArrays:
    """The constant arrays of a set of lines, points and bodies (one MoorDyn file).

    Nodes are numbered line after line (line ``k`` from ``line_start[k]``); segment ``s``
    joins nodes ``seg0[s]`` and ``seg1[s]``; pair ``p`` joins nodes ``p`` and ``p + 1``
    (a segment, or a fake pair between two lines). Integer arrays are int64, real arrays
    float64; every array is read-only.

    Attributes
    ----------
    env
        The still water.
    n_nodes, n_internal, n_points, n_free, n_lines
        Counts: nodes, internal nodes (the state), points, free points, lines.
    n_states
        Size of the state ``[r_internal, v_internal, r_free, v_free]``,
        ``6 n_internal + 6 n_free``.
    n_coupled_dof
        Coupled coordinates: 6 per coupled body, then 3 per coupled point.
    no_bodies
        No body in the file and no point on a body (the points' kinematics skip the
        bodies).
    has_seabed
        The water has a finite depth (seabed contact is computed).
    point_kind
        Per point: ``"fixed"``, ``"coupled"``, ``"free"`` or ``"body"``.
    point_body
        Per point: the id of the body it is fixed to, or None.
    point_r0
        Points' positions in the file, m, shape (n_points, 3) (body points: in the
        body's frame).
    point_mass, point_volume, point_cda, point_ca
        Points' mass (kg), volume (m^3), drag area ``CdA`` (m^2) and added-mass
        coefficient (-), shape (n_points,).
    free_points, coupled_points
        Indices of the free and of the coupled points.
    coupled_bodies
        Indices (in the file's body list) of the coupled bodies.
    body_groups
        Per body carrying points, its points (:class:`BodyGroup`).
    line_start
        First node of each line, shape (n_lines,).
    end_a, end_b
        End node A (anchor) and B (fairlead) of each line, shape (n_lines,).
    end_nodes, end_points
        Every end node (``end_a`` then ``end_b``) and the point it sits on, shape
        (2 n_lines,).
    internal
        The internal nodes, in state order, shape (n_internal,).
    node_line
        Line of each node, shape (n_nodes,).
    node_left, node_right
        Segment on each side of a node (-1: none), shape (n_nodes,).
    prev, next
        Neighbouring node on the same line (the node itself at an end), shape (n_nodes,).
    seg0, seg1
        End nodes of each segment, shape (n_seg,).
    l0, ea, ba, seg_d
        Segments' unstretched length (m), axial stiffness (N), internal damping (N s)
        and diameter (m), shape (n_seg,).
    pair_fake
        1 for a fake pair (between two lines), 0 for a segment, shape (n_nodes - 1,).
    pair_l0, pair_ea, pair_ba
        Per pair: the segment's ``l0`` (m; 1 for a fake pair), ``EA`` (N) and ``BA``
        (N s) (0 for a fake pair).
    pair_ea_l0, pair_ba_l0
        ``EA / l0`` (N/m) and ``BA / l0`` (N s/m) per pair.
    n_len, n_m, n_d, n_area
        Per node, over half of each adjacent segment: length (m), mass (kg), diameter (m)
        and cross-section area (m^2), shape (n_nodes,).
    n_can, n_cat, n_cdn, n_cdt
        Per node: normal and axial added-mass coefficients, normal and axial drag
        coefficients (-).
    cdn_d, cdt_d
        ``Cdn d`` and ``pi Cdt d``, m: the drag factors per length of wetted line.
    a_full, b_full
        Fully submerged mass matrix ``a I + b q q'`` of each node, kg.
    wz_full
        Fully submerged vertical weight and buoyancy of each node, N.
    cn_full, ct_full
        Fully submerged normal and tangential drag factors ``rho/2 Cd d l``, kg/m.
    current_z, current_u
        A steady current, MoorDyn-C's ``Currents = 1`` table: depths, m, ascending, shape
        (n,), and the water velocity there, m/s, shape (n, 3), linear in between and the
        end rows' values beyond (:func:`water_velocity`); empty (n = 0): still water.
    """

    env: Environment
    n_nodes: int
    n_internal: int
    n_points: int
    n_free: int
    n_lines: int
    n_states: int
    n_coupled_dof: int
    no_bodies: bool
    has_seabed: bool
    point_kind: tuple[str, ...]
    point_body: tuple[int | None, ...]
    point_r0: Array
    point_mass: Array
    point_volume: Array
    point_cda: Array
    point_ca: Array
    free_points: IntArray
    coupled_points: IntArray
    coupled_bodies: IntArray
    body_groups: tuple[BodyGroup, ...]
    line_start: IntArray
    end_a: IntArray
    end_b: IntArray
    end_nodes: IntArray
    end_points: IntArray
    internal: IntArray
    node_line: IntArray
    node_left: IntArray
    node_right: IntArray
    prev: IntArray
    next: IntArray
    seg0: IntArray
    seg1: IntArray
    l0: Array
    ea: Array
    ba: Array
    seg_d: Array
    pair_fake: Array
    pair_l0: Array
    pair_ea: Array
    pair_ba: Array
    pair_ea_l0: Array
    pair_ba_l0: Array
    n_len: Array
    n_m: Array
    n_d: Array
    n_area: Array
    n_can: Array
    n_cat: Array
    n_cdn: Array
    n_cdt: Array
    cdn_d: Array
    cdt_d: Array
    a_full: Array
    b_full: Array
    wz_full: Array
    cn_full: Array
    ct_full: Array
    current_z: Array = field(default_factory=_no_current_z)
    current_u: Array = field(default_factory=_no_current_u)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        for group in self.body_groups:
            for arr in (group.pose, group.points, group.r0):
                arr.flags.writeable = False


def environment(model: MoorDynModel) -> Environment:
    """The still water of a MoorDyn file: as MoorDyn-C, at least as deep as its lowest
    non-body point (no seabed when the depth is not positive)."""
    o = model.options
    depth = max([o.WtrDpth, *(-p.position[2] for p in model.points if p.kind != "body")])
    return Environment(g=o.g, rho=o.rho, depth=depth if depth > 0 else math.inf,
                       kbot=o.kBot, cbot=o.cBot)


def line_arrays(model: MoorDynModel) -> LineArrays:
    """The constant arrays of the lines, points and bodies of ``model``.

    Raises
    ------
    ConfigError
        A free point has a negative mass plus volume.
    """
    env = environment(model)
    pts = model.points
    point_body = tuple(p.body for p in pts)
    point_r0 = np.array([p.position for p in pts], dtype=float).reshape(-1, 3)
    point_mass = np.array([p.mass for p in pts], dtype=float)
    point_volume = np.array([p.volume for p in pts], dtype=float)
    bodies = list(model.bodies)
    coupled_bodies = [i for i, b in enumerate(bodies) if b.kind == "coupled"]
    coupled_points = [i for i, p in enumerate(pts) if p.kind == "coupled"]
    free_points = np.array([i for i, p in enumerate(pts) if p.kind == "free"], dtype=int)
    n = _nodes(model)
    nseg = n["seg0"].size
    n_nodes = n["n_nodes"]
    node_left = np.full(n_nodes, -1)
    node_right = np.full(n_nodes, -1)
    node_left[n["seg1"]] = np.arange(nseg)
    node_right[n["seg0"]] = np.arange(nseg)
    if free_points.size and not np.all(point_mass[free_points]
                                       + point_volume[free_points] >= 0):
        raise ConfigError("free points need mass and volume >= 0", value=None)
    npair = n_nodes - 1
    real = np.zeros(npair, dtype=bool)
    real[n["seg0"]] = True
    pair_l0, pair_ea, pair_ba = np.ones(npair), np.zeros(npair), np.zeros(npair)
    pair_l0[n["seg0"]] = n["l0"]
    pair_ea[n["seg0"]] = n["ea"]
    pair_ba[n["seg0"]] = n["ba"]
    vol = n["n_len"] * n["n_area"]
    cdn_d = n["n_cdn"] * n["n_d"]
    cdt_d = math.pi * n["n_cdt"] * n["n_d"]
    half_rho = 0.5 * env.rho
    groups = []
    for bi, body in enumerate(bodies):
        idx = np.array([i for i, pb in enumerate(point_body) if pb == body.id], dtype=int)
        if idx.size:
            k = coupled_bodies.index(bi) if body.kind == "coupled" else -1
            groups.append(BodyGroup(coupled=k, pose=np.array(body.pose, dtype=float),
                                    points=idx, r0=point_r0[idx]))
    internal = n["internal"]
    return LineArrays(
        env=env, n_nodes=n_nodes, n_internal=internal.size, n_points=len(pts),
        n_free=free_points.size, n_lines=len(model.lines),
        n_states=6 * internal.size + 6 * free_points.size,
        n_coupled_dof=6 * len(coupled_bodies) + 3 * len(coupled_points),
        no_bodies=not bodies and not any(b is not None for b in point_body),
        has_seabed=math.isfinite(env.depth),
        point_kind=tuple(p.kind for p in pts), point_body=point_body, point_r0=point_r0,
        point_mass=point_mass, point_volume=point_volume,
        point_cda=np.array([p.cda for p in pts], dtype=float),
        point_ca=np.array([p.ca for p in pts], dtype=float),
        free_points=free_points, coupled_points=np.array(coupled_points, dtype=int),
        coupled_bodies=np.array(coupled_bodies, dtype=int), body_groups=tuple(groups),
        line_start=n["line_start"], end_a=n["end_a"], end_b=n["end_b"],
        end_nodes=np.concatenate([n["end_a"], n["end_b"]]),
        end_points=np.array([ln.point_a - 1 for ln in model.lines]
                            + [ln.point_b - 1 for ln in model.lines]),
        internal=internal, node_line=n["node_line"], node_left=node_left,
        node_right=node_right, prev=n["prev"], next=n["next"], seg0=n["seg0"],
        seg1=n["seg1"], l0=n["l0"], ea=n["ea"], ba=n["ba"], seg_d=n["seg_d"],
        pair_fake=np.where(real, 0.0, 1.0), pair_l0=pair_l0, pair_ea=pair_ea,
        pair_ba=pair_ba, pair_ea_l0=pair_ea / pair_l0, pair_ba_l0=pair_ba / pair_l0,
        n_len=n["n_len"], n_m=n["n_m"], n_d=n["n_d"], n_area=n["n_area"],
        n_can=n["n_can"], n_cat=n["n_cat"], n_cdn=n["n_cdn"], n_cdt=n["n_cdt"],
        cdn_d=cdn_d, cdt_d=cdt_d,
        a_full=n["n_m"] + env.rho * vol * n["n_can"],
        b_full=env.rho * vol * (n["n_cat"] - n["n_can"]),
        wz_full=-env.g * (n["n_m"] - env.rho * vol),
        cn_full=cdn_d * half_rho * n["n_len"], ct_full=cdt_d * half_rho * n["n_len"],
        **_current(model))


def _current(model: MoorDynModel) -> dict[str, Array]:
    """The model's steady current table (``model.current``: rows ``(z, ux, uy, uz)``, m and
    m/s), sorted by depth; none when it has no rows."""
    rows = np.array(getattr(model, "current", ()) or (), dtype=float).reshape(-1, 4)
    if not rows.size:
        return {}
    rows = rows[np.argsort(rows[:, 0], kind="stable")]
    if np.any(np.diff(rows[:, 0]) <= 0.0) or not np.all(np.isfinite(rows)):
        raise ConfigError(f"the current table's depths must be finite and distinct, got "
                          f"{rows[:, 0].tolist()} m", value=rows[:, 0].tolist())
    return {"current_z": np.ascontiguousarray(rows[:, 0]),
            "current_u": np.ascontiguousarray(rows[:, 1:])}


def water_velocity(arrays: LineArrays, z: Array) -> Array | None:
    """The steady current's velocity at the depths ``z`` (m, shape (n,)): m/s, shape (n, 3);
    ``None`` in still water. Linear between the table's depths (``numpy.interp``, as the
    kernel), the end rows' values beyond them (MoorDyn-C's ``Currents = 1``)."""
    cz, cu = arrays.current_z, arrays.current_u
    if cz.size == 0:
        return None
    if cz.size == 1:
        return np.broadcast_to(cu[0], (np.size(z), 3))
    return np.stack([np.interp(z, cz, cu[:, k]) for k in range(3)], axis=1)


def _nodes(model: MoorDynModel) -> dict:
    """Nodes and segments of every line, line after line (arrays, and ``n_nodes``)."""
    starts, seg0, seg1, internal, node_line = [], [], [], [], []
    l0, ea, ba, seg_d = [], [], [], []
    n_d, n_area, n_can, n_cat, n_cdn, n_cdt, n_len, n_m = ([] for _ in range(8))
    prev, nxt, end_a, end_b = [], [], [], []
    k = 0
    for li, ln in enumerate(model.lines):
        lt = model.line_types[ln.line_type]
        n = ln.n_segments
        area = math.pi / 4 * lt.diameter**2
        lseg = ln.length / n
        b = lt.ba
        if b < 0:  # -zeta: the damping ratio of the segment's axial mode
            b = -b * lseg * math.sqrt(lt.ea * lt.mass_per_length)
        starts.append(k)
        for j in range(n):
            seg0.append(k + j)
            seg1.append(k + j + 1)
            l0.append(lseg)
            ea.append(lt.ea)
            ba.append(b)
            seg_d.append(lt.diameter)
        for j in range(n + 1):
            node_line.append(li)
            half = 0.5 * lseg * ((j > 0) + (j < n))
            n_len.append(half)
            n_m.append(lt.mass_per_length * half)
            n_d.append(lt.diameter)
            n_area.append(area)
            n_can.append(lt.ca)
            n_cat.append(lt.caax)
            n_cdn.append(lt.cd)
            n_cdt.append(lt.cdax)
            prev.append(k + max(j - 1, 0))
            nxt.append(k + min(j + 1, n))
            if 0 < j < n:
                internal.append(k + j)
        end_a.append(k)
        end_b.append(k + n)
        k += n + 1
    return {"n_nodes": k, "line_start": np.array(starts), "seg0": np.array(seg0),
            "seg1": np.array(seg1), "l0": np.array(l0), "ea": np.array(ea),
            "ba": np.array(ba), "seg_d": np.array(seg_d),
            "internal": np.array(internal, dtype=int), "node_line": np.array(node_line),
            "n_len": np.array(n_len), "n_m": np.array(n_m), "n_d": np.array(n_d),
            "n_area": np.array(n_area), "n_can": np.array(n_can), "n_cat": np.array(n_cat),
            "n_cdn": np.array(n_cdn), "n_cdt": np.array(n_cdt), "prev": np.array(prev),
            "next": np.array(nxt), "end_a": np.array(end_a), "end_b": np.array(end_b)}
