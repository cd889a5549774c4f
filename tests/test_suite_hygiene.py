"""The suite's own rules: no test module is skipped whole, and no test asserts wall time.

A package of the test extra that is missing must fail the tests that need it, not skip a
module without a word (a module-level ``pytest.importorskip``, ``pytest.skip(...,
allow_module_level=True)`` or a ``pytestmark`` skip). Speed belongs in ``benchmarks/``: a
threshold on the wall clock of a shared machine fails for reasons that are not the code's,
so a test asserts what the time stood for (no step ran, nothing was read or allocated).

The scanner reads each file's syntax tree (nothing is imported or run) and is itself tested
on synthetic files, each kind of violation on its own line.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent

#: Functions of the ``time`` module that read a clock.
CLOCKS = frozenset({"time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic",
                    "monotonic_ns", "process_time", "process_time_ns"})
#: Names (variables, attributes, string keys) that say they hold a wall time.
TIME_WORDS = re.compile(r"(^|_)(elapsed|wall|walltime|wall_time|wallclock)(_|$)", re.I)
#: unittest's ordering assertions, checked as comparisons.
ORDER_ASSERTS = frozenset({"assertLess", "assertLessEqual", "assertGreater",
                           "assertGreaterEqual"})


def _called(node: ast.Call) -> str:
    """The called name: ``f`` for ``f(...)`` and ``x.f(...)`` with ``x`` a plain name
    (``pytest.skip``, ``self.assertLess``); not ``pytest.mark.skip``, a test's marker."""
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr if isinstance(func.value, ast.Name) else ""
    return func.id if isinstance(func, ast.Name) else ""


def _is_clock(node: ast.AST) -> bool:
    """``time.perf_counter()``, ``perf_counter()`` (imported from time), ``time.time()``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr in CLOCKS and isinstance(func.value, ast.Name) \
            and func.value.id == "time"
    return isinstance(func, ast.Name) and func.id in CLOCKS - {"time"}


def _label(node: ast.AST) -> str | None:
    """The name a value is known by: a variable, an attribute, or a string subscript key."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, str):
        return node.slice.value
    return None


def _numbers(tree: ast.Module) -> set[str]:
    """Names bound (anywhere in the file) to a numeric constant expression."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None \
                and _is_number(node.value, set()):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _is_number(node: ast.AST, numbers: set[str]) -> bool:
    """A numeric constant, an arithmetic of them, or a name bound to one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _is_number(node.operand, numbers)
    if isinstance(node, ast.BinOp):
        return _is_number(node.left, numbers) and _is_number(node.right, numbers)
    return isinstance(node, ast.Name) and node.id in numbers


def _timed_names(tree: ast.Module) -> set[str]:
    """Labels assigned from a clock reading or from another timed label (to a fixed point)."""
    timed: set[str] = set()
    assigns = [n for n in ast.walk(tree) if isinstance(n, ast.Assign | ast.AnnAssign
                                                         | ast.AugAssign | ast.NamedExpr)]
    while True:
        before = len(timed)
        for node in assigns:
            if node.value is None or not _is_timed(node.value, timed):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in ast.walk(target):  # tuples: every element (status, elapsed = ...)
                    label = _label(t)
                    if label:
                        timed.add(label)
        if len(timed) == before:
            return timed


def _is_timed(node: ast.AST, timed: set[str]) -> bool:
    """Whether an expression holds a wall time: a clock reading, a timed label, or a label
    that says so (``elapsed``, ``wall_time``...)."""
    for sub in ast.walk(node):
        if _is_clock(sub):
            return True
        label = _label(sub)
        if label and (label in timed or TIME_WORDS.search(label)):
            return True
    return False


