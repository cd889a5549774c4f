"""The native runtime's model file, ``resources/model.bin``: a versioned little-endian blob.

The layout is documented in ``csrc/hfn_model.h`` (version
:data:`VERSION`); :func:`write_blob` writes it from a :class:`NativeModel` and
:func:`read_blob` reads it back (for tests and ``hydrofmu doctor``).

Build time only (numpy and the standard library).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ...runtime.errors import ExportError
from .bodies_blob import NativeBodies, bodies_section
from .catenary_blob import NativeCatenary, catenary_section
from .convolution_blob import NativeConvolution, NativeTableau, scheme_section
from .derivative_blob import derivative_section
from .drift_blob import NativeDrift, drift_section
from .lines_blob import NativeLines, lines_section
from .load_blob import NativeLoad
from .packing import pack_f64 as _f64
from .panels_blob import NativePanels, panels_section

MAGIC = b"HFMUNAT1"
VERSION = 5
HEADER_WORDS = 12
#: The trailer's tag; the trailer (since version 3) is the tag and the CRC-32 of every byte before
#: the CRC, the blob's last 8 bytes.
TRAILER_TAG = b"HFCK"


@dataclass
class TunableMatrices:
    """A tunable parameter the matrices are affine in (a PTO's damping or stiffness):
    ``F = F0 + (p - p0) df`` and likewise ``G``, ``C``.

    Attributes
    ----------
    name
        FMU parameter name.
    value
        Its build value ``p0``, in its unit.
    df, dg, dc
        Derivatives of ``F`` (n, n), ``[G, c]`` (n, m + 1) and the output map ``C``
        (p, n + m + 1) per unit of the parameter (1/s per unit, ...).
    index
        Its index among the Real parameters (value reference; set by the build).
    """

    name: str
    value: float
    df: NDArray[np.float64]
    dg: NDArray[np.float64]
    dc: NDArray[np.float64]
    index: int = -1


@dataclass
class NativeModel:
    """Everything the C runtime steps (shapes: n states, m inputs, p outputs, k sinusoids).

    Attributes
    ----------
    y0, u0
        Initial state (n,) and input start values (m,).
    f, g
        ``y' = F y + G [u; 1] + ...``: (n, n) 1/s and (n, m + 1).
    h0, fused0
        The precomputed communication step (s) and its ``[Phi | Gamma]``, (n, n + m + 1).
    omega
        Sinusoid frequencies, (k,), rad/s.
    steady
        Particular solution after the ramp, ``X_k``, (k, n) complex.
    ramped
        On the ramp: the amplitudes at ``w_k``, ``w_k + pi/T`` and ``w_k - pi/T`` for a
        start time 0 (the runtime rotates the last two by ``e^{+-i pi (t - t0)/T}``);
        three (k, n) complex arrays, or ``None`` without ramp.
    ramp_time, t0, divergence_limit
        s, s, and the bound on ``|y|`` beyond which a step is discarded.
    c
        Output map of ``[y, u, 1]``, (p, n + m + 1).
    h_rows, h
        The outputs with a direct sinusoid and their amplitudes, (r,) and (r, k) complex.
    products
        ``out[i] = coef * out[j] * out[l]`` after the linear map: ``(i, j, l, coef)``.
    real_parameters, int_parameters, str_parameters
        Values the FMU was assembled with, in value-reference order.
    parameter_names
        Real, then Integer, then String parameter names.
    guid
        The model description's GUID.
    scale_parameter
        1 + the index among the Real parameters of the one that scales every sinusoid (the
        wave height: tunable in the native FMU), 0 for none.
    rk
        The Runge-Kutta mode (drag, the elevation input, lines), or ``None``: exact.
    lines
        The Runge-Kutta mode's scheme when not rk4 and its MoorDyn lines, or ``None``.
    catenary
        The Runge-Kutta mode's catenary moorings (``catenary_blob.py``), or ``None``.
    panels
        The Runge-Kutta mode's nonlinear hydrostatics and Froude-Krylov, or ``None``.
    bodies
        The Runge-Kutta mode's large-rotation bodies (``bodies_blob.py``), or ``None``.
    sine_factor
        ``(S, O)`` with ``h = O S``: the r sinusoid signals (r, k) complex and their map to
        the sinusoid rows (len(h_rows), r); or ``None`` (``h`` itself).
    conv
        The Runge-Kutta mode's convolution radiation, or ``None``.
    drift
        The Runge-Kutta mode's drift loads and current, or ``None``.
    tableau
        The explicit Runge-Kutta scheme the Runge-Kutta mode steps (``None``: exact).
    """

    y0: NDArray[np.float64]
    u0: NDArray[np.float64]
    f: NDArray[np.float64]
    g: NDArray[np.float64]
    h0: float
    fused0: NDArray[np.float64]
    omega: NDArray[np.float64]
    steady: NDArray[np.complex128]
    ramped: tuple[NDArray[np.complex128], ...] | None
    ramp_time: float
    t0: float
    divergence_limit: float
    c: NDArray[np.float64]
    h_rows: NDArray[np.intp]
    h: NDArray[np.complex128]
    products: list[tuple[int, int, int, float]] = field(default_factory=list)
    real_parameters: list[float] = field(default_factory=list)
    int_parameters: list[int] = field(default_factory=list)
    str_parameters: list[str] = field(default_factory=list)
    parameter_names: list[str] = field(default_factory=list)
    guid: str = ""
    scale_parameter: int = 0
    rk: NativeRK | None = None
    sine_factor: tuple[NDArray[np.complex128], NDArray[np.float64]] | None = None
    forcing: NDArray[np.complex128] | None = None
    tunables: list[TunableMatrices] = field(default_factory=list)
    conv: NativeConvolution | None = None
    tableau: NativeTableau | None = None
    lines: NativeLines | None = None
    drift: NativeDrift | None = None
    catenary: NativeCatenary | None = None
    panels: NativePanels | None = None
    bodies: NativeBodies | None = None  # large rotations (bodies_blob.py)
    load: NativeLoad | None = None  # the load FMU (load_blob.py)


@dataclass
class NativeRK:
    """The Runge-Kutta mode: quadratic drag and the elevation input, stepped by RK4 over
    ``x' = F x + G [u; 1] + ramp Re(sum_k X_k e^{i w_k t}) + EG (g_drag + g_exc)`` (then
    :attr:`NativeModel.steady` holds the forcing ``X_k``, not a particular solution).

    Attributes
    ----------
    dt
        The internal step, s (grid ``t0 + j dt``).
    v, bl, bq
        Drag ``g_drag = -BL v - BQ v |v|`` with the DOF velocities ``v = V x``: (q, n),
        (q, q) N s/m, (q,) N s^2/m^2 (zeros without drag).
    eg
        A DOF force's share of ``x'``, (n, q).
    og
        The outputs of ``[g_drag; g_exc]``, (p, 2 q).
    has_drag, has_input
        Which of the two is modelled.
    input_index, elevation_row
        The elevation input among the inputs; the elevation output among the outputs.
    kw
        The excitation FIR over the input's history, newest first, trapezoid weights and
        ``dt`` folded in: (q, nk), N/m.
    preview_steps, wave_ramp
        The preview over ``dt``; the wave's half-cosine ramp, s.
    """

    dt: float
    v: NDArray[np.float64]
    bl: NDArray[np.float64]
    bq: NDArray[np.float64]
    eg: NDArray[np.float64]
    og: NDArray[np.float64]
    has_drag: bool = False
    has_input: bool = False
    input_index: int = 0
    elevation_row: int = 0
    kw: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 0)))
    preview_steps: float = 0.0
    wave_ramp: float = 0.0


def _rk_section(rk: NativeRK | None, n: int, p: int) -> list[bytes]:
    if rk is None:
        return [struct.pack("<I", 0)]
    q = rk.bq.size
    nk = rk.kw.shape[1] if rk.has_input else 0
    return [struct.pack("<7I", 1, q, int(rk.has_drag), int(rk.has_input), rk.input_index, nk,
                        rk.elevation_row),
            struct.pack("<3d", rk.dt, rk.preview_steps, rk.wave_ramp),
            _f64(rk.v, (q, n)), _f64(rk.bl, (q, q)), _f64(rk.bq, (q,)), _f64(rk.eg, (n, q)),
            _f64(rk.og, (p, 2 * q)), _f64(rk.kw if rk.has_input else np.zeros((q, 0)), (q, nk))]


def _sparse(a: NDArray, shape: tuple[int, ...]) -> bytes:
    """u32 count, then (u32 row, u32 column, f64 value) per nonzero, row-major order."""
    arr = np.asarray(a, dtype=float)
    if arr.shape != shape:
        raise ExportError(f"native model array of shape {arr.shape}, expected {shape}",
                          value=arr.shape)
    rows, cols = np.nonzero(arr)
    out = [struct.pack("<I", rows.size)]
    out += [struct.pack("<IId", int(i), int(j), float(arr[i, j]))
            for i, j in zip(rows, cols, strict=True)]
    return b"".join(out)


def _text(s: str) -> bytes:
    b = s.encode("utf-8")
    return struct.pack("<I", len(b)) + b


def write_blob(model: NativeModel) -> bytes:
    """The bytes of ``resources/model.bin`` for ``model``."""
    n, m = model.y0.size, model.u0.size
    p, k = model.c.shape[0], model.omega.size
    nz = n + m + 1
    ramp = model.ramped is not None and k > 0
    words = [n, m, p, k, int(ramp), len(model.h_rows), len(model.products),
             len(model.real_parameters), len(model.int_parameters), len(model.str_parameters),
             model.scale_parameter, len(model.guid)]
    out = [MAGIC, struct.pack("<II", VERSION, HEADER_WORDS), struct.pack("<12I", *words),
           struct.pack("<4d", model.h0, model.ramp_time, model.t0, model.divergence_limit),
           _f64(model.y0, (n,)), _f64(model.u0, (m,)), _f64(model.f, (n, n)),
           _f64(model.g, (n, m + 1)), _f64(model.fused0, (n, nz)), _f64(model.omega, (k,)),
           _f64(model.steady.real, (k, n)), _f64(model.steady.imag, (k, n))]
    if ramp:
        for amp in model.ramped:
            out += [_f64(amp.real, (k, n)), _f64(amp.imag, (k, n))]
    r = len(model.h_rows)
    out += [_f64(model.c, (p, nz)),
            np.asarray(model.h_rows, dtype="<u4").tobytes(),
            _f64(model.h.real, (r, k)), _f64(model.h.imag, (r, k))]
    for i, j, k2, coef in model.products:
        out.append(struct.pack("<IIId", i, j, k2, coef))
    out.append(np.asarray(model.real_parameters, dtype="<f8").tobytes())
    out.append(np.asarray(model.int_parameters, dtype="<i4").tobytes())
    out += [_text(s) for s in model.str_parameters]
    out += [_text(s) for s in model.parameter_names]
    out.append(_text(model.guid))
    out += _rk_section(model.rk, n, p)
    if model.sine_factor is None:
        out.append(struct.pack("<I", 0))
    else:
        sig, omap = model.sine_factor
        rows = sig.shape[0]
        out += [struct.pack("<I", rows), _f64(sig.real, (rows, k)), _f64(sig.imag, (rows, k)),
                _f64(omap, (r, rows))]
    # Version 2: the tunable matrix parameters (u32 count; if any: the forcing, then per
    # parameter its Real index and the sparse dF, dG, dC).
    out.append(struct.pack("<I", len(model.tunables)))
    if model.tunables:
        forcing = (np.zeros((k, n), dtype=complex) if model.forcing is None
                   else np.asarray(model.forcing))
        out += [_f64(forcing.real, (k, n)), _f64(forcing.imag, (k, n))]
    for tun in model.tunables:
        if not 0 <= tun.index < len(model.real_parameters):
            raise ExportError(f"tunable parameter '{tun.name}' has no Real index",
                              value=tun.index)
        out += [struct.pack("<I", tun.index), _sparse(tun.df, (n, n)),
                _sparse(tun.dg, (n, m + 1)), _sparse(tun.dc, (p, nz))]
    # The Runge-Kutta mode's convolution radiation and explicit tableau (or two zeros).
    q = 0 if model.rk is None else model.rk.bq.size
    out += scheme_section(model.conv, model.tableau, q, p)
    # The scheme's semi-implicit family and the MoorDyn lines (lines_blob.py).
    out.append(lines_section(model.lines, n, p, q))
    # The catenary moorings (catenary_blob.py; u32 0 without).
    out.append(catenary_section(model.catenary, n, p, q))
    # The drift loads and the current (drift_blob.py).
    out.append(drift_section(model.drift, q, p))
    # The panels: nonlinear hydrostatics and Froude-Krylov (panels_blob.py).
    out.append(panels_section(model.panels, n, p, q))
    # The large-rotation bodies (bodies_blob.py; u32 0 without).
    out.append(bodies_section(model.bodies, n, m, p, k))
    # Sections other features append go here, before the trailer.
    # Derivatives / load-FMU data (derivative_blob.py).
    out.append(derivative_section(model))
    return seal(b"".join(out))


def seal(body: bytes) -> bytes:
    """``body`` with the trailer: ``HFCK`` and the CRC-32 (``zlib.crc32``, u32 LE) of every
    byte before the CRC. The runtime checks it before it reads anything else, so a
    truncated or altered ``model.bin`` is refused with a message (last step of the writer:
    it covers every section)."""
    head = body + TRAILER_TAG
    return head + struct.pack("<I", zlib.crc32(head))


def check_seal(data: bytes) -> bytes:
    """The blob without its trailer; ExportError when the trailer's CRC-32 does not match."""
    if len(data) < 24 or data[-8:-4] != TRAILER_TAG:
        raise ExportError("native model truncated: no trailer 'HFCK'; rebuild the FMU",
                          value=len(data))
    (stored,) = struct.unpack_from("<I", data, len(data) - 4)
    if zlib.crc32(data[:-4]) != stored:
        raise ExportError("native model damaged: its CRC-32 does not match the trailer's; "
                          "rebuild the FMU", value=stored)
    return data[:-8]


def read_header(data: bytes) -> dict[str, int]:
    """The sizes of a blob (``n``, ``m``, ``outputs``, ``components``, ...); ExportError
    when it is not one (or its checksum does not match)."""
    if data[:8] != MAGIC:
        raise ExportError("not a hydrofmu native model (bad magic)", value=data[:8])
    version, hw = struct.unpack_from("<II", data, 8)
    if version != VERSION or hw != HEADER_WORDS:
        raise ExportError(f"native model version {version}, this hydrofmu reads {VERSION}",
                          value=version)
    check_seal(data)
    keys = ("n", "m", "outputs", "components", "ramp", "sine_rows", "products",
            "real_parameters", "int_parameters", "str_parameters", "scale_parameter",
            "guid_length")
    return dict(zip(keys, struct.unpack_from("<12I", data, 16), strict=True))
