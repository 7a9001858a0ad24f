"""A page that holds its agent past the agent's deadline is tried again, not lost (issue 37,
item 7): the pool replaces the agent and answers AGENT_HUNG, a passing failure for that
page alone. The server here stalls the page's first answer past the deadline only."""

from __future__ import annotations

from pathlib import Path

from webcrawler.commands.index import run_index
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.index import open_searcher
from webcrawler.settings import Settings

SITE = "127.0.77.1"


def test_a_page_that_hung_its_agent_is_retried(tmp_path: Path) -> None:
    asked: list[str] = []

    def routes(path: str) -> Page | None:
        asked.append(path)
        if path == "/":
            return html("Home", "start", [("/stall", "stall"), ("/other", "other")])
        if path == "/stall":
            page = html("Stall", "the stalling page of pangolins")
            return page if asked.count(path) > 1 else Page(page.body, delay=4.0)
        return html("Other", "another page") if path == "/other" else None

    with LoopbackWeb([Site(SITE, routes)]) as web:
        settings = Settings(data_dir=tmp_path, agents=1, delay=0.0, hours=0.05,
                            progress_interval=60.0, total_timeout=20.0, agent_deadline=1.5,
                            retry_backoff=0.1, seeds=(web.url(SITE, "/"),))
        summary = run_index(settings, progress=False)[0]
        web.log.settle()
    assert asked.count("/stall") == 2
    assert "recovered 1" in summary
    with open_searcher(settings.index_dir) as searcher:
        assert [hit.url for hit in searcher.search("pangolins").hits] == [web.url(SITE, "/stall")]
