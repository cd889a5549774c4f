"""Sanity checks of hydrodynamic data and of the mass matrix (run time: numpy only).

Impossible data raises :class:`~hydrofmu.runtime.errors.HydroDataError` naming the body, the
variable and the offending value; suspicious-but-legal data gives a
:class:`HydroDataWarning`. Every threshold is a named module constant with the reason for
its value next to it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..runtime.errors import HydroDataError
from ..runtime.hydrodata.model import DOF_NAMES, HydroData

__all__ = [
    "DAMPING_ERROR_RTOL",
    "DAMPING_WARN_RTOL",
    "MASS_SYMMETRY_RTOL",
    "SYMMETRY_RTOL",
    "SYMMETRY_WARN_RTOL",
    "HydroDataWarning",
    "check_hydrodata",
    "check_mass",
    "check_mass_matrix",
]

# A_inf asymmetry, relative to max |A_inf[i, i]|. A BEM solution is symmetric only up to
# the panel discretisation. Measured here: the WAMIT sphere of shared/data is symmetric to
# 7e-7, but the Capytaine 2.3.1 cylinder (coarse mesh) has |A15 - A51| up to 1.9e-3 of its
# largest diagonal term at high frequency (A15 = -34.54 vs A51 = -34.35 kg m at 21 rad/s),
# and its extrapolated A_inf inherits it. An indexing or unit mistake gives O(1) asymmetry.
# Hence: warn above 1e-3 (coarser than a good mesh), refuse above 1e-2.
SYMMETRY_WARN_RTOL: float = 1e-3
SYMMETRY_RTOL: float = 1e-2

# Negative diagonal damping, relative to the largest diagonal damping of the same DOF
# group (translations or rotations: the units differ between the groups, and a DOF with no
# damping at all, e.g. the yaw of an axisymmetric body, has only round-off to compare with).
# Measured: the WAMIT sphere's heave damping dips to -392 N s/m (-0.21 % of its largest
# translational damping, 1.8e5 N s/m) at 11.5-12 rad/s, the usual high-frequency
# discretisation error. A sign or normalisation error gives -100 %.
DAMPING_WARN_RTOL: float = 1e-4
DAMPING_ERROR_RTOL: float = 1e-2

# Rigid-body mass matrices are built from mass properties, not solved for: anything beyond
# round-off is a typing error in an inertia product.
MASS_SYMMETRY_RTOL: float = 1e-9

# Capytaine and the model want radians; a heading beyond one turn is most likely degrees.
_MAX_HEADING_RAD: float = 2.0 * np.pi + 1e-9


class HydroDataWarning(UserWarning):
    """Hydrodynamic data that is legal but suspicious (extrapolated, noisy, unusual)."""


def _fail(hd_name: str, variable: str, message: str, value: object) -> HydroDataError:
    return HydroDataError(f"body '{hd_name}': {variable} {message}", value=value)


def _expect_shape(hd: HydroData, variable: str, expected: tuple[int, ...]) -> NDArray:
    arr = getattr(hd, variable)
    if not isinstance(arr, np.ndarray):
        raise _fail(hd.name, variable, f"is a {type(arr).__name__}, expected a numpy array "
                    f"of shape {expected}", type(arr).__name__)
    if arr.shape != expected:
        raise _fail(hd.name, variable, f"has shape {arr.shape}, expected {expected}",
                    arr.shape)
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.complexfloating)):
        raise _fail(hd.name, variable, f"has dtype {arr.dtype}, expected a float/complex array",
                    str(arr.dtype))
    return arr


def _expect_finite(hd: HydroData, variable: str, arr: NDArray) -> None:
    bad = ~np.isfinite(arr)
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise _fail(hd.name, variable,
                    f"has {int(bad.sum())} non-finite value(s), first {arr[idx].item()!r} at "
                    f"index {idx}; remove or recompute the failed frequencies", arr[idx].item())


def check_hydrodata(
    hd: HydroData,
    *,
    symmetry_rtol: float = SYMMETRY_RTOL,
    damping_rtol: float = DAMPING_ERROR_RTOL,
    warn: bool = True,
) -> None:
    """Check one body's data for shape, finiteness and physical plausibility.

    Parameters
    ----------
    hd
        The body's data.
    symmetry_rtol
        Largest accepted ``max |A_inf - A_inf^T|`` relative to ``max |diag A_inf|``
        (dimensionless). The default, 1e-2, accepts the panel-discretisation asymmetry
        measured on coarse Capytaine meshes (up to 2e-3); see :data:`SYMMETRY_RTOL`.
    damping_rtol
        Largest accepted negative diagonal damping relative to the largest diagonal
        damping of the same DOF group (dimensionless); see :data:`DAMPING_ERROR_RTOL`.
    warn
        Emit :class:`HydroDataWarning` for suspicious-but-legal data (extrapolated
        A_inf, slightly negative damping, mild asymmetry, headings that look like
        degrees, unstable hydrostatics).

    Raises
    ------
    HydroDataError
        Missing or wrongly shaped arrays, NaN/inf values, frequencies not strictly
        increasing or not positive, asymmetric A_inf, negative diagonal damping beyond
        the tolerance, non-positive rho or g, non-positive water depth.
    """
    if not isinstance(hd, HydroData):
        raise HydroDataError(f"expected a HydroData, got {type(hd).__name__}",
                             value=type(hd).__name__)
    name = hd.name

    omega = hd.omega
    if not isinstance(omega, np.ndarray) or omega.ndim != 1 or omega.size == 0:
        shape = getattr(omega, "shape", None)
        raise _fail(name, "omega", f"has shape {shape}, expected (nw,) with nw >= 1", shape)
    nw = omega.size
    nb = hd.wave_direction.size if isinstance(hd.wave_direction, np.ndarray) else -1
    if nb < 1 or hd.wave_direction.ndim != 1:
        raise _fail(name, "wave_direction",
                    f"has shape {getattr(hd.wave_direction, 'shape', None)}, expected (nb,) "
                    "with nb >= 1", getattr(hd.wave_direction, "shape", None))

    expected = {
        "omega": (nw,),
        "added_mass": (nw, 6, 6),
        "radiation_damping": (nw, 6, 6),
        "added_mass_inf": (6, 6),
        "wave_direction": (nb,),
        "excitation": (nw, nb, 6),
        "hydrostatic_stiffness": (6, 6),
        "reference_point": (3,),
    }
    for variable, shape in expected.items():
        arr = _expect_shape(hd, variable, shape)
        _expect_finite(hd, variable, arr)
    # Centres may be NaN (unknown) but never inf, and have 3 components.
    for variable in ("center_of_buoyancy", "center_of_gravity"):
        arr = _expect_shape(hd, variable, (3,))
        if np.any(np.isinf(arr)):
            raise _fail(name, variable, f"is infinite: {arr.tolist()}", arr.tolist())
    if hd.inertia_matrix is not None:
        _expect_finite(hd, "inertia_matrix", _expect_shape(hd, "inertia_matrix", (6, 6)))
    if not np.iscomplexobj(hd.excitation):
        raise _fail(name, "excitation", f"has dtype {hd.excitation.dtype}, expected complex",
                    str(hd.excitation.dtype))

    # Frequencies.
    w0 = float(omega[0])
    if w0 <= 0.0:
        raise _fail(name, "omega", f"starts at {w0!r} rad/s; all frequencies must be > 0 "
                    "(drop the omega = 0 row)", w0)
    steps = np.diff(omega)
    if np.any(steps <= 0.0):
        i = int(np.argmax(steps <= 0.0))
        pair = (float(omega[i]), float(omega[i + 1]))
        raise _fail(name, "omega", f"is not strictly increasing: omega[{i}] = {pair[0]!r} then "
                    f"omega[{i + 1}] = {pair[1]!r} rad/s; sort the frequencies and remove "
                    "duplicates", pair)

    # Environment.
    for variable in ("rho", "g"):
        value = getattr(hd, variable)
        if not np.isfinite(value) or value <= 0.0:
            raise _fail(name, variable, f"= {float(value)!r} must be finite and > 0", value)
    if np.isnan(hd.water_depth) or hd.water_depth <= 0.0:
        raise _fail(name, "water_depth", f"= {float(hd.water_depth)!r} m must be > 0 (inf for deep "
                    "water)", hd.water_depth)
    if not (np.isnan(hd.displaced_volume) or hd.displaced_volume >= 0.0):
        raise _fail(name, "displaced_volume", f"= {float(hd.displaced_volume)!r} m^3 is negative",
                    hd.displaced_volume)

    # A_inf symmetry.
    a_inf = hd.added_mass_inf
    scale = float(np.max(np.abs(np.diag(a_inf))))
    asym = float(np.max(np.abs(a_inf - a_inf.T)))
    if scale == 0.0:
        raise _fail(name, "added_mass_inf", "has an all-zero diagonal", 0.0)
    rel = asym / scale
    if rel > symmetry_rtol:
        i, j = np.unravel_index(int(np.argmax(np.abs(a_inf - a_inf.T))), a_inf.shape)
        raise _fail(name, "added_mass_inf",
                    f"is asymmetric: |A[{i},{j}] - A[{j},{i}]| = {asym:.6g} "
                    f"({a_inf[i, j]:.6g} vs {a_inf[j, i]:.6g}) is {rel:.3g} of max |diag| "
                    f"{scale:.6g}, above the tolerance {symmetry_rtol:g}; check the DOF order "
                    "and units of the source, or pass a larger symmetry_rtol", rel)
    if warn and rel > SYMMETRY_WARN_RTOL:
        warnings.warn(f"body '{name}': added_mass_inf is asymmetric by {rel:.3g} of max |diag| "
                      f"(> {SYMMETRY_WARN_RTOL:g}): a coarse BEM mesh?", HydroDataWarning,
                      stacklevel=2)

    # Diagonal damping.
    diag_b = np.diagonal(hd.radiation_damping, axis1=1, axis2=2)  # (nw, 6)
    for group in (slice(0, 3), slice(3, 6)):
        d = diag_b[:, group]
        group_scale = float(np.max(np.abs(d)))
        if group_scale == 0.0:
            continue
        worst = float(np.min(d))
        iw, k = np.unravel_index(int(np.argmin(d)), d.shape)
        dof = DOF_NAMES[group.start + k]
        rel = -worst / group_scale
        if rel > damping_rtol:
            raise _fail(name, "radiation_damping",
                        f"is negative on the diagonal: B[{dof}, {dof}] = {worst:.6g} at "
                        f"omega = {omega[iw]:.6g} rad/s is {rel:.3g} of the largest diagonal "
                        f"damping of its group ({group_scale:.6g}), above {damping_rtol:g}; "
                        "check the sign and normalisation of the source", worst)
        if warn and rel > DAMPING_WARN_RTOL:
            warnings.warn(f"body '{name}': radiation_damping B[{dof}, {dof}] dips to "
                          f"{worst:.6g} at omega = {omega[iw]:.6g} rad/s ({rel:.2%} of the "
                          "group's largest damping): BEM discretisation error, usually at "
                          "the ends of the frequency range", HydroDataWarning, stacklevel=2)

    if not warn:
        return
    if hd.added_mass_inf_source not in ("file", "config"):
        warnings.warn(f"body '{name}': added_mass_inf was not in the file "
                      f"(source '{hd.added_mass_inf_source}'); the notes (hydrofmu info FILE, "
                      "check's note: lines, HydroData.notes) give the estimate and its "
                      "measured error", HydroDataWarning, stacklevel=2)
    if np.any(np.abs(hd.wave_direction) > _MAX_HEADING_RAD):
        warnings.warn(f"body '{name}': wave_direction {hd.wave_direction.tolist()} has values "
                      "beyond 2 pi: degrees instead of radians?", HydroDataWarning, stacklevel=2)
    k_diag = np.diag(hd.hydrostatic_stiffness)
    if k_diag[2] <= 0.0:
        warnings.warn(f"body '{name}': hydrostatic_stiffness K[heave, heave] = {k_diag[2]:.6g} "
                      "is not positive: not a floating body? (fine for a submerged one)",
                      HydroDataWarning, stacklevel=2)


def check_mass_matrix(
    M: ArrayLike,
    A_inf: ArrayLike,
    dofs: ArrayLike | Sequence[bool] | None = None,
    *,
    name: str = "body",
    symmetry_rtol: float = MASS_SYMMETRY_RTOL,
) -> None:
    """Check that the rigid-body mass matrix is symmetric and ``M + A_inf`` is SPD.

    Parameters
    ----------
    M
        Rigid-body mass matrix about the reference point, shape (n, n) (n = 6 per body),
        kg, kg m, kg m^2.
    A_inf
        Infinite-frequency added mass, shape (n, n), same units.
    dofs
        Boolean mask of the free DOFs, shape (n,); ``None`` means all free. Fixed DOFs
        take no part in the solve, so they need no mass.
    name
        Body (or system) name for the messages.
    symmetry_rtol
        Largest accepted ``max |M - M^T|`` relative to ``max |diag M|``; see
        :data:`MASS_SYMMETRY_RTOL`.

    Raises
    ------
    HydroDataError
        Wrong shapes, non-finite values, asymmetric ``M``, or ``M + A_inf`` (restricted to
        the free DOFs) not positive definite; the message states the smallest eigenvalue.
    """
    m = np.asarray(M, dtype=float)
    a = np.asarray(A_inf, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise HydroDataError(f"{name}: mass matrix has shape {m.shape}, expected (n, n)",
                             value=m.shape)
    n = m.shape[0]
    if a.shape != (n, n):
        raise HydroDataError(f"{name}: added_mass_inf has shape {a.shape}, expected {(n, n)} "
                             "like the mass matrix", value=a.shape)
    for label, arr in (("mass matrix", m), ("added_mass_inf", a)):
        if not np.all(np.isfinite(arr)):
            raise HydroDataError(f"{name}: {label} has non-finite values", value=arr)
    if dofs is None:
        free = np.ones(n, dtype=bool)
    else:
        free = np.asarray(dofs)
        if free.shape != (n,) or free.dtype != bool:
            raise HydroDataError(f"{name}: dofs must be a boolean mask of shape ({n},), got "
                                 f"{free.dtype} {free.shape}", value=free)
    labels = [f"{DOF_NAMES[i % 6]}" + (f"[{i // 6}]" if n > 6 else "") for i in range(n)]

    scale = float(np.max(np.abs(np.diag(m)))) or 1.0
    asym = np.abs(m - m.T)
    if float(asym.max()) > symmetry_rtol * scale:
        i, j = np.unravel_index(int(np.argmax(asym)), asym.shape)
        raise HydroDataError(
            f"{name}: mass matrix is not symmetric: M[{labels[i]}, {labels[j]}] = {m[i, j]:.6g} "
            f"but M[{labels[j]}, {labels[i]}] = {m[j, i]:.6g}; state each product of inertia "
            "once and build the matrix symmetric", value=(float(m[i, j]), float(m[j, i])))
    if not np.any(free):
        return
    total = (m + a)[np.ix_(free, free)]
    total = 0.5 * (total + total.T)
    try:
        np.linalg.cholesky(total)
    except np.linalg.LinAlgError:
        vals, vecs = np.linalg.eigh(total)
        k = int(np.argmax(np.abs(vecs[:, 0])))
        dof = [lab for lab, f in zip(labels, free, strict=True) if f][k]
        raise HydroDataError(
            f"{name}: M + A_inf over the free DOFs is not positive definite: smallest "
            f"eigenvalue {vals[0]:.6g} (mostly {dof}). Give that DOF a positive mass or "
            "inertia (check the mass properties and their units), or fix the DOF",
            value=float(vals[0])) from None


check_mass = check_mass_matrix
"""Alias of :func:`check_mass_matrix` under the name used in docs/ARCHITECTURE.md."""
