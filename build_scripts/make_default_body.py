"""Regenerate hydrofmu's embedded default body: a floating sphere computed with Capytaine.

The body is a sphere of radius 5 m with its centre on the free surface (half immersed), in
infinitely deep water, rho = 1000 kg/m^3, g = 9.81 m/s^2. The six rigid-body DOFs rotate
about the sphere centre (0, 0, 0); the centre of gravity is at (0, 0, -2) m, as for the
IEA OES Task 10 sphere, so roll and pitch are statically stable. The mass is the displaced
mass rho * V of the (discretised) half sphere.

Radiation is solved at omega = 0, at 100 equally spaced frequencies from 0.05 to 5 rad/s
and at omega = inf; diffraction at the finite frequencies for the headings 0 and pi/2.
The result is written as a standard Capytaine NetCDF file (complex values on a leading
``complex`` dimension, ``re``/``im``), with a few hydrofmu extras; see
``fmu_src/hydrofmu/data/README.md`` for the variables and their units.

Usage::

    python build_scripts/make_default_body.py            # regenerate the package file
    python build_scripts/make_default_body.py -o x.nc    # write elsewhere (new file)
    python build_scripts/make_default_body.py -o x.nc --force   # overwrite x.nc

Capytaine is the optional extra ``bem``: ``pip install 'hydrofmu[bem]'``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hydrofmu.bem import BEMSpec, parse_bem, run_bem, write_netcdf
from hydrofmu.runtime.errors import OptionalDependencyError, require

if TYPE_CHECKING:  # pragma: no cover - typing only
    import xarray as xr

# --- Physical set-up ----------------------------------------------------------------------
RADIUS = 5.0
"""Sphere radius a, m."""
RHO = 1000.0
"""Water density, kg/m^3."""
G = 9.81
"""Gravitational acceleration, m/s^2."""
ROTATION_CENTER = (0.0, 0.0, 0.0)
"""Reference point of the six DOFs (sphere centre, on the free surface), m."""
CENTER_OF_MASS = (0.0, 0.0, -2.0)
"""Centre of gravity, m (IEA OES Task 10 sphere)."""
BODY_NAME = "sphere"

# --- Numerical set-up ---------------------------------------------------------------------
MESH_RESOLUTION = (28, 56)
"""(panels along a meridian, panels along a parallel) of the closed sphere: 784 hull panels
below the waterline, square (0.56 m x 0.56 m) at the waterline."""
BEM_METHOD = "direct"
"""Capytaine's boundary integral equation. On this sphere the direct (WAMIT-like) form is
~8x more accurate in heave added mass than the default indirect (Nemoh-like) form at the
same cost: A33(inf)/(rho V) = 0.4986 vs 0.5117 (exact 0.5) with 784 panels."""
OMEGA_FINITE = np.linspace(0.05, 5.0, 100)
"""Finite frequencies, rad/s: d omega = 0.05 rad/s, so a cosine transform of B(omega)
repeats only after 2 pi / 0.05 = 126 s, far beyond the ~20 s memory of this body."""
WAVE_DIRECTIONS = (0.0, 0.5 * np.pi)
"""Headings of the diffraction problems, rad (direction the waves travel to, 0 = +x)."""

# --- Reference values ---------------------------------------------------------------------
HULME_HEAVE = np.array(
    [
        # ka,   A33/(rho V), B33/(rho V omega)
        [0.0, 0.8310, 0.0],
        [0.05, 0.8764, 0.1036],
        [0.1, 0.8627, 0.1816],
        [0.2, 0.7938, 0.2793],
        [0.3, 0.7157, 0.3254],
        [0.4, 0.6452, 0.3410],
        [0.5, 0.5861, 0.3391],
        [0.6, 0.5381, 0.3271],
        [0.7, 0.4999, 0.3098],
        [0.8, 0.4698, 0.2899],
        [0.9, 0.4464, 0.2691],
        [1.0, 0.4284, 0.2484],
        [1.2, 0.4047, 0.2096],
        [1.4, 0.3924, 0.1756],
        [1.6, 0.3871, 0.1469],
        [1.8, 0.3864, 0.1229],
        [2.0, 0.3884, 0.1031],
        [2.5, 0.3988, 0.0674],
        [3.0, 0.4111, 0.0452],
        [4.0, 0.4322, 0.0219],
        [5.0, 0.4471, 0.0116],
        [6.0, 0.4574, 0.0066],
        [7.0, 0.4647, 0.0040],
        [8.0, 0.4700, 0.0026],
        [9.0, 0.4740, 0.0017],
        [10.0, 0.4771, 0.0012],
    ]
)
"""Heave of a floating hemisphere of radius a in deep water, V = 2/3 pi a^3, k = omega^2/g.
Hulme, A. (1982), J. Fluid Mech. 121, 443-463, as transcribed in LHEEA/Hulme_Heaving_Sphere
(``comparison/HulmeResult.dat``). The ka -> 0 limit 0.8310 agrees with Storti & D'Elia
(2004), J. Fluids Eng. 126, 0.830951; the ka -> inf limit is 0.5 exactly."""

FILE_NAME = "sphere_capytaine.nc"
PACKAGE_DATA_FILE = (
    Path(__file__).resolve().parent.parent / "fmu_src" / "hydrofmu" / "data" / FILE_NAME
)
"""The embedded default body in the source tree."""


# --- Command line -------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line.

    Parameters
    ----------
    argv
        Arguments without the program name; ``None`` reads ``sys.argv``.

    Returns
    -------
    argparse.Namespace
        ``output`` (Path or None) and ``force`` (bool).
    """
    parser = argparse.ArgumentParser(
        prog="make_default_body.py",
        description="Compute the default floating sphere with Capytaine and save it as NetCDF.",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help=f"output file (default: the package data file {PACKAGE_DATA_FILE})",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite an existing output file that is not the package data file",
    )
    return parser.parse_args(argv)


