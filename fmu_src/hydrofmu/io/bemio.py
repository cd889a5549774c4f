"""Reader of WEC-Sim BEMIO HDF5 files (build time; needs h5py).

BEMIO (``writeBEMIOH5.m``) stores every body in a group ``bodyN`` with WAMIT's
normalisation: added mass / rho, damping / (rho omega), excitation and hydrostatic
stiffness / (rho g). MATLAB writes ``permute(A(rows, :, :), [3 2 1])``, which h5py reads
as ``[row, column, frequency]``: rows are the body's own DOFs (influenced), columns all
6 N radiating DOFs of the N bodies, excitation ``[dof, heading, frequency]``. BEMIO keeps
WAMIT's ``e^{+i omega t}``, headings in degrees, and ``cg`` and ``cb`` absolute.

Reference point: WEC-Sim (and HydroChrono, which reads the same files) apply the
hydrodynamic forces at the body's centre of gravity, so BEMIO data are taken about
``properties/cg``: ``reference_point = cg``, ``center_of_gravity = 0`` and
``center_of_buoyancy = cb - cg`` relative to it. The Task 10 sphere confirms it: its
``A55_inf = 4.00 A11_inf``, i.e. ``A11 d^2`` with ``d = 2 m`` between the sphere's centre
(about which a sphere has no rotational added mass) and ``cg``.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..runtime.errors import HydroDataError
from ..runtime.hydrodata.model import HydroData
from ..runtime.hydrodata.multibody import MultiBodyData
from .hydro_checks import HydroDataWarning, check_hydrodata
from .reader_tools import check_file, drop_failed_frequencies, estimate_added_mass_inf, select_body

__all__ = ["read_bemio", "read_bemio_bodies"]

_BODY_GROUP = re.compile(r"^body(\d+)$")


def read_bemio(path: str | Path, body: str | None = None, *, check: bool = True) -> HydroData:
    """Read one body of a WEC-Sim BEMIO ``.h5`` file, undoing BEMIO's normalisation.

    Parameters
    ----------
    path
        The ``.h5`` file.
    body
        ``"bodyN"`` or the body's ``properties/name``; may be ``None`` when the file holds
        one body.
    check
        Run :func:`~hydrofmu.io.hydro_checks.check_hydrodata` on the result.

    Returns
    -------
    HydroData
        A (nw, 6, 6) = ``added_mass/all * rho``; B = ``radiation_damping/all * rho *
        omega``; X (nw, nb, 6) = ``(excitation/re + i excitation/im) * rho * g`` (BEMIO
        already uses ``e^{+i omega t}``: kept); K_hs = ``linear_restoring_stiffness * rho *
        g``; A_inf = ``added_mass/inf_freq * rho`` (source ``"file"``) or the Ogilvie
        estimate (``"extrapolated"``). Headings converted from degrees to radians. For a
        body of a multibody file only its own 6 x 6 diagonal block of A, B and A_inf is
        kept (the cross-coupling is dropped and said so in :attr:`HydroData.notes`).

    Raises
    ------
    HydroDataError
        Missing file, not an HDF5 file, missing dataset, wrong shape, unknown body, several
        bodies and ``body=None``.
    """
    h5py = _import_h5py()
    p = check_file(path)
    try:
        f = h5py.File(p, "r")
    except OSError as exc:
        raise HydroDataError(f"{p}: not an HDF5 file (h5py: {exc})", value=str(p)) from None
    with f:
        try:
            hd, _ = _read_open_file(f, p, body)
        except (OSError, RuntimeError, KeyError) as exc:  # h5py: a damaged file
            raise HydroDataError(f"{p}: a damaged HDF5 file (h5py: {exc}); write it again "
                                 "with BEMIO", value=str(p)) from None
    if check:
        check_hydrodata(hd)
    return hd


def read_bemio_bodies(path: str | Path, *, check: bool = True) -> MultiBodyData:
    """Read every body of a BEMIO ``.h5`` file with the body-to-body coupling blocks.

    Parameters
    ----------
    path
        The ``.h5`` file.
    check
        Run :func:`~hydrofmu.io.hydro_checks.check_hydrodata` on every body.

    Returns
    -------
    MultiBodyData
        Row block ``6k:6k+6`` of the 6N x 6N A, B and A_inf is body ``k``'s
        ``added_mass/all`` etc. (all radiating columns), scaled as in :func:`read_bemio`;
        the bodies are what :func:`read_bemio` returns for each. When the file has no
        A_inf, the Ogilvie estimate is made on the full 6N x 6N matrices (its diagonal
        blocks then equal each body's own estimate: the estimate is linear, entry by entry).
    """
    h5py = _import_h5py()
    p = check_file(path)
    try:
        f = h5py.File(p, "r")
    except OSError as exc:
        raise HydroDataError(f"{p}: not an HDF5 file (h5py: {exc})", value=str(p)) from None
    with f:
        try:
            n = len([k for k in f if _BODY_GROUP.match(k)])
            parts = [_read_open_file(f, p, f"body{k + 1}") for k in range(n)]
        except (OSError, RuntimeError, KeyError) as exc:  # h5py: a damaged file
            raise HydroDataError(f"{p}: a damaged HDF5 file (h5py: {exc}); write it again "
                                 "with BEMIO", value=str(p)) from None
    bodies = tuple(hd for hd, _ in parts)
    ncol = parts[0][1][0].shape[2] if parts else 0
    if ncol != 6 * n or any(rows[0].shape[2] != ncol for _, rows in parts):
        raise HydroDataError(f"{p}: {n} bodies but {ncol} radiating columns in added_mass/all; "
                             "generalised modes are not supported in the coupled model",
                             value=ncol)
    a = np.concatenate([rows[0] for _, rows in parts], axis=1)
    b = np.concatenate([rows[1] for _, rows in parts], axis=1)
    if all(rows[2] is not None for _, rows in parts):
        a_inf = np.concatenate([rows[2] for _, rows in parts], axis=0)
        notes: tuple[str, ...] = ()
    else:
        a_inf, note = estimate_added_mass_inf(bodies[0].omega, a, b)
        notes = (note,)
        # The estimate is linear entry by entry: its diagonal blocks are the bodies' own.
        for k, hd in enumerate(bodies):
            a_inf[6 * k:6 * k + 6, 6 * k:6 * k + 6] = hd.added_mass_inf
    if check:
        for hd in bodies:
            check_hydrodata(hd)
    return MultiBodyData(bodies=bodies, added_mass=a, radiation_damping=b, added_mass_inf=a_inf,
                         source=f"{p} (WEC-Sim BEMIO HDF5, {n} bodies)", notes=notes)


def _import_h5py() -> Any:
    import h5py  # a core dependency, imported here to keep it out of the run time

    return h5py


def _read_open_file(f: Any, path: Path, body: str | None
                    ) -> tuple[HydroData, tuple[Any, Any, Any]]:
    """One body, and its full rows (nw, 6, 6N) of A, B and (6, 6N) of A_inf (or None)."""
    groups = sorted((k for k in f if _BODY_GROUP.match(k)),
                    key=lambda k: int(_BODY_GROUP.match(k).group(1)))
    if not groups:
        raise HydroDataError(f"{path}: no 'body1' group: not a BEMIO file? (groups: "
                             f"{sorted(f.keys())})", value=sorted(f.keys()))
    names = [_text(f[g]["properties/name"][()]) if "properties/name" in f[g] else g
             for g in groups]
    ib = select_body(names, body, path, aliases=[(g,) for g in groups])
    grp = f[groups[ib]]
    name = names[ib]
    notes: list[str] = []

    def get(key: str, where: Any = grp) -> NDArray[Any]:
        if key not in where:
            raise HydroDataError(
                f"{path}: dataset '{where.name.rstrip('/')}/{key}' is missing; rewrite the file "
                "with WEC-Sim's BEMIO (writeBEMIOH5) from the original BEM output",
                value=key)
        return np.asarray(where[key][()])

    sim = f["simulation_parameters"] if "simulation_parameters" in f else None
    if sim is None:
        raise HydroDataError(f"{path}: group 'simulation_parameters' is missing; not a BEMIO "
                             "file?", value="simulation_parameters")
    rho = _scalar(get("rho", sim), path, "simulation_parameters/rho")
    g = _scalar(get("g", sim), path, "simulation_parameters/g")
    if "w" in sim:
        omega = get("w", sim).astype(float).ravel()
    else:
        omega = 2.0 * np.pi / get("T", sim).astype(float).ravel()
        notes.append("omega = 2 pi / T (simulation_parameters/w missing)")
    nw = omega.size
    beta_deg = get("wave_dir", sim).astype(float).ravel()
    nb = beta_deg.size
    water_depth = _water_depth(sim, notes)

    dof = int(_scalar(get("properties/dof"), path, "properties/dof")) \
        if "properties/dof" in grp else 6
    start = int(_scalar(get("properties/dof_start"), path, "properties/dof_start")) - 1 \
        if "properties/dof_start" in grp else 6 * ib
    if dof < 6:
        raise HydroDataError(f"{path}: body '{name}' has {dof} DOFs; the model needs the 6 "
                             "rigid-body DOFs", value=dof)
    if dof > 6:
        notes.append(f"{dof - 6} generalised body modes dropped: only the 6 rigid-body DOFs "
                     "are modelled")

    a_raw = get("hydro_coeffs/added_mass/all")
    ncol = a_raw.shape[1] if a_raw.ndim == 3 else -1
    _shape(a_raw, (dof, ncol, nw), path, "added_mass/all", "(dof, 6 N, nw)")
    if not 0 <= start <= ncol - 6:
        raise HydroDataError(f"{path}: body '{name}' dof_start = {start + 1} does not fit the "
                             f"{ncol} radiating columns of added_mass/all", value=start + 1)
    cols = slice(start, start + 6)
    if ncol > 6:
        notes.append(f"multibody file ({ncol // 6} bodies): only the body's own 6x6 block "
                     f"(radiating columns {start + 1}-{start + 6}) of A, B and A_inf is read "
                     "here; the coupling with the other bodies comes back when a "
                     "configuration's [[bodies]] read them from this file too ([multibody] "
                     "b2b, read_hydro_bodies)")
    a_rows = np.ascontiguousarray(a_raw[:6, :, :].transpose(2, 0, 1)) * rho
    added_mass = np.ascontiguousarray(a_rows[:, :, cols])
    b_raw = get("hydro_coeffs/radiation_damping/all")
    _shape(b_raw, (dof, ncol, nw), path, "radiation_damping/all", "(dof, 6 N, nw)")
    b_rows = (np.ascontiguousarray(b_raw[:6, :, :].transpose(2, 0, 1))
              * (rho * omega[:, None, None]))
    damping = np.ascontiguousarray(b_rows[:, :, cols])

    re_x = get("hydro_coeffs/excitation/re")
    im_x = get("hydro_coeffs/excitation/im")
    _shape(re_x, (dof, nb, nw), path, "excitation/re", "(dof, n_headings, nw)")
    _shape(im_x, (dof, nb, nw), path, "excitation/im", "(dof, n_headings, nw)")
    excitation = ((re_x[:6] + 1j * im_x[:6]).transpose(2, 1, 0) * (rho * g)).astype(np.complex128)
    excitation = np.ascontiguousarray(excitation)

    k_raw = get("hydro_coeffs/linear_restoring_stiffness")
    if k_raw.ndim != 2 or k_raw.shape[0] < 6 or k_raw.shape[1] < 6:
        raise HydroDataError(f"{path}: linear_restoring_stiffness has shape {k_raw.shape}, "
                             "expected (6, 6)", value=k_raw.shape)
    stiffness = np.ascontiguousarray(k_raw[:6, :6]) * (rho * g)

    order = np.argsort(omega, kind="stable")
    if np.any(order != np.arange(nw)):
        omega, added_mass, damping, excitation, a_rows, b_rows = (
            omega[order], added_mass[order], damping[order], excitation[order],
            a_rows[order], b_rows[order])
        notes.append("frequencies sorted into increasing order")
    keep, dropped = drop_failed_frequencies(omega, added_mass, damping, excitation)
    if dropped:
        omega, added_mass, damping, excitation, a_rows, b_rows = (
            omega[keep], added_mass[keep], damping[keep], excitation[keep], a_rows[keep],
            b_rows[keep])
        msg = f"frequencies with NaN data (failed BEM problems) dropped: {dropped} rad/s"
        notes.append(msg)
        warnings.warn(f"{path}, body '{name}': {msg}", HydroDataWarning, stacklevel=3)

    if "hydro_coeffs/added_mass/inf_freq" in grp:
        a_inf_raw = get("hydro_coeffs/added_mass/inf_freq")
        _shape(a_inf_raw, (dof, ncol), path, "added_mass/inf_freq", "(dof, 6 N)")
        ainf_rows = np.ascontiguousarray(a_inf_raw[:6, :]) * rho
        a_inf = np.ascontiguousarray(ainf_rows[:, cols])
        a_inf_source = "file"
        code = _text(f["bem_data/code"][()]) if "bem_data/code" in f else "unknown"
        if code.upper() != "WAMIT":
            notes.append(f"A_inf from the file; the BEM code is '{code}', for which BEMIO "
                         "stores A at the last frequency unless radiationIRF recomputed it")
    else:
        a_inf, note = estimate_added_mass_inf(omega, added_mass, damping)
        ainf_rows = None
        a_inf_source = "extrapolated"
        notes.append(note)

    cg = _vector(grp, "properties/cg", notes)
    cb = _vector(grp, "properties/cb", notes)
    reference = cg.copy() if np.all(np.isfinite(cg)) else np.zeros(3)
    volume = (_scalar(get("properties/disp_vol"), path, "properties/disp_vol")
              if "properties/disp_vol" in grp else float("nan"))
    notes.append(
        f"reference point: the centre of gravity {reference.tolist()} m (WEC-Sim convention "
        "for BEMIO data); cg, cb relative to it"
    )

    return HydroData(
        name=name,
        omega=omega,
        added_mass=added_mass,
        radiation_damping=damping,
        added_mass_inf=a_inf,
        added_mass_inf_source=a_inf_source,
        wave_direction=np.deg2rad(beta_deg),
        excitation=excitation,
        hydrostatic_stiffness=stiffness,
        displaced_volume=volume,
        center_of_buoyancy=cb - reference,
        center_of_gravity=cg - reference,
        reference_point=reference,
        rho=rho,
        g=g,
        water_depth=water_depth,
        inertia_matrix=None,
        source=f"{path} ({'/'.join([f'body{ib + 1}', name])}, WEC-Sim BEMIO HDF5)",
        notes=tuple(notes),
    ), (a_rows, b_rows, ainf_rows)


def _text(value: Any) -> str:
    if isinstance(value, np.ndarray):
        value = value.ravel()[0] if value.size else b""
    if isinstance(value, bytes | np.bytes_):
        return value.decode("utf-8", errors="replace").strip()
    return str(value).strip()


def _scalar(arr: NDArray[Any], path: Path, key: str) -> float:
    a = np.asarray(arr)
    if a.size != 1:
        raise HydroDataError(f"{path}: {key} has shape {a.shape}, expected one value",
                             value=a.shape)
    try:
        return float(a.ravel()[0])
    except (TypeError, ValueError):
        raise HydroDataError(f"{path}: {key} = {a.ravel()[0]!r} is not a number",
                             value=a.ravel()[0]) from None


def _shape(arr: NDArray[Any], expected: tuple[int, ...], path: Path, key: str,
           meaning: str) -> None:
    if arr.shape != expected:
        raise HydroDataError(f"{path}: {key} has shape {arr.shape}, expected {expected} "
                             f"{meaning}", value=arr.shape)


def _vector(grp: Any, key: str, notes: list[str]) -> NDArray[np.float64]:
    if key not in grp:
        notes.append(f"{key} not in the file: NaN")
        return np.full(3, np.nan)
    v = np.asarray(grp[key][()], dtype=float).ravel()
    if v.size != 3:
        raise HydroDataError(f"{grp.file.filename}: {key} has {v.size} values, expected 3",
                             value=v.size)
    return v


def _water_depth(sim: Any, notes: list[str]) -> float:
    """Depth as stated: BEMIO writes the text 'infinite' for deep water."""
    if "water_depth" not in sim:
        notes.append("simulation_parameters/water_depth missing: taken as infinite")
        return float("inf")
    raw = np.asarray(sim["water_depth"][()])
    if raw.dtype.kind in "SUO":
        text = _text(raw).lower()
        if text in ("inf", "infinite", "infinity", "-1"):
            return float("inf")
        try:
            return float(text)
        except ValueError:
            raise HydroDataError(f"{sim.file.filename}: water_depth = {text!r} is neither a "
                                 "number nor 'infinite'", value=text) from None
    return float(raw.ravel()[0])
