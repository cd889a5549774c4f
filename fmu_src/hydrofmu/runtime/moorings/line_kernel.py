"""The compiled line kernel (``line_kernel.c``): finding, checking and calling it.

:class:`~hydrofmu.runtime.moorings.lines.LineSystem` evaluates its derivative either in numpy
(always available) or in ``line_kernel.c``, a plain C99 transcription of the same physics
compiled into a shared library and called through :mod:`ctypes`. The choice
(``kernel`` of a ``[[moorings]]`` moordyn entry, ``--kernel`` of the replay,
:data:`KERNELS`): ``"auto"`` (default) uses the library when one loads
and falls back to numpy otherwise, with one logged note; ``"c"`` requires the library;
``"numpy"`` never loads it.

Where the library comes from (:func:`load_library`, first that exists):

1. next to this module, ``line_kernel.<platform><ext>``: in an FMU, compiled at export
   (for the build platform; an FMU run on another platform finds none of its platform and
   runs numpy);
2. in the user's cache folder (``$HYDROFMU_CACHE_DIR``, else ``$XDG_CACHE_HOME/hydrofmu``,
   else ``~/.cache/hydrofmu``), named after the hash of the C source, compiled there on
   first use by the builder that the installed package registers (:func:`set_builder`;
   :mod:`hydrofmu.export.line_kernel_build`, with :func:`hydrofmu.export.python_binary.c_compiler`).
   An FMU registers no builder: it never compiles.

A library is used only when it loads and its ABI version (``hf_line_kernel_abi``) and the
size of its argument structure match this module's (:data:`ABI_VERSION`).

Run-time module: numpy, ctypes and the standard library only.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError

Array = NDArray[np.float64]

#: The kernels ``mooring.kernel`` accepts.
KERNELS = ("auto", "c", "numpy")

#: Version of the C interface (``struct hf_lines``, ``hf_line_eval``, ``struct hf_motion``,
#: ``hf_line_advance_rk`` and ``hf_line_advance_si``); must equal
#: ``HF_LINE_KERNEL_ABI`` of the compiled library.
ABI_VERSION = 3

#: The C source, beside this module in the installed package.
SOURCE = Path(__file__).with_name("line_kernel.c")

LOG = logging.getLogger("hydrofmu.moorings.kernel")

_builder: Callable[[Path, Path], None] | None = None
_loaded: dict[str, Any] = {}
_noted: set[str] = set()


def platform_tag() -> str:
    """``<os>-<machine>`` of this process, e.g. ``linux-x86_64``."""
    return f"{sys.platform}-{platform.machine().lower() or 'unknown'}"


def library_suffix() -> str:
    """Extension of a shared library here (``.so``, ``.dylib``, ``.dll``)."""
    if sys.platform.startswith("win"):
        return ".dll"
    return ".dylib" if sys.platform == "darwin" else ".so"


def bundled_library_name() -> str:
    """File name of the library placed next to this module (in an FMU, at export)."""
    return f"line_kernel.{platform_tag()}{library_suffix()}"


def cache_dir() -> Path:
    """Folder of the libraries compiled on first use."""
    env = os.environ.get("HYDROFMU_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "hydrofmu"


def source_hash() -> str:
    """Short hash of the C source and ABI version (the cached library's name)."""
    digest = hashlib.sha256(SOURCE.read_bytes() + str(ABI_VERSION).encode())
    return digest.hexdigest()[:12]


def set_builder(builder: Callable[[Path, Path], None] | None) -> None:
    """Register ``builder(source, output)``, which compiles the C source into a shared
    library (the installed package does; an FMU does not)."""
    global _builder
    _builder = builder
    _loaded.clear()


def note_once(message: str) -> None:
    """Log ``message`` (level INFO) once per process."""
    if message not in _noted:
        _noted.add(message)
        LOG.info(message)


def unavailable_reason() -> str | None:
    """Why the last :func:`load_library` found no usable library (None: it did, or it was
    not called)."""
    return _loaded.get("error")


class KernelUnavailable(Exception):
    """No usable compiled line kernel; the message says why."""


def check_library(path: Path) -> ctypes.CDLL:
    """Load the library at ``path`` and check its ABI.

    Raises
    ------
    KernelUnavailable
        It does not load, lacks the entry points, or has another ABI.
    """
    try:
        lib = ctypes.CDLL(str(path))
        abi = lib.hf_line_kernel_abi
        size = lib.hf_line_kernel_struct_size
        evaluate = lib.hf_line_eval
        lib.hf_line_advance_rk  # noqa: B018 - the replay's steppers must be there too
        lib.hf_line_advance_si  # noqa: B018
    except (OSError, AttributeError) as exc:
        raise KernelUnavailable(f"{path} does not load as the line kernel: {exc}") from exc
    abi.restype = size.restype = ctypes.c_int64
    abi.argtypes = size.argtypes = []
    if abi() != ABI_VERSION or size() != ctypes.sizeof(HfLines):
        raise KernelUnavailable(
            f"{path} has ABI {abi()} (struct of {size()} bytes); this hydrofmu needs ABI "
            f"{ABI_VERSION} ({ctypes.sizeof(HfLines)} bytes): delete it to rebuild")
    evaluate.restype = ctypes.c_int
    evaluate.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_double, ctypes.c_int64,
                                                ctypes.c_int64, ctypes.c_void_p]
    return lib


