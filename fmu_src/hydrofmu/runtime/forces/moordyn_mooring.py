"""Dynamic lumped-mass lines of a MoorDyn v2 file on one body (``type = "moordyn"``).

Configuration::

    [[moorings]]
    type = "moordyn"
    file = "data/moored_body_lines.txt"   # relative to the configuration file
    body = "body"                          # the hydrofmu body the Coupled objects ride on
    reference_point = [0.0, 0.0, 0.0]      # m, that body's reference point in the file's
                                           # frame at zero displacement (default: origin)
    kernel = "auto"                        # the lines' derivative: "auto" (compiled C when
                                           # it loads, else numpy), "c" or "numpy"

The file is read when the configuration is resolved (at export) and its text embedded in
the configuration (key ``text``), so the FMU never reads the user's file.

How the file's coupled objects map onto the hydrofmu body (displacement ``q``: position of
the reference point, m, and roll-pitch-yaw, rad; velocity ``v``):

- a ``Coupled`` **point** is fixed to the body: its file position is its position at
  ``q = 0``; at ``q`` it is at ``c + R(q) (r0 - ref)`` with ``c = ref + q[:3]``;
- a ``Coupled`` **body** is the same rigid body: its file pose is its pose at ``q = 0``;
  its reference point moves as a point of the body and its angles are the file's plus
  ``q[3:]`` (small rotations);
- their forces (and moments) are moved to the reference point ``c`` and summed into
  ``<body>.F_mooring[1..6]``; a model with several bodies uses one file per body.

The line states (internal nodes and free points) join the state vector as this part's
states; they start at the static equilibrium of the lines at the body's initial pose
(:func:`~hydrofmu.runtime.moorings.equilibrium.initial_state`). Each line ``k`` (numbered from
1 over all ``[[moorings]]`` entries, in order) reports ``mooring.line<k>.T_fairlead`` and
``mooring.line<k>.T_anchor``, N, as MoorDyn's ``FairTen``/``AnchTen``: the magnitude of the
net force on the line's end node B (fairlead) and end node A (anchor).

The part's own stable step (for the local-time-step schemes ``leuler`` and ``labN``) is
MoorDyn's CFL estimate ``CFL l / sqrt(EA / m)`` over the segments, ``CFL =``
:data:`LINE_CFL`, and no more than ``2 CFL / rate`` with ``rate`` the largest damping rate
of a node (seabed ``cBot`` and internal damping ``BA``, which MoorDyn's CFL ignores and
which bound the explicit schemes' step as much as the axial waves do).

Run-time module: numpy, the standard library and the run-time mooring modules.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..hydrodata.model import HydroData
from ..moorings.equilibrium import initial_state
from ..moorings.frames import cross, rotation
from ..moorings.kernel_loader import unavailable_reason
from ..moorings.line_layout import environment
from ..moorings.lines import LineSystem
from ..moorings.moordyn_input import parse_moordyn
from ..parts.part import Context, ModelInfo, Part, Port
from ..waves.current import current_from_config
from .mooring_common import body_dofs, check_keys, initial_pose, mooring_body, tension_ports

_KEYS = ("type", "file", "text", "body", "reference_point", "kernel")

#: Courant number of the lines' own stable step (MoorDyn-C's default CFL, 0.5).
LINE_CFL = 0.5


def embed_moordyn_file(entry: dict[str, Any], base: Path) -> None:
    """Read the MoorDyn file of a ``type = "moordyn"`` entry into ``entry["text"]``.

    ``file`` is relative to ``base`` (the configuration's folder). An entry that already
    has ``text`` (a configuration stored in an FMU) is left alone.
    """
    if isinstance(entry.get("text"), str):
        return
    name = entry.get("file")
    if not isinstance(name, str) or not name:
        raise ConfigError('[[moorings]] moordyn: \'file = "lines.txt"\' is needed (the MoorDyn '
                          "input file, relative to the configuration)", value=name)
    path = Path(name)
    if not path.is_absolute():
        path = base / path
    if not path.is_file():
        raise ConfigError(f"[[moorings]] moordyn: file {name!r} not found (looked for "
                          f"{path}); give its path relative to the configuration file",
                          value=name)
    text = path.read_text(encoding="utf-8", errors="replace")
    parse_moordyn(text, path=path)  # errors name the file and its line, now
    entry["text"] = text


class MoorDynPart(Part):
    """MoorDyn-C v2 lumped-mass lines whose coupled objects ride on one body."""

    kind = "mooring.moordyn"
    channel = "F_mooring"

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        opts = model.options
        check_keys(opts, _KEYS, "[[moorings]] moordyn")
        if not isinstance(opts.get("text"), str):
            raise ConfigError("[[moorings]] moordyn: the file was not read; load the "
                              "configuration with hydrofmu.config.load_config (or resolve)",
                              value=opts.get("file"))
        body, k = mooring_body(model, "[[moorings]] moordyn")
        self.body = body
        where = f"[[moorings]] moordyn {opts.get('file', '')!s} on '{body}'"
        ref = np.asarray(opts.get("reference_point", [0.0, 0.0, 0.0]), dtype=float)
        if ref.shape != (3,) or not np.all(np.isfinite(ref)):
            raise ConfigError(f"{where}: reference_point must be 3 finite numbers (m), got "
                              f"{opts.get('reference_point')!r}", value=ref.tolist())
        self.ref = ref
        md = parse_moordyn(opts["text"], path=Path(str(opts.get("file", "lines.txt"))))
        current = current_from_config(model.config)
        if current is not None:  # the [current] section, as MoorDyn-C's Currents = 1 table
            md.current = current.table(environment(md).depth)
            model.report.append(f"mooring: {current.describe()} on the lines (MoorDyn-C's "
                                f"Currents = 1 table, {len(md.current)} row(s))")
        kernel = opts.get("kernel", "auto")
        if not isinstance(kernel, str):
            raise ConfigError(f"{where}: kernel must be 'auto', 'c' or 'numpy', got "
                              f"{kernel!r}", value=kernel)
        self.system = LineSystem(model=md, kernel=kernel)
        if not md.lines:
            raise ConfigError(f"{where}: the file has no LINES", value=None)
        sysm = self.system
        la = sysm.arrays
        self.body_pose0 = [np.asarray(md.bodies[bi].pose, dtype=float)
                           for bi in la.coupled_bodies]
        self.point_r0 = [la.point_r0[pi].copy() for pi in la.coupled_points]
        # Lever arms at rest from the reference point (bodies' origins, then the points),
        # (n, 3), and the bodies' rest angles, (n_bodies, 3).
        self._arms0 = np.array([p[:3] - ref for p in self.body_pose0]
                               + [r - ref for r in self.point_r0]).reshape(-1, 3)
        self._angles0 = np.array([p[3:] for p in self.body_pose0]).reshape(-1, 3)
        if not (self.body_pose0 or self.point_r0):
            model.warnings.append(f"{where}: no Coupled point or body; the lines do not act "
                                  "on the body")
        self.sl, self.dofs = body_dofs(model, k)
        self.n_states = sysm.n_states
        self.n_lines = len(md.lines)
        q0 = initial_pose(model, body)
        self.q0 = q0
        cp, _ = self.coupled(q0, np.zeros(6))
        self.x0, info = initial_state(sysm, cp)
        if not info["converged"]:
            model.warnings.append(f"{where}: the initial static equilibrium did not converge "
                                  f"({info}); the lines start from its best estimate")
        self._stable_step = self._own_step(md)
        self._key: tuple[NDArray[np.float64], ...] | None = None
        self._cache: tuple[NDArray[np.float64], dict] | None = None
        ten = self._tensions(self._evaluate(self.x0, q0, np.zeros(6))[1]["fnet"])
        model.report.append(
            f"mooring: MoorDyn file {opts.get('file', '')!s} on '{body}': {self.n_lines} "
            f"line(s), {sysm.n_states} states, initial equilibrium by {info['method']}, "
            f"fairlead tensions {np.round(ten[0::2], 1).tolist()} N, own stable step "
            f"{self._stable_step:.3g} s, {sysm.kernel} kernel"
            + (f" (the compiled one is not available: {unavailable_reason()})"
               if kernel == "auto" and sysm.kernel == "numpy" else ""))

    def _own_step(self, md) -> float:
        """MoorDyn's CFL step on the segments' axial wave speed, and no more than
        ``2 CFL / rate`` with ``rate`` the largest damping rate of a node (seabed cBot and
        internal damping BA of its two segments, over its mass with added mass)."""
        la = self.system.arrays
        mpl = np.array([md.line_types[ln.line_type].mass_per_length for ln in md.lines
                        for _ in range(ln.n_segments)])
        cfl = float(LINE_CFL * np.min(la.l0 / np.sqrt(la.ea / mpl)))
        node_ba = np.zeros(la.n_nodes)
        np.add.at(node_ba, la.seg0, 2.0 * la.ba / la.l0)
        np.add.at(node_ba, la.seg1, 2.0 * la.ba / la.l0)
        cbot = la.env.cbot * la.n_d * la.n_len if math.isfinite(la.env.depth) else 0.0
        rate = float(np.max((node_ba + cbot)[la.internal] / la.a_full[la.internal],
                            initial=0.0))
        return min(cfl, 2.0 * LINE_CFL / rate) if rate > 0 else cfl

    @classmethod
    def output_ports(cls, bodies: list[HydroData], config: dict[str, Any],
                     options: dict[str, Any]) -> list[Port]:
        return tension_ports(config, options)

    # ---------------------------------------------------------------- kinematics
    def coupled(self, q: NDArray[np.float64], v: NDArray[np.float64]
                ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Coupled positions and velocities of the file (MoorDyn's order) at the body's
        displacement ``q`` and velocity ``v`` (shape (6,) each)."""
        if not self._arms0.size:
            return np.zeros(0), np.zeros(0)
        omega = v[3:]
        arms = self._arms0 @ rotation(q[3:]).T
        pos = self.ref + q[:3] + arms
        vel = v[:3] + cross(omega, arms)
        nb = self._angles0.shape[0]
        if not nb:
            return pos.ravel(), vel.ravel()
        cp = np.concatenate([np.hstack([pos[:nb], self._angles0 + q[3:]]).ravel(),
                             pos[nb:].ravel()])
        cv = np.concatenate([np.hstack([vel[:nb], np.tile(omega, (nb, 1))]).ravel(),
                             vel[nb:].ravel()])
        return cp, cv

    def _evaluate(self, x: NDArray[np.float64], q: NDArray[np.float64],
                  v: NDArray[np.float64]) -> tuple[NDArray[np.float64], dict]:
        """Derivative of the line states and ``{"force": (6,), "fnet": (nodes, 3)}`` (the
        net force on every node, for :meth:`tensions`); the last evaluation is kept (the
        derivative and the force are asked at the same state)."""
        key = self._key
        if (key is not None and key[1].shape == q.shape and key[0].shape == x.shape
                and not ((key[0] != x).any() or (key[1] != q).any() or (key[2] != v).any())):
            assert self._cache is not None
            return self._cache
        cp, cv = self.coupled(q, v)
        sysm = self.system
        xdot, ev = sysm.derivative_and_evaluate(x, cp, cv)
        c = self.ref + q[:3]
        f = np.zeros(6)
        nb = self._angles0.shape[0]
        if nb:  # each coupled body's force and moment about its origin, moved to c
            gen = sysm.coupled_from(ev, cp)[: 6 * nb].reshape(nb, 6)
            f[:3] += gen[:, :3].sum(axis=0)
            f[3:] += gen[:, 3:].sum(axis=0) + cross(
                cp[: 6 * nb].reshape(nb, 6)[:, :3] - c, gen[:, :3]).sum(axis=0)
        points = sysm.arrays.coupled_points
        if points.size:
            fp = ev["point_f"][points]
            f[:3] += fp.sum(axis=0)
            f[3:] += cross(ev["point_r"][points] - c, fp).sum(axis=0)
        self._key = (x.copy(), q.copy(), v.copy())
        self._cache = (xdot, {"force": f, "fnet": ev["fnet"]})
        return self._cache

    def _tensions(self, fnet: NDArray[np.float64]) -> NDArray[np.float64]:
        """Fairlead and anchor tension of every line (MoorDyn's order), N, (2 n_lines,)."""
        la = self.system.arrays
        ten = np.empty(2 * self.n_lines)
        ten[0::2] = np.linalg.norm(fnet[la.end_b], axis=1)
        ten[1::2] = np.linalg.norm(fnet[la.end_a], axis=1)
        return ten

    def _at(self, ctx: Context) -> tuple[NDArray[np.float64], dict]:
        return self._evaluate(ctx.y[self.state_slice], ctx.q[self.sl], ctx.v[self.sl])

    # ---------------------------------------------------------------- the part
    def initial_states(self) -> NDArray[np.float64]:
        return self.x0.copy()

    def derivative(self, ctx: Context) -> NDArray[np.float64]:
        return self._at(ctx)[0]

    def force(self, ctx: Context) -> NDArray[np.float64]:
        out = np.zeros(self.n)
        out[self.sl] = self._at(ctx)[1]["force"]
        return out

    def outputs(self, ctx: Context) -> NDArray[np.float64]:
        return self._tensions(self._at(ctx)[1]["fnet"])

    def why_not_linear(self) -> str:
        return ("mooring.moordyn: dynamic mooring lines (nonlinear, with their own states): "
                "use a [[moorings]] type = 'linear', or time_scheme = 'etdrk4' (exponential "
                "integrator) or a Runge-Kutta scheme")

    def stiffness_estimate(self) -> NDArray[np.float64]:
        """Axial stiffness ``EA / l`` of the segments at the coupled points, along each
        segment, moved to the body's 6 DOFs at the initial pose, (n, n): the fast scale of
        the body-line coupling (for the bodies' own stable step)."""
        sysm = self.system
        la = sysm.arrays
        cp, cv = self.coupled(self.q0, np.zeros(6))
        ev = sysm.evaluate(self.x0, cp, cv)
        r = ev["r"]
        c = self.ref + self.q0[:3]
        k6 = np.zeros((6, 6))
        coupled = {int(i) for i in la.coupled_points} | {
            i for i, b in enumerate(la.point_body) if b is not None}
        for li in range(self.n_lines):
            first, last = la.end_a[li], la.end_b[li]
            for end, other, seg, point in (
                (first, first + 1, la.line_start[li] - li, la.end_points[li]),
                (last, last - 1, la.line_start[li] - li + (last - first) - 1,
                 la.end_points[self.n_lines + li]),
            ):
                if point not in coupled:
                    continue
                d = r[end] - r[other]
                u = d / np.linalg.norm(d)
                k3 = la.ea[seg] / la.l0[seg] * np.outer(u, u)
                arm = r[end] - c
                jac = np.hstack([np.eye(3), -np.array([[0, -arm[2], arm[1]],
                                                       [arm[2], 0, -arm[0]],
                                                       [-arm[1], arm[0], 0]])])
                k6 += jac.T @ k3 @ jac
        k = np.zeros((self.n, self.n))
        k[self.sl, self.sl] = k6
        return k

    def stable_step(self) -> float | None:
        """MoorDyn's CFL step of the lines, s (:data:`LINE_CFL` l / sqrt(EA / m))."""
        return self._stable_step if math.isfinite(self._stable_step) else None
