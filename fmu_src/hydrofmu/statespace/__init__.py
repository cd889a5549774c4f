"""State-space realisation of the radiation kernels (build time).

One way through the folder: fit (one group of kernel entries) -> model (the assembled
realisation, its passivity check) -> passivity (enforcement) -> realisation (the kernel of
a body) -> payload (what the FMU carries).
"""
