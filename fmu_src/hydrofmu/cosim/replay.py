"""Replay a prescribed motion of the coupled points and bodies through a MoorDyn line file.

``hydrofmu mooring replay LINES.txt MOTION.csv -o OUT.csv``: the lines start from their static
equilibrium at the first sample, then the coupled objects move through the samples along a
C1 piecewise-cubic Hermite interpolant (slopes from three-point finite differences on the
non-uniform samples; one-sided at the ends); the velocity given to the lines is the
interpolant's own derivative, so position and velocity are consistent. The time scheme and
``dtM`` come from the file's OPTIONS (``rk2`` by default, as MoorDyn); each sample interval is
split into equal steps no longer than ``dtM``. With the compiled line kernel and an explicit
Runge-Kutta scheme or MoorDyn's ``beulerN``/``midpointN``, each sample interval is integrated
in one C call (:mod:`~hydrofmu.cosim.line_stepper`: the same scheme constants, motion
and derivative).

MOTION.csv: a column ``t`` (s) and, per coupled point ``k`` (its ID in the file),
``point<k>.x``, ``point<k>.y``, ``point<k>.z`` (m, the file's global frame); per coupled body
``body<k>.x/.y/.z`` (m) and ``body<k>.roll/.pitch/.yaw`` (rad, ``R = Rz Ry Rx``).

OUT.csv: ``t`` at the samples, the force of the lines on each coupled object
(``point<k>.Fx/.Fy/.Fz``, N; bodies also ``body<k>.Mx/.My/.Mz``, N m, about the body
reference point) and the file's OUTPUTS channels under MoorDyn's names.
"""

from __future__ import annotations

import bisect
import csv
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..export.line_kernel_build import compiled_library
from ..runtime.errors import InputError, MoorDynInputError
from ..runtime.moorings.equilibrium import initial_state
from ..runtime.moorings.frames import angular_velocity
from ..runtime.moorings.lines import LineSystem
from ..runtime.moorings.moordyn_input import CHANNEL_RE, MoorDynModel, read_moordyn
from .line_stepper import CompiledSteps

Array = NDArray[np.float64]
BODY_DOFS = ("x", "y", "z", "roll", "pitch", "yaw")


class HermiteMotion:
    """C1 piecewise-cubic interpolant of sampled coordinates.

    Parameters
    ----------
    t
        Sample times, s, strictly increasing, shape (n,), n >= 2.
    values
        Samples, shape (n, m).

    Attributes
    ----------
    t, y
        The samples (times, s, and values).
    m
        The slopes at the samples, shape (n, m).
    intervals
        Lengths of the sample intervals, s, shape (n - 1,).
    coefficients
        Per interval, the cubic ``c0 + u (c1 + u (c2 + u c3))`` in the interval's
        fraction ``u``, shape (4, n - 1, m).
    rate_coefficients
        Per interval, its time derivative ``d0 + u (d1 + u d2)``, shape (3, n - 1, m).
    """

    def __init__(self, *, t: Array, values: Array) -> None:
        t = np.asarray(t, dtype=float)
        y = np.asarray(values, dtype=float)
        if t.ndim != 1 or t.size < 2 or y.shape[0] != t.size:
            raise InputError(f"motion needs at least 2 samples, got {t.size}", value=t.size)
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(y))):
            raise InputError("the motion holds a non-finite value", value=None)
        if np.any(np.diff(t) <= 0):
            k = int(np.argmax(np.diff(t) <= 0))
            raise InputError(f"motion times must increase strictly: t[{k + 1}] = {t[k + 1]} "
                             f"after t[{k}] = {t[k]}", value=float(t[k + 1]))
        self.t, self.y = t, y
        h = np.diff(t)
        s = np.diff(y, axis=0) / h[:, None]
        m = np.empty_like(y)
        m[0], m[-1] = s[0], s[-1]
        if t.size > 2:
            w0, w1 = h[1:, None], h[:-1, None]
            m[1:-1] = (w0 * s[:-1] + w1 * s[1:]) / (w0 + w1)
        self.m = m
        # per interval, position = c0 + u (c1 + u (c2 + u c3)), u in [0, 1]: the Hermite
        # basis expanded once, so that a query costs a few operations on small arrays
        y0, y1, m0, m1 = y[:-1], y[1:], m[:-1] * h[:, None], m[1:] * h[:, None]
        self.coefficients = self._c = np.stack(
            [y0, m0, 3 * (y1 - y0) - 2 * m0 - m1, 2 * (y0 - y1) + m0 + m1])
        self.rate_coefficients = self._dc = np.stack(
            [m0, 2 * self._c[2], 3 * self._c[3]]) / h[None, :, None]
        self.intervals = h
        self._tl = t.tolist()
        self._h = h.tolist()

    def __call__(self, tq: float) -> tuple[Array, Array]:
        """Position and velocity at ``tq`` (clamped to the sampled range), shape (m,) each."""
        tl = self._tl
        i = min(max(bisect.bisect_right(tl, tq) - 1, 0), len(tl) - 2)
        u = min(max((tq - tl[i]) / self._h[i], 0.0), 1.0)
        c0, c1, c2, c3 = self._c[:, i]
        d0, d1, d2 = self._dc[:, i]
        return c0 + u * (c1 + u * (c2 + u * c3)), d0 + u * (d1 + u * d2)


