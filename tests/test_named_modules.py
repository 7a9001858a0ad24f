"""No docstring, comment, README, docs/ page or build file names a module that does not exist.

Modules move (the house's rooms were rearranged more than once); a docstring that still points
at the old place sends its reader nowhere. Three spellings are checked: dotted names
(`webcrawler.engine.records.ServerState`: the module exists, and so does the name in it),
paths from the top (`webcrawler/engine/records.py`, `tests/support/genweb.py`) and the short
paths the docs use inside a package (`loop/crawl.py`, `records.py`: some file of the
repository, or of Whoosh for the pages about its formats, ends so). docs/benchmarks-history.md
is exempt: it records the past, profiles of files of their time included.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import whoosh

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("webcrawler", "tests", "bench", "examples")
BUILD_FILES = (ROOT / "pyproject.toml", ROOT / "Makefile")  # their comments say which module needs what
DATA_FILES = {"webcrawler.db", "webcrawler.toml"}  # the data directory's files, not modules
NOT_OURS = {"langid.py"}  # a project's name (py3langid's origin), not a file of ours
MADE = {"webcrawler/workbench/static/vendor"}  # made by `make install` (cytoscape.js), not kept
DOTTED = re.compile(r"(?<![\w./-])webcrawler(?:\.[A-Za-z_]\w*)+")
FROM_THE_TOP = re.compile(r"(?<![\w./-])((?:webcrawler|tests|bench|examples)/[\w/.-]*\w)")
SHORT = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w-]+\.py)\b")


def sources() -> list[Path]:
    return sorted(p for top in SOURCES for p in (ROOT / top).rglob("*.py"))


def texts() -> Iterator[tuple[Path, str]]:
    """Every docstring and comment of the sources, README and the docs pages."""
    for path in sources():
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                if doc := ast.get_docstring(node, clean=False):
                    yield path, doc
        yield path, "\n".join(line[line.index("#"):] for line in source.splitlines() if "#" in line)
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *BUILD_FILES,
                 *sorted((ROOT / "webcrawler").rglob("static/*.js"))]:
        if page.name != "benchmarks-history.md":
            yield page, page.read_text(encoding="utf-8")


def module_file(parts: list[str]) -> Path | None:
    for candidate in (ROOT.joinpath(*parts).with_suffix(".py"), ROOT.joinpath(*parts, "__init__.py")):
        if candidate.exists():
            return candidate
    return None


@cache
def top_names(path: Path) -> frozenset[str]:
    """What a module defines or imports at its top level."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return frozenset(names)


def dotted_exists(name: str) -> bool:
    parts = name.split(".")
    for k in range(len(parts), 1, -1):
        if (found := module_file(parts[:k])) is not None:
            return k == len(parts) or parts[k] in top_names(found)
    return False


@cache
def known_files() -> tuple[str, ...]:
    ours = [str(p.relative_to(ROOT)) for p in sources()]
    whooshs = Path(whoosh.__file__).parent
    return (*ours, *(str(p.relative_to(whooshs)) for p in whooshs.rglob("*.py")))


def short_exists(path: str) -> bool:
    return any(f == path or f.endswith("/" + path) for f in known_files())


def missing(text: str) -> set[str]:
    """The module names in `text` that name nothing."""
    gone = {m.group(0) for m in DOTTED.finditer(text)
            if m.group(0) not in DATA_FILES and not dotted_exists(m.group(0))}
    for m in FROM_THE_TOP.finditer(text):
        path = m.group(1)
        if (path.startswith("webcrawler/") or path.endswith(".py")) and path not in MADE \
                and not (ROOT / path).exists():
            gone.add(path)
    for m in SHORT.finditer(text):
        parts = m.group(1).split("/")
        while len(parts) > 1 and parts[0].isupper():  # DIR/bench/x.py: a placeholder's inside
            parts.pop(0)
        path = "/".join(parts)
        if path.startswith(SOURCES) or path in NOT_OURS or Path(path).stem.isupper():
            continue  # from the top (above), another project's, a placeholder (FILE.py)
        if not short_exists(path):
            gone.add(path)
    return gone


def test_every_named_module_exists() -> None:
    named: dict[str, set[str]] = {}
    for path, text in texts():
        if gone := missing(text):
            named.setdefault(str(path.relative_to(ROOT)), set()).update(gone)
    assert named == {}


def test_the_check_sees_a_module_that_is_gone() -> None:
    """Each spelling of a module that does not exist is caught, and each that does passes."""
    assert missing("webcrawler.database.schema.connect, webcrawler/engine/records.py, "
                   "loop/crawl.py, tests/support/genweb.py, webcrawler.db, FILE.py, "
                   "DIR/bench/common.py") == set()
    assert missing("webcrawler.states.State webcrawler.engine.records.Nothing "
                   "webcrawler/run.py engine/remote_pool.py tests/support/gone.py") == {
        "webcrawler.states.State", "webcrawler.engine.records.Nothing", "webcrawler/run.py",
        "engine/remote_pool.py", "tests/support/gone.py"}
