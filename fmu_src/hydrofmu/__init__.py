"""hydrofmu: floating bodies in waves, from BEM data to an FMI 2.0 co-simulation FMU."""

__version__ = "0.1.0"

# The installed package compiles the mooring line kernel on first use (an FMU never does:
# its kernel is compiled at export and bundled).
from .export.line_kernel_build import build_library as _build_line_kernel
from .runtime.moorings import line_kernel as _line_kernel

_line_kernel.set_builder(_build_line_kernel)
