"""What a rendered page asks for passes the crawl's rules like a link (issue 37, item 5).

A script shell fetches three files of its own server: one the crawl's `--exclude` leaves
out, one robots.txt disallows, one both allow. Only the last may be fetched (the server's
access log says what was) and only its text indexed with the page.
"""

from __future__ import annotations

from pathlib import Path

from webcrawler.commands.index import run_index
from webcrawler.demoweb.server import LoopbackWeb, Page, Site
from webcrawler.index import open_searcher
from webcrawler.settings import Settings

SITE = "127.0.75.1"
SHELL = Page(
    "<!DOCTYPE html><html><head><title>Shell</title></head><body><div id=\"root\"></div><script>"
    "const root = document.getElementById('root');"
    "for (const path of ['/excluded/a.txt', '/disallowed/b.txt', '/open/c.txt']) {"
    "  fetch(path).then(r => r.text()).then(t => { root.innerHTML += '<p>' + t + '</p>'; });"
    "}"
    "</script></body></html>")
ROUTES = {
    "/": SHELL,
    "/robots.txt": Page("User-agent: *\nDisallow: /disallowed/\n", content_type="text/plain"),
    "/excluded/a.txt": Page("excluded armadillo", content_type="text/plain"),
    "/disallowed/b.txt": Page("disallowed badger", content_type="text/plain"),
    "/open/c.txt": Page("open capybara", content_type="text/plain"),
}


def test_a_rendered_pages_requests_obey_exclude_and_robots_txt(tmp_path: Path) -> None:
    with LoopbackWeb([Site(SITE, ROUTES)]) as web:
        settings = Settings(data_dir=tmp_path, agents=1, delay=0.0, hours=0.05,
                            progress_interval=60.0, total_timeout=20.0, render="auto",
                            render_timeout=6.0, exclude=("/excluded/",),
                            seeds=(web.url(SITE, "/"),))
        run_index(settings, progress=False)
        web.log.settle()
        paths = web.log.paths()
    assert "/open/c.txt" in paths
    assert "/excluded/a.txt" not in paths and "/disallowed/b.txt" not in paths
    with open_searcher(settings.index_dir) as searcher:
        assert len(searcher.search("capybara").hits) == 1  # the page was rendered
        assert searcher.search("armadillo").hits == []
        assert searcher.search("badger").hits == []
