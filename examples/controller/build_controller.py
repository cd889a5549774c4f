"""Build the PTO controller FMU (``PTOController.fmu``) with pythonfmu.

python examples/controller/build_controller.py [--out DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from hydrofmu.export.model_description import finalize_model_description, rewrite_model_description

HERE = Path(__file__).resolve().parent


def build_controller(destination: str | Path) -> Path:
    """Build ``PTOController.fmu`` into the folder ``destination``; return its path."""
    from pythonfmu.builder import FmuBuilder

    destination = Path(destination).absolute()
    destination.mkdir(parents=True, exist_ok=True)
    path_before = list(sys.path)
    with tempfile.TemporaryDirectory(prefix="pto_controller_") as tmp:
        script = Path(tmp) / "pto_controller.py"
        shutil.copyfile(HERE / "pto_controller.py", script)
        try:
            built = FmuBuilder.build_FMU(
                script,
                dest=destination,
                needsExecutionTool=False,
                canHandleVariableCommunicationStepSize=True,
                canInterpolateInputs=False,
            )
        finally:
            sys.path[:] = path_before
            sys.modules.pop("pto_controller", None)
    built = Path(built)
    # pythonfmu writes no units and an empty InitialUnknowns (fmpy validate refuses it):
    # declare the units and the force's direct dependence on the two velocity inputs.
    units = {
        "velocity": "m/s", "velocity_ref": "m/s", "damping": "N.s/m", "kp": "N.s/m",
        "ki": "N/m", "force_limit": "N", "integral": "m", "force": "N",
    }
    rewrite_model_description(
        built,
        lambda xml: finalize_model_description(
            xml, units=units, dependencies={"force": ["velocity", "velocity_ref"]}
        ),
    )
    return built


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="output folder")
    print(build_controller(parser.parse_args().out))
