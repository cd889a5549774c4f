"""Readers of the two other codes' databases of the F3OF (tests/data/f3of/), for the tests.

PDS (``pds_hdb/``): one file per quantity and body pair, ``#`` headers naming the columns:
``Maij``/``Bij`` rows ``omega (rad/s), M(0,0) M(0,1) ... M(5,5)`` in kg, kg m, kg m^2 (kg/s
...) as the values at omega = 0 show (the base's surge 5.4e5 kg); ``Mainf`` one row of 36
values normalised by rho (m^3 ...: the flaps' surge 959 against WDN's 896.6 and 950 here).
Body0 is the base, Body1 and Body2 the flaps (the coupling blocks say so: flap-flap
surge -4.1, base-flap 53.5). Rotations are about the point on the free surface above each
body's origin (the flaps' pitch 48,900 m^5 about (x, 0, 0) against 9,100 about their origin
at z = -5.5 m: d^2 A11 with d = 5.5 m and the cross term).

Excitation: :func:`pds_excitation` (PDS's incident + diffraction force per unit wave
amplitude, divided by omega), :func:`wdn_excitation` (WDN's modulus divided by rho g, its
flaps' rows the other way round).

WDN (``wdn_hdb/``, README.dat): bodies 1, 2 = flaps, 3 = base; ``Ma{k}ij.dat``,
``B{k}ij.dat`` rows 6(k-1)+1..6k of the 18 x 18 matrices, 108 values per line, one line per
period of ``PeriodB_Ma_Mainf.dat`` (-1: infinite period, omega = 0; 0: omega = inf);
``Ma_inf{k}ij.dat`` likewise, one line; normalised by rho (m^3 ..., m^3/s ...: A_inf equals
PDS's Mainf to a few % on every well-conditioned entry).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

ORDER = ("base", "flap1", "flap2")
"""Body order here (the NetCDF's); WDN lists flap1, flap2, base."""
WDN_PERM = np.r_[12:18, 0:12]


def pds_matrices(folder: Path, kind: str) -> tuple[np.ndarray | None, np.ndarray]:
    """PDS's ``kind`` (``Maij``, ``Bij`` or ``Mainf``) as (omega (nw,), M (nw, 18, 18)),
    bodies in :data:`ORDER`; omega None for ``Mainf`` (M of shape (18, 18))."""
    omega = None
    out = None
    for i in range(3):
        for j in range(3):
            data = np.loadtxt(folder / f"PDS_F3OF_HDB_{kind}_Body{i}Body{j}.dat",
                              comments="#", ndmin=2)
            if kind == "Mainf":
                block = data.reshape(1, 6, 6)
            else:
                omega, block = data[:, 0], data[:, 1:].reshape(-1, 6, 6)
            if out is None:
                out = np.zeros((block.shape[0], 18, 18))
            out[:, 6 * i:6 * i + 6, 6 * j:6 * j + 6] = block
    assert out is not None
    return omega, (out[0] if kind == "Mainf" else out)


def wdn_matrices(folder: Path, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """WDN's ``kind`` (``Ma``, ``B`` or ``Ma_inf``) as (omega (nw,), M (nw, 18, 18)) in
    :data:`ORDER`; omega from the periods (inf for period 0, 0 for period -1)."""
    rows = [np.loadtxt(folder / f"{kind}{k}ij.dat", ndmin=2).reshape(-1, 6, 18)
            for k in (1, 2, 3)]
    m = np.concatenate(rows, axis=1)[:, WDN_PERM][:, :, WDN_PERM]
    if kind == "Ma_inf":
        return np.array([math.inf]), m
    periods = np.loadtxt(folder / "PeriodB_Ma_Mainf.dat", ndmin=1)
    omega = np.array([math.inf if t == 0 else 0.0 if t < 0 else 2 * math.pi / t
                      for t in periods])
    return omega, m


def shift_matrix(offsets: list[np.ndarray]) -> np.ndarray:
    """``T`` (18, 18) with ``q_here = T q_there`` for rotations about points moved by
    ``offsets`` (per body, m): a matrix about the new points is ``T^T M T``."""
    t = np.eye(18)
    for k, d in enumerate(offsets):
        # x_here = x_there + theta x (r_there - r_here) = x_there - S(d) theta, d = r_here..
        s = np.array([[0.0, -d[2], d[1]], [d[2], 0.0, -d[0]], [-d[1], d[0], 0.0]])
        t[6 * k:6 * k + 3, 6 * k + 3:6 * k + 6] = s
    return t


def block_differences(ours: np.ndarray, theirs: np.ndarray, size: int = 6) -> np.ndarray:
    """Per body-pair block of ``size`` x ``size`` (3, 3): max |ours - theirs| over the block
    (and the leading axis) as a fraction of max |theirs| there."""
    out = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            s = (..., slice(size * i, size * i + size), slice(size * j, size * j + size))
            out[i, j] = np.max(np.abs(ours[s] - theirs[s])) / np.max(np.abs(theirs[s]))
    return out


def pds_excitation(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """PDS's excitation (incident + diffraction, each ``amplitude e^{i phase}``, phase in
    rad) times omega, as (omega (nw,), X (nw, 18) complex) in :data:`ORDER`: the files
    (``IncAmp``, ``IncPhase``, ``DiffAmp``, ``DiffPhase`` per body, no header, rows
    ``omega (rad/s), 6 values``) hold the force per unit wave amplitude divided by omega
    (N s/m ...: the heave of every body tends to ``rho g A_wp / omega`` at low frequency,
    and the ratio to WDN's falls as 1/omega; ``test_f3of_databases.py``)."""
    out = []
    omega = None
    for body in ("Body0", "flap1", "flap2"):
        parts = []
        for kind in ("Inc", "Diff"):
            amp = np.loadtxt(folder / f"PDS_F3OF_HDB_{kind}Amp_{body}.dat", ndmin=2)
            phase = np.loadtxt(folder / f"PDS_F3OF_HDB_{kind}Phase_{body}.dat", ndmin=2)
            assert np.array_equal(amp[:, 0], phase[:, 0])
            omega = amp[:, 0]
            parts.append(amp[:, 1:] * np.exp(1j * phase[:, 1:]))
        out.append((parts[0] + parts[1]) * omega[:, None])
    assert omega is not None
    order = np.argsort(omega)
    return omega[order], np.concatenate(out, axis=1)[order]


def wdn_excitation(folder: Path, rho: float, g: float) -> tuple[np.ndarray, np.ndarray]:
    """WDN's excitation modulus times ``rho g`` (``FeMod.dat``: 18 values per period of
    ``PeriodFe.dat``, divided by rho g; ``FePha.dat`` its phase in degrees), as (omega,
    X (nw, 18) complex) in :data:`ORDER`, the flaps as their magnitudes match ours and
    PDS's: WDN's body 2 is the fore flap (flap1 here, at x = -12.5 m, which the waves
    travelling to +x reach first), its body 1 the aft one (its radiation blocks keep
    body 1 at x = -12.5 m: its excitation is that of the other heading, or the flaps'
    rows are swapped in its FeMod)."""
    periods = np.loadtxt(folder / "PeriodFe.dat", ndmin=1)
    x = (np.loadtxt(folder / "FeMod.dat", ndmin=2) * rho * g
         * np.exp(1j * np.deg2rad(np.loadtxt(folder / "FePha.dat", ndmin=2))))
    omega = 2 * math.pi / periods
    order = np.argsort(omega)
    return omega[order], x[order][:, np.r_[12:18, 6:12, 0:6]]


def vector_differences(ours: np.ndarray, theirs: np.ndarray, size: int = 6) -> np.ndarray:
    """Per body (3,): max ||ours| - |theirs|| over its ``size`` DOFs (and the leading axis)
    as a fraction of max |theirs| there; ``ours``, ``theirs`` (..., 3 size)."""
    out = np.zeros(3)
    for i in range(3):
        s = (..., slice(size * i, size * i + size))
        out[i] = np.max(np.abs(np.abs(ours[s]) - np.abs(theirs[s]))) / np.max(np.abs(theirs[s]))
    return out
