"""The compiled panel kernel: loading it, its argument structure and one call.

:class:`PanelKernel` binds one mesh (vertices in the body frame about the reference point,
triangles) and one wave (linear components) to ``panel_kernel.c`` and holds the work
arrays, allocated once: a call (:meth:`PanelKernel.evaluate`) allocates nothing in C and
returns views of one preallocated output array.

There is no numpy copy of the integration (the physics lives once, in C): without a
usable library the nonlinear part is refused with the fix (a C compiler at build time).

Run-time module: numpy, ctypes and the standard library only.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from .panel_files import ABI_VERSION, bundled_library, cache_dir, cached_library, reads_cache

Array = NDArray[np.float64]

_F64P = ctypes.POINTER(ctypes.c_double)
_I64P = ctypes.POINTER(ctypes.c_int64)

#: Mode flags of ``hp_panel_eval``.
STATIC, WAVE, INSTANTANEOUS = 1, 2, 4

#: Output layout of ``hp_panel_eval`` (``HP_OUT`` doubles).
OUT_SIZE = 20
STATIC_LOAD, WAVE_LOAD = slice(0, 6), slice(6, 12)
VOLUME, COB, AWP, CWP, WETTED = 12, slice(13, 16), 16, slice(17, 19), 19

#: Work doubles per vertex (``HP_STRIDE``) and per wave component.
WORK_PER_VERTEX = 5

_loaded: dict[str, ctypes.CDLL] = {}


class HpPanels(ctypes.Structure):
    """``struct hp_panels`` of ``panel_kernel.c`` (same fields, same order)."""

    _fields_ = [("n_vertices", ctypes.c_int64), ("n_triangles", ctypes.c_int64),
                ("n_components", ctypes.c_int64), ("rho", ctypes.c_double),
                ("g", ctypes.c_double), ("depth", ctypes.c_double),
                ("vertices", _F64P), ("triangles", _I64P), ("amplitude", _F64P),
                ("omega", _F64P), ("wavenumber", _F64P), ("heading", _F64P),
                ("phase", _F64P), ("work", _F64P)]


class PanelKernelUnavailable(ConfigError):
    """No usable compiled panel kernel; the message says why and the fix."""


def check_library(path: Path) -> ctypes.CDLL:
    """Load the library at ``path`` and check its ABI and structure size."""
    try:
        lib = ctypes.CDLL(str(path))
        abi, size, evaluate = (lib.hp_panel_kernel_abi, lib.hp_panel_kernel_struct_size,
                               lib.hp_panel_eval)
    except (OSError, AttributeError) as exc:
        raise PanelKernelUnavailable(f"{path} does not load as the panel kernel: {exc}",
                                     value=str(path)) from exc
    abi.restype = size.restype = ctypes.c_int64
    abi.argtypes = size.argtypes = []
    if abi() != ABI_VERSION or size() != ctypes.sizeof(HpPanels):
        raise PanelKernelUnavailable(
            f"{path} has ABI {abi()} ({size()} bytes); this hydrofmu needs ABI {ABI_VERSION} "
            f"({ctypes.sizeof(HpPanels)} bytes): delete it to rebuild", value=str(path))
    evaluate.restype = ctypes.c_int
    evaluate.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double, ctypes.c_double,
                         ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p]
    lib.hp_body_loads.restype = ctypes.c_int
    lib.hp_body_loads.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_double, ctypes.c_double, ctypes.c_int64,
                                  ctypes.c_void_p, ctypes.c_void_p]
    return lib


def load_library(path: str | Path | None = None) -> ctypes.CDLL:
    """The compiled kernel: ``path``, else the bundled one, else (installed package only)
    the cached one; kept for the process once loaded.

    Raises
    ------
    PanelKernelUnavailable
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
    raise PanelKernelUnavailable(
        "nonlinear hydrostatics need the compiled panel kernel: " + "; ".join(tried)
        + "; fix: install a C compiler (or pip install 'hydrofmu[native]') and build the "
        "model again (hydrofmu compiles the kernel when it builds a model with a nonlinear "
        "body, and into every FMU that has one)", value="panel_kernel")


@dataclass(frozen=True)
class WaveComponents:
    """Linear incident-wave components, as :mod:`hydrofmu.runtime.waves` builds them:
    ``eta = sum a cos(w t - k (x cos b + y sin b) + phi)``.

    Attributes
    ----------
    amplitude, omega, wavenumber, heading, phase
        Shape (nc,) each: m, rad/s, rad/m, rad (direction the waves travel to), rad.
    depth
        Water depth, m (``inf`` for deep water).
    """

    amplitude: Array
    omega: Array
    wavenumber: Array
    heading: Array
    phase: Array
    depth: float = math.inf

    @classmethod
    def none(cls) -> WaveComponents:
        """No wave."""
        e = np.zeros(0)
        return cls(e, e, e, e, e)


