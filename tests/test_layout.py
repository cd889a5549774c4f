"""The package shows its architecture (docs/ARCHITECTURE.md): ``runtime/`` is exactly what
an FMU bundles, no module imports another module's private names, the top of the package
stays small, and the run time never imports the build side."""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path

import pytest

import hydrofmu
from hydrofmu.export import bundle

PACKAGE = Path(hydrofmu.__file__).resolve().parent
RUNTIME = PACKAGE / "runtime"

#: Entries at the top of the package: __init__, __main__, api, cli, config, cosim, data,
#: export, io, progress, runtime, bem, statespace, sweep (ARCHITECTURE.md, "Layout").
TOP_LIMIT = 14


def _modules(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def private_imports(path: Path, package_root: Path = PACKAGE) -> list[str]:
    """``module:name`` of every underscore name ``path`` imports from a hydrofmu module."""
    hits = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").split(".")[0] == "hydrofmu"
        ):
            hits += [f"{path.relative_to(package_root.parent)}:{node.lineno}:{a.name}"
                     for a in node.names
                     if a.name.startswith("_") and not a.name.startswith("__")]
    return hits


def test_no_module_imports_another_modules_private_names() -> None:
    hits = [h for p in _modules(PACKAGE) for h in private_imports(p)]
    assert hits == []


def test_the_private_import_scan_finds_one(tmp_path: Path) -> None:
    bad = tmp_path / "pkg" / "bad.py"
    bad.parent.mkdir()
    bad.write_text("from .other import _helper, public\nfrom hydrofmu.x import _y\n")
    assert private_imports(bad, tmp_path / "pkg") == ["pkg/bad.py:1:_helper",
                                                     "pkg/bad.py:2:_y"]


def test_the_top_of_the_package_stays_small() -> None:
    entries = sorted(p.name for p in PACKAGE.iterdir()
                     if p.name != "__pycache__" and not p.name.endswith(".egg-info"))
    assert len(entries) <= TOP_LIMIT, entries


def test_the_bundle_is_the_runtime_folder(tmp_path: Path) -> None:
    """Every file under runtime/ (Python and the line kernel's C source) and nothing else
    is staged, with generated empty package files."""
    name = bundle.stage_runtime_package(tmp_path)
    staged = {p.relative_to(tmp_path / name).as_posix()
              for p in (tmp_path / name).rglob("*") if p.is_file()}
    expected = {p.relative_to(RUNTIME).as_posix() for p in RUNTIME.rglob("*")
                if p.is_file() and p.suffix in {".py", ".c"} and "__pycache__" not in p.parts}
    assert staged == expected
    for init in (tmp_path / name).rglob("__init__.py"):
        assert "import" not in init.read_text()


def test_a_built_fmu_carries_exactly_the_runtime_folder(tmp_path: Path) -> None:
    model = hydrofmu.Model.default(
        bodies=[{"name": "body", "hydro": "builtin:sphere", "dofs": ["heave"],
                 "radiation": "constant"}])
    fmu = model.build_fmu(tmp_path / "Layout.fmu", model_name="Layout", validate=False,
                          native=False)  # the Python FMU carries the runtime folder
    with zipfile.ZipFile(fmu) as z:
        names = [n for n in z.namelist() if n.startswith("resources/_hydrofmu_")]
    package = names[0].split("/")[1]
    carried = {n.split("/", 2)[2] for n in names if n.endswith((".py", ".c"))}
    expected = {p.relative_to(RUNTIME).as_posix() for p in RUNTIME.rglob("*")
                if p.is_file() and p.suffix in {".py", ".c"} and "__pycache__" not in p.parts}
    assert carried == expected, package


@pytest.mark.parametrize("path", _modules(RUNTIME), ids=lambda p: p.relative_to(RUNTIME).as_posix())
def test_runtime_modules_import_only_the_runtime(path: Path) -> None:
    """Relative imports stay inside runtime/; no absolute hydrofmu import."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                assert (node.module or "").split(".")[0] != "hydrofmu", node.lineno
                continue
            depth = len(path.relative_to(RUNTIME).parts) - 1
            assert node.level - 1 <= depth, (
                f"{path.name}:{node.lineno} imports from outside runtime/")
        elif isinstance(node, ast.Import):
            assert all(a.name.split(".")[0] != "hydrofmu" for a in node.names), node.lineno


def folder_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Imports between the package's folders (``runtime/<folder>`` counted apart), from
    every relative or absolute hydrofmu import, including those inside functions."""
    def folder(parts: tuple[str, ...]) -> str:
        if parts[0] == "runtime" and len(parts) > 2:
            return f"runtime/{parts[1]}"
        return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")

    graph: dict[str, set[str]] = {}
    for path in _modules(package):
        rel = path.relative_to(package).parts
        src = folder(rel)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = list(rel[:-1])[: len(rel) - node.level]
                target = [*base, *(node.module.split(".") if node.module else [])]
            elif (node.module or "").split(".")[0] == "hydrofmu":
                target = node.module.split(".")[1:]
            else:
                continue
            if not target:
                continue
            dst = folder((*target, "x"))
            if dst != src:
                graph.setdefault(src, set()).add(dst)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[str]:
    def reach(node: str, seen: set[str]) -> set[str]:
        for nxt in graph.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                reach(nxt, seen)
        return seen

    return sorted(n for n in graph if n in reach(n, set()))


def test_folders_import_one_way() -> None:
    graph = folder_graph()
    assert cycles(graph) == [], {k: sorted(v) for k, v in graph.items()}
    # The run time never imports the build side.
    for src, dsts in graph.items():
        if src.startswith("runtime/"):
            assert all(d.startswith("runtime/") for d in dsts), (src, dsts)


def test_the_cycle_check_finds_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c"]
