"""The compiled line kernel's arguments: ``struct hf_lines`` and the call of ``hf_line_eval``.

:class:`LineKernel` copies the constant arrays of a set of lines (the frozen record
:class:`~hydrofmu.runtime.moorings.line_layout.LineArrays`, read through its public fields)
into the C structure of ``line_kernel.c``, holds the work arrays the C code fills, and
calls the derivative. Finding and loading the library is :mod:`.kernel_loader`'s job;
where it lives, :mod:`.kernel_files`'.

Run-time module: numpy, ctypes and the standard library only.
"""

from __future__ import annotations

import ctypes

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from .line_layout import LineArrays

Array = NDArray[np.float64]

_I64P = ctypes.POINTER(ctypes.c_int64)
_F64P = ctypes.POINTER(ctypes.c_double)
_SIZES = ("n_nodes", "n_internal", "n_points", "n_free", "n_lines", "n_states",
          "n_coupled_dof", "n_seg", "n_groups", "n_cp", "n_coupled_bodies", "no_bodies",
          "has_seabed")
_ENV = ("g", "rho", "depth", "kbot", "cbot")
_INT_ARRAYS = ("internal", "node_kind", "node_left", "node_right", "end_nodes", "end_points",
               "seg0", "seg1")
_REAL_ARRAYS = ("l0", "pair_l0", "pair_ea_l0", "pair_ba_l0", "pair_fake", "n_len", "n_m",
                "n_d", "n_area", "n_can", "n_cat", "cdn_d", "cdt_d", "a_full", "b_full",
                "wz_full", "cn_full", "ct_full", "point_r0", "point_mass", "point_volume",
                "point_cda", "point_ca")
_INT_ARRAYS2 = ("cp_index", "free_points", "point_free", "group_k")
_WORK = ("r", "v", "rp", "vp", "fnet", "a", "b", "q", "pair_tension", "seg_force", "point_f",
         "sub_len", "seg_sub", "point_m")


class HfLines(ctypes.Structure):
    """``struct hf_lines`` of ``line_kernel.c`` (same fields, same order)."""

    _fields_ = ([(n, ctypes.c_int64) for n in _SIZES] + [(n, ctypes.c_double) for n in _ENV]
                + [(n, _I64P) for n in _INT_ARRAYS] + [(n, _F64P) for n in _REAL_ARRAYS]
                + [(n, _I64P) for n in _INT_ARRAYS2] + [("group_pose", _F64P)]
                + [(n, _I64P) for n in ("group_start", "group_points")]
                + [(n, _F64P) for n in _WORK]
                + [("n_current", ctypes.c_int64), ("current_z", _F64P), ("current_u", _F64P)])


