"""Whoosh fenced in: only the index's format room (webcrawler/index/format/) names Whoosh's internals.

Whoosh's public API (its index, fields, queries, searchers, collectors, readers' public
methods) may be used by every room of the index (and by no package outside it:
tests/test_boundaries.py). Its internals may be named only in `index/format/`, behind typed
functions and classes the other rooms call:

- private names: `obj._name` on anything but the module's own objects, `from whoosh... import
  _name`, `getattr(obj, "_name")`;
- Whoosh's modules without a public API (its codec, hash tables, struct files, system and
  util modules);
- subclasses of Whoosh's classes;
- Whoosh objects built with `__new__` and filled by hand.

What a Whoosh upgrade must look at is therefore one room (docs/index.md, "Upgrading Whoosh").
"""

from __future__ import annotations

import ast
from pathlib import Path

INDEX = Path(__file__).resolve().parent.parent / "webcrawler" / "index"
FORMAT = INDEX / "format"
NON_PUBLIC = ("whoosh.codec", "whoosh.filedb.filetables", "whoosh.filedb.structfile",
              "whoosh.filedb.compound", "whoosh.system", "whoosh.util")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _whoosh_bound(tree: ast.Module) -> dict[str, str]:
    """Local name -> the Whoosh module or name it stands for."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "whoosh":
                    top = alias.name.split(".")[0]
                    bound[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "whoosh":
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _dotted(node: ast.expr, bound: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, bound)
        return f"{base}.{node.attr}" if base else None
    return None


def _own_names(tree: ast.Module) -> set[str]:
    """What the module itself defines: its functions and classes, and `self._x` attributes."""
    own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    own |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id in ("self", "cls")}
    return own


def internals(path: Path) -> list[str]:
    """The Whoosh internals `path` names, one entry each ("private _x", "module whoosh.codec",
    "subclass whoosh.scoring.WeightingModel", "__new__ whoosh...")."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound = _whoosh_bound(tree)
    own = _own_names(tree)
    found: set[str] = set()
    for target in bound.values():
        if _private(target.rpartition(".")[2]):
            found.add(f"private {target.rpartition('.')[2]}")
        if target.startswith(NON_PUBLIC):
            found.add(f"module {target}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own \
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            found.add(f"private {node.attr}")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("getattr", "hasattr") \
                and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and _private(node.args[1].value):
            found.add(f"private {node.args[1].value}")
        elif isinstance(node, ast.ClassDef):
            found |= {f"subclass {base}" for b in node.bases if (base := _dotted(b, bound))}
        elif isinstance(node, ast.Attribute) and node.attr == "__new__" \
                and (made := _dotted(node.value, bound)):
            found.add(f"__new__ {made}")
    return sorted(found)


def test_only_the_format_room_names_whoosh_internals() -> None:
    outside = [p for p in sorted(INDEX.rglob("*.py")) if FORMAT not in p.parents]
    assert {str(p.relative_to(INDEX)): hits for p in outside if (hits := internals(p))} == {}


def test_the_walk_sees_whoosh_internals() -> None:
    """The format room does name them (each kind at least once): the walk can see each kind."""
    seen = {entry.split()[0] for p in sorted(FORMAT.rglob("*.py")) for entry in internals(p)}
    assert seen == {"private", "module", "subclass", "__new__"}
