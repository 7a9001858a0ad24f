"""The house rules as a test: who may import what (walks each module's imports with ast)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "webcrawler"


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def modules(sub: str = ""):
    return sorted((PACKAGE / sub).rglob("*.py"))


def uses(path: Path, top: str) -> bool:
    return any(name == top or name.startswith(top + ".") for name in imports_of(path))


def test_only_the_index_package_imports_whoosh():
    offenders = [p for p in modules()
                 if uses(p, "whoosh") and p.relative_to(PACKAGE).parts[0] != "index"]
    assert not offenders


# The one HTTP client outside the agents: `webcrawler crawl definition.json --on URL` hands a
# crawl definition to another machine's workbench (its API, never a page of the Web).
WORKBENCH_CLIENT = PACKAGE / "workbench" / "remote.py"


def test_only_the_agents_do_http():
    allowed = {"agents"}
    offenders = [p for p in modules() if any(uses(p, top) for top in HTTP_CLIENTS)
                 and p.relative_to(PACKAGE).parts[0] not in allowed and p != WORKBENCH_CLIENT]
    assert not offenders


HTTP_CLIENTS = ("requests", "urllib3", "http.client", "urllib.request", "httpx", "aiohttp")


def test_agents_never_touch_the_database_or_the_index():
    offenders = [p for p in modules("agents")
                 if uses(p, "sqlalchemy") or uses(p, "whoosh") or uses(p, "webcrawler.engine")
                 or uses(p, "webcrawler.index")]
    assert not offenders


def test_query_server_only_reads():
    offenders = [p for p in modules("query_server")
                 if uses(p, "webcrawler.engine") or uses(p, "webcrawler.agents")]
    assert not offenders


def test_the_command_line_module_stays_light():
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