def coupled_columns(model: MoorDynModel) -> list[str]:
    """MOTION.csv columns the file's coupled objects need, in the lines' coupled-DOF order."""
    cols = [f"body{b.id}.{d}" for b in model.bodies if b.kind == "coupled" for d in BODY_DOFS]
    cols += [f"point{p.id}.{c}" for p in model.points if p.kind == "coupled" for c in "xyz"]
    return cols


def force_columns(model: MoorDynModel) -> list[str]:
    """OUT.csv force columns, in the lines' coupled-DOF order."""
    cols = [f"body{b.id}.{c}" for b in model.bodies if b.kind == "coupled"
            for c in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")]
    cols += [f"point{p.id}.{c}" for p in model.points if p.kind == "coupled"
             for c in ("Fx", "Fy", "Fz")]
    return cols


def read_motion(path: str | Path, model: MoorDynModel) -> tuple[Array, Array]:
    """Times (s) and coupled coordinates, shape (n,) and (n, n_coupled_dof), from MOTION.csv."""
    path = Path(path)
    try:
        with path.open(newline="") as fh:
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise InputError(f"cannot read motion file {path}: {exc}", value=str(path)) from exc
    if len(rows) < 3:
        raise InputError(f"{path}: needs a header and at least 2 samples", value=str(path))
    header = [h.strip() for h in rows[0]]
    need = coupled_columns(model)
    missing = [c for c in ["t", *need] if c not in header]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; the lines file "
                         f"couples: {', '.join(need) or 'nothing'}", value=missing)
    extra = [c for c in header if c not in ["t", *need]]
    if extra:
        raise InputError(f"{path}: column(s) {', '.join(extra)} match no coupled object of the "
                         f"lines file (expected: t, {', '.join(need)})", value=extra)
    try:
        data = np.array([[float(v) for v in row] for row in rows[1:] if row], dtype=float)
    except ValueError as exc:
        raise InputError(f"{path}: a value is not a number ({exc})", value=str(path)) from exc
    if data.ndim != 2 or data.shape[1] != len(header):
        raise InputError(f"{path}: every row needs {len(header)} values", value=str(path))
    t = data[:, header.index("t")]
    return t, data[:, [header.index(c) for c in need]]


