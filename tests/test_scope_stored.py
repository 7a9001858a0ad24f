"""The crawl's scope is stored with it: a resumed `index` (and `search`) keeps it unless a flag
given on the command line replaces it."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select

from tests.cli_runner import run_cli as run
from webcrawler.database.schema import connect, meta
from webcrawler.demoweb.server import LoopbackWeb, Site, html

ADDRESS = "127.0.16.1"




def stored(data: Path) -> dict:
    engine = connect(f"sqlite:///{data / 'webcrawler.db'}", readonly=True)
    try:
        with engine.connect() as conn:
            return json.loads(conn.execute(select(meta.c.value).where(meta.c.key == "scope")).scalar())
    finally:
        engine.dispose()


def test_a_resumed_crawl_keeps_the_stored_scope_until_a_flag_replaces_it(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    routes = {"/in/": html("In", "inside", [("/in/a", "a")]), "/in/a": html("In a", "inside"),
              "/out/": html("Out", "outside")}
    with LoopbackWeb([Site(ADDRESS, routes, robots_txt="")]) as web:
        inside = "^" + web.url(ADDRESS, "/in/").replace(".", r"\.")
        common = ("--delay", "0", "--agents", "1", "--no-progress", "--data-dir", data)
        first = run("index", "--seed", web.url(ADDRESS, "/in/"), "--include", inside,
                    "--max-depth", "3", "--user-agent-token", "Tester", *common)
        assert "scope (from the command line)" in first
        assert stored(tmp_path / "data") == {
            "include": [inside], "exclude": [], "max_depth": 3, "max_docs_per_server": 0,
            "robots_token": "Tester", "hosts": [ADDRESS]}

        resumed = run("index", "--seed", web.url(ADDRESS, "/out/"), *common)
        assert "scope (stored with the crawl)" in resumed and "token Tester" in resumed
        assert "/out/" not in web.log.paths()  # outside the stored include: not even queued

        widened = run("index", "--seed", web.url(ADDRESS, "/out/"), "--include", "", *common)
        assert "given on the command line: include" in widened
        assert "/out/" in web.log.paths()
    after = stored(tmp_path / "data")
    assert after["include"] == [""] and after["max_depth"] == 3  # one flag replaced one field
