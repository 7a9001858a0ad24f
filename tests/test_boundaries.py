"""The house rules as a test: who may import what, and who may do what (walks each module with ast).

Each test is one rule of README's "The rules" list (under "How it works"), in the same words. The
walk sees every form an import takes: `import a.b as c`, `from a import b` (a.b), relative
imports, attributes of an imported module (`index.open_writer`), imports inside
functions, and `importlib.import_module("a")`; test_the_walk_sees_every_form_of_import
keeps it so.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "webcrawler"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def tree_of(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    package = package[:len(package) - (node.level - 1)]
    return ".".join([*package, node.module] if node.module else package)


@cache
def imports_of(path: Path) -> frozenset[str]:
    """Every module, and every name of a module, that `path` imports or uses."""
    return imports_in(tree_of(path), path)


def imports_in(tree: ast.Module, path: Path) -> frozenset[str]:
    """imports_of for `tree`, the source of the module at `path`."""
    names: set[str] = set()
    bound: dict[str, str] = {}  # local name -> what it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.add(alias.name)
                top = alias.name.split(".")[0]
                bound[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(path, node)
            names.add(base)
            for alias in node.names:
                names.add(f"{base}.{alias.name}")
                bound[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif (isinstance(node, ast.Call) and _called(node) in ("import_module", "__import__")
              and node.args and isinstance(node.args[0], ast.Constant)):
            names.add(str(node.args[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in bound:
            names.add(f"{bound[node.value.id]}.{node.attr}")
    return frozenset(names)


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def calls_in(path: Path) -> list[ast.Call]:
    return [node for node in ast.walk(tree_of(path)) if isinstance(node, ast.Call)]


def modules(*subs: str) -> list[Path]:
    found = []
    for sub in subs or ("",):
        found += sorted((PACKAGE / sub).rglob("*.py")) if (PACKAGE / sub).is_dir() \
            else [PACKAGE / sub]
    return found


def part(path: Path) -> str:
    """The package of the house a module belongs to ("index", "agents", "cli", ...)."""
    return path.relative_to(PACKAGE).parts[0]


def used(path: Path, *tops: str) -> list[str]:
    """What of `tops` (modules, or names in modules) `path` imports or uses."""
    return sorted(name for name in imports_of(path)
                  if any(name == top or name.startswith(top + ".") for top in tops))


def offenders(paths: list[Path], *tops: str) -> dict[str, list[str]]:
    return {module_name(p): hits for p in paths if (hits := used(p, *tops))}


def loaded_by(*subs: str, tops: tuple[str, ...]) -> list[str]:
    """Which of `tops` a fresh interpreter has loaded after importing every module of `subs`
    (the rule again, through every import chain: what the process really pays for)."""
    import subprocess
    import sys

    names = " ".join(module_name(p) for p in modules(*subs))
    code = ("import importlib, sys\n"
            "tops = tuple(sys.argv[2].split())\n"
            "for name in sys.argv[1].split(): importlib.import_module(name)\n"
            "print(*sorted({m for m in sys.modules for t in tops if m == t or m.startswith(t + '.')}))")
    return subprocess.run([sys.executable, "-c", code, names, " ".join(tops)], capture_output=True,
                          text=True, timeout=120, check=True).stdout.split()


def test_the_walk_sees_every_form_of_import(tmp_path: Path) -> None:
    """A rule is only as good as the walk: each import form below must be seen."""
    fake = PACKAGE / "index" / "_probe.py"  # never written: only parsed from tmp_path's copy
    source = tmp_path / "probe.py"
    source.write_text(
        "import whoosh.fields as wf\n"
        "from .. import engine\n"
        "from . import writer as w\n"
        "from webcrawler import query_server\n"
        "def later():\n"
        "    import importlib\n"
        "    importlib.import_module('requests')\n"
        "    return w.open_writer, wf.TEXT\n", encoding="utf-8")
    names = imports_in(ast.parse(source.read_text(encoding="utf-8")), fake)
    for expected in ("whoosh.fields", "webcrawler.engine", "webcrawler.index.writer.open_writer",
                     "webcrawler.query_server", "requests", "whoosh.fields.TEXT"):
        assert expected in names, expected


# --- the rules ---------------------------------------------------------------------------

def test_only_the_index_imports_whoosh() -> None:
    assert offenders([p for p in modules() if part(p) != "index"], "whoosh") == {}


HTTP_CLIENTS = ("requests", "urllib3", "http.client", "urllib.request", "httpx", "aiohttp",
                "pycurl", "websockets", "xmlrpc.client", "ftplib")
SOCKET_MODULES = ("socket", "ssl", "asyncio", "selectors")
SOCKET_CLIENT_CALLS = {"connect", "connect_ex", "create_connection", "open_connection",
                       "open_unix_connection", "wrap_socket"}
# The one HTTP client outside the agents: `webcrawler crawl definition.json --on URL` hands a
# crawl definition to another machine's workbench (its API, never a page of the Web).
WORKBENCH_CLIENT = PACKAGE / "workbench" / "remote.py"


def test_only_the_agents_and_the_agent_hosts_do_http() -> None:
    """No HTTP client library, and no socket-level client (connect, create_connection,
    open_connection, a client's wrap_socket) in a module that imports sockets; servers that
    only listen (the query server, the loopback test webs) may bind, and wrap what they
    accept in TLS (wrap_socket(..., server_side=True))."""
    others = [p for p in modules() if part(p) not in ("agents", "agenthosts")
              and p != WORKBENCH_CLIENT]
    assert offenders(others, *HTTP_CLIENTS) == {}
    clients = {module_name(p): sorted({_called(c) for c in calls_in(p) if not _server_side(c)}
                                      & SOCKET_CLIENT_CALLS)
               for p in others if used(p, *SOCKET_MODULES)}
    assert {name: calls for name, calls in clients.items() if calls} == {}


def _server_side(call: ast.Call) -> bool:
    return any(k.arg == "server_side" and isinstance(k.value, ast.Constant) and k.value.value is True
               for k in call.keywords)


def test_the_index_never_imports_the_engine_or_the_query_server() -> None:
    banned = ("webcrawler.engine", "webcrawler.query_server", "webcrawler.agents",
              "webcrawler.recrawl")
    assert offenders(modules("index"), *banned) == {}
    assert loaded_by("index", tops=banned) == []


def test_the_agents_never_import_the_database_or_the_index() -> None:
    """sqlalchemy, the database room (webcrawler.database), the engine (its store) and the index:
    the agents, and the agent hosts that run them elsewhere, answer with messages only."""
    banned = ("sqlalchemy", "webcrawler.database", "webcrawler.engine", "webcrawler.index", "whoosh")
    assert offenders(modules("agents", "agenthosts"), *banned) == {}
    assert loaded_by("agents", tops=banned) == []  # the agent hosts need Dask, an extra


WRITERS = ("webcrawler.engine", "webcrawler.recrawl", "webcrawler.agents", "webcrawler.toolkit",
           "webcrawler.index.writing.writer", "webcrawler.index.format.termwriter",
           "webcrawler.index.format.merging", "webcrawler.index.writing.shards",
           "webcrawler.index.open_writer", "webcrawler.index.IndexWriter",
           "webcrawler.index.open_shard_writer", "webcrawler.index.optimize",
           "webcrawler.index.prepare_layout", "webcrawler.index.set_aside")
SQL_WRITES = {"insert", "update", "delete", "create_all", "drop_all", "commit", "executescript"}
WRITE_STATEMENT = re.compile(r"^\s*(insert|update|delete|replace|create|drop|alter|vacuum)\s",
                             re.IGNORECASE)


def test_the_query_server_never_writes() -> None:
    """It imports none of the engine's, the recrawl's or the index's writers, no SQL write
    (insert, update, delete, create_all, commit) and no write statement, and every database
    `connect` it makes passes readonly=True."""
    paths = modules("query_server", "web")  # the web plumbing it runs on too
    assert offenders(paths, *WRITERS) == {}
    # Through import chains only whole packages count: `webcrawler.index` brings its writer
    # module along (unused), as any user of the index does.
    assert loaded_by("query_server", "web", tops=WRITERS[:4]) == []
    sql = {module_name(p): [n for n in imports_of(p) if n.rpartition(".")[2] in SQL_WRITES
                            and n.startswith(("sqlalchemy", "webcrawler.database"))]
           for p in paths}
    assert {name: hits for name, hits in sql.items() if hits} == {}
    for path in paths:
        commits = [c.lineno for c in calls_in(path) if _called(c) in ("commit", "executescript")]
        assert commits == [], f"{module_name(path)} commits (lines {commits})"
        statements = [n.value for n in ast.walk(tree_of(path)) if isinstance(n, ast.Constant)
                      and isinstance(n.value, str) and WRITE_STATEMENT.match(n.value)]
        assert statements == [], f"{module_name(path)}: {statements}"
        if "webcrawler.database.schema.connect" in imports_of(path):
            for call in calls_in(path):
                if _called(call) == "connect" and isinstance(call.func, ast.Name):
                    flags = {k.arg: k.value for k in call.keywords}
                    readonly = flags.get("readonly")
                    assert isinstance(readonly, ast.Constant) and readonly.value is True, \
                        f"{module_name(path)}:{call.lineno} connects without readonly=True"


def test_the_query_server_opens_the_database_read_only(database_url: str) -> None:
    """What the static rule stands for, on a real database: its connection refuses writes."""
    from sqlalchemy import insert, select
    from sqlalchemy.exc import DBAPIError

    from webcrawler.database.schema import connect, meta
    from webcrawler.query_server.readonly import open_readonly

    connect(database_url).dispose()  # the schema, as the crawl leaves it
    reader = open_readonly(database_url)
    try:
        with reader.connect() as conn:
            assert conn.execute(select(meta)).all() != []  # reading works
            with pytest.raises(DBAPIError):
                conn.execute(insert(meta).values(key="written-by", value="the query server"))
    finally:
        reader.dispose()


def test_only_the_engine_decides_what_to_fetch() -> None:
    """A `Retrieve` (the agents' one request) is made only by the crawl loop, the one loop
    that `webcrawler index`, real-time search and the toolkit's crawlers are clients of."""
    makers = {module_name(p) for p in modules()
              if any(_called(c) == "Retrieve" for c in calls_in(p))}
    assert makers == {"webcrawler.engine.loop.crawl"}


def test_the_command_line_module_stays_light() -> None:
    """Every agent process imports the `webcrawler` script, hence webcrawler.cli (forkserver
    children re-import the parent's main module): a heavy import there is paid 16 times per
    crawl (numpy alone cost the test web's crawl about 3 s of start-up)."""
    import subprocess
    import sys

    heavy = ("numpy", "asyncio", "sqlalchemy", "whoosh", "flask", "casadi", "distributed",
             "matplotlib", "warcio", "lxml")
    code = ("import sys, webcrawler.cli; "
            f"print(' '.join(m for m in {heavy!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, check=True).stdout.split()
    assert loaded == []


@cache
def house_modules() -> dict[str, Path]:
    """Every module of the house by name."""
    return {module_name(p): p for p in modules()}


def _the_module(name: str, known: dict[str, Path]) -> str | None:
    """The house module `name` (a module, or a name in one) lives in; None outside the house."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


@cache
def edges_of(path: Path) -> frozenset[str]:
    """The house modules `path` imports (at the top or inside functions): `from a import b`
    counts as importing a.b when a.b is a module, otherwise a (whose code runs for it)."""
    known = house_modules()
    imported: set[str] = set()
    bound: dict[str, str] = {}  # local name -> the module or name it stands for
    for node in ast.walk(tree_of(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                imported.add(alias.name)
                bound[alias.asname or alias.name.split(".")[0]] = \
                    alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(path, node)
            for alias in node.names:
                name = f"{base}.{alias.name}"
                imported.add(name if name in known else base)
                bound[alias.asname or alias.name] = name
    for node in ast.walk(tree_of(path)):  # `import a` then `a.b.x`: a.b is imported too
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and f"{bound.get(node.value.id)}.{node.attr}" in known:
            imported.add(f"{bound[node.value.id]}.{node.attr}")
    me = module_name(path)
    return frozenset(m for n in imported if (m := _the_module(n, known)) not in (None, me))


def cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected parts of `graph` with more than one member (Tarjan's walk)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in order:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], order[other])
        if low[node] == order[node]:
            part = stack[stack.index(node):]
            del stack[stack.index(node):]
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_no_module_imports_itself_through_others() -> None:
    """No import cycle between modules of the house, imports inside functions included:
    each module can be read knowing only what it imports."""
    graph = {name: edges_of(path) for name, path in house_modules().items()}
    assert cycles(graph) == []


def graph_at(depth: int) -> dict[str, frozenset[str]]:
    """The house's imports between its parts `depth` names deep: at 2 the packages (engine,
    recrawl, index, cli, ...), at 3 their rooms (engine.loop, engine.store, ...), and so on
    (a module shallower than `depth` stands for itself)."""
    def part(name: str) -> str:
        return ".".join(name.split(".")[:depth])

    graph: dict[str, set[str]] = {}
    for name, path in house_modules().items():
        graph.setdefault(part(name), set()).update(
            part(m) for m in edges_of(path) if part(m) != part(name))
    return {k: frozenset(v) for k, v in graph.items()}


DEPTHS = range(2, max(len(name.split(".")) for name in house_modules()))


@pytest.mark.parametrize("depth", DEPTHS)
def test_no_package_imports_itself_through_others(depth: int) -> None:
    """Nor between the house's packages (engine, recrawl, index, cli, ...), nor between the
    rooms of any package at any depth (engine's loop, store, scheduling, ...): a part builds
    on others, never on what builds on it."""
    assert cycles(graph_at(depth)) == []


def test_the_crawl_loop_asks_its_store_only_through_the_protocol() -> None:
    """engine/loop/ imports no SQLAlchemy, no database schema and no SQL store: canonical URLs,
    near-duplicates, link refresh and the honest endings ask the `Store` protocol
    (engine/interfaces.py), which the SQL and the in-memory store both answer."""
    banned = ("sqlalchemy", "webcrawler.database.schema", "webcrawler.database.dialects",
              "webcrawler.engine.store.sql")
    assert offenders(modules("engine/loop"), *banned) == {}


# Outside the store and the database room, the modules that may speak SQL: the index writer's
# read path (the processes that read committed rows, and what they read with), the read-only
# query server and export; and the modules that make a concrete SQL store.
SQL_READERS = ("engine/pipeline/index_sink.py", "engine/pipeline/shard_writer.py",
               "engine/pipeline/reindex.py", "engine/pipeline/link_evidence.py",
               "engine/pipeline/languages.py", "engine/pipeline/outbox.py", "query_server",
               "export", "cli/export.py")
STORE_MAKERS = ("commands", "engine/realtime/search.py", "toolkit/actions/index.py")


def test_only_the_store_speaks_sql() -> None:
    """Every query the crawl makes (its orders, the recrawl, link refresh, the index's sinks)
    goes through the store's protocol (engine/interfaces.py); the concrete SQL store is named
    only where one is made."""
    kept = {PACKAGE / "engine" / "store", PACKAGE / "database"}
    outside = [p for p in modules() if not kept.intersection(p.parents)]
    readers = set(modules(*SQL_READERS))
    assert offenders([p for p in outside if p not in readers], "sqlalchemy") == {}
    makers = set(modules(*STORE_MAKERS))
    assert offenders([p for p in outside if p not in makers], "webcrawler.engine.store.sql.CrawlStore") == {}


def arrows_up(package: str, rooms: tuple[str, ...]) -> dict[str, list[str]]:
    """Each room of `package` (listed bottom first: every one of its rooms, no other) with the
    rooms at or above it that it imports."""
    found = {name: deps for name, deps in graph_at(3).items() if name.startswith(package + ".")}
    rank = {f"{package}.{room}": i for i, room in enumerate(rooms)}
    assert set(found) == set(rank)
    upward = {name: sorted(d for d in deps if d in rank and rank[d] >= rank[name])
              for name, deps in found.items()}
    return {name: deps for name, deps in upward.items() if deps}


ENGINE_ROOMS = ("records", "interfaces", "store", "scheduling", "pipeline", "loop", "realtime")


def test_the_engines_rooms_stand_in_one_order() -> None:
    """records, interfaces, store, scheduling, pipeline, loop, realtime: each imports only
    rooms before it (the shared record types are engine/records.py, at the bottom)."""
    assert arrows_up("webcrawler.engine", ENGINE_ROOMS) == {}


INDEX_ROOMS = ("models", "background", "heap", "format", "words", "search", "writing")


def test_the_indexs_rooms_stand_in_one_order() -> None:
    """The index's value types and shared helpers (models, background, heap), then the on-disk
    format (format/), the word tools and query language (words/), reading and ranking (search/),
    writing (writing/): each imports only rooms before it, never one above."""
    assert arrows_up("webcrawler.index", INDEX_ROOMS) == {}


def test_the_walk_sees_a_cycle() -> None:
    """The cycle finder finds one hidden behind two others, and none in a chain."""
    assert cycles({"a": frozenset("b"), "b": frozenset("c"), "c": frozenset("a"),
                   "d": frozenset("a")}) == [["a", "b", "c"]]
    assert cycles({"a": frozenset("b"), "b": frozenset("c")}) == []


def private_names(path: Path) -> list[str]:
    """The private names (`_x`, not `__x__`) of other house modules that `path` imports or uses."""
    known = house_modules()
    return sorted(name for name in imports_of(path)
                  if name.startswith("webcrawler.") and name not in known
                  and (last := name.rpartition(".")[2]).startswith("_") and not last.startswith("__"))


def test_no_module_imports_another_modules_private_name() -> None:
    """`from x import _y` and `x._y`: what a module keeps private may change without notice;
    what another module needs is public (in a module both may import)."""
    assert {module_name(p): hits for p in modules() if (hits := private_names(p))} == {}


def _top_names(path: Path) -> tuple[set[str], set[str]]:
    """(the names `path` defines at its top level, those it re-exports as `import x as x`)."""
    defined: set[str] = set()
    exported: set[str] = set()
    for node in tree_of(path).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            exported |= {a.name for a in node.names if a.asname == a.name}
    return defined, exported


def test_a_name_is_imported_from_the_module_that_defines_it() -> None:
    """Not from one that merely imports it too: a module that moves leaves no copy of its
    names behind (no compatibility shim), so every importer names the new place. A package's
    `__init__` (its public face) and an explicit `import x as x` re-export are exceptions."""
    known = house_modules()
    sources = modules() + sorted((PACKAGE.parent / "tests").rglob("*.py")) \
        + sorted((PACKAGE.parent / "bench").glob("*.py"))
    passed_on = []
    for path in sources:
        for node in ast.walk(tree_of(path)):
            if not (isinstance(node, ast.ImportFrom) and node.module in known and not node.level):
                continue
            source = known[node.module]
            if source.name == "__init__.py":
                continue
            defined, exported = _top_names(source)
            passed_on += [f"{path.relative_to(PACKAGE.parent)}: from {node.module} import {a.name}"
                          for a in node.names if f"{node.module}.{a.name}" not in known
                          and a.name not in defined | exported]
    assert passed_on == []


def _base_names(node: ast.ClassDef) -> list[str]:
    return [b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases]


def test_every_error_is_in_the_one_tree() -> None:
    """Every exception class of the house derives from `webcrawler.errors.WebcrawlerError`
    (by way of its kinds), so the command line turns each into one line and an exit status."""
    import builtins

    builtin_errors = {name for name, value in vars(builtins).items()
                      if isinstance(value, type) and issubclass(value, BaseException)}
    classes = {node.name: (_base_names(node), module_name(path)) for path in modules()
               for node in ast.walk(tree_of(path)) if isinstance(node, ast.ClassDef)}

    def rooted(name: str, seen: frozenset[str] = frozenset()) -> bool:
        return name == "WebcrawlerError" or any(
            base in classes and base not in seen and rooted(base, seen | {name})
            for base in classes[name][0])

    def an_error(name: str) -> bool:
        bases = classes[name][0]
        return any(b in builtin_errors or b.endswith(("Error", "Exception")) or
                   (b in classes and b != name and an_error(b)) for b in bases)

    assert "WebcrawlerError" in classes
    strays = {f"{module}.{name}" for name, (_bases, module) in classes.items()
              if name != "WebcrawlerError" and an_error(name) and not rooted(name)}
    assert strays == set()


# The one loop's branch rewrites these; they spell the layout until it does.
LAYOUT_NOT_YET: set[str] = set()
LAYOUT = re.compile(r"webcrawler\.db|^(index|leases|workbench)$")


def test_only_datadir_spells_the_data_directory_layout() -> None:
    """`webcrawler.db`, `index/`, `leases/`, `workbench/`: joined to a data directory only by
    webcrawler/datadir.py's `DataDir`, so the layout is read and changed in one place."""
    spelled = {}
    for path in modules():
        joins = [n.right.value for n in ast.walk(tree_of(path)) if isinstance(n, ast.BinOp)
                 and isinstance(n.op, ast.Div) and isinstance(n.right, ast.Constant)
                 and isinstance(n.right.value, str) and LAYOUT.search(n.right.value)]
        texts = [n.value for n in ast.walk(tree_of(path)) if isinstance(n, ast.Constant)
                 and isinstance(n.value, str) and "webcrawler.db" in n.value and "\n" not in n.value]
        if joins or texts:
            spelled[module_name(path)] = joins + texts
    assert set(spelled) - LAYOUT_NOT_YET == {"webcrawler.datadir"}, spelled