def load_library(path: str | Path | None = None) -> ctypes.CDLL:
    """The compiled kernel: ``path``, else the bundled one, else the cached one (compiled
    now when a builder is registered). Cached per process.

    Raises
    ------
    KernelUnavailable
        None is found or usable; the message says which were tried and the fix.
    """
    if path is not None:
        return check_library(Path(path))
    if "lib" in _loaded:
        return _loaded["lib"]
    if "error" in _loaded:
        raise KernelUnavailable(_loaded["error"])
    tried = []
    try:
        bundled = Path(__file__).with_name(bundled_library_name())
        if bundled.is_file():
            _loaded["lib"] = check_library(bundled)
            return _loaded["lib"]
        tried.append(f"no {bundled.name} beside {Path(__file__).parent}")
        if _builder is None or not SOURCE.is_file():
            tried.append("no compiler step in this installation (an FMU compiles nothing "
                         "at run time; rebuild it on this platform)")
            raise KernelUnavailable("; ".join(tried))
        cached = cache_dir() / f"line_kernel-{source_hash()}.{platform_tag()}{library_suffix()}"
        if not cached.is_file():
            try:
                _builder(SOURCE, cached)
            except Exception as exc:  # any failure of the compiler means numpy
                tried.append(f"compiling {SOURCE.name} into {cached} failed: {exc}")
                raise KernelUnavailable("; ".join(tried)) from exc
        _loaded["lib"] = check_library(cached)
        return _loaded["lib"]
    except KernelUnavailable as exc:
        _loaded["error"] = str(exc)
        raise


# ------------------------------------------------------------------------- the structure
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
                + [(n, _F64P) for n in _WORK])