class PanelKernel:
    """One mesh and one wave bound to the compiled kernel.

    Parameters
    ----------
    vertices
        Shape (nv, 3), m, body frame, about the body's reference point.
    triangles
        Shape (nt, 3), vertex indices, counter-clockwise seen from the water.
    rho, g
        Water density, kg/m^3; gravity, m/s^2.
    wave
        The incident wave (:meth:`WaveComponents.none` for calm water).
    lib
        The library (default: :func:`load_library`).
    """

    def __init__(self, vertices: Array, triangles: NDArray[np.int64], *, rho: float, g: float,
                 wave: WaveComponents | None = None, lib: ctypes.CDLL | None = None) -> None:
        wave = WaveComponents.none() if wave is None else wave
        self.lib = load_library() if lib is None else lib
        self.vertices = np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1, 3)
        self.triangles = np.ascontiguousarray(triangles, dtype=np.int64).reshape(-1, 3)
        if self.triangles.size and (self.triangles.min() < 0
                                    or self.triangles.max() >= len(self.vertices)):
            raise ConfigError("a mesh triangle names a vertex that does not exist",
                              value=int(self.triangles.max()))
        self.wave_arrays = [np.ascontiguousarray(a, dtype=np.float64) for a in (
            wave.amplitude, wave.omega, wave.wavenumber, wave.heading, wave.phase)]
        nc = self.wave_arrays[0].size
        self.work = np.zeros(WORK_PER_VERTEX * len(self.vertices) + 4 * nc)
        self.out = np.zeros(OUT_SIZE)
        self.pose = np.zeros(12)
        self.ref = np.zeros(3)
        self.q = np.zeros(6)
        self.body = np.zeros(7)
        depth = float(wave.depth)
        self.struct = HpPanels(
            len(self.vertices), len(self.triangles), nc, float(rho), float(g),
            depth if math.isfinite(depth) else -1.0,
            *(a.ctypes.data_as(_F64P) for a in (self.vertices,)),
            self.triangles.ctypes.data_as(_I64P),
            *(a.ctypes.data_as(_F64P) for a in self.wave_arrays),
            self.work.ctypes.data_as(_F64P))
        self.struct_ref = ctypes.byref(self.struct)
        self.pose_ptr = self.pose.ctypes.data
        self.ref_ptr = self.ref.ctypes.data
        self.out_ptr = self.out.ctypes.data
        self.q_ptr = self.q.ctypes.data
        self.body_ptr = self.body.ctypes.data

    def evaluate(self, rotation: Array, translation: Array, *, t: float = 0.0,
                 scale: float = 1.0, mode: int = STATIC, reference: Array | None = None
                 ) -> Array:
        """Integrate at a pose; returns the output array (``OUT_SIZE``, reused by the
        next call: slice it with :data:`STATIC_LOAD`, :data:`WAVE_LOAD`, :data:`VOLUME`,
        :data:`COB`, :data:`AWP`, :data:`CWP`, :data:`WETTED`).

        Parameters
        ----------
        rotation
            Body-to-world rotation matrix, shape (3, 3).
        translation
            World position of the body's reference point, shape (3,), m.
        t
            Time, s (the wave's phase).
        scale
            Factor on every wave amplitude (the ramp, a height ratio).
        mode
            :data:`STATIC` and/or :data:`WAVE` (the pressures integrated), plus
            :data:`INSTANTANEOUS` to cut at the wave's elevation instead of z = 0 (the
            volume and its centre are then those below the wave's surface, the waterplane
            area its horizontal projection).
        reference
            The moments' reference point (world), m; default ``translation``.

        Raises
        ------
        ConfigError
            A non-finite pose.
        """
        self.pose[:9] = np.asarray(rotation, dtype=float).reshape(9)
        self.pose[9:] = translation
        self.ref[:] = translation if reference is None else reference
        rc = self.lib.hp_panel_eval(self.struct_ref, self.pose_ptr, float(t), float(scale),
                                    int(mode), self.ref_ptr, self.out_ptr)
        if rc != 0:
            raise ConfigError(f"the panel kernel refused the pose (code {rc}: "
                              f"{'a non-finite coordinate or sum' if rc == 2 else 'a bad index'}); "
                              f"pose {self.pose.tolist()}", value=self.pose.tolist())
        return self.out

    def set_body(self, origin: Array, cog: Array, weight: float) -> None:
        """The body :meth:`body_loads` places: its reference point at rest ``origin``
        (world, m), its centre of gravity about the reference point ``cog`` (body frame,
        m) and its weight ``m g`` (N)."""
        self.body[:3] = origin
        self.body[3:6] = cog
        self.body[6] = weight

    def body_loads(self, q: Array, *, t: float, scale: float, mode: int) -> Array:
        """One evaluation of the body set by :meth:`set_body` at its six displacements
        ``q`` (m, rad: roll, pitch, yaw as ``Rz(yaw) Ry(pitch) Rx(roll)``, the pose built in
        C by ``hp_body_pose``): both pressures of ``mode`` in one pass, the static load
        with the weight at the rotated centre of gravity (buoyancy minus weight), about
        the reference point, world axes. Returns the output array (as :meth:`evaluate`);
        :attr:`pose` holds the pose used.

        Raises
        ------
        ConfigError
            A non-finite pose.
        """
        self.q[:] = q
        rc = self.lib.hp_body_loads(self.struct_ref, self.body_ptr, self.q_ptr, float(t),
                                    float(scale), int(mode), self.pose_ptr, self.out_ptr)
        if rc != 0:
            raise ConfigError(f"the panel kernel refused the pose (code {rc}: "
                              f"{'a non-finite coordinate or sum' if rc == 2 else 'a bad index'}); "
                              f"displacements {self.q.tolist()}", value=self.q.tolist())
        return self.out
