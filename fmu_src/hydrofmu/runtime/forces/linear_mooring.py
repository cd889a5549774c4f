"""Linear mooring (WEC-Sim's mooring matrix): ``F = f_pre - K q - C v`` on one body.

Configuration, one ``[[moorings]]`` entry::

    [[moorings]]
    type = "linear"
    body = "body"                  # the body it holds (default: the only body)
    stiffness = [[...6...], ...]   # 6x6, N/m, N, N m/rad about the equilibrium
    damping = [[...6...], ...]     # 6x6, N s/m, N s, N m s/rad
    pretension = [0, 0, -1e5, 0, 0, 0]   # constant force, N and N m

``stiffness`` and ``damping`` must be symmetric and positive semi-definite (a mooring
stores and dissipates energy, it does not create it); the force is reported in
``<body>.F_mooring[1..6]`` (summed with the body's other moorings).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..parts.part import Context, ModelInfo, Part
from .mooring_common import body_dofs, check_keys, mooring_body

_KEYS = ("type", "body", "stiffness", "damping", "pretension")

#: Relative asymmetry ``max|K - K^T| / max|K|`` and negative-eigenvalue fraction
#: ``-lambda_min / lambda_max`` accepted as round-off of a matrix typed in by hand.
MATRIX_TOLERANCE = 1e-9


def _matrix(value: Any, what: str) -> NDArray[np.float64]:
    try:
        m = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{what} must be a 6x6 matrix of numbers, got {value!r}",
                          value=value) from exc
    if m.shape != (6, 6) or not np.all(np.isfinite(m)):
        raise ConfigError(f"{what} must be a 6x6 matrix of finite numbers (6 rows of 6), "
                          f"got shape {m.shape}", value=value)
    scale = float(np.max(np.abs(m)))
    asym = float(np.max(np.abs(m - m.T)))
    if asym > MATRIX_TOLERANCE * scale:
        i, j = np.unravel_index(int(np.argmax(np.abs(m - m.T))), m.shape)
        raise ConfigError(
            f"{what} must be symmetric: [{i + 1}][{j + 1}] = {m[i, j]:.6g} but "
            f"[{j + 1}][{i + 1}] = {m[j, i]:.6g}; enter the same coupling term both ways",
            value=value,
        )
    m = 0.5 * (m + m.T)
    eig = np.linalg.eigvalsh(m)
    if eig[0] < -MATRIX_TOLERANCE * max(scale, 1e-300):
        raise ConfigError(
            f"{what} must be positive semi-definite (a mooring cannot supply energy): its "
            f"smallest eigenvalue is {eig[0]:.6g}; check the signs of the diagonal and the "
            "size of the coupling terms", value=value,
        )
    return m


class LinearMooring(Part):
    """One ``[[moorings]]`` entry of ``type = "linear"``, reported as ``F_mooring``."""

    kind = "mooring.linear"
    channel = "F_mooring"

    @classmethod
    def motion_kind(cls, config: dict[str, Any], options: dict[str, Any]) -> str:
        return "constant"  # pretension - K q - B v, from the configuration

    def __init__(self, *, model: ModelInfo) -> None:
        super().__init__(model=model)
        opts = model.options
        check_keys(opts, _KEYS, f"[[moorings]] {opts.get('body', '')!s}".rstrip())
        body, k = mooring_body(model, "[[moorings]] linear")
        where = f"[[moorings]] on '{body}'"
        stiffness = _matrix(opts.get("stiffness", np.zeros((6, 6))), f"{where}: stiffness")
        damping = _matrix(opts.get("damping", np.zeros((6, 6))), f"{where}: damping")
        pre = np.asarray(opts.get("pretension", np.zeros(6)), dtype=float)
        if pre.shape != (6,) or not np.all(np.isfinite(pre)):
            raise ConfigError(f"{where}: pretension must be 6 finite numbers (N, N m), got "
                              f"{opts.get('pretension')!r}", value=opts.get("pretension"))
        n = model.n
        sl, self.dofs = body_dofs(model, k)
        self.stiffness = np.zeros((n, n))
        self.damping = np.zeros((n, n))
        self.pretension = np.zeros(n)
        self.stiffness[sl, sl] = stiffness
        self.damping[sl, sl] = damping
        self.pretension[sl] = pre
        model.report.append(
            f"mooring: linear on '{body}', stiffness diagonal {np.diag(stiffness).tolist()}, "
            f"pretension {pre.tolist()}"
        )

    def force(self, ctx: Context) -> NDArray[np.float64]:
        return self.pretension - self.stiffness @ ctx.q - self.damping @ ctx.v

    def linear_matrices(self):
        return self.stiffness, self.damping, self.pretension
