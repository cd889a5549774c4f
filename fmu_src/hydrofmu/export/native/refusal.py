"""Whether the native runtime can step a built
:class:`~hydrofmu.runtime.simulator.simulator.Simulator`, and why not: the parts it carries
(the linear model; quadratic drag, the elevation input, convolution radiation, MoorDyn
lines and catenary moorings in the Runge-Kutta mode; large rotations with the linear parts,
the quadratic drag and the panels, ``bodies_blob.py``) and the schemes it steps (``exact``
for a linear model, an explicit Runge-Kutta tableau, MoorDyn's semi-implicit families),
each refusal naming the part or the scheme and the fix.

Build time only.
"""

from __future__ import annotations

from ...runtime.parts.part import Part
from ...runtime.schemes.local import LocalAdamsBashforth, LocalEuler
from ...runtime.simulator.simulator import Simulator
from .bodies_blob import bodies_refusal
from .catenary_blob import CATENARY_KINDS
from .convolution_blob import convolution_model, native_tableau, scheme_refusal
from .lines_blob import LINE_KINDS, NativeScheme, native_scheme, part_refusal
from .output_rows import FIX
from .panels_blob import PANEL_KINDS

#: The part of the large-rotation bodies (``bodies_blob.py``: with the linear parts and the
#: panels, by an explicit Runge-Kutta scheme).
LARGE_ROTATION = "rigid_body.large_rotation"

#: The parts that are not linear and that the native runtime still steps, by the explicit
#: Runge-Kutta scheme of the configuration as the Python FMU steps it: quadratic drag, the
#: excitation by the elevation input, the radiation by convolution, the second-order wave
#: loads and the quadratic drag in a current (``drift_blob.py``).
RK4_KINDS = ("viscous", "wave_excitation", "radiation", "drift", "current_drag")


def not_linear(sim: Simulator) -> list[Part]:
    """The parts without a linear form (as :func:`~hydrofmu.runtime.linear.model.assemble`
    leaves them out)."""
    return [part for part in sim.parts if part.linear_system() is None]


def refusal(sim: Simulator) -> str:
    """Why the native runtime cannot step ``sim`` ("" when it can), naming the parts."""
    why = bodies_refusal(sim)  # large rotations: the linear parts, drag and panels only
    if why:
        return why
    parts = not_linear(sim)
    reasons = [part.why_not_linear() for part in parts
               if part.kind not in RK4_KINDS + LINE_KINDS + CATENARY_KINDS + PANEL_KINDS
               + (LARGE_ROTATION,)
               or (part.kind == "radiation" and convolution_model(part) is None)]
    reasons += [why for why in map(part_refusal, parts) if why]
    method = sim.added_mass_method
    if method != "implicit":
        reasons.append(f"added_mass.method = {method} (use added_mass.method = implicit)")
    if reasons:
        return ("the native FMU steps the linear model, with quadratic drag, the elevation "
                "input, convolution radiation, MoorDyn lines and catenary moorings by the "
                "Runge-Kutta mode, and "
                "these parts are none of them: " + "; ".join(reasons) + ". Fix: " + FIX)
    scheme = sim.parameters["time_scheme"]
    tableau, semi = native_tableau(sim), native_scheme(sim)
    if parts and tableau is None and not isinstance(semi, NativeScheme):
        named = ", ".join(sorted({part.kind for part in parts}))
        return (f"the native FMU steps the parts that are not linear ({named}: quadratic "
                "drag, the elevation input, convolution radiation, MoorDyn lines, catenary "
                "moorings) with an "
                "explicit Runge-Kutta scheme ('euler', 'rk2heun', 'rk2', 'rk3', 'rk4') or "
                "MoorDyn's semi-implicit 'beuler<N>', 'midpoint<N>' or 'aca<N>', and "
                f"time_scheme = '{scheme}'. Fix: set time_scheme = 'rk4' or e.g. 'midpoint5' "
                "(the Python FMU then steps the same scheme), or build the Python FMU "
                "(hydrofmu build --python)")
    if isinstance(semi, NativeScheme) and any(
            convolution_model(part) is not None for part in parts):
        return (f"the native FMU steps convolution radiation with an explicit Runge-Kutta "
                f"scheme only, and time_scheme = '{scheme}' (semi-implicit). Fix: set "
                "time_scheme = 'rk4', or radiation = 'state_space', or build the Python FMU "
                "(hydrofmu build --python)")
    if not parts:
        why = scheme_refusal(sim, linear=True)
        if why:
            return why
    if ((tableau is not None and sim.partition is not None)
            or (parts and isinstance(sim.scheme, (LocalEuler, LocalAdamsBashforth)))):
        return ("the native FMU takes one internal step for the whole state; this model "
                "runs local time steps. Fix: " + FIX)
    return ""