class LineKernel:
    """The compiled derivative bound to one set of lines.

    It holds the lines' constant arrays and its own work arrays (nodes ``r``, ``v``,
    ``fnet``, ``q``, shape (n_nodes, 3); ``a``, ``b``, (n_nodes,); ``pair_tension``,
    (n_nodes - 1,); points ``rp``, ``vp``, ``point_f``, (n_points, 3)), which one call of
    :meth:`run` fills.

    Parameters
    ----------
    arrays
        The lines' constant arrays (read once).
    lib
        The library from :func:`~hydrofmu.runtime.moorings.kernel_loader.load_library`.

    Attributes
    ----------
    lib
        The library.
    arrays
        The lines' constant arrays.
    n_states, n_coupled_dof
        Sizes of the state and of the coupled coordinates.
    """

    def __init__(self, *, arrays: LineArrays, lib: ctypes.CDLL) -> None:
        s = self.arrays = arrays
        self.lib = lib
        keep: dict[str, np.ndarray] = {}

        def ints(a: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(np.asarray(a).reshape(-1), dtype=np.int64)

        def reals(a: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(np.asarray(a, dtype=float).reshape(-1))

        nn, nl = s.n_nodes, len(s.end_a)
        kind = np.zeros(nn, dtype=np.int64)
        kind[s.end_a] = 1
        kind[s.end_b] = 2
        point_free = np.full(s.n_points, -1, dtype=np.int64)
        point_free[s.free_points] = np.arange(s.n_free)
        groups = s.body_groups
        group_k = [g.coupled for g in groups]
        group_pose = [g.pose for g in groups]
        group_points = [int(i) for g in groups for i in g.points]
        group_start = np.cumsum([0] + [len(g.points) for g in groups])
        keep.update(
            internal=ints(s.internal), node_kind=kind, node_left=ints(s.node_left),
            node_right=ints(s.node_right), end_nodes=ints(s.end_nodes),
            end_points=ints(s.end_points), seg0=ints(s.seg0), seg1=ints(s.seg1),
            l0=reals(s.l0), pair_l0=reals(s.pair_l0), pair_ea_l0=reals(s.pair_ea_l0),
            pair_ba_l0=reals(s.pair_ba_l0), pair_fake=reals(s.pair_fake),
            n_len=reals(s.n_len), n_m=reals(s.n_m), n_d=reals(s.n_d), n_area=reals(s.n_area),
            n_can=reals(s.n_can), n_cat=reals(s.n_cat), cdn_d=reals(s.cdn_d),
            cdt_d=reals(s.cdt_d), a_full=reals(s.a_full), b_full=reals(s.b_full),
            wz_full=reals(s.wz_full), cn_full=reals(s.cn_full), ct_full=reals(s.ct_full),
            point_r0=reals(s.point_r0), point_mass=reals(s.point_mass),
            point_volume=reals(s.point_volume), point_cda=reals(s.point_cda),
            point_ca=reals(s.point_ca), cp_index=ints(s.coupled_points),
            free_points=ints(s.free_points), point_free=point_free,
            group_k=ints(np.array(group_k, dtype=np.int64)), group_pose=reals(group_pose),
            group_start=ints(group_start), group_points=ints(np.array(group_points)),
            current_z=reals(s.current_z), current_u=reals(s.current_u))
        npt = s.n_points
        work = {"r": (nn, 3), "v": (nn, 3), "rp": (npt, 3), "vp": (npt, 3), "fnet": (nn, 3),
                "a": (nn,), "b": (nn,), "q": (nn, 3), "pair_tension": (max(nn - 1, 1),),
                "seg_force": (max(nn - 1, 1), 3), "point_f": (npt, 3), "sub_len": (nn,),
                "seg_sub": (max(s.seg0.size, 1),), "point_m": (max(s.n_free, 1), 9)}
        for name, shape in work.items():
            keep[name] = np.zeros(shape)
        # every array with at least one element, so that no pointer is NULL
        for name, arr in list(keep.items()):
            if arr.size == 0:
                keep[name] = np.zeros(1, dtype=arr.dtype)
        self._arrays = keep
        st = HfLines()
        for name, value in (("n_nodes", nn), ("n_internal", s.n_internal),
                            ("n_points", npt), ("n_free", s.n_free), ("n_lines", nl),
                            ("n_states", s.n_states), ("n_coupled_dof", s.n_coupled_dof),
                            ("n_seg", s.seg0.size), ("n_groups", len(groups)),
                            ("n_cp", len(s.coupled_points)),
                            ("n_coupled_bodies", len(s.coupled_bodies)),
                            ("no_bodies", int(s.no_bodies)),
                            ("has_seabed", int(s.has_seabed)),
                            ("n_current", s.current_z.size)):
            setattr(st, name, int(value))
        env = s.env
        st.g, st.rho, st.depth, st.kbot, st.cbot = env.g, env.rho, env.depth, env.kbot, env.cbot
        for name, arr in keep.items():
            ptype = _I64P if arr.dtype == np.int64 else _F64P
            setattr(st, name, arr.ctypes.data_as(ptype))
        self._struct = st
        #: Address of the ``struct hf_lines`` (valid while this object lives).
        self.struct_address = ctypes.addressof(st)
        n, nc = s.n_states, s.n_coupled_dof
        # one input buffer [x, cp, cv] and one output, at fixed addresses
        self._inp = np.zeros(n + 2 * nc + 1)
        self._x, self._cp, self._cv = (self._inp[:n], self._inp[n:n + nc],
                                       self._inp[n + nc:n + 2 * nc])
        self._out = np.zeros(max(n, 1))
        base = self._inp.ctypes.data
        self._ptrs = (base, base + 8 * n, base + 8 * (n + nc))
        self._out_ptr = self._out.ctypes.data
        self._eval = lib.hf_line_eval
        self.n_states = n
        for name in ("r", "v", "rp", "vp", "fnet", "a", "b", "q", "pair_tension", "point_f"):
            setattr(self, name, keep[name])

    def run(self, x: Array, cp: Array, cv: Array, drag_scale: float, compression: bool,
            points: bool) -> Array:
        """Evaluate at state ``x`` with coupled positions ``cp`` and velocities ``cv``.

        Returns the derivative, shape (n_states,) (the kernel's own buffer: copy it to keep
        it); the work arrays hold the nodes, forces and (with ``points`` or free points)
        the point forces.

        Raises
        ------
        ValueError
            ``x``, ``cp`` or ``cv`` of the wrong size.
        numpy.linalg.LinAlgError
            A free point's mass matrix is singular.
        """
        self._x[:] = x
        self._cp[:] = cp
        self._cv[:] = cv
        px, pc, pv = self._ptrs
        if self._eval(self.struct_address, px, pc, pv, drag_scale, compression, points,
                      self._out_ptr):
            raise np.linalg.LinAlgError("a free point's mass matrix is singular")
        return self._out[:self.n_states]

    def run_checked(self, x: Array, cp: Array, cv: Array, drag_scale: float,
                    compression: bool, points: bool) -> Array:
        """:meth:`run`, with arguments of another shape flattened, and wrong sizes raising
        :class:`~hydrofmu.runtime.errors.ConfigError` as the numpy kernel does."""
        try:
            return self.run(x, cp, cv, drag_scale, compression, points)
        except ValueError:
            n_dof, n_states = self.arrays.n_coupled_dof, self.arrays.n_states
            cp = np.asarray(cp, dtype=float).ravel()
            cv = np.asarray(cv, dtype=float).ravel()
            if cp.size != n_dof or cv.size != n_dof:
                raise ConfigError(
                    f"the lines expect {n_dof} coupled positions and "
                    f"velocities, got {cp.size} and {cv.size}", value=cp.size) from None
            x = np.asarray(x, dtype=float).ravel()
            if x.size != n_states:
                raise ConfigError(f"the lines have {n_states} states, got {x.size}",
                                  value=x.size) from None
            return self.run(x, cp, cv, drag_scale, compression, points)

    def evaluation(self, points: bool) -> dict:
        """``LineSystem.evaluate``'s dict from the work arrays of the last :meth:`run`
        (copies; ``point_f`` None unless ``points``)."""
        return {"r": self.r.copy(), "v": self.v.copy(), "fnet": self.fnet.copy(),
                "point_r": self.rp.copy(), "point_v": self.vp.copy(),
                "point_f": self.point_f.copy() if points else None,
                "seg_tension": self.pair_tension[self.arrays.seg0]}
