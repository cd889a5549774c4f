"""The state-space radiation realisation stored in the model payload (build/export time).

:func:`add_realisation` realises the radiation kernel of every body
(:func:`hydrofmu.statespace.realisation.realise_radiation`, with the configuration's ``[radiation]``
``ss_tolerance``, ``ss_max_order``, ``ss_fit``, ``omega_max`` and ``taper``: the same kernel as the
convolution's) and writes the run-time arrays of
:class:`~hydrofmu.runtime.forces.radiation_ss.StateSpaceRadiation` into
``config["radiation"]["state_space"]``, as plain JSON lists (the payload's header keeps
floats at ``repr`` precision, so the FMU evaluates exactly the realisation made here)::

    {"tolerance": 0.01, "max_order": 10,
     "bodies": [{"n": 6, "diag": [...], ..., "feedthrough": [...]}, ...],
     "report": ["<body>: state-space radiation: ...", ...],
     "error": null}

Each body is realised on its own 6 x 6 block, unless bodies of one multi-body file couple
(``config["coupling"]`` with ``[multibody] b2b = true``): then the full 6N x 6N kernel,
cross-body blocks included, is realised at once (:func:`realise_coupled`) and stored as
``"coupled"`` (the arrays of one :class:`StateSpaceRadiation` on all 6N DOFs) with
``"bodies": []``.
:func:`hydrofmu.export.fmu.build_fmu` calls it for every FMU, so that ``radiation.method =
state_space`` can be chosen at run time; when the method is not ``state_space`` a failed
realisation is kept as ``error`` (and reported if the method is chosen later) instead of
failing the export.

Not a run-time module: the FMU only reads the stored arrays (``forces/radiation_ss.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..runtime.errors import ConfigError, HydroDataError
from ..runtime.hydrodata.model import HydroData
from ..runtime.irf.transforms import radiation_irf, radiation_irf_from_arrays
from ..runtime.parameters.table import irf_options
from .impedance import impedance
from .irf_duration import default_irf_time
from .realisation import (
    DEFAULT_MAX_ORDER,
    DEFAULT_TOLERANCE,
    RadiationRealisation,
    check_realisation_settings,
    realise_kernel,
    realise_radiation,
)

__all__ = ["SS_FITS", "add_realisation", "check_settings", "fit_setting", "realisation_payload"]


#: The values of ``[radiation] ss_fit``: what the state-space realisation is fitted to.
SS_FITS: tuple[str, ...] = ("kernel", "impedance")


def fit_setting(config: dict[str, Any]) -> str:
    """``[radiation] ss_fit``, checked: ``"kernel"`` (default) or ``"impedance"``."""
    fit = config.get("radiation", {}).get("ss_fit") or "kernel"
    if fit not in SS_FITS:
        raise ConfigError(f"[radiation] ss_fit = {fit!r} must be one of {list(SS_FITS)}: "
                          "'kernel' fits the IRF of B(w), 'impedance' fits B(w) and A(w) "
                          "together", value=fit)
    return str(fit)


def check_settings(config: dict[str, Any]) -> tuple[float, int]:
    """``[radiation] ss_tolerance``, ``ss_max_order`` and ``ss_fit``, checked.

    Raises
    ------
    ConfigError
        A tolerance outside (0, 1), an order outside 1..100 or an unknown ``ss_fit``,
        named with its key.
    """
    fit_setting(config)
    rad = config.get("radiation", {})
    tol = rad.get("ss_tolerance", DEFAULT_TOLERANCE)
    order = rad.get("ss_max_order", DEFAULT_MAX_ORDER)
    try:
        return check_realisation_settings(tol, order, None)
    except ConfigError as exc:
        raise ConfigError(f"[radiation] {exc}", value=exc.value) from None


_settings = check_settings


def realisation_payload(bodies: list[HydroData], config: dict[str, Any],
                        names: list[str] | None = None) -> dict[str, Any]:
    """Realise every body's radiation kernel; the JSON-able entry described above.

    Raises
    ------
    ConfigError
        ``ss_tolerance`` or ``ss_max_order`` out of range.
    HydroDataError
        A kernel that cannot be realised stable and passive within the settings.
    """
    tol, order = _settings(config)
    opts = irf_options(config, "radiation")
    fit = fit_setting(config)
    names = names or [hd.name for hd in bodies]
    blocks = coupling_arrays(config)
    # the DOFs that can move (fitted alone to the impedance; the kernel fit takes all)
    free = [np.asarray(b.get("free_dofs", [True] * 6), dtype=bool)
            for b in config.get("bodies", [{}] * len(bodies))]
    if blocks:
        try:
            real = realise_coupled(bodies, blocks, tolerance=tol, max_order=order, fit=fit,
                                   moving=np.concatenate(free), **opts)
        except (ConfigError, HydroDataError) as exc:
            raise type(exc)(f"bodies {names}: radiation.method = state_space: {exc}",
                            value=exc.value) from None
        arrays = {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                  for k, v in real.runtime_arrays().items()}
        return {"tolerance": float(tol), "max_order": int(order), "bodies": [],
                "coupled": arrays, "report": real.report().splitlines(), "error": None}
    arrays: list[dict[str, Any]] = []
    report: list[str] = []
    for name, hd, moving in zip(names, bodies, free, strict=True):
        try:
            real = realise_radiation(hd, tolerance=tol, max_order=order, fit=fit,
                                     moving=moving, **opts)
        except (ConfigError, HydroDataError) as exc:
            raise type(exc)(f"body '{name}': radiation.method = state_space: {exc}",
                            value=exc.value) from None
        arrays.append({k: (v.tolist() if isinstance(v, np.ndarray) else v)
                       for k, v in real.runtime_arrays().items()})
        report += [f"{name}: {line}" for line in real.report().splitlines()]
    return {"tolerance": float(tol), "max_order": int(order), "bodies": arrays,
            "report": report, "error": None}


def coupling_arrays(config: dict[str, Any]) -> list[tuple[int, int, dict[str, Any]]]:
    """The body-to-body blocks ``(k, j, {"radiation_damping": (nw, 6, 6)})`` of
    ``config["coupling"]`` that the model uses (none when ``[multibody] b2b = false``)."""
    if not bool(config.get("multibody", {}).get("b2b", True)):
        return []
    keys = ("radiation_damping", "added_mass", "added_mass_inf")
    return [(int(c["bodies"][0]), int(c["bodies"][1]),
             {k: np.asarray(c[k], dtype=float) for k in keys if k in c})
            for c in config.get("coupling") or []]


def realise_coupled(bodies: list[HydroData], blocks: list[tuple[int, int, dict[str, Any]]],
                    *, tolerance: float, max_order: int, omega_max: float | None = None,
                    taper: float = 0.0, fit: str = "kernel", moving: np.ndarray | None = None
                    ) -> RadiationRealisation:
    """Realise the full 6N x 6N kernel of coupled bodies (one BEM run: one frequency set).

    The diagonal blocks are the bodies' own kernels, the off-diagonal ones
    ``2/pi int B_kj(w) cos(w t) dw`` of the coupling data (the convolution's kernel,
    :func:`hydrofmu.runtime.forces.radiation.RadiationPart`, same ``omega_max`` and taper), on
    one time grid: the longest of the bodies' own (:func:`default_irf_time`).
    :func:`hydrofmu.statespace.realisation.realise_kernel` then groups the DOFs linked by
    non-negligible entries across bodies (e.g. the heaves of a float and its spar) and
    gives each group common poles, as for one body. With ``fit = "impedance"`` the
    entries are fitted to ``K(i w) = B + i w (A - A_inf)`` of the same blocks instead
    (:mod:`hydrofmu.statespace.impedance`).
    """
    w = np.asarray(bodies[0].omega, dtype=float)
    for hd in bodies[1:]:
        if not np.array_equal(hd.omega, w):
            raise HydroDataError(
                f"coupled bodies '{bodies[0].name}' and '{hd.name}' have different "
                "frequencies; coupled data comes from one BEM run", value=hd.name)
    wc = float(w[-1]) if omega_max is None else min(float(omega_max), float(w[-1]))
    dl = math.pi / (4.0 * wc)
    grids = [default_irf_time(hd, dl, None, omega_max=omega_max, taper=taper)
             for hd in bodies]
    t = max(grids, key=lambda g: g.t.size).t
    n = 6 * len(bodies)
    kernel = np.zeros((t.size, n, n))
    damping = np.zeros((w.size, n, n))
    kw = np.zeros((w.size, n, n), dtype=complex)
    for k, hd in enumerate(bodies):
        sl = slice(6 * k, 6 * k + 6)
        kernel[:, sl, sl] = radiation_irf(hd, t, omega_max=omega_max, taper=taper)
        damping[:, sl, sl] = hd.radiation_damping
        kw[:, sl, sl] = impedance(w, hd.added_mass, hd.radiation_damping, hd.added_mass_inf)
    for k, j, arr in blocks:
        rows, cols = slice(6 * k, 6 * k + 6), slice(6 * j, 6 * j + 6)
        kernel[:, rows, cols] = radiation_irf_from_arrays(
            w, arr["radiation_damping"], t, omega_max=omega_max, taper=taper)
        damping[:, rows, cols] = arr["radiation_damping"]
        if fit == "impedance":
            kw[:, rows, cols] = impedance(w, arr["added_mass"], arr["radiation_damping"],
                                          arr["added_mass_inf"])
    return realise_kernel(kernel, t, omega=w, damping=damping, tolerance=tolerance,
                          max_order=max_order, impedance=kw if fit == "impedance" else None,
                          moving=moving)




def add_realisation(bodies: list[HydroData], config: dict[str, Any], *,
                    required: bool = True) -> dict[str, Any]:
    """Store the realisation in ``config["radiation"]["state_space"]`` (in place) unless
    it is already there; returns ``config``.

    Parameters
    ----------
    bodies, config
        As for :class:`~hydrofmu.runtime.simulator.simulator.Simulator`.
    required
        Raise when the realisation fails (default); ``False`` stores the message as
        ``error`` instead (an FMU whose default method is not ``state_space``).
    """
    rad = config.setdefault("radiation", {})
    if isinstance(rad.get("state_space"), dict):
        return config
    names = [b["name"] for b in config["bodies"]] if "bodies" in config else None
    check_settings(config)
    try:
        rad["state_space"] = realisation_payload(list(bodies), config, names)
    except (HydroDataError, np.linalg.LinAlgError, ValueError, FloatingPointError) as exc:
        # not only the fit's own refusals: a numerical failure of an unusual data set
        # must not fail the export of a model that does not use the state space
        if required:
            raise
        tol, order = _settings(config)
        rad["state_space"] = {"tolerance": tol, "max_order": order, "bodies": [],
                              "report": [], "error": str(exc)}
    return config