def _module_level(tree: ast.Module):
    """The nodes run at import: everything outside function bodies and lambdas."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(node.decorator_list if not isinstance(node, ast.Lambda) else [])
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def scan_source(text: str, name: str = "<source>") -> list[str]:
    """Every module-level skip and every wall-clock threshold of one test file.

    Parameters
    ----------
    text
        The file's Python source.
    name
        The file's name, for the messages.

    Returns
    -------
    list of str
        ``"<name>:<line>: <what>"``, in line order; empty when the file is clean.
    """
    tree = ast.parse(text, filename=name)
    found: list[tuple[int, str]] = []
    for node in _module_level(tree):
        if isinstance(node, ast.Call):
            called = _called(node)
            if called == "importorskip":
                found.append((node.lineno, "module-level importorskip: a missing package of "
                                           "the test extra must fail, not skip the module"))
            elif called == "skip":
                found.append((node.lineno, "module-level skip"))
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            marks = [m.attr for m in ast.walk(node.value) if isinstance(m, ast.Attribute)]
            if {"skip", "skipif"} & set(marks):
                found.append((node.lineno, "pytestmark skips the module"))
    for node in ast.walk(tree):
        # pytest.skip(..., allow_module_level=True) inside a function is the same skip
        if isinstance(node, ast.Call) and _called(node) == "skip" and any(
                k.arg == "allow_module_level" for k in node.keywords) and \
                (node.lineno, "module-level skip") not in found:
            found.append((node.lineno, "skip(allow_module_level=True)"))
    timed = _timed_names(tree)
    numbers = _numbers(tree)
    for node in ast.walk(tree):
        pairs: list[tuple[ast.AST, ast.AST]] = []
        if isinstance(node, ast.Assert):
            for cmp in (c for c in ast.walk(node.test) if isinstance(c, ast.Compare)):
                sides = [cmp.left, *cmp.comparators]
                pairs += list(itertools.pairwise(sides))
        elif isinstance(node, ast.Call) and _called(node) in ORDER_ASSERTS \
                and len(node.args) >= 2:
            pairs.append((node.args[0], node.args[1]))
        for a, b in pairs:
            if (_is_timed(a, timed) and _is_number(b, numbers)) or \
                    (_is_timed(b, timed) and _is_number(a, numbers)):
                found.append((node.lineno, "wall-clock threshold: assert what the time "
                                           "stands for (no step ran, nothing was read), "
                                           "or measure it in benchmarks/"))
                break
    return [f"{name}:{line}: {what}" for line, what in sorted(found)]


def scan_tests(root: Path = TESTS) -> list[str]:
    """:func:`scan_source` over every ``*.py`` under ``root``."""
    problems: list[str] = []
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" not in path.parts:
            problems += scan_source(path.read_text(encoding="utf-8"),
                                    str(path.relative_to(root)))
    return problems


def test_the_suite_has_no_module_level_skips_and_no_wall_clock_thresholds() -> None:
    files = [p for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts]
    assert len(files) > 50  # the scan sees the suite (and this file among it)
    assert scan_tests() == []


BAD = '''\
import time
from time import perf_counter

import pytest

np = pytest.importorskip("numpy")
pytestmark = pytest.mark.skipif(True, reason="no")
if time.time() < 0:
    pytest.skip("not here", allow_module_level=True)
LIMIT = 2.0 * 60


def test_slow():
    t0 = time.perf_counter()
    run()
    elapsed = time.perf_counter() - t0
    assert elapsed < 2.0
    assert time.monotonic() - t0 <= LIMIT


def test_renamed():
    start = perf_counter()
    status, took = run(), perf_counter() - start
    assert status == 0 and took < 5
    assert result["elapsed"] < LIMIT


class TestOld:
    def test_unittest(self):
        self.assertLess(wall_time, 3.0)


def helper():
    pytest.skip("later", allow_module_level=True)
'''


def test_the_scanner_reports_each_kind_on_its_line(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "test_bad.py").write_text(BAD, encoding="utf-8")
    problems = scan_tests(tmp_path)
    lines = [int(p.split(":")[1]) for p in problems]
    # importorskip, pytestmark, the module-level skip; elapsed, the inline difference, took,
    # the "elapsed" key; unittest's assertLess; the allow_module_level skip in a function
    assert lines == [6, 7, 9, 17, 18, 24, 25, 30, 34], problems
    assert all(p.startswith(str(Path("sub") / "test_bad.py") + ":") for p in problems)
    assert "importorskip" in problems[0] and "wall-clock" in problems[3]


GOOD = '''\
import time

import pytest


def test_fine(tmp_path):
    np = pytest.importorskip("numpy")  # inside a test: not a module-level skip
    deadline = time.monotonic() + 60  # waiting for a file with a timeout is not a threshold
    while not (tmp_path / "x").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    t0 = time.perf_counter()
    calls = run()
    print(f"took {time.perf_counter() - t0:.1f} s")  # reported, not asserted
    assert calls == 3
    duration = 60.0  # simulated seconds
    assert duration == 60.0 and t[-1] < 5.0
    assert ds.attrs["duration"] <= 120


@pytest.mark.skipif(True, reason="one test, with its reason")
def test_skipped_alone():
    pytest.skip("this test only")


@pytest.mark.skip(reason="a marker on one test, not a module-level skip")
def test_marked():
    pass
'''


def test_the_scanner_passes_what_is_allowed(tmp_path: Path) -> None:
    (tmp_path / "test_good.py").write_text(GOOD, encoding="utf-8")
    assert scan_tests(tmp_path) == []
