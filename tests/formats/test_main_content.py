"""Main content: with main_content on, a page's navigation, sidebar and footer are not its
text, so snippets come from what the page says and the sidebar's words find nothing."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from webcrawler.agents.parse import parse_html
from webcrawler.index import open_searcher
from webcrawler.run import run_index
from webcrawler.settings import Settings
from webcrawler.testing.server import LoopbackWeb, Page, Site, html

SIDEBAR = ('<div class="sphinxsidebar"><h3>Navigation</h3><ul><li>stream pipe tutorial</li>'
           "<li>stream pipe reference</li></ul></div>")


def doc_page(title: str, words: str) -> Page:
    return Page(f"<html><head><title>{title}</title></head><body><header>Docs home</header>"
                f'<nav role="navigation">Index Modules Next Previous</nav>{SIDEBAR}'
                f'<div role="main"><h1>{title}</h1><p>{words}</p></div>'
                "<footer>Copyright the authors, built with a generator</footer></body></html>")


def test_boilerplate_is_not_the_text() -> None:
    page = doc_page("Sockets", "a socket pipe connects two stream ends " * 5).body
    text = parse_html(page, "http://h.test/", main_content=True).text
    assert "Sockets a socket pipe" in text
    assert "Navigation" not in text and "Copyright" not in text and "Docs home" not in text
    assert "Navigation" in parse_html(page, "http://h.test/").text  # all the text without it
    links = '<html><body><nav><a href="/a">a long menu of links</a></nav><p>hi</p></body></html>'
    assert parse_html(links, "http://h.test/", main_content=True).text == "a long menu of links hi"


def test_snippets_come_from_the_main_content(tmp_path: Path) -> None:
    routes = {f"/p{n}": doc_page(f"Page {n}", f"chapter {n} explains the stream of pipe "
                                              f"buffers and flow number {n} in depth " * 3)
              for n in range(1, 5)}
    routes["/"] = html("home", "docs", [(path, path) for path in routes])
    settings = Settings(data_dir=tmp_path / "data", agents=1, delay=0.0, hours=0.05,
                        progress_interval=60.0, total_timeout=5.0, main_content=True)
    with LoopbackWeb([Site("127.0.66.1", routes)]) as web:
        run_index(dataclasses.replace(settings, seeds=(web.url("127.0.66.1", "/"),)),
                  progress=False)
    with open_searcher(settings.index_dir) as searcher:
        hits = searcher.search("stream pipe").hits
        assert len(hits) == 4
        assert all("tutorial" not in hit.snippet and "explains" in hit.snippet for hit in hits)
        assert searcher.search("tutorial").total == 0
