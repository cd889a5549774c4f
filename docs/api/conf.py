"""Sphinx configuration of the hydrofmu API reference (built from the docstrings).

Build: ``python -m sphinx -W --keep-going -b html docs/api <out>`` with ``fmu_src`` on
``PYTHONPATH`` (``tests/test_api_docs.py`` does so). Nothing is fetched: no intersphinx,
no remote images, no linkcheck; the theme is Sphinx's bundled ``alabaster``.

autodoc imports every documented module (so an import error fails the build) and napoleon,
which ships with Sphinx, reads the numpydoc sections.
"""

import pathlib
import sys

_SRC = pathlib.Path(__file__).resolve().parents[2] / "fmu_src"
if str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

project = "hydrofmu"
author = "hydrofmu contributors"
copyright = "hydrofmu contributors"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]

# numpydoc only: a Google-style "Args:" would otherwise be read too.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
# "Attributes" rendered as a list like "Parameters": the docstrings group attributes
# ("min, max", "q, v"), which napoleon's own ":ivar a, b:" fields would misread as a type
# "a," and a name "b" (and then look "a" up as a cross-reference).
napoleon_custom_sections = [("Attributes", "params_style")]

# Each object once, in the module that defines it: a module's ``__all__`` often re-exports
# names defined elsewhere (docs/api/hydrofmu.rst, the top-level API, is the exception).
autodoc_default_options = {"member-order": "bysource", "ignore-module-all": True}
autodoc_typehints = "signature"
autodoc_class_signature = "mixed"
autodoc_inherit_docstrings = True

# A reference to a hydrofmu object that does not exist (a name left at an old path) is a
# warning, hence an error; references outside hydrofmu (numpy, xarray...) are not checked:
# linking them would need intersphinx, i.e. the network.
nitpicky = True
nitpick_ignore_regex = [(r"py:.*", r"(?!hydrofmu\.).*")]

html_theme = "alabaster"
html_static_path: list[str] = []
html_show_sourcelink = False
exclude_patterns = ["_build"]
