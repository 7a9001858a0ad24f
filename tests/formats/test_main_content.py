"""Main content (on by default): a page's navigation, sidebar and footer are not its text, so
snippets come from what the page says and the sidebar's words, which every page of the site
repeats, find nothing; the page's own outline in the sidebar stays its text."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from webcrawler.agents.parse import parse_html
from webcrawler.commands.index import run_index
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.index import open_searcher
from webcrawler.settings import Settings

SIDEBAR = ('<div class="sphinxsidebar"><h3>Navigation</h3><ul><li>stream pipe tutorial</li>'
           "<li>stream pipe reference, stream pipe howto</li></ul></div>")


def doc_page(title: str, words: str) -> Page:
    return Page(f"<html><head><title>{title}</title></head><body><header>Docs home</header>"
                f'<nav role="navigation">Index Modules Next Previous</nav>{SIDEBAR}'
                f'<div role="main"><h1>{title}</h1><p>{words}</p></div>'
                "<footer>Copyright the authors, built with a generator</footer></body></html>")


def test_boilerplate_is_not_the_text() -> None:
    page = str(doc_page("Sockets", "a socket pipe connects two stream ends " * 5).body)
    text = parse_html(page, "http://h.test/", main_content=True).text
    assert "Sockets a socket pipe" in text
    assert "Navigation" not in text and "Copyright" not in text and "Docs home" not in text
    assert "Navigation" in parse_html(page, "http://h.test/", main_content=False).text
    outline = page.replace("<h3>Navigation</h3>", '<h3>Contents</h3><ul><li><a href="#ends">'
                                                  "Stream ends</a></li></ul>")
    text = parse_html(outline, "http://h.test/", main_content=True).text  # the page's own outline
    assert text.startswith("Stream ends Sockets a socket pipe") and "Contents" not in text
    links = '<html><body><nav><a href="/a">a long menu of links</a></nav><p>hi</p></body></html>'
    assert parse_html(links, "http://h.test/", main_content=True).text == "a long menu of links hi"


def test_boilerplate_by_role_in_any_case() -> None:
    """A role attribute's name counts in any case (HTML's attribute names are case-blind); a
    page without one keeps what it says."""
    words = "the page says what it is about, at length and in detail " * 5
    for name in ("role", "ROLE", "Role"):
        page = (f'<html><body><div {name}="navigation">Home Modules Index</div>'
                f'<div {name}="banner">Docs of the project</div><p>{words}</p></body></html>')
        text = parse_html(page, "http://h.test/", main_content=True).text
        assert "Home" not in text and "Docs of" not in text and text.startswith("the page says")
    plain = f'<html><body><div class="x">Home Modules</div><p>{words}</p>'
    assert parse_html(plain, "http://h.test/", main_content=True).text.startswith("Home Modules")


def crawl(tmp_path: Path, **settings: object) -> Settings:
    routes = {f"/p{n}": doc_page(f"Page {n}", f"chapter {n} explains the stream of pipe "
                                              f"buffers and flow number {n} in depth " * 3)
              for n in range(1, 6)}
    routes["/howto"] = doc_page("Howto", "the howto for writing buffers, step by step " * 3)
    routes["/"] = html("home", "docs", [(path, path) for path in routes])
    config = Settings(data_dir=tmp_path / "data", agents=1, delay=0.0, hours=0.05,
                      progress_interval=60.0, total_timeout=5.0, **settings)  # type: ignore[arg-type]
    with LoopbackWeb([Site("127.0.66.1", routes)]) as web:
        run_index(dataclasses.replace(config, seeds=(web.url("127.0.66.1", "/"),)), progress=False)
    return config


def test_snippets_come_from_the_main_content(tmp_path: Path) -> None:
    with open_searcher(crawl(tmp_path).index_dir) as searcher:
        hits = searcher.search("stream pipe").hits
        assert len(hits) == 5
        assert all("tutorial" not in hit.snippet and "explains" in hit.snippet
                   for hit in hits), [hit.snippet for hit in hits]
        assert searcher.search("tutorial").total == 0  # the sidebar's words find nothing
        found = [hit.url.rsplit("/", 1)[1] for hit in searcher.search("howto").hits]
        assert found == ["howto", ""]  # the page saying it, the home page linking to it by name


def test_all_text_puts_the_sidebar_in_the_snippets(tmp_path: Path) -> None:
    with open_searcher(crawl(tmp_path, main_content=False).index_dir) as searcher:
        hits = searcher.search("stream pipe").hits
        assert any("tutorial" in hit.snippet for hit in hits[1:5])