def resolve_output(output: Path | None, *, force: bool) -> Path:
    """Choose the output file and refuse to overwrite a user file without ``force``.

    Parameters
    ----------
    output
        Requested path, or ``None`` for the package data file.
    force
        Allow overwriting an existing file that is not the package data file.

    Returns
    -------
    Path
        Absolute path to write.

    Raises
    ------
    FileExistsError
        ``output`` exists, is not the package data file and ``force`` is false.
    IsADirectoryError
        ``output`` is a directory.
    """
    if output is None:
        return PACKAGE_DATA_FILE
    path = output.expanduser().resolve()
    if path.is_dir():
        raise IsADirectoryError(f"output {str(output)!r} is a directory, not a file")
    if path.exists() and path != PACKAGE_DATA_FILE and not force:
        raise FileExistsError(
            f"output {str(output)!r} exists and is not the package data file; "
            "pass --force to overwrite it"
        )
    return path


# --- BEM (a thin call of hydrofmu.bem, the code behind ``hydrofmu bem``) ------------------
def default_spec(omega: Sequence[float] | None = None) -> BEMSpec:
    """The default body as a ``[bem]`` table.

    Parameters
    ----------
    omega
        Finite frequencies, rad/s (default :data:`OMEGA_FINITE`); a subset reproduces the
        package file at those frequencies (the tests use this).
    """
    return parse_bem(
        {
            "body": {
                "shape": "sphere",
                "radius": RADIUS,
                "center": list(ROTATION_CENTER),
                "resolution": list(MESH_RESOLUTION),
            },
            "omega": list(OMEGA_FINITE if omega is None else omega),
            "headings": list(WAVE_DIRECTIONS),
            "water_depth": float("inf"),
            "lid": True,
            "rotation_center": list(ROTATION_CENTER),
            "center_of_mass": list(CENTER_OF_MASS),
            "rho": RHO,
            "g": G,
            "method": BEM_METHOD,
            "name": BODY_NAME,
            # The package file was solved on the whole mesh with Capytaine's lid; the axial
            # symmetry's polar lid moves B by up to 1.8 % at 4 rad/s (kR = 8).
            "symmetry": "none",
        }
    )


def compute(spec: BEMSpec | None = None) -> xr.Dataset:
    """Solve the default body and return the dataset written to the package file."""
    spec = spec or default_spec()
    ds = run_bem(spec, source="hydrofmu build_scripts/make_default_body.py")
    attrs = dict(ds.attrs)
    # The package file's attributes, in its order (so that a regeneration is byte-identical).
    ds.attrs = {
        "capytaine_version": attrs["capytaine_version"],
        "title": f"hydrofmu default body: floating sphere, radius {RADIUS:g} m, centre on "
        "the free surface, deep water",
        **{k: attrs[k] for k in ("source", "time_convention", "bem_method", "hull_panels",
                                 "lid_panels")},
        "sphere_radius_m": RADIUS,
        "excitation_at_zero_and_infinite_frequency": attrs[
            "excitation_at_zero_and_infinite_frequency"],
    }
    return ds


# --- Sanity checks ------------------------------------------------------------------------
def _heave(ds: xr.Dataset, name: str) -> np.ndarray:
    return ds[name].sel(influenced_dof="Heave", radiating_dof="Heave").values


