"""Every command that README.md and the user guide (docs/guide/*.md) tell a user to type runs
as written, and writes what the text says it writes (examples/README.md follows the same
markers; its full-length runs are all marked ``norun``, with the test that runs each).

The convention, in the Markdown: a fenced block is runnable when the line before it is
``<!-- run -->`` or ``<!-- run writes: PATH PATH ... -->`` (the files the text says the
block writes, relative to the folder it runs in). A ```sh block is run by bash, a
```python block by this interpreter. Every other ```sh block must say why it is not run, on
the line before it:

- ``<!-- main-command -->`` and ``<!-- test-command -->``: the README's quick start (a
  virtual environment, pip installs from PyPI and the whole test suite). Not run here: CI
  runs the second as written (``.ci/run``, kept identical by ``tests/test_style.py``), and
  the first's ``hydrofmu demo`` is ``tests/test_examples.py::test_demo_writes_fmu_csv_and_plot``.
- ``<!-- norun: REASON -->``: installs of extras (pip and the network; this test runs in the
  environment the ``test`` extra installed, which holds them) and the benchmarks (timing
  runs of minutes; ``tests/test_benchmarks.py`` runs their functions on tiny sizes), and the
  examples' full-length runs (``tests/test_examples.py``, ``tests/test_multibody.py`` and
  ``tests/test_controller.py`` run them).

Each document's runnable blocks run in order, in one fresh temporary folder (the clone)
holding a copy of ``examples/`` (the files the commands name) and of
``tests/data/user_parts/`` (the user part that python-api.md imports), with ``.venv/bin/``
replaced by the folder of ``sys.executable`` (the environment this test runs in, where
``pip install -e`` put the ``hydrofmu`` and ``fmpy`` commands). Each block must exit with
status 0, and every file named in its marker or after
``-o``/``--output``/``--plot``/``--out``/``--output-file`` must exist and be non-empty
afterwards. Nothing may be written outside ``out/`` (which ``.gitignore`` ignores; Python's
``__pycache__`` aside), nor into the package's folder of the repository that the commands
import (``fmu_src/``, an editable install): no file lands in the repository.

Each page writes into its own folder, ``out/<page>/`` (``out/readme/`` for README.md,
``out/examples/`` for examples/README.md, ``out/<name>/`` for docs/guide/<name>.md), so
that the pages run in any order in one clone without one refusing another's outputs
(``out/sphere.csv exists``): every ``out/`` path that a page's code blocks name is under
its folder.

The page's configuration reference (the ```toml block after ``<!-- config-reference -->``
in docs/guide/build-and-run.md) is checked against the code's defaults, and ``hydrofmu
--help`` against the commands the guide names.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from hydrofmu.config.configuration import DEFAULTS
from paths import ROOT

pytestmark = pytest.mark.fmu

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md")),
             ROOT / "examples" / "README.md"]

#: A fenced block with the HTML comment on the line before it (if any).
BLOCK = re.compile(r"(?:<!--\s*(?P<marker>.*?)\s*-->\n)?```(?P<lang>\w*)\n(?P<body>.*?)^```",
                   re.S | re.M)

#: Markers that exempt a ```sh block from running (see the module docstring).
NOT_RUN = ("main-command", "test-command")

#: Options whose value is a file (or folder) a command writes.
OUTPUT_OPTION = re.compile(r"(?:^|[ \t])(?:-o|--output|--plot|--out|--output-file)[ \t]+"
                           r"(?P<path>[^\s-][^\s]*)", re.M)


def blocks(path: Path) -> list[dict[str, str]]:
    """The fenced blocks of a Markdown file: language, body and the marker before it."""
    text = path.read_text(encoding="utf-8")
    return [{"lang": m["lang"], "body": m["body"], "marker": m["marker"] or ""}
            for m in BLOCK.finditer(text)]


def runnable(path: Path) -> list[dict[str, str]]:
    """The blocks marked ``<!-- run ... -->``, with the files they say they write."""
    out = []
    for b in blocks(path):
        m = re.fullmatch(r"run(?:\s+writes:\s*(?P<files>.*))?", b["marker"])
        if m:
            writes = (m["files"] or "").split()
            if b["lang"] == "sh":
                writes += [w["path"] for w in OUTPUT_OPTION.finditer(b["body"])]
            out.append({**b, "writes": writes})
    return out


def test_every_shell_block_is_run_or_says_why_not() -> None:
    unmarked = []
    for path in DOCUMENTS:
        for b in blocks(path):
            if b["lang"] != "sh":
                continue
            marker = b["marker"]
            if not (re.fullmatch(r"run(\s+writes:.*)?", marker) or marker in NOT_RUN
                    or re.fullmatch(r"norun:\s*\S.*", marker)):
                unmarked.append(f"{path.relative_to(ROOT)}: {b['body'].splitlines()[0]}")
    assert not unmarked, "sh blocks with no <!-- run --> or <!-- norun: why -->:\n" + "\n".join(
        unmarked)


def test_the_readme_and_each_guide_page_have_runnable_commands() -> None:
    # The README's five commands and every task page that has a command to show; the index,
    # importers (hosts this test does not have), validation and benchmarks have none to run.
    have = {p.name for p in DOCUMENTS if runnable(p)}
    assert {"README.md", "build-and-run.md", "bodies-and-joints.md", "moorings.md",
            "bem.md", "sweeps.md", "python-api.md"} <= have, have


#: The folder of the clone that every documented command writes into (ignored by git).
OUTPUT_ROOT = "out"

#: A path under ``out/`` named in a code block.
OUT_PATH = re.compile(r"(?<![\w./-])out/[^\s'\"`),]+")


def page_folder(path: Path) -> str:
    """The folder under ``out/`` that a document's commands write into."""
    if path == ROOT / "README.md":
        return "readme"
    if path == ROOT / "examples" / "README.md":
        return "examples"
    return path.stem


