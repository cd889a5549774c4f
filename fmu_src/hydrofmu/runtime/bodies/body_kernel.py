"""The compiled rigid-body kernel: loading it, its argument structure and its calls.

:class:`BodyKernel` binds one model's large-rotation bodies (kinds, hinge geometry, mass
matrices) and its constant matrices (the constraint basis, the left side, the added mass)
to ``body_kernel.c`` and holds the work and result arrays, allocated once: a stage's calls
allocate nothing in C. The rotation helpers of :mod:`.rotations` call the same library.

There is no numpy copy of the kinematics or of the Newton-Euler solve (the physics lives
once, in C; the native FMU includes the same source): without a usable library a model with
large rotations is refused with the fix (a C compiler at build time).

Run-time module: numpy, ctypes and the standard library only.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, IntegrationError
from .body_files import ABI_VERSION, bundled_library, cache_dir, cached_library, reads_cache

Array = NDArray[np.float64]

_F64P = ctypes.POINTER(ctypes.c_double)
_I64P = ctypes.POINTER(ctypes.c_int64)
_P = ctypes.c_void_p

#: ``HB_NONE``, ``HB_FREE``, ``HB_AXIS``, ``HB_HINGE`` of ``body_kernel.c``.
NONE, FREE, AXIS, HINGE = 0, 1, 2, 3
#: Doubles of geometry per body (the unit axis, the arm from the hinge point).
GEOMETRY = 6

_loaded: dict[str, ctypes.CDLL] = {}

#: Signatures of the library's functions: name -> (restype, argtypes).
_SIGNATURES: dict[str, tuple[object, list[object]]] = {
    "hb_work_size": (ctypes.c_int64, [ctypes.c_int64, ctypes.c_int64]),
    "hb_matrix_from_euler": (None, [_P, _P]),
    "hb_euler_from_matrix": (None, [_P, _P]),
    "hb_matrix_from_quaternion": (None, [_P, _P]),
    "hb_quaternion_from_matrix": (None, [_P, _P]),
    "hb_axis_angle_matrix": (None, [_P, ctypes.c_double, _P]),
    "hb_quaternion_rate": (None, [_P, _P, _P]),
    "hb_poses": (ctypes.c_int, [_P, _P, _P, _P, _P, _P, _P, _P]),
    "hb_turn": (None, [_P, _P, _P, _P, ctypes.c_int64]),
    "hb_turned_added_mass": (None, [_P, _P, _P]),
    "hb_solve": (ctypes.c_int, [_P, _P, _P, _P, _P, _P, _P, _P]),
    "hb_quaternion_rates": (None, [_P, _P, _P, _P]),
    "hb_quaternions": (None, [_P, _P, _P, _P]),
}


class Poses(NamedTuple):
    """The bodies' true pose and velocity (world axes), and the large-rotation bodies'
    rotations and velocity maps, as :meth:`BodyKernel.poses` gives them.

    Attributes
    ----------
    q, v
        Shape (n,) each: displacement and roll, pitch, yaw (m, rad); ``[v, omega]`` (m/s,
        rad/s).
    rot, dmap
        Shape (nb, 3, 3) and (nb, 6, 6): each body's ``R`` (body to world) and ``D``.
    """

    q: Array
    v: Array
    rot: Array
    dmap: Array


class HbModel(ctypes.Structure):
    """``struct hb_model`` of ``body_kernel.c`` (same fields, same order)."""

    _fields_ = [("n", ctypes.c_int64), ("nr", ctypes.c_int64), ("nb", ctypes.c_int64),
                ("any_frame", ctypes.c_int64),
                *((name, _I64P) for name in ("kind", "dof0", "quat", "frame", "axis")),
                *((name, _F64P) for name in ("geometry", "mass", "basis", "lhs0", "added",
                                             "work"))]


class BodyKernelUnavailable(ConfigError):
    """No usable compiled rigid-body kernel; the message says why and the fix."""


def check_library(path: Path) -> ctypes.CDLL:
    """Load the library at ``path`` and check its ABI and structure size."""
    try:
        lib = ctypes.CDLL(str(path))
        abi, size = lib.hb_body_kernel_abi, lib.hb_body_kernel_struct_size
        functions = [getattr(lib, name) for name in _SIGNATURES]
    except (OSError, AttributeError) as exc:
        raise BodyKernelUnavailable(f"{path} does not load as the rigid-body kernel: {exc}",
                                    value=str(path)) from exc
    abi.restype = size.restype = ctypes.c_int64
    abi.argtypes = size.argtypes = []
    if abi() != ABI_VERSION or size() != ctypes.sizeof(HbModel):
        raise BodyKernelUnavailable(
            f"{path} has ABI {abi()} ({size()} bytes); this hydrofmu needs ABI {ABI_VERSION} "
            f"({ctypes.sizeof(HbModel)} bytes): delete it to rebuild", value=str(path))
    for function, (restype, argtypes) in zip(functions, _SIGNATURES.values(), strict=True):
        function.restype = restype
        function.argtypes = argtypes
    return lib


def load_library(path: str | Path | None = None) -> ctypes.CDLL:
    """The compiled kernel: ``path``, else the bundled one, else (installed package only)
    the cached one; kept for the process once loaded.

    Raises
    ------
    BodyKernelUnavailable
        None is found or usable; the message says which were tried and the fix.
    """
    if path is not None:
        return check_library(Path(path))
    if "lib" in _loaded:
        return _loaded["lib"]
    bundled = bundled_library()
    if bundled.is_file():
        _loaded["lib"] = check_library(bundled)
        return _loaded["lib"]
    tried = [f"no {bundled.name} beside {bundled.parent}"]
    if reads_cache():
        cached = cached_library()
        if cached.is_file():
            _loaded["lib"] = check_library(cached)
            return _loaded["lib"]
        tried.append(f"no {cached.name} in {cache_dir()}")
    raise BodyKernelUnavailable(
        "rotations = \"large\" needs the compiled rigid-body kernel: " + "; ".join(tried)
        + "; fix: install a C compiler (or pip install 'hydrofmu[native]') and build the "
        "model again (hydrofmu compiles the kernel when it builds a model with a "
        "large-rotation body, and into every FMU that has one), or use rotations = "
        "\"small\"", value="body_kernel")


def call(name: str, *args: object) -> None:
    """Call the library's ``name`` with numpy arrays passed by their data pointers."""
    getattr(load_library(), name)(*(a.ctypes.data if isinstance(a, np.ndarray) else a
                                    for a in args))