def sanity_report(ds: xr.Dataset) -> list[str]:
    """Compare the dataset with closed forms and with Hulme (1982).

    Parameters
    ----------
    ds
        Dataset from :func:`assemble` (or read back from the file).

    Returns
    -------
    list of str
        Lines to print.
    """
    from scipy.integrate import trapezoid
    from scipy.interpolate import CubicSpline

    a = RADIUS
    volume_exact = 2.0 / 3.0 * np.pi * a**3
    rho_v = RHO * volume_exact
    omega = ds["omega"].values
    finite = np.isfinite(omega) & (omega > 0)
    ka = omega**2 / G * a
    a33 = _heave(ds, "added_mass") / rho_v
    with np.errstate(divide="ignore", invalid="ignore"):
        b33 = _heave(ds, "radiation_damping") / (rho_v * omega)

    def rel(value: float, ref: float) -> str:
        return f"{value:.5g} vs {ref:.5g} ({100 * (value / ref - 1):+.2f} %)"

    volume = float(ds["displaced_volume"])
    z_b = float(ds["center_of_buoyancy"].sel(space_coordinate="z"))
    k33 = float(ds["hydrostatic_stiffness"].sel(influenced_dof="Heave", radiating_dof="Heave"))
    k44 = float(ds["hydrostatic_stiffness"].sel(influenced_dof="Roll", radiating_dof="Roll"))
    k44_exact = RHO * G * volume_exact * (ROTATION_CENTER[2] - CENTER_OF_MASS[2])
    lines = [
        f"hull panels {ds.attrs['hull_panels']}, lid panels {ds.attrs['lid_panels']}, "
        f"{finite.sum()} finite frequencies + omega = 0 and inf, BEM method {BEM_METHOD}",
        f"V          {rel(volume, volume_exact)}  (2/3 pi a^3)",
        f"z_B        {rel(z_b, -3 * a / 8)}  (-3a/8)",
        f"K33        {rel(k33, RHO * G * np.pi * a**2)}  (rho g pi a^2)",
        f"K44        {rel(k44, k44_exact)}  (rho g V (z_M - z_G), metacentre = sphere centre)",
        f"A33(0)     {rel(a33[omega == 0][0], HULME_HEAVE[0, 1])}  (/rho V, Hulme ka -> 0)",
        f"A33(inf)   {rel(a33[np.isinf(omega)][0], 0.5)}  (/rho V, exact)",
        "Hulme (1982) heave, cubic spline of the BEM data at Hulme's ka:",
        "   ka   A33/(rho V)  Hulme   err %   B33/(rho V w)  Hulme   err %",
    ]
    spline_a = CubicSpline(ka[finite], a33[finite])
    spline_b = CubicSpline(ka[finite], b33[finite])
    for ka_ref, a_ref, b_ref in HULME_HEAVE[1:]:
        if not ka[finite].min() <= ka_ref <= ka[finite].max():
            continue
        a_bem, b_bem = float(spline_a(ka_ref)), float(spline_b(ka_ref))
        lines.append(
            f"{ka_ref:5.2f}   {a_bem:.4f}    {a_ref:.4f}  {100 * (a_bem / a_ref - 1):+6.2f}"
            f"       {b_bem:.4f}    {b_ref:.4f}  {100 * (b_bem / b_ref - 1):+7.2f}"
        )
    added = ds["added_mass"].values[finite]
    lines.append(
        "max |A - A^T| / max |A| over frequencies: "
        f"{np.max(np.abs(added - added.transpose(0, 2, 1))) / np.max(np.abs(added)):.2e}"
    )
    # Radiation IRF of heave, K(t) = 2/pi int B cos(w t) dw, trapezoid from omega = 0.
    w = np.concatenate([[0.0], omega[finite]])
    b = np.concatenate([[0.0], _heave(ds, "radiation_damping")[finite]])
    t = np.arange(0.0, 60.0, 0.05)
    kernel = 2.0 / np.pi * trapezoid(b[None, :] * np.cos(np.outer(t, w)), w, axis=1)
    settled = t[np.nonzero(np.abs(kernel) > 0.01 * abs(kernel[0]))[0][-1]]
    lines.append(
        f"heave IRF: K33(0) = {kernel[0]:.4g} N/(m s); |K33| < 1 % of K33(0) after "
        f"t = {settled:.1f} s; B33(omega_max)/max B33 = {b[-1] / b.max():.1e}"
    )
    return lines


# --- Entry point --------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    """Run the whole generation: check the output, solve, write, print the checks.

    Parameters
    ----------
    argv
        Command-line arguments without the program name.

    Returns
    -------
    int
        Exit status: 0 on success, 1 when Capytaine is missing, 2 when the output is
        refused (checked before anything is computed).
    """
    args = parse_args(argv)
    try:
        path = resolve_output(args.output, force=args.force)
    except (FileExistsError, IsADirectoryError) as exc:
        print(f"make_default_body.py: error: {exc}", file=sys.stderr)
        return 2
    if not path.parent.is_dir():
        print(
            f"make_default_body.py: error: directory {str(path.parent)!r} does not exist",
            file=sys.stderr,
        )
        return 2
    try:
        cpt = require("capytaine", "bem")
    except OptionalDependencyError as exc:
        print(f"make_default_body.py: error: {exc}", file=sys.stderr)
        return 1
    cpt.set_logging("WARNING")

    start = time.perf_counter()
    ds = compute()
    write_netcdf(ds, path)
    print(
        f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB); {time.perf_counter() - start:.1f} s"
    )
    print("\n".join(sanity_report(ds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
