"""Radiation memory force as a linear state-space system (run time: numpy only).

The realisation is built at export time by :mod:`hydrofmu.statespace`; this class only
evaluates it. Every kernel entry ``K_ij`` has its own states in real modal form, so the
system matrix is block diagonal with 1x1 (real pole) and 2x2 (complex pair) blocks and
every state is driven by one velocity; the output terms ``m`` each take one state to one
force (entries that share poles and input share their states)::

    x_k' = diag_k x_k + off_k x_{partner_k} + b_k v_{inputs_k}
    F_i  = -sum_{m: outputs_m = i} c_m x_{output_states_m} - D_i v_i

``D`` is a small diagonal feed-through (constant damping) that the identification adds
only when it is needed to make the realised damping passive (see
:mod:`hydrofmu.statespace`); usually zero.

Both evaluations cost O(number of states), with no dense matrix.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, HydroDataError


def _vector(value: ArrayLike, name: str, dtype: type, size: int | None) -> NDArray:
    arr = np.asarray(value)
    if arr.ndim != 1 or (size is not None and arr.size != size):
        raise HydroDataError(
            f"{name} must be a 1-D array of {size if size is not None else 'ns'} values, "
            f"got shape {arr.shape}",
            value=arr.shape,
        )
    return np.ascontiguousarray(arr, dtype=dtype)


class StateSpaceRadiation:
    """``x' = A x + B v``, ``F_rad = -C x`` with A, B, C in per-state (sparse) form.

    Parameters
    ----------
    n
        Number of DOFs (size of the velocity and of the force), e.g. 6 per body.
    diag, off
        Diagonal of A and the one off-diagonal term of each row, shape (ns,), 1/s.
    partner
        Column of that off-diagonal term (the state's own index for a real pole),
        shape (ns,), int.
    b
        Input gains, shape (ns,), dimensionless (states have units of velocity times s).
    inputs
        Velocity index driving each state, shape (ns,), int in ``0..n-1``.
    c
        Output gains, shape (m,), units of the kernel (N/(m s), N/s, N m/s).
    outputs
        Force index of each output term, shape (m,), int in ``0..n-1``.
    output_states
        State of each output term, shape (m,), int in ``0..ns-1``; default
        ``arange(ns)`` (one output term per state, ``m = ns``).
    feedthrough
        Diagonal feed-through ``D``, shape (n,), N s/m and N m s, >= 0; default zeros.

    Notes
    -----
    The states are the radiation memory: ``x(t) = int_0^t exp(A (t - s)) B v(s) ds``.
    :meth:`initial_state` returns zeros whatever the initial velocity: the body is taken
    to have been at rest before ``t = 0``, so a nonzero ``v0`` is a velocity *step* at
    ``t = 0`` (the same assumption as the convolution's zero history). A body already in
    steady motion would need the memory of that motion, which the states can carry (see
    :meth:`set_state`), but which a single velocity does not determine.
    """

    def __init__(
        self,
        *,
        n: int,
        diag: ArrayLike,
        off: ArrayLike,
        partner: ArrayLike,
        b: ArrayLike,
        inputs: ArrayLike,
        c: ArrayLike,
        outputs: ArrayLike,
        output_states: ArrayLike | None = None,
        feedthrough: ArrayLike | None = None,
    ) -> None:
        self.n = int(n)
        if self.n < 1:
            raise HydroDataError(f"n={n!r} must be a positive number of DOFs")
        self.diag = _vector(diag, "diag", float, None)
        ns = self.diag.size
        self.off = _vector(off, "off", float, ns)
        self.partner = _vector(partner, "partner", np.intp, ns)
        self.b = _vector(b, "b", float, ns)
        self.inputs = _vector(inputs, "inputs", np.intp, ns)
        self.c = _vector(c, "c", float, None)
        m = self.c.size
        self.outputs = _vector(outputs, "outputs", np.intp, m)
        self.output_states = (np.arange(ns) if output_states is None
                              else _vector(output_states, "output_states", np.intp, m))
        if self.output_states.size != m:
            raise HydroDataError(f"c must have one value per state ({ns}) when "
                                 "output_states is not given", value=m)
        for name, arr, top in (("partner", self.partner, ns), ("inputs", self.inputs, self.n),
                               ("outputs", self.outputs, self.n),
                               ("output_states", self.output_states, ns)):
            if arr.size and (arr.min() < 0 or arr.max() >= top):
                raise HydroDataError(f"{name} indices must lie in 0..{top - 1}")
        self.feedthrough = (np.zeros(self.n) if feedthrough is None
                            else _vector(feedthrough, "feedthrough", float, self.n))
        if np.any(self.feedthrough < 0.0):
            raise HydroDataError("feedthrough (a damping) must be >= 0", value=feedthrough)
        finite = all(np.all(np.isfinite(a)) for a in (self.diag, self.off, self.b, self.c,
                                                      self.feedthrough))
        if not finite:
            raise HydroDataError("state-space matrices must be finite")
        if np.any(self.diag >= 0.0):
            raise HydroDataError(
                "state-space radiation is unstable: a real part of a pole is >= 0 "
                f"(largest {self.diag.max():.3g} 1/s); rebuild the realisation"
            )

        self._has_feedthrough = bool(np.any(self.feedthrough != 0.0))

    @property
    def n_states(self) -> int:
        """Number of states."""
        return int(self.diag.size)

    def initial_state(self, v0: ArrayLike | None = None) -> NDArray[np.float64]:
        """Zeros, shape (ns,): no radiation memory at rest (see the class notes)."""
        if v0 is not None and np.asarray(v0).shape != (self.n,):
            raise HydroDataError(f"v0 must have shape ({self.n},)", value=np.shape(v0))
        return np.zeros(self.n_states)

    def derivative(self, x: NDArray[np.float64], v: NDArray[np.float64]) -> NDArray[np.float64]:
        """``x' = A x + B v``.

        Parameters
        ----------
        x
            States, shape (ns,), m (velocity x s) or rad.
        v
            Body velocities, shape (n,), m/s and rad/s.

        Returns
        -------
        numpy.ndarray
            Time derivative of the states, shape (ns,).
        """
        return self.diag * x + self.off * x[self.partner] + self.b * v[self.inputs]

    def force(self, x: NDArray[np.float64], v: NDArray[np.float64]) -> NDArray[np.float64]:
        """Radiation memory force ``F_rad = -C x - D v``, shape (n,), N and N m.

        Parameters
        ----------
        x
            States, shape (ns,).
        v
            Body velocities, shape (n,), m/s and rad/s (used by the feed-through only).
        """
        f = -np.bincount(self.outputs, weights=self.c * x[self.output_states],
                         minlength=self.n)
        if self._has_feedthrough:
            f -= self.feedthrough * v
        return f

    def dense(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Dense ``A`` (ns, ns), ``B`` (ns, n), ``C`` (n, ns) (for checks; O(ns^2))."""
        ns = self.n_states
        k = np.arange(ns)
        a = np.zeros((ns, ns))
        a[k, k] = self.diag
        a[k, self.partner] += np.where(self.partner != k, self.off, 0.0)
        b = np.zeros((ns, self.n))
        b[k, self.inputs] = self.b
        c = np.zeros((self.n, ns))
        np.add.at(c, (self.outputs, self.output_states), self.c)
        return a, b, c


def stored_realisation(entry: Any, names: list[str]) -> StateSpaceRadiation:
    """The run-time model of every body from ``config["radiation"]["state_space"]``.

    Body ``k``'s realisation (6 DOFs) acts on the stacked DOFs ``6k..6k+5``; the bodies'
    states follow each other (block-diagonal system). A ``"coupled"`` entry (bodies
    coupled by cross-body kernel blocks) is one system on all 6N DOFs.

    Raises
    ------
    ConfigError
        No realisation stored, a failed one, or one for other bodies: the message says
        how to make it.
    """
    how = ("set radiation = \"state_space\" in the configuration and build the model "
           "through hydrofmu.Model or `hydrofmu build`, which realise the state space when "
           "they resolve the configuration (a configuration resolved by hand: "
           "hydrofmu.statespace.payload.add_realisation(bodies, config) adds it)")
    if not isinstance(entry, dict):
        raise ConfigError(f"radiation.method = 'state_space' needs the state-space "
                          f"realisation made at build time, and this model has none; {how}",
                          value="state_space")
    if entry.get("error"):
        raise ConfigError(f"radiation.method = 'state_space' is not available in this model:"
                          f" its realisation failed at build time: {entry['error']}",
                          value="state_space")
    coupled = entry.get("coupled")
    if isinstance(coupled, dict):  # bodies coupled through their cross-body blocks
        try:
            whole = StateSpaceRadiation(**coupled)
        except (TypeError, HydroDataError) as exc:
            raise ConfigError(f"the stored coupled state-space realisation is malformed "
                              f"({exc}); {how}", value=names) from None
        if whole.n != 6 * len(names):
            raise ConfigError(f"the stored coupled state-space realisation has {whole.n} "
                              f"DOFs, the model {6 * len(names)}; {how}", value=whole.n)
        return whole
    blocks = entry.get("bodies") or []
    if len(blocks) != len(names):
        raise ConfigError(f"the stored state-space realisation has {len(blocks)} bodies, the "
                          f"model {len(names)}; {how}", value=len(blocks))
    keys = ("diag", "off", "b", "c")
    parts: dict[str, list[NDArray]] = {k: [] for k in (*keys, "partner", "inputs",
                                                      "outputs", "output_states",
                                                      "feedthrough")}
    ns = 0
    for k, block in enumerate(blocks):
        try:
            body = StateSpaceRadiation(**block)
        except (TypeError, HydroDataError) as exc:
            raise ConfigError(f"body '{names[k]}': the stored state-space realisation is "
                              f"malformed ({exc}); {how}", value=names[k]) from None
        if body.n != 6:
            raise ConfigError(f"body '{names[k]}': the stored state-space realisation has "
                              f"{body.n} DOFs, not 6; {how}", value=body.n)
        for key in keys:
            parts[key].append(getattr(body, key))
        parts["partner"].append(body.partner + ns)
        parts["output_states"].append(body.output_states + ns)
        parts["inputs"].append(body.inputs + 6 * k)
        parts["outputs"].append(body.outputs + 6 * k)
        parts["feedthrough"].append(body.feedthrough)
        ns += body.n_states
    return StateSpaceRadiation(n=6 * len(blocks),
                               **{k: np.concatenate(v) for k, v in parts.items()})