def out_paths(path: Path) -> set[str]:
    """Every ``out/...`` path that the code blocks (and run markers) of a document name."""
    found = set()
    for b in blocks(path):
        found.update(OUT_PATH.findall(b["marker"] + "\n" + b["body"]))
    return found


def test_each_page_writes_into_its_own_folder() -> None:
    """The pages share one clone: a page writing ``out/sphere.csv`` made another page's
    ``-o out/sphere.csv`` fail with "exists" when both ran."""
    stray = {}
    for path in DOCUMENTS:
        folder = f"{OUTPUT_ROOT}/{page_folder(path)}"
        bad = sorted(p for p in out_paths(path) if p != folder and not p.startswith(folder + "/"))
        if bad:
            stray[path.relative_to(ROOT).as_posix()] = bad
    assert not stray, f"paths outside the page's own out/<page>/ folder: {stray}"
    assert sum(bool(out_paths(p)) for p in DOCUMENTS) >= 8  # the scan sees the paths


def test_the_output_folder_is_ignored_by_git() -> None:
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert f"{OUTPUT_ROOT}/" in ignored or f"/{OUTPUT_ROOT}/" in ignored


def _prepare(folder: Path) -> None:
    shutil.copytree(ROOT / "examples", folder / "examples")
    shutil.copytree(ROOT / "tests" / "data" / "user_parts",
                    folder / "tests" / "data" / "user_parts")


def _files(folder: Path) -> set[str]:
    """The files under ``folder`` (relative POSIX paths), Python's caches and the editable
    install's metadata left out."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if not p.is_dir() and "__pycache__" not in p.parts
            and not any(part.endswith(".egg-info") for part in p.parts)}


@pytest.mark.parametrize(
    "document", [p.relative_to(ROOT).as_posix() for p in DOCUMENTS if runnable(p)])
def test_the_commands_of_a_document_run_as_written(document: str, tmp_path: Path) -> None:
    clone, scripts = tmp_path / "clone", tmp_path / "scripts"
    scripts.mkdir()
    _prepare(clone)
    before = _files(clone)
    package = _files(ROOT / "fmu_src")  # the installed package's own folder (pip install -e)
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "MPLBACKEND": "Agg"}
    for i, b in enumerate(runnable(ROOT / document)):
        body = b["body"].replace(".venv/bin/", f"{bin_dir}/")
        if b["lang"] == "sh":
            args = ["bash", "-euo", "pipefail", "-c", body]
        elif b["lang"] == "python":
            script = scripts / f"_block{i}.py"
            script.write_text(body, encoding="utf-8")
            args = [sys.executable, str(script)]
        else:
            pytest.fail(f"{document}: a runnable block in {b['lang']!r} (sh or python only)")
        proc = subprocess.run(args, cwd=clone, env=env, capture_output=True, text=True,
                              timeout=900, check=False)
        shown = b["body"].strip().splitlines()[-1]
        assert proc.returncode == 0, (f"{document}, block {i} ({shown}) exited "
                                      f"{proc.returncode}:\n{proc.stdout[-2000:]}\n"
                                      f"{proc.stderr[-3000:]}")
        for name in b["writes"]:
            written = clone / name
            assert written.exists(), f"{document}, block {i}: {name} was not written"
            if written.is_file():
                assert written.stat().st_size > 0, f"{document}, block {i}: {name} is empty"
    # nothing written into the repository: every new file is in the ignored out/
    stray = sorted(f for f in _files(clone) - before
                   if not f.startswith(f"{OUTPUT_ROOT}/"))
    assert not stray, f"{document}: its commands wrote outside {OUTPUT_ROOT}/: {stray}"
    added = sorted(_files(ROOT / "fmu_src") - package)
    assert not added, f"{document}: its commands wrote into the package's folder: {added}"


def test_the_configuration_reference_gives_the_code_defaults() -> None:
    text = (ROOT / "docs" / "guide" / "build-and-run.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- config-reference -->\n```toml\n(.*?)^```", text, re.S | re.M)
    assert block is not None
    documented = tomllib.loads(block.group(1))
    assert set(documented) == set(DEFAULTS)
    for section, defaults in DEFAULTS.items():
        for key, value in defaults.items():
            if value is None:  # no TOML value: documented as a commented-out line
                assert re.search(rf"^# {key} = ", block.group(1), re.M), f"[{section}] {key}"
                assert key not in documented[section]
            else:
                assert documented[section].get(key) == value, (
                    f"[{section}] {key}: documented {documented[section].get(key)!r}, "
                    f"default {value!r}")
        assert set(documented[section]) <= set(defaults), section


def test_help_lists_every_command_without_markup() -> None:
    proc = subprocess.run([sys.executable, "-m", "hydrofmu", "--help"], capture_output=True,
                          text=True, timeout=120, check=True)
    text = proc.stdout
    for command in ("build", "check", "run", "demo", "info", "doctor", "bem", "sweep",
                    "mooring"):
        assert re.search(rf"^\s+{command}\s+\S", text, re.M), f"{command} missing:\n{text}"
    assert "``" not in text and ":func:" not in text, text
