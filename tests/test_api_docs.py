"""The API reference (docs/api, Sphinx autodoc + napoleon) builds clean from the docstrings.

One build, warnings as errors (``-W --keep-going``), into a temporary folder, in a
subprocess whose sockets refuse to connect: the reference must build offline (no
intersphinx, nothing fetched). A warning is bad RST or numpydoc in a docstring, an object
documented twice, a module that does not import, or a reference to a ``hydrofmu.*`` object
that does not exist (docs/api/conf.py). Then the pages are read back: every module of the
package has its section, the key objects are there, and so is every public name of
``hydrofmu``.
"""

from __future__ import annotations

import inspect
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "fmu_src"
DOCS = ROOT / "docs" / "api"

# Runs Sphinx with the network cut at the socket: any connection attempt (a fetched
# inventory, image or theme) raises inside the build, which then fails.
_OFFLINE_SPHINX = """
import socket
import sys


def _refuse(*args, **kwargs):
    raise OSError("the API reference tried to reach the network")


socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse

from sphinx.cmd.build import build_main

sys.exit(build_main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The HTML pages of a fresh build, by path relative to the output folder."""
    out = tmp_path_factory.mktemp("api_html")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(SRC), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run(
        [sys.executable, "-c", _OFFLINE_SPHINX,
         "-W", "--keep-going", "-E", "-q", "-b", "html",
         "-d", str(out / ".doctrees"), str(DOCS), str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, (
        f"Sphinx exited with {proc.returncode}; fix the docstrings it names:\n"
        f"{proc.stdout}\n{proc.stderr}")
    pages = {str(p.relative_to(out)): p.read_text(encoding="utf-8")
             for p in out.rglob("*.html")}
    assert pages, f"no HTML page written in {out}"
    return pages


def _anchors(pages: dict[str, str]) -> set[str]:
    return {m for text in pages.values() for m in re.findall(r'id="([^"]+)"', text)}


def _package_modules() -> list[str]:
    import hydrofmu

    names = ["hydrofmu"]
    for info in pkgutil.walk_packages(hydrofmu.__path__, "hydrofmu."):
        # __main__ runs the command line when imported: its code is hydrofmu.cli.commands.
        if info.name.rsplit(".", 1)[-1] != "__main__":
            names.append(info.name)
    return names


def test_the_reference_names_the_key_objects(built: dict[str, str]) -> None:
    anchors = _anchors(built)
    for name in ("hydrofmu.runtime.simulator.simulator.Simulator",
                 "hydrofmu.export.fmu.build_fmu",
                 "hydrofmu.io.readers.read_hydro",
                 "hydrofmu.runtime.parts.part.Part",
                 "hydrofmu.runtime.errors.ConfigError",
                 "hydrofmu.config.configuration.resolve"):
        assert name in anchors, f"{name} is not documented in docs/api"


def test_every_module_has_its_section(built: dict[str, str]) -> None:
    # autodoc's automodule writes the target "module-<name>"; a module missing from the
    # pages under docs/api (a new one) fails here until an automodule line is added.
    anchors = _anchors(built)
    modules = _package_modules()
    assert len(modules) > 100  # the walk found the package (129 modules when written)
    missing = [m for m in modules if f"module-{m}" not in anchors]
    assert not missing, (
        "modules without a section in docs/api (add '.. automodule:: <name>' with "
        f"':members:' to the page of their folder): {missing}")


def test_every_public_name_of_hydrofmu_is_documented(built: dict[str, str]) -> None:
    # Each class and function the package exports is documented once, in the module that
    # defines it, and listed with a link on the top-level page (docs/api/hydrofmu.rst).
    import hydrofmu

    anchors = _anchors(built)
    exported = [n for n in hydrofmu.__all__
                if inspect.isclass(getattr(hydrofmu, n))
                or inspect.isfunction(getattr(hydrofmu, n))]
    assert len(exported) >= 10
    top = next(html for page, html in built.items() if page.endswith("hydrofmu.html"))
    for name in exported:
        obj = getattr(hydrofmu, name)
        target = f"{obj.__module__}.{obj.__qualname__}"
        assert target in anchors, f"{target} ({name}) is not documented in docs/api"
        assert f"#{target}\"" in top, f"hydrofmu.{name} is not listed on docs/api/hydrofmu.rst"
