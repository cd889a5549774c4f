"""The native FMU's directional derivative: whether a model provides it, the blob's
section for it and the model description's attribute.

The runtime (``csrc/hfn_deriv.c``) returns the exact derivative of the outputs along a seed
of the inputs at the current state: the input columns of the output map ``C`` (as the
tunable matrix parameters make it at that moment), then the product rule through the
products of outputs (a linear PTO's power). Every other term of the outputs (the
sinusoids, the Runge-Kutta mode's drag, convolution and line forces) depends on the state
and the time only, which change by a step, so its direct derivative is zero. One term
reads an input otherwise: the elevation input's excitation filter and the previewed
elevation (``wave.type = "input"``); such a model is built without the derivative
(:func:`derivative_refusal` says why; ``providesDirectionalDerivative = false``).

Blob section (derivatives / load-FMU data, the last before the trailer): ``u32 deriv``,
1 when the runtime provides ``fmi2GetDirectionalDerivative``, else 0; ``u32 load``, 1 for
the load FMU followed by its data (``load_blob.load_section``: ``u32`` bodies, ``f64``
internal step (s), its convolution radiation), else 0.

Build time only.
"""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

from .load_blob import load_section

if TYPE_CHECKING:
    from .blob import NativeModel

__all__ = ["declare_derivative", "declare_provides", "derivative_refusal",
           "derivative_section", "shim_only"]

#: The ``<CoSimulation>`` attribute that declares the directional derivative.
ATTRIBUTE = "providesDirectionalDerivative"


def derivative_refusal(model: NativeModel) -> str:
    """Why the native runtime cannot give ``model``'s exact directional derivative ("" when
    it can)."""
    if model.rk is not None and model.rk.has_input:
        return ("its outputs read the elevation input through the excitation filter and the "
                "preview (wave.type = 'input'), which the derivative does not carry")
    return ""


def derivative_section(model: NativeModel) -> bytes:
    """The blob's section: ``u32`` 1 when the derivative is provided, else 0; then the load
    FMU's data (:mod:`~hydrofmu.export.native.load_blob`): ``u32`` 1 and its
    :func:`~hydrofmu.export.native.load_blob.load_section`, or ``u32`` 0."""
    out = struct.pack("<I", 0 if derivative_refusal(model) else 1)
    if model.load is None:
        return out + struct.pack("<I", 0)
    return out + struct.pack("<I", 1) + load_section(model.load, model.c.shape[0])


def declare_derivative(xml: bytes, model: NativeModel) -> bytes:
    """The model description with ``providesDirectionalDerivative`` set as the runtime
    provides it for ``model``."""
    return declare_provides(xml, not derivative_refusal(model))


def shim_only(fmu: str | Path) -> bool:
    """Whether every binary of a Python FMU is hydrofmu's shim (linux64 and win64, with
    pythonfmu's binary behind it), which answers ``fmi2GetDirectionalDerivative``;
    pythonfmu's binary alone (a win64 one built without a Windows compiler) refuses it, so
    the FMU cannot declare it."""
    from ..python_binary import wrapped_platforms

    return all(wrapped_platforms(fmu).values())


def declare_provides(xml: bytes, provided: bool) -> bytes:
    """The model description with ``providesDirectionalDerivative`` set to ``provided`` (the
    native FMU's, and the Python FMU's through its shim)."""
    head, sep, _ = xml.partition(b"?>")
    root = ET.fromstring(xml)
    cs = root.find("CoSimulation")
    if cs is None:
        return xml
    cs.set(ATTRIBUTE, "true" if provided else "false")
    ET.indent(root)
    body = ET.tostring(root, encoding="utf-8")
    return (head + sep + b"\n" + body) if sep and head.lstrip().startswith(b"<?xml") else body
