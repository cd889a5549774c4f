"""Issue 32's structure scan: each class owns what it reads, no object reads another's
underscore attributes, no C file too long to read alone.

The rules and their exact definitions are in ``tests/structure_scan.py``; every rule is
shown to fail on a seeded bad package written to ``tmp_path``. A failing package-wide
check lists every offender as ``path:line``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import hydrofmu
from structure_scan import (
    C_LINE_LIMIT,
    foreign_private_reads,
    long_c_files,
    mixin_shared_attributes,
    report,
)

PACKAGE = Path(hydrofmu.__file__).resolve().parent

#: Folders already reshaped to the rules: they must stay clean while the rest is done.
CLEAN = ("hydrofmu/runtime/fmi/",)


def _write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root/pkg``; return the package."""
    package = root / "pkg"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


# ---------------------------------------------------------------------------- the package
def test_no_object_reads_another_objects_private_attributes() -> None:
    hits = foreign_private_reads(PACKAGE)
    assert hits == [], report("x._name read where x is not self or cls", hits)


def test_no_class_reads_state_that_another_class_sets() -> None:
    hits = mixin_shared_attributes(PACKAGE)
    assert hits == [], report("self.x read but set by another (mixin, base or sub) class",
                              hits)


def test_no_c_file_is_too_long() -> None:
    hits = long_c_files(PACKAGE)
    assert hits == [], report(f"C files over {C_LINE_LIMIT} lines", hits)


@pytest.mark.parametrize("scan", [foreign_private_reads, mixin_shared_attributes],
                         ids=["private-reads", "mixin-state"])
def test_the_reshaped_folders_stay_clean(scan) -> None:
    hits = [h for h in scan(PACKAGE) if h.startswith(CLEAN)]
    assert hits == [], report(scan.__name__, hits)
    # The folders exist: the filter is not vacuous.
    assert all((PACKAGE.parent / folder).is_dir() for folder in CLEAN)


# ---------------------------------------------------------------------------- seeded
def test_the_private_read_scan_finds_a_seeded_read(tmp_path: Path) -> None:
    package = _write(tmp_path, {"bad.py": (
        "class A:\n"
        "    def f(self, other):\n"
        "        self._own = other._theirs\n"        # line 3: a foreign read
        "        return super()._base(), type(self).__name__, other.public\n"
        "    @classmethod\n"
        "    def g(cls, lib):\n"
        "        return cls._c, lib.__cxa_atexit\n"  # own class; a C symbol via ctypes
        "def h(x):\n"
        "    return x.y._z\n"                         # line 9: a foreign read, nested
    )})
    assert foreign_private_reads(package) == ["pkg/bad.py:3: other._theirs",
                                              "pkg/bad.py:9: x.y._z"]


MIXINS = {
    "__init__.py": "",
    # The pattern issue 32 names: one class over mixins sharing its private attributes.
    "variables.py": (
        "class Variables:\n"
        "    def register(self):\n"
        "        self._lo = 0\n"
    ),
    "access.py": (
        "class Access:\n"
        "    _lo: int\n"                      # a declaration, not a definition
        "    def get(self):\n"
        "        return self._lo\n"           # line 4: set by Variables.register
    ),
    "log.py": (
        "class Log:\n"
        "    def refuse(self):\n"
        "        return self._phase\n"        # line 3: set by the subclass' constructor
    ),
    "slave.py": (
        "from pkg import access\n"
        "from .log import Log\n"
        "from .variables import Variables\n"
        "from library import Base\n"
        "class Slave(Log, access.Access, Variables, Base):\n"
        "    def __init__(self):\n"
        "        self.register()\n"
        "        self._phase = 'x'\n"
        "        self.vars = self.library_state\n"  # only the library sets it: not checked
    ),
    # Plain inheritance and composition pass (but for a subclass that skips the base's
    # constructor).
    "fine.py": (
        "from dataclasses import dataclass\n"
        "class Base:\n"
        "    limit = 3\n"
        "    def __init__(self):\n"
        "        self.x = 1\n"
        "class Child(Base):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.y = self.x + self.limit\n"
        "    def later(self):\n"
        "        self.z = self.y\n"
        "    def read(self):\n"
        "        return self.z + self.size()\n"
        "    def size(self):\n"
        "        return 1\n"
        "@dataclass\n"
        "class Record:\n"
        "    n: int\n"
        "class Owner:\n"
        "    def __init__(self):\n"
        "        self.record = Record(n=1)\n"
        "    def total(self):\n"
        "        return self.record.n\n"
        "class Forgetful(Base):\n"
        "    def __init__(self):\n"
        "        self.w = 0\n"                 # Base.__init__ never runs
        "    def read(self):\n"
        "        return self.x + self.w\n"     # line 28: set by Base.__init__, not run
        "class Template:\n"
        "    def run(self):\n"
        "        return self.order\n"          # a class constant of the subclass: allowed
        "class Method(Template):\n"
        "    order = 2\n"
    ),
}


def test_the_mixin_scan_finds_the_seeded_mixins_and_nothing_else(tmp_path: Path) -> None:
    package = _write(tmp_path, MIXINS)
    assert mixin_shared_attributes(package) == [
        "pkg/access.py:4: Access reads self._lo, set by Variables.register",
        "pkg/fine.py:28: Forgetful reads self.x, set by Base.__init__",
        "pkg/log.py:3: Log reads self._phase, set by Slave.__init__",
    ]


def test_the_mixin_scan_finds_a_base_that_sets_state_outside_its_constructor(
    tmp_path: Path,
) -> None:
    package = _write(tmp_path, {"layout.py": (
        "class Layout:\n"
        "    def __init__(self):\n"
        "        self._build()\n"
        "    def _build(self):\n"
        "        self.n = 3\n"
        "class System(Layout):\n"
        "    def size(self):\n"
        "        return self.n\n"              # line 8: set by Layout._build
    )})
    assert mixin_shared_attributes(package) == [
        "pkg/layout.py:8: System reads self.n, set by Layout._build",
    ]


def test_the_c_scan_finds_a_seeded_long_file(tmp_path: Path) -> None:
    package = _write(tmp_path, {
        "csrc/long.c": "int x;\n" * (C_LINE_LIMIT + 1),
        "csrc/short.c": "int y;\n" * C_LINE_LIMIT,
    })
    assert long_c_files(package) == [
        f"pkg/csrc/long.c: {C_LINE_LIMIT + 1} lines (limit {C_LINE_LIMIT})"
    ]
