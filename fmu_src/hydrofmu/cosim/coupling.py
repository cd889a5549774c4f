"""A master that couples a body FMU to the hydrodynamic-load FMU (``[export] kind =
"loads"``) across the added-mass loop (build side).

The body FMU (the project's rigid-body FMU, :mod:`hydrofmu.cosim.rigid_body`, or any FMU with inputs
``force[1..6]`` and outputs ``pose``, ``velocity``, ``acceleration[1..6]``) integrates
``M a = F``; the load FMU returns ``F_total = F_hydro(q, v, memory, t) - A_inf a``. The
methods, by how the loop ``a -> F -> a`` is closed:

``jacobi``, ``gauss_seidel`` (explicit)
    The body receives ``F_total`` held over the step; the load sees the body's acceleration
    of the previous exchange. Gauss-Seidel (body first) amplifies the added-mass force by
    ``-A/m`` per step and diverges where ``m < A + c h / 2`` (``c`` the force's direct
    velocity gain; ``docs/guide/added-mass-coupling.md``, :func:`explicit_boundary`).
``added_mass`` (the added mass moved to the body's side)
    The body's mass becomes ``M + A_inf`` (the load FMU's ``A_inf[i,j]`` outputs) and it
    receives ``F_hydro``, which does not depend on the acceleration: explicit, stable at
    any mass ratio. ``added_mass_iterated``: the same with fixed-point iterations and the
    force polynomial below (accurate).
``interface_jacobian``, ``iqn_ils`` (strong coupling)
    Per step, the end force ``x`` solves ``x = H(x)``: the body is rolled back with
    ``fmi2SetFMUstate``, stepped with the force quadratic through ``F_{n-1}, F_n, x``
    (``fmi2SetRealInputDerivatives``, exact in the rigid-body FMU), and the load FMU
    evaluated at the end motion (its outputs are direct feedthrough: it is stepped once per
    communication step and never rolled back). ``interface_jacobian`` is Newton's method
    ``x += (I - dH/dx)^-1 (H(x) - x)`` with ``dH/dx = S_q D_q + S_v D_v - A_inf M^-1``:
    ``M^-1`` from the body's ``fmi2GetDirectionalDerivative``, ``A_inf`` from the load
    FMU's outputs, the load's pose and velocity sensitivities ``S_q, S_v`` and the body's
    ``D_q, D_v`` by central differences of the two FMUs;
    ``iqn_ils`` is the
    interface quasi-Newton method with an inverse-Jacobian least-squares model built from
    the iterates (Degroote et al. 2009), reusing the last steps' columns: no Jacobian
    needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import ConfigError, IntegrationError
from .fmu_unit import FmuUnit
from .iqn import IqnIls

__all__ = ["METHODS", "CouplingResult", "added_mass_block", "body_mass", "couple",
           "explicit_boundary", "run_coupled"]

#: The coupling methods of :func:`couple`.
METHODS = ("jacobi", "gauss_seidel", "added_mass", "added_mass_iterated",
           "interface_jacobian", "iqn_ils")
_EXPLICIT = ("jacobi", "gauss_seidel", "added_mass")
_DOFS = range(1, 7)


def explicit_boundary(added_mass: float, damping: float, step: float) -> float:
    """The smallest stable mass (kg) of explicit Gauss-Seidel coupling, ``A + c h / 2``.

    For one DOF with the load ``F = -A a - c v - k q + f(t)`` and the body integrated
    exactly with ``F`` held over the step ``h``, the state ``(q, v, F)`` advances by a
    3 x 3 matrix whose eigenvalue crosses ``-1`` where ``det(I + G) = 2 (2 - 2 A/m -
    c h/m) = 0`` (the stiffness ``k`` drops out), i.e. at ``m = A + c h / 2``.

    Parameters
    ----------
    added_mass
        ``A``, kg.
    damping
        ``c``, the direct velocity gain of the load, N s/m.
    step
        The communication step ``h``, s.
    """
    return added_mass + 0.5 * damping * step


@dataclass
class CouplingResult:
    """The coupled run's history at the communication points.

    Attributes
    ----------
    time
        Shape (n,), s.
    pose, velocity, acceleration
        The body's outputs, shape (n, 6), m, rad, m/s, rad/s, m/s2, rad/s2.
    force
        The force the body received, shape (n, 6), N, N m (``F_total``; ``F_hydro`` for
        the ``added_mass`` methods).
    iterations
        Evaluations of the load FMU per communication step, shape (n,) (1 for explicit).
    diverged
        The run stopped because a value exceeded the limit or was not finite.
    method
        The method's name.
    """

    time: NDArray[np.float64]
    pose: NDArray[np.float64]
    velocity: NDArray[np.float64]
    acceleration: NDArray[np.float64]
    force: NDArray[np.float64]
    iterations: NDArray[np.int64]
    diverged: bool
    method: str


class _Loop:
    """The two FMUs and the exchange between them (one body)."""

    def __init__(self, body: FmuUnit, load: FmuUnit, name: str, force: str) -> None:
        self.body, self.load = body, load
        self.force_in = [f"force[{i}]" for i in _DOFS]
        self.motion_out = [f"{q}[{i}]" for q in ("pose", "velocity", "acceleration")
                           for i in _DOFS]
        self.motion_in = [f"{name}.{q}" for q in self.motion_out]
        self.force_out = [f"{name}.{force}[{i}]" for i in _DOFS]
        self.evaluations = 0

    def motion(self) -> NDArray[np.float64]:
        return self.body.get(self.motion_out)

    def load_force(self, motion: NDArray[np.float64]) -> NDArray[np.float64]:
        self.load.set(self.motion_in, motion)
        self.evaluations += 1
        return self.load.get(self.force_out)

    def body_step(self, h: float, f0: NDArray[np.float64],
                  derivatives: tuple[NDArray[np.float64], NDArray[np.float64]] | None) -> None:
        self.body.set(self.force_in, f0)
        if derivatives is not None:
            self.body.set_derivatives(self.force_in, 1, derivatives[0])
            self.body.set_derivatives(self.force_in, 2, derivatives[1])
        self.body.do_step(h)


def added_mass_block(load: FmuUnit, name: str) -> NDArray[np.float64]:
    """The body's 6 x 6 block of the load FMU's ``A_inf[i,j]`` outputs."""
    bodies = [v[: -len(".pose[1]")] for v in load.refs if v.endswith(".pose[1]")]
    if name not in bodies:
        raise ConfigError(f"the load FMU has no body {name!r}; its bodies: {bodies}",
                          value=name)
    k = bodies.index(name)
    names = [f"A_inf[{6 * k + i},{6 * k + j}]" for i in _DOFS for j in _DOFS]
    return load.get(names).reshape(6, 6)


def _polynomial(h: float, f_prev: NDArray[np.float64] | None, f0: NDArray[np.float64],
                f1: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """First and second derivative at the step start of the force through ``F_{n-1}``
    (``None`` on the first step: linear), ``F_n`` and ``F_{n+1}``, equally spaced by h."""
    if f_prev is None:
        return (f1 - f0) / h, np.zeros_like(f0)
    return (f1 - f_prev) / (2.0 * h), (f1 - 2.0 * f0 + f_prev) / (h * h)


def couple(body: FmuUnit, load: FmuUnit, *, method: str, step: float,
           stop_time: float, name: str = "body", tolerance: float = 1e-10,
           max_iterations: int = 100, limit: float = 1e12, reuse: int = 4
           ) -> CouplingResult:
    """Couple the initialized ``body`` and ``load`` FMUs from their time to ``stop_time``.

    Parameters
    ----------
    body, load
        The body FMU (inputs ``force[i]``, outputs ``pose``, ``velocity``,
        ``acceleration[i]``, parameters ``M[i,j]`` set here) and the load FMU, both in
        initialization mode's end state at the same time, not yet stepped; ``body``
        instantiated with ``M`` as the method needs (:func:`body_mass`;
        :func:`run_coupled` does both).
    method
        One of :data:`METHODS`.
    step, stop_time
        The communication step and the end time, s.
    name
        The body's name in the load FMU.
    tolerance
        Converged when ``|H(x) - x| <= tolerance * max(1, |x|)`` (max norms, N).
    max_iterations
        Iterations per step before :class:`IntegrationError`.
    limit
        A pose, velocity, acceleration or force magnitude above it (or not finite) stops
        the run as diverged.
    reuse
        ``iqn_ils``: the number of past steps whose secant columns are kept.
    """
    if method not in METHODS:
        raise ConfigError(f"coupling method {method!r}; choose one of {', '.join(METHODS)}",
                          value=method)
    moved = method.startswith("added_mass")
    loop = _Loop(body, load, name, "F_hydro" if moved else "F_total")
    h = float(step)
    n_steps = round((stop_time - body.time) / h)
    rows: list[tuple[float, NDArray[np.float64], NDArray[np.float64], int]] = []
    a_inf = added_mass_block(load, name)
    jacobian = None
    if method == "interface_jacobian":
        m_inv = body.jacobian([f"acceleration[{i}]" for i in _DOFS], loop.force_in)
        jacobian = _InterfaceJacobian(loop, m_inv, a_inf, h)
    solver = IqnIls(reuse) if method == "iqn_ils" else None

    def update(x: NDArray[np.float64], hx: NDArray[np.float64]) -> NDArray[np.float64]:
        r = hx - x
        if jacobian is not None:
            return x + jacobian.newton @ r
        if solver is not None:
            return solver.update(x, hx)
        return hx  # added_mass_iterated: plain fixed point

    def solve(evaluate: Any, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], int]:
        if solver is not None:
            solver.start()
        for k in range(1, max_iterations + 1):
            hx = evaluate(x)
            if np.max(np.abs(hx - x)) <= tolerance * max(1.0, float(np.max(np.abs(x)))):
                return x, k
            if not np.all(np.isfinite(hx)):
                break
            x = update(x, hx)
        raise IntegrationError(f"the {method} iteration did not converge in "
                               f"{max_iterations} iterations at t = {body.time:.6g} s",
                               value=body.time)

    # t0: the consistent start (the loop solved for the strong methods).
    if method in _EXPLICIT:
        f = loop.load_force(loop.motion())
        iters = 1
    else:
        def at_start(x: NDArray[np.float64]) -> NDArray[np.float64]:
            body.set(loop.force_in, x)
            return loop.load_force(loop.motion())
        if jacobian is not None:
            jacobian.newton = np.linalg.inv(np.eye(6) + a_inf @ m_inv)  # q, v fixed at t0
        f, iters = solve(at_start, loop.load_force(loop.motion()))
        if jacobian is not None:
            iters += jacobian.load_sensitivities()
    body.set(loop.force_in, f)
    f_prev = None
    rows.append((body.time, loop.motion(), f, iters))
    diverged = False
    for _ in range(n_steps):
        load.do_step(h)  # commits the motion of this communication point
        if method in _EXPLICIT:
            f_jacobi = load.get(loop.force_out)  # its inputs: the previous exchange
            body.do_step(h)
            motion = loop.motion()  # the acceleration of the force held over the step
            if method == "jacobi":
                load.set(loop.motion_in, motion)
                loop.evaluations += 1
                f_new = f_jacobi
            else:
                f_new = loop.load_force(motion)
            body.set(loop.force_in, f_new)
            iters = 1
        else:
            saved = body.get_state()
            f0 = f

            def advance(x: NDArray[np.float64], f0: NDArray[np.float64] = f0,
                        saved: Any = saved, f_prev: Any = f_prev) -> NDArray[np.float64]:
                body.set_state(saved)
                loop.body_step(h, f0, _polynomial(h, f_prev, f0, x))
                body.set(loop.force_in, x)
                return loop.load_force(loop.motion())

            guess = 2.0 * f0 - f_prev if f_prev is not None else f0
            if jacobian is not None:
                jacobian.body_sensitivities(saved, f0, f_prev, guess)
            f_new, iters = solve(advance, guess)  # the body and load end at f_new's motion
            body.free_state(saved)
        f_prev, f = f, f_new
        motion = loop.motion()
        rows.append((body.time, motion, f, iters))
        if not (np.all(np.isfinite(motion)) and np.all(np.isfinite(f))) or max(
                np.max(np.abs(motion)), np.max(np.abs(f))) > limit:
            diverged = True
            break
    t = np.array([r[0] for r in rows])
    m = np.array([r[1] for r in rows]).reshape(len(rows), 3, 6)
    return CouplingResult(time=t, pose=m[:, 0], velocity=m[:, 1], acceleration=m[:, 2],
                          force=np.array([r[2] for r in rows]),
                          iterations=np.array([r[3] for r in rows], dtype=np.int64),
                          diverged=diverged, method=method)


def body_mass(mass: Any, method: str, a_inf: NDArray[np.float64]) -> NDArray[np.float64]:
    """The mass matrix the body FMU gets for ``method``: ``M + A_inf`` for the
    ``added_mass`` methods, ``M`` otherwise (6 x 6)."""
    m = np.asarray(mass, dtype=float).reshape(6, 6)
    return m + a_inf if method.startswith("added_mass") else m


def run_coupled(body_fmu: Any, load_fmu: Any, *, mass: Any, method: str, step: float,
                stop_time: float, free: Any = (1, 1, 1, 1, 1, 1), name: str = "body",
                start_time: float = 0.0, load_parameters: dict[str, float] | None = None,
                body_parameters: dict[str, float] | None = None,
                **options: Any) -> CouplingResult:
    """Instantiate the rigid-body FMU and the load FMU, couple them by ``method`` and free
    both (the body's ``M[i,j]`` from ``mass`` and the load's ``A_inf`` by
    :func:`body_mass`; ``free[i]`` 1 or 0 per DOF; ``body_parameters``, e.g.
    ``initial_pose[3]``, and ``load_parameters`` are start values by name; ``options``
    go to :func:`couple`)."""
    load = FmuUnit(load_fmu, "load", start_time=start_time, parameters=load_parameters)
    body = None
    try:
        m = body_mass(mass, method, added_mass_block(load, name))
        params: dict[str, float] = {f"M[{i + 1},{j + 1}]": m[i, j]
                                    for i in range(6) for j in range(6)}
        params.update({f"free[{i + 1}]": int(f) for i, f in enumerate(free)})
        params.update(body_parameters or {})
        body = FmuUnit(body_fmu, "body", start_time=start_time, parameters=params)
        return couple(body, load, method=method, step=step, stop_time=stop_time, name=name,
                      **options)
    finally:
        load.close()
        if body is not None:
            body.close()


class _InterfaceJacobian:
    """``(I - dH/dx)^-1`` for ``interface_jacobian``: ``dH/dx = S_q D_q + S_v D_v - A_inf
    M^-1``, with the load's sensitivities ``S_q, S_v`` to the pose and velocity (central
    differences of its outputs, once: exact for a load affine in the motion), the body's
    ``D_q, D_v`` of the end pose and velocity to the end force (central differences of
    rolled-back steps, again when the force polynomial changes form) and ``M^-1`` from the
    body's directional derivative."""

    def __init__(self, loop: _Loop, m_inv: NDArray[np.float64], a_inf: NDArray[np.float64],
                 h: float) -> None:
        self.loop, self.m_inv, self.a_inf, self.h = loop, m_inv, a_inf, h
        self.free = np.flatnonzero(np.any(m_inv != 0.0, axis=0))
        self.s_q = self.s_v = np.zeros((6, 6))
        self.newton = np.eye(6)
        self._form: bool | None = None

    def load_sensitivities(self) -> int:
        """``S_q``, ``S_v`` at the current motion (restored); returns the evaluations."""
        loop = self.loop
        base = loop.motion()
        out = []
        for block in (0, 1):
            s = np.zeros((6, 6))
            for i in self.free:
                k = 6 * block + i
                delta = 1e-3 * max(1.0, abs(base[k]))
                up, down = base.copy(), base.copy()
                up[k] += delta
                down[k] -= delta
                s[:, i] = (loop.load_force(up) - loop.load_force(down)) / (2.0 * delta)
            out.append(s)
        self.s_q, self.s_v = out
        loop.load_force(base)
        return 4 * self.free.size + 1

    def body_sensitivities(self, saved: Any, f0: NDArray[np.float64],
                           f_prev: NDArray[np.float64] | None, x: NDArray[np.float64]) -> None:
        """``D_q``, ``D_v`` from the body rolled back to ``saved``, and the Newton matrix
        (recomputed when the polynomial's form changes: linear on the first step)."""
        form = f_prev is None
        if form == self._form:
            return
        loop, h = self.loop, self.h
        d_q, d_v = np.zeros((6, 6)), np.zeros((6, 6))
        delta = 1e-3 * max(1.0, float(np.max(np.abs(x))))
        for i in self.free:
            ends = []
            for sign in (1.0, -1.0):
                xi = x.copy()
                xi[i] += sign * delta
                loop.body.set_state(saved)
                loop.body_step(h, f0, _polynomial(h, f_prev, f0, xi))
                ends.append(loop.motion())
            diff = (ends[0] - ends[1]) / (2.0 * delta)
            d_q[:, i], d_v[:, i] = diff[:6], diff[6:12]
        j_h = self.s_q @ d_q + self.s_v @ d_v - self.a_inf @ self.m_inv
        self.newton = np.linalg.inv(np.eye(6) - j_h)
        self._form = form