class LineKernel:
    """The compiled derivative bound to one :class:`~hydrofmu.runtime.moorings.lines.LineSystem`.

    It holds the system's constant arrays and its own work arrays (nodes ``r``, ``v``,
    ``fnet``, ``q``, shape (n_nodes, 3); ``a``, ``b``, (n_nodes,); ``pair_tension``,
    (n_nodes - 1,); points ``rp``, ``vp``, ``point_f``, (n_points, 3)), which one call of
    :meth:`run` fills.

    Parameters
    ----------
    system
        The lines (a ``LineSystem``; its layout arrays are read once).
    lib
        The library from :func:`load_library`.
    """

    def __init__(self, *, system: Any, lib: ctypes.CDLL) -> None:
        s = system
        self.lib = lib
        keep: dict[str, np.ndarray] = {}

        def ints(a: Any) -> np.ndarray:
            return np.ascontiguousarray(np.asarray(a).reshape(-1), dtype=np.int64)

        def reals(a: Any) -> np.ndarray:
            return np.ascontiguousarray(np.asarray(a, dtype=float).reshape(-1))

        nn, nl = s.n_nodes, len(s.end_a)
        kind = np.zeros(nn, dtype=np.int64)
        kind[s.end_a] = 1
        kind[s.end_b] = 2
        point_free = np.full(s.n_points, -1, dtype=np.int64)
        point_free[s.free_points] = np.arange(s.n_free)
        groups = s._body_groups
        group_k = [g[0] for g in groups]
        group_pose = [g[1] for g in groups]
        group_points = [int(i) for g in groups for i in g[2]]
        group_start = np.cumsum([0] + [len(g[2]) for g in groups])
        keep.update(
            internal=ints(s.internal), node_kind=kind, node_left=ints(s.node_left),
            node_right=ints(s.node_right), end_nodes=ints(s.end_nodes),
            end_points=ints(s.end_points), seg0=ints(s.seg0), seg1=ints(s.seg1),
            l0=reals(s.l0), pair_l0=reals(s._pair_l0), pair_ea_l0=reals(s._pair_ea_l0),
            pair_ba_l0=reals(s._pair_ba_l0), pair_fake=reals(s._pair_fake),
            n_len=reals(s.n_len), n_m=reals(s.n_m), n_d=reals(s.n_d), n_area=reals(s.n_area),
            n_can=reals(s.n_can), n_cat=reals(s.n_cat), cdn_d=reals(s._cdn_d),
            cdt_d=reals(s._cdt_d), a_full=reals(s._a_full), b_full=reals(s._b_full),
            wz_full=reals(s._wz_full), cn_full=reals(s._cn_full), ct_full=reals(s._ct_full),
            point_r0=reals(s.point_r0), point_mass=reals(s.point_mass),
            point_volume=reals(s.point_volume), point_cda=reals(s.point_cda),
            point_ca=reals(s.point_ca), cp_index=ints(s._cp_index),
            free_points=ints(s.free_points), point_free=point_free,
            group_k=ints(group_k), group_pose=reals(group_pose),
            group_start=ints(group_start), group_points=ints(group_points))
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
                            ("no_bodies", int(s._no_bodies)),
                            ("has_seabed", int(s._has_seabed))):
            setattr(st, name, int(value))
        env = s.env
        st.g, st.rho, st.depth, st.kbot, st.cbot = env.g, env.rho, env.depth, env.kbot, env.cbot
        for name, arr in keep.items():
            ptype = _I64P if arr.dtype == np.int64 else _F64P
            setattr(st, name, arr.ctypes.data_as(ptype))
        self._struct = st
        self._struct_ptr = ctypes.addressof(st)
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
        if self._eval(self._struct_ptr, px, pc, pv, drag_scale, compression, points,
                      self._out_ptr):
            raise np.linalg.LinAlgError("a free point's mass matrix is singular")
        return self._out[:self.n_states]

    def run_checked(self, system: Any, x: Array, cp: Array, cv: Array, points: bool) -> Array:
        """:meth:`run` with the system's drag scale and compression switch; arguments of
        another shape are flattened, and wrong sizes raise
        :class:`~hydrofmu.runtime.errors.ConfigError` as the numpy kernel does."""
        try:
            return self.run(x, cp, cv, system.drag_scale, system._compression, points)
        except ValueError:
            cp = np.asarray(cp, dtype=float).ravel()
            cv = np.asarray(cv, dtype=float).ravel()
            if cp.size != system.n_coupled_dof or cv.size != system.n_coupled_dof:
                raise ConfigError(
                    f"the lines expect {system.n_coupled_dof} coupled positions and "
                    f"velocities, got {cp.size} and {cv.size}", value=cp.size) from None
            x = np.asarray(x, dtype=float).ravel()
            if x.size != system.n_states:
                raise ConfigError(f"the lines have {system.n_states} states, got {x.size}",
                                  value=x.size) from None
            return self.run(x, cp, cv, system.drag_scale, system._compression, points)

    def evaluation(self, system: Any, points: bool) -> dict:
        """``LineSystem.evaluate``'s dict from the work arrays of the last :meth:`run`
        (copies; ``point_f`` None unless ``points``); sets the system's pair tensions."""
        system._pair_tension = self.pair_tension.copy()
        return {"r": self.r.copy(), "v": self.v.copy(), "fnet": self.fnet.copy(),
                "point_r": self.rp.copy(), "point_v": self.vp.copy(),
                "point_f": self.point_f.copy() if points else None,
                "seg_tension": system._pair_tension[system.seg0]}


def select_kernel(system: Any, mode: str) -> LineKernel | None:
    """The compiled kernel for ``system`` under ``mooring.kernel = mode``, or None (numpy).

    ``"auto"`` falls back to numpy with one logged note (:func:`note_once`) when no library
    is usable; ``"numpy"`` notes its choice once too.

    Raises
    ------
    ConfigError
        ``mode`` is not one of :data:`KERNELS`, or ``"c"`` and no library is usable.
    """
    if mode not in KERNELS:
        raise ConfigError(f"mooring kernel {mode!r} is not one of "
                          f"{', '.join(map(repr, KERNELS))}", value=mode)
    if mode == "numpy":
        note_once("mooring lines: the numpy kernel runs (kernel = 'numpy')")
        return None
    try:
        return LineKernel(system=system, lib=load_library())
    except KernelUnavailable as exc:
        if mode == "c":
            raise ConfigError(
                f"mooring kernel 'c' requested but the compiled line kernel is not available: "
                f"{exc}; fix: install a C compiler (or pip install 'hydrofmu[native]'), or "
                f"use kernel = 'auto' (numpy fallback)", value=mode) from exc
        note_once(f"mooring lines: the numpy kernel runs (the compiled one is not available: "
                  f"{exc})")
        return None