class BodyKernel:
    """One model's large-rotation bodies bound to the compiled kernel.

    Parameters
    ----------
    kind, dof0, quat, frame, axis
        Per large-rotation body (nb,): its kind (:data:`NONE`, :data:`FREE`,
        :data:`AXIS`, :data:`HINGE`), first DOF, quaternion index in the state (-1 when
        none), 1 when its radiation acts in body axes, and its axis index (an axis
        rotation) or 1 for a hinge about a coordinate axis.
    geometry
        Shape (nb, 6): the unit axis and the arm ``r0 - p`` from the hinge point, m.
    mass
        Shape (nb, 6, 6): each body's rigid mass matrix about its reference point, body
        axes, kg, kg m, kg m^2.
    basis
        The constraint basis ``T``, shape (n, nr).
    lhs0, added
        The constant left side and the added mass, shape (n, n), kg, kg m, kg m^2.
    lib
        The library (default: :func:`load_library`).
    """

    def __init__(self, *, kind: list[int], dof0: list[int], quat: list[int],
                 frame: list[int], axis: list[int], geometry: Array, mass: Array,
                 basis: Array, lhs0: Array, added: Array,
                 lib: ctypes.CDLL | None = None) -> None:
        self.lib = load_library() if lib is None else lib
        ints = [np.ascontiguousarray(a, dtype=np.int64) for a in (kind, dof0, quat, frame,
                                                                  axis)]
        n, nr = np.shape(basis)
        nb = len(kind)
        floats = [np.ascontiguousarray(a, dtype=np.float64) for a in (
            np.reshape(geometry, (nb, GEOMETRY)), np.reshape(mass, (nb, 6, 6)), basis, lhs0,
            added)]
        self.work = np.zeros(int(self.lib.hb_work_size(n, nr)))
        self.arrays = [*ints, *floats, self.work]  # kept alive with the structure
        self.struct = HbModel(n, nr, nb, int(any(frame)),
                              *(a.ctypes.data_as(_I64P) for a in ints),
                              *(a.ctypes.data_as(_F64P) for a in (*floats, self.work)))
        self.model = ctypes.addressof(self.struct)
        self.n, self.nr, self.nb = n, nr, nb
        self.n_quaternions = 4 * sum(1 for k in kind if k == FREE)

    def poses(self, q_lin: Array, v_lin: Array, y: Array) -> Poses:
        """The true pose ``q`` and velocity ``v`` (n each) from the linear coordinates and
        the state ``y``, with the bodies' rotations and velocity maps (new arrays)."""
        q, v = np.empty(self.n), np.empty(self.n)
        rot, dmap = np.empty((self.nb, 3, 3)), np.empty((self.nb, 6, 6))
        y = np.ascontiguousarray(y, dtype=np.float64)
        q_lin = np.ascontiguousarray(q_lin, dtype=np.float64)
        v_lin = np.ascontiguousarray(v_lin, dtype=np.float64)
        rc = self.lib.hb_poses(self.model, q_lin.ctypes.data, v_lin.ctypes.data,
                               y.ctypes.data, q.ctypes.data, v.ctypes.data,
                               rot.ctypes.data, dmap.ctypes.data)
        if rc != 0:
            raise IntegrationError(f"a large-rotation body's pose is not finite (state "
                                   f"{y.tolist()}): the step diverged; take a shorter "
                                   "max_internal_step", value=y.tolist())
        return Poses(q, v, rot, dmap)

    def solve(self, poses: Poses, total: Array) -> tuple[Array, Array, Array]:
        """``(v_r', a, F_c)`` at ``poses`` (of :meth:`poses`) under the force sum ``total``
        (n), N and N m: the reduced and the full acceleration (world axes) and the
        constraint force (new arrays).

        Raises
        ------
        IntegrationError
            The reduced mass matrix is singular, or a result is not finite.
        """
        vr_dot, acc, f_c = np.empty(self.nr), np.empty(self.n), np.empty(self.n)
        total = np.ascontiguousarray(total, dtype=np.float64)
        rc = self.lib.hb_solve(self.model, poses.rot.ctypes.data, poses.dmap.ctypes.data,
                               poses.v.ctypes.data, total.ctypes.data, vr_dot.ctypes.data,
                               acc.ctypes.data, f_c.ctypes.data)
        if rc != 0:
            why = "singular" if rc == 3 else "not finite"
            raise IntegrationError(f"the large-rotation equations' reduced mass matrix J^T L J "
                                   f"is {why} (code {rc}) at forces {total.tolist()}: check "
                                   "the bodies' masses and inertias", value=rc)
        return vr_dot, acc, f_c

    def turn(self, poses: Poses, x: Array, *, to_body: bool) -> Array:
        """``x`` (n) with the body-axes bodies' six turned to their body axes
        (``to_body``) or back to world axes, at ``poses`` (new array)."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        out = np.empty(self.n)
        self.lib.hb_turn(self.model, poses.rot.ctypes.data, x.ctypes.data, out.ctypes.data,
                         int(to_body))
        return out

    def turned_added_mass(self, poses: Poses) -> Array:
        """The added mass with the body-axes bodies' rows and columns turned, ``Q A Q^T``,
        shape (n, n), at ``poses``."""
        out = np.empty((self.n, self.n))
        self.lib.hb_turned_added_mass(self.model, poses.rot.ctypes.data, out.ctypes.data)
        return out

    def quaternion_rates(self, y: Array, v: Array) -> Array:
        """The free bodies' quaternion rates (4 each, body order) from the state and the
        true velocity."""
        out = np.empty(self.n_quaternions)
        y = np.ascontiguousarray(y, dtype=np.float64)
        v = np.ascontiguousarray(v, dtype=np.float64)
        self.lib.hb_quaternion_rates(self.model, y.ctypes.data, v.ctypes.data,
                                     out.ctypes.data)
        return out

    def quaternions(self, y: Array, q: Array) -> Array:
        """Every large-rotation body's output quaternion (4 each, ``w >= 0``) from the state
        and the true pose."""
        out = np.empty(4 * self.nb)
        y = np.ascontiguousarray(y, dtype=np.float64)
        q = np.ascontiguousarray(q, dtype=np.float64)
        self.lib.hb_quaternions(self.model, y.ctypes.data, q.ctypes.data, out.ctypes.data)
        return out