class Replay:
    """Drive a :class:`LineSystem` through a prescribed motion.

    Parameters
    ----------
    model
        The MoorDyn file.
    t, coords
        Motion samples, shapes (n,) and (n, n_coupled_dof) (bodies' angles in rad).
    kernel
        The lines' derivative: ``"auto"``, ``"c"`` or ``"numpy"`` (see
        :mod:`~hydrofmu.runtime.moorings.kernel_loader`); unless ``"numpy"``, the kernel
        is compiled into the cache first when it is not there
        (:meth:`~hydrofmu.export.kernel_build.KernelBuild.compiled_library`).
    """

    def __init__(self, *, model: MoorDynModel, t: Array, coords: Array,
                 kernel: str = "auto") -> None:
        self.model = model
        if kernel != "numpy":
            compiled_library()
        self.system = LineSystem(model=model, kernel=kernel)
        #: With the C kernel and a scheme it can step, whole sample intervals in C
        #: (:mod:`~hydrofmu.cosim.line_stepper`); False: one Python call a step.
        self.compiled_steps = True
        self.motion = HermiteMotion(t=t, values=coords)
        nb = sum(b.kind == "coupled" for b in model.bodies)
        self._body_slices = [slice(6 * k, 6 * k + 6) for k in range(nb)]

    def kinematics(self, t: float) -> tuple[Array, Array]:
        """Coupled positions and velocities (bodies: linear and angular in global axes)."""
        pos, vel = self.motion(t)
        for sl in self._body_slices:
            vel = vel.copy()
            vel[sl][3:] = angular_velocity(pos[sl][3:], vel[sl][3:])
        return pos, vel

    def channels(self, ev: dict) -> list[float]:
        """Values of the file's OUTPUTS channels from :meth:`LineSystem.evaluate`."""
        s = self.system.arrays
        out = []
        for name in self.model.outputs:
            m = CHANNEL_RE.match(name.upper())
            assert m is not None
            if m.group(1):
                k = int(m.group(2)) - 1
                node = s.end_b[k] if m.group(1) == "FAIRTEN" else s.end_a[k]
                out.append(float(np.linalg.norm(ev["fnet"][node])))
            elif m.group(3):
                pi, q = int(m.group(3)) - 1, m.group(4)
                src = {"F": ev["point_f"], "P": ev["point_r"], "V": ev["point_v"]}[q[0]]
                out.append(float(src[pi, "XYZ".index(q[1])]))
            else:
                k, j, q = int(m.group(5)) - 1, int(m.group(6)), m.group(7)
                node = s.line_start[k] + j
                if q in ("T", "TEN"):
                    n = self.model.lines[k].n_segments
                    out.append(float(np.linalg.norm(ev["fnet"][node])) if j in (0, n) else
                               float(np.mean(np.abs(ev["seg_tension"][
                                   s.line_start[k] - k + j - 1:s.line_start[k] - k + j + 1]))))
                else:
                    src = ev["r"] if q[0] == "P" else ev["v"]
                    out.append(float(src[node, "XYZ".index(q[1])]))
        return out

    def run(self, *, progress: Callable[[float], None] | None = None
            ) -> tuple[list[str], Array, dict]:
        """Integrate through the motion.

        Returns
        -------
        header, table, info
            Column names, the rows at the sample times (shape (n, n_columns)), and the
            initial-condition report.
        """
        from ..runtime.schemes.registry import make_scheme
        from ..runtime.schemes.stagewise import StagewiseScheme

        s, o = self.system, self.model.options
        scheme = make_scheme(o.tScheme)
        if not isinstance(scheme, StagewiseScheme):
            raise MoorDynInputError(
                f"tScheme = {o.tScheme!r} has no internal steps to replay the lines with "
                "(it takes whole intervals by a linear map); fix: set tScheme to a MoorDyn "
                "scheme such as RK4, RK2, Euler or Midpoint5 in the lines file's options",
                value=o.tScheme)
        ts = self.motion.t
        p0, _ = self.kinematics(float(ts[0]))
        x, info = initial_state(s, p0)

        def f(t: float, y: Array) -> Array:
            pos, vel = self.kinematics(t)
            return s.derivative(t, y, pos, vel)

        def row(t: float, y: Array) -> list[float]:
            pos, vel = self.kinematics(t)
            ev = s.evaluate(y, pos, vel)
            return [t, *s.coupled_from(ev, pos), *self.channels(ev)]

        stepper = None  # the C kernel and a scheme it can step: whole intervals in C
        if self.compiled_steps and CompiledSteps.applies(s, scheme):
            stepper = CompiledSteps(system=s, scheme=scheme, motion=self.motion,
                                 n_bodies=len(self._body_slices))
        rows = [row(float(ts[0]), x)]
        for i in range(ts.size - 1):
            t0, t1 = float(ts[i]), float(ts[i + 1])
            n = max(1, math.ceil((t1 - t0) / o.dtM - 1e-9))
            h = (t1 - t0) / n
            if stepper is not None:
                x = stepper.advance(x, t0, h, n)
            for k in range(n if stepper is None else 0):
                x = scheme.step(f, t0 + k * h, x, h)
            rows.append(row(t1, x))
            if progress is not None:
                progress((t1 - ts[0]) / (ts[-1] - ts[0]))
        header = ["t", *force_columns(self.model), *self.model.outputs]
        return header, np.array(rows), info


def replay_file(lines: str | Path, motion: str | Path, output: str | Path, *,
                quiet: bool = False, kernel: str = "auto") -> Path:
    """The ``hydrofmu mooring replay`` command: read, replay, write OUT.csv."""
    model = read_moordyn(lines)
    t, coords = read_motion(motion, model)
    rep = Replay(model=model, t=t, coords=coords, kernel=kernel)
    start = time.perf_counter()
    state = {"next": 0.1}

    def progress(frac: float) -> None:
        if frac + 1e-12 >= state["next"]:
            state["next"] += 0.1
            print(f"replay: {100 * frac:5.1f} % ({time.perf_counter() - start:.1f} s)",
                  file=sys.stderr, flush=True)

    for note in model.notes:
        print(f"note: {note}", file=sys.stderr)
    if kernel == "auto" and rep.system.kernel == "numpy":
        print("note: the compiled line kernel is not available, the numpy kernel runs "
              "(slower; --kernel c says why)", file=sys.stderr)
    header, table, info = rep.run(progress=None if quiet else progress)
    if not info["converged"]:
        print(f"warning: the initial equilibrium did not converge ({info})", file=sys.stderr)
    out = Path(output)
    with out.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows([[repr(float(v)) for v in r] for r in table])
    return out
