"""The structure rules of issue 32, as AST scans over a package's ``.py`` files.

Three rules, each a function that returns the offenders as ``path:line: text`` strings
(empty: the rule holds), so that a failing test lists every one:

- :func:`foreign_private_reads` -- no attribute access ``x._name`` (one leading
  underscore; dunders such as ``x.__class__`` are public, and a ``__name`` is either
  mangled by Python or a C symbol reached through ``ctypes``) where ``x`` is not
  ``self``, ``cls`` or ``super()``. An object's underscore attributes
  are its own business; another object asks it through its public fields and methods.
- :func:`mixin_shared_attributes` -- no class reads ``self.x`` that it does not own and
  that another project class *related to it* assigns as instance state. A class owns
  ``x`` when it assigns ``self.x`` in one of its methods or defines ``x`` in its class
  body (a method, a class attribute, a dataclass field); it inherits ``x`` when a project
  ancestor defines it in its class body or assigns ``self.x`` in its ``__init__`` (the
  constructor the subclass runs: a subclass with an ``__init__`` of its own must call a
  base's). Related classes: its ancestors, its descendants, and
  its co-bases (classes that share a subclass with it). The rule catches the mixin
  pattern -- ``class Slave(Log, Variables, Access)`` where ``Access`` reads
  ``self._in_lo`` that ``Variables`` assigns in a registration method -- and a base
  class reading state that only its subclass sets; a subclass reading what its base's
  ``__init__`` set is plain inheritance and passes. Attributes that no project class
  assigns (a library base's, e.g. pythonfmu's ``self.vars``) are not the package's to
  check.
- :func:`long_c_files` -- no C source over :data:`C_LINE_LIMIT` lines.

Used by ``tests/test_structure.py``; standard library only.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

#: Longest C file (lines) the package may hold: one concern per file (issue 32).
C_LINE_LIMIT = 700

#: Receivers whose underscore attributes a method may read: its own object and class.
OWN_RECEIVERS = frozenset({"self", "cls"})

#: Constructors that may set the state a subclass then reads.
CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__"})


def python_files(root: Path) -> list[Path]:
    """Every ``.py`` file under ``root``, sorted, caches left out."""
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def parse(path: Path) -> ast.Module:
    """The syntax tree of ``path`` (cached while the file is unchanged)."""
    return _parse(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=1024)
def _parse(path: Path, mtime_ns: int) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _is_private(name: str) -> bool:
    """Exactly one leading underscore: ``_name`` (not ``__name`` nor ``__name__``)."""
    return name.startswith("_") and not name.startswith("__")


def _label(path: Path, root: Path, line: int) -> str:
    return f"{path.relative_to(root.parent)}:{line}"


# ---------------------------------------------------------------------------- rule (a)
def foreign_private_reads(root: Path) -> list[str]:
    """``path:line: receiver._name`` of every underscore attribute read on another object.

    Parameters
    ----------
    root
        The package folder (every ``.py`` below it is scanned).
    """
    hits = []
    for path in python_files(root):
        tree = parse(path)
        found = []
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and _is_private(node.attr)):
                continue
            receiver = node.value
            if isinstance(receiver, ast.Name) and receiver.id in OWN_RECEIVERS:
                continue
            if (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name)
                    and receiver.func.id == "super"):
                continue
            found.append((node.lineno, node.col_offset, f"{ast.unparse(receiver)}.{node.attr}"))
        hits += [f"{_label(path, root, line)}: {text}" for line, _, text in sorted(found)]
    return hits


# ---------------------------------------------------------------------------- rule (b)
@dataclass
class ClassFacts:
    """What one class defines, assigns and reads (rule (b))."""

    key: str  # "module:ClassName"
    path: Path
    line: int
    bases: list[str] = field(default_factory=list)  # keys of the project bases
    body_names: set[str] = field(default_factory=set)  # methods, class attributes, fields
    assigned: dict[str, str] = field(default_factory=dict)  # self.x -> method assigning it
    constructed: set[str] = field(default_factory=set)  # self.x assigned in a constructor
    reads: dict[str, int] = field(default_factory=dict)  # self.x read -> first line
    runs_base_init: bool = True  # no __init__ of its own, or one that calls a base's


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.Module, module: str, is_package: bool) -> dict[str, str]:
    """Local name -> dotted target (``package.module.Name`` or ``package.module``)."""
    here = module.split(".") if is_package else module.split(".")[:-1]
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            prefix = ".".join([*base, node.module] if node.module else base)
            for alias in node.names:
                names[alias.asname or alias.name] = f"{prefix}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0])
    return names


def _self_attributes(function: ast.AST, ctx: type) -> Iterator[ast.Attribute]:
    for node in ast.walk(function):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ctx)
                and isinstance(node.value, ast.Name) and node.value.id == "self"):
            yield node


def _is_dataclass_like(node: ast.ClassDef) -> bool:
    """Annotations in the body are fields: dataclasses, NamedTuple, TypedDict, Protocol."""
    texts = [ast.unparse(d) for d in node.decorator_list] + [ast.unparse(b) for b in node.bases]
    return any(word in text for text in texts
               for word in ("dataclass", "NamedTuple", "TypedDict", "Protocol"))


def _class_facts(node: ast.ClassDef, key: str, path: Path) -> ClassFacts:
    facts = ClassFacts(key=key, path=path, line=node.lineno)
    fields = _is_dataclass_like(node)
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            facts.body_names.add(item.name)
        elif isinstance(item, ast.Assign):
            facts.body_names.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            if item.value is not None or fields:
                facts.body_names.add(item.target.id)
        if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if item.name == "__init__":
            facts.runs_base_init = any(
                isinstance(n, ast.Attribute) and n.attr == "__init__" for n in ast.walk(item))
        for attr in _self_attributes(item, (ast.Store, ast.Del)):
            facts.assigned.setdefault(attr.attr, item.name)
            if item.name in CONSTRUCTORS:
                facts.constructed.add(attr.attr)
        for attr in _self_attributes(item, ast.Load):
            facts.reads.setdefault(attr.attr, attr.lineno)
    return facts


def collect_classes(root: Path) -> dict[str, ClassFacts]:
    """Every top-level class of the package under ``root``, its project bases resolved."""
    classes: dict[str, ClassFacts] = {}
    pending: list[tuple[ClassFacts, list[ast.expr], str, dict[str, str]]] = []
    for path in python_files(root):
        tree = parse(path)
        module = _module_name(path, root)
        imports = _imports(tree, module, path.name == "__init__.py")
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                facts = _class_facts(node, f"{module}:{node.name}", path)
                classes[facts.key] = facts
                pending.append((facts, node.bases, module, imports))
    for facts, bases, module, imports in pending:
        for base in bases:
            text = ast.unparse(base)
            head, _, rest = text.partition(".")
            if f"{module}:{text}" in classes:
                facts.bases.append(f"{module}:{text}")
                continue
            target = imports.get(head)
            if target is None:
                continue
            dotted = f"{target}.{rest}" if rest else target
            owner, _, name = dotted.rpartition(".")
            if f"{owner}:{name}" in classes:
                facts.bases.append(f"{owner}:{name}")
    return classes


def _ancestors(key: str, classes: dict[str, ClassFacts]) -> list[str]:
    seen: list[str] = []
    stack = list(classes[key].bases)
    while stack:
        base = stack.pop()
        if base not in seen:
            seen.append(base)
            stack.extend(classes[base].bases)
    return seen


def mixin_shared_attributes(root: Path) -> list[str]:
    """``path:line: Class reads self.x, set by Other.method`` for every offending read.

    Parameters
    ----------
    root
        The package folder (every ``.py`` below it is scanned).
    """
    classes = collect_classes(root)
    ancestors = {key: _ancestors(key, classes) for key in classes}
    related: dict[str, set[str]] = {key: set() for key in classes}
    for key, above in ancestors.items():
        family = {key, *above}  # the classes one instance of `key` is made of
        for member in family:
            related[member] |= family - {member}
    hits = []
    for key, facts in sorted(classes.items()):
        inherited: set[str] = set()
        for base in ancestors[key]:
            inherited |= classes[base].body_names
            if facts.runs_base_init:
                inherited |= classes[base].constructed
        own = facts.body_names | set(facts.assigned) | inherited
        for attr, line in sorted(facts.reads.items(), key=lambda kv: kv[1]):
            if attr in own:
                continue
            setters = sorted(f"{other.split(':')[1]}.{classes[other].assigned[attr]}"
                             for other in related[key] if attr in classes[other].assigned)
            if setters:
                hits.append(f"{_label(facts.path, root, line)}: {key.split(':')[1]} reads "
                            f"self.{attr}, set by {', '.join(setters)}")
    return hits


# ---------------------------------------------------------------------------- rule (d)
def long_c_files(root: Path, limit: int = C_LINE_LIMIT) -> list[str]:
    """``path: N lines`` of every ``.c`` file under ``root`` longer than ``limit`` lines."""
    hits = []
    for path in sorted(root.rglob("*.c")):
        n = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
        if n > limit:
            hits.append(f"{path.relative_to(root.parent)}: {n} lines (limit {limit})")
    return hits


def report(title: str, hits: Iterable[str]) -> str:
    """The assertion message: a title and one offender a line."""
    hits = list(hits)
    return f"{title}: {len(hits)} offender(s)\n" + "\n".join(hits)
