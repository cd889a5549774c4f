"""The native FMU's radiation memory and time scheme, assembled from the simulator's parts.

Two things the Runge-Kutta mode of the C runtime (``csrc/hfn_rk.c``, ``csrc/hfn_conv.c``)
reads from the blob's last section (layout in ``csrc/hfn_model.h``):

- :class:`NativeConvolution`: the radiation force by convolution
  (:class:`~hydrofmu.runtime.forces.convolution.ConvolutionRadiation`), taken from the SAME
  part object the Python FMU steps: its kernel as the force uses it (noise entries masked,
  two zero samples after the truncation: ``padded_kernel``), its live pairs, its sample
  spacing (the internal step). The runtime keeps the DOF velocities on the internal grid
  (a ring buffer in the FMU state) and evaluates, at every stage, the same trapezoid rule
  over the nodes ``t``, ``t_n``, ``t_g``, ``t_g - dt``, ... with ``K`` linearly interpolated
  at the sub-grid offsets ``s`` and ``s - sn``.
- :class:`NativeTableau`: the explicit Runge-Kutta scheme the configuration names
  (``euler``, ``rk2heun``, ``rk2``, ``rk3``, ``rk4``: their Butcher tableaux as data), which
  the runtime steps stage by stage as :func:`~hydrofmu.runtime.schemes.runge_kutta.rk_step`.

Build time only.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...runtime.errors import ExportError
from ...runtime.forces.convolution import ConvolutionRadiation
from ...runtime.parts.part import Part
from ...runtime.schemes.runge_kutta import ExplicitRungeKutta
from ...runtime.simulator.simulator import Simulator
from .packing import pack_f64 as _f64

#: The most stages the runtime steps (rk4's four).
MAX_STAGES = 4


@dataclass
class NativeConvolution:
    """The convolution radiation for the native runtime (q body DOFs, p outputs).

    Attributes
    ----------
    dt
        The kernel's sample spacing and the internal step, s.
    columns
        The DOFs whose velocity history is kept (the kernel's live columns that can move),
        (nc,) indices among the q DOFs.
    rows, cols
        Per live kernel entry: the DOF of the force (among q) and the history column (among
        ``columns``), (npair,) each.
    kernel
        ``K(j dt)`` of each live entry, j = 0..nk + 1 (the last two zero), (npair, nk + 2),
        N s/m per unit of time (SI).
    oc
        The outputs of the convolution force, (p, q).
    """

    dt: float
    columns: NDArray[np.intp]
    rows: NDArray[np.intp]
    cols: NDArray[np.intp]
    kernel: NDArray[np.float64]
    oc: NDArray[np.float64]

    @property
    def nk(self) -> int:
        """History samples kept (the kernel's length before its padding)."""
        return int(self.kernel.shape[1]) - 2


@dataclass
class NativeTableau:
    """An explicit Runge-Kutta scheme as data: ``A`` (s, s) strictly lower triangular,
    ``B`` (s,), ``C`` (s,) (stage times as fractions of the step), its registry name."""

    name: str
    a: NDArray[np.float64]
    b: NDArray[np.float64]
    c: NDArray[np.float64]


def convolution_model(part: Part) -> ConvolutionRadiation | None:
    """The part's convolution (a radiation part with ``radiation.method = convolution``),
    or ``None``."""
    model = getattr(part, "model", None) if part.kind == "radiation" else None
    return model if isinstance(model, ConvolutionRadiation) else None


def native_tableau(sim: Simulator) -> NativeTableau | None:
    """The tableau of ``sim``'s scheme when it is an explicit Runge-Kutta scheme whose step
    is its tableau (at most :data:`MAX_STAGES` stages), else ``None``."""
    scheme = sim.scheme
    if not (isinstance(scheme, ExplicitRungeKutta) and scheme.explicit_tableau
            and 1 <= scheme.B.size <= MAX_STAGES):
        return None
    return NativeTableau(name=str(scheme.name), a=np.array(scheme.A, dtype=float),
                         b=np.array(scheme.B, dtype=float), c=np.array(scheme.C, dtype=float))


#: The schemes the native runtime steps, for the messages.
SUPPORTED = ("'exact' (a linear model) and the explicit Runge-Kutta schemes 'euler', "
             "'rk2heun', 'rk2', 'rk3', 'rk4' (any model the native FMU steps: also with "
             "quadratic drag, the elevation input and convolution radiation)")


def scheme_refusal(sim: Simulator, linear: bool) -> str:
    """Why the native runtime cannot step ``sim``'s time scheme ("" when it can); ``linear``:
    every part is linear (then ``exact`` is stepped too)."""
    name = sim.parameters["time_scheme"]
    if native_tableau(sim) is not None or (linear and name == "exact"):
        return ""
    return (f"time_scheme = '{name}' is not one the native FMU steps: it steps {SUPPORTED}. "
            "Fix: set time_scheme to one of them (the Python FMU then steps the same "
            "scheme), or build the Python FMU (hydrofmu build --python)")


def native_convolution(model: ConvolutionRadiation, velocity: NDArray[np.float64],
                       oc: NDArray[np.float64]) -> NativeConvolution:
    """The native form of ``model``.

    Parameters
    ----------
    model
        The radiation part's convolution, as the simulator built it.
    velocity
        The DOF velocities of the native state ``v = V x``, (q, n_live): a DOF whose row
        is zero never moves, its history stays zero and is not kept.
    oc
        The outputs of the convolution force, (p, q).
    """
    kp = np.asarray(model.padded_kernel, dtype=float)
    q = model.n
    if kp.shape != (model.nk + 2, q, q) or velocity.shape[0] != q:
        raise ExportError(f"convolution kernel of shape {kp.shape} for {q} DOFs",
                          value=kp.shape)
    moving = np.any(velocity != 0.0, axis=1)
    mask = np.asarray(model.mask, dtype=bool) & moving[None, :]
    columns = np.flatnonzero(np.any(mask, axis=0))
    rows, cols, kernel = [], [], []
    for ci, j in enumerate(columns):
        for r in np.flatnonzero(mask[:, j]):
            rows.append(int(r))
            cols.append(ci)
            kernel.append(kp[:, r, j])
    return NativeConvolution(
        dt=float(model.dt), columns=columns.astype(np.intp),
        rows=np.array(rows, dtype=np.intp), cols=np.array(cols, dtype=np.intp),
        kernel=np.array(kernel, dtype=float).reshape(len(rows), model.nk + 2),
        oc=np.asarray(oc, dtype=float))


def _u32(a: NDArray) -> bytes:
    return np.asarray(a, dtype="<u4").tobytes()


def conv_section(conv: NativeConvolution | None, q: int, p: int) -> list[bytes]:
    """``u32 has_conv`` and the convolution (layout in ``csrc/hfn_model.h``; ``q`` body
    DOFs, ``p`` outputs): the Runge-Kutta mode's, and the load FMU's (``load_blob.py``)."""
    out = [struct.pack("<I", 0 if conv is None else 1)]
    if conv is not None:
        nc, npair = conv.columns.size, conv.rows.size
        out += [struct.pack("<3I", nc, npair, conv.nk), struct.pack("<d", conv.dt),
                _u32(conv.columns), _u32(conv.rows), _u32(conv.cols),
                _f64(conv.kernel, (npair, conv.nk + 2)), _f64(conv.oc, (p, q))]
    return out


def scheme_section(conv: NativeConvolution | None, tableau: NativeTableau | None, q: int,
                   p: int) -> list[bytes]:
    """The blob's section after the tunables (layout in ``csrc/hfn_model.h``): ``u32
    has_conv`` and the convolution, then ``u32 stages`` and the tableau (``q`` body DOFs of
    the Runge-Kutta mode, ``p`` outputs)."""
    out = conv_section(conv, q, p)
    if tableau is None:
        out.append(struct.pack("<I", 0))
        return out
    s = tableau.b.size
    out += [struct.pack("<I", s), _f64(tableau.a, (s, s)), _f64(tableau.b, (s,)),
            _f64(tableau.c, (s,))]
    return out
