"""Sphinx configuration of the hydrofmu API reference (built from the docstrings).

Build: ``python -m sphinx -W --keep-going -b html docs/api <out>`` with ``fmu_src`` on
``PYTHONPATH`` (``tests/test_api_docs.py`` does so). Nothing is fetched: no intersphinx,
no remote images, no linkcheck; the theme is Sphinx's bundled ``alabaster``.

autodoc imports every documented module (so an import error fails the build) and napoleon,
which ships with Sphinx, reads the numpydoc sections.
"""

import pathlib
import re
import sys

from sphinx.util.nodes import make_refnode

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
# Short names in signatures and headings (each module has its own section; links keep the
# full path).
add_module_names = False
python_use_unqualified_type_names = True

# A reference to a hydrofmu object that does not exist (a name left at an old path) is a
# warning, hence an error; references outside hydrofmu (numpy, xarray...) are not checked:
# linking them would need intersphinx, i.e. the network.
nitpicky = True
nitpick_ignore_regex = [(r"py:.*", r"(?!hydrofmu\.).*")]

html_theme = "alabaster"
html_static_path: list[str] = []
html_show_sourcelink = False
exclude_patterns = ["_build"]


# napoleon reads the first line of an attribute's docstring Google-style, as
# "type: description", so "#: Relative tolerances of the checks: symmetry..." would show
# "Relative tolerances of the checks" as a type. numpydoc gives attributes no such form:
# their docstrings (and those of properties without numpydoc sections) stay as written.
_ATTRIBUTE_KINDS = ("attribute", "data", "property")
_SECTION_RULE = re.compile(r"^\s*-{3,}\s*$")


def _keep_attribute_docstring(app, what, name, obj, options, lines) -> None:
    if what in _ATTRIBUTE_KINDS and not any(_SECTION_RULE.match(line) for line in lines):
        app.env.temp_data.setdefault("hydrofmu_attribute_docstrings", {})[name] = list(lines)


def _restore_attribute_docstring(app, what, name, obj, options, lines) -> None:
    kept = app.env.temp_data.get("hydrofmu_attribute_docstrings", {}).pop(name, None)
    if kept is not None:
        lines[:] = kept


_BY_LAST_NAME: dict[int, dict[str, list[str]]] = {}


def _top_level_target(target: str) -> str | None:
    """``hydrofmu.Model.simulate`` -> ``hydrofmu.api.model.Model.simulate``: a name of the
    top-level API, written as users write it, resolved to where it is documented."""
    import hydrofmu

    parts = target.split(".")
    if len(parts) < 2 or parts[0] != "hydrofmu" or parts[1] not in hydrofmu.__all__:
        return None
    obj = getattr(hydrofmu, parts[1])
    module = getattr(obj, "__module__", None)
    if module is None:
        return None
    return ".".join([module, obj.__qualname__, *parts[2:]])


def _resolve_short_name(app, env, node, contnode):
    """Link ``:class:`ConfigError``` written in a module that imports it from elsewhere.

    Python's domain resolves a short name only in the current module and class; when the
    name is that of exactly one documented hydrofmu object, link to it (an ambiguous or
    foreign name stays plain text, as without this hook).
    """
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    domain = env.get_domain("py")
    top = _top_level_target(target)
    if top is not None and top in domain.objects:
        entry = domain.objects[top]
        return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                            contnode, top)
    if not target or target.startswith("hydrofmu."):
        return None
    by_last = _BY_LAST_NAME.get(len(domain.objects))
    if by_last is None:  # the objects by their last name, once per build
        by_last = {}
        for name in domain.objects:
            if name.startswith("hydrofmu."):
                by_last.setdefault(name.rsplit(".", 1)[1], []).append(name)
        _BY_LAST_NAME.clear()
        _BY_LAST_NAME[len(domain.objects)] = by_last
    hits = [name for name in by_last.get(target.rsplit(".", 1)[-1], ())
            if name.endswith("." + target)]
    if len(hits) != 1:
        return None
    entry = domain.objects[hits[0]]
    return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode,
                        hits[0])


def setup(app) -> None:
    # napoleon's own handler runs at the default priority, 500: one before, one after it.
    app.connect("autodoc-process-docstring", _keep_attribute_docstring, priority=400)
    app.connect("autodoc-process-docstring", _restore_attribute_docstring, priority=600)
    app.connect("missing-reference", _resolve_short_name)
