"""Nothing under tests/, examples/ or benchmarks/ reads outside the repository.

A user's clone has no steering folder beside it: a path that climbs out of the checkout
(two or more ``../``, ``parents[2]``) or an absolute path of one machine works only where it
was written.
"""

from __future__ import annotations

import re

import pytest

from paths import DATA_DIR, ROOT

FOLDERS = ("tests", "examples", "benchmarks", "build_scripts")
SUFFIXES = {".py", ".toml", ".md", ".txt", ".csv", ".json", ".xml", ".ssp", ".c", ".h", ".cfg",
            ".ini", ".yaml", ".yml", ".sh"}
#: The steering folder's name, spelled in two pieces so that this guard does not name it.
_STEER = "sha" + "red"
#: Patterns of a path leaving the checkout or naming one machine's folders.
LEAVING = [
    (re.compile(r"(?:\.\./){2,}"), "climbs two or more folders up"),
    (re.compile(rf"\b{_STEER}[/\\]data\b|['\"]{_STEER}['\"]"), "names the steering folder"),
    (re.compile(r"parents\[[2-9]\]"), "climbs above the repository root"),
    (re.compile(r"(?<![\w.])/(?:work|root|home|Users|tmp/hydro)/"), "an absolute machine path"),
    (re.compile(r"[A-Za-z]:\\\\Users\\\\"), "an absolute Windows user path"),
]


def _files():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts:
                yield path


def test_patterns_catch_what_they_should() -> None:
    """The guard itself can fail: each pattern flags a line it is written for."""
    bad = [f'hydro = "../../{_STEER}/data/x.h5"', 'p = Path(__file__).parents[2] / "x"',
           'open("/work/main/x")', f'"{_STEER}" / "data"']
    for line in bad:
        assert any(p.search(line) for p, _ in LEAVING), line
    good = ['hydro = "data/sphere_bemio.h5"', 'ROOT = Path(__file__).parents[1]']
    for line in good:
        assert not any(p.search(line) for p, _ in LEAVING), line


def test_no_path_leaves_the_repository() -> None:
    this = __file__.rsplit("/", 1)[-1]
    problems = []
    for path in _files():
        if path.name == this:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(),
                                 1):
            for pattern, why in LEAVING:
                if pattern.search(line):
                    problems.append(f"{path.relative_to(ROOT)}:{n}: {why}: {line.strip()}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", ["sphere_bemio.h5", "rm3_wamit.out", "cylinder_capytaine.nc"])
def test_data_files_are_in_the_repository(name: str) -> None:
    path = DATA_DIR / name
    assert path.is_file() and path.stat().st_size > 100_000
    readme = (DATA_DIR / "README.md").read_text(encoding="utf-8")
    assert f"`{name}`" in readme
