"""Each limit stops the crawl with its reason; abort() stops it as "aborted"."""

from __future__ import annotations

from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.toolkit import Crawler, Limits

from .conftest import documents


def run(web, settings, limits, crawler_class=Crawler):
    return crawler_class(roots=[web.url("127.0.6.1", "/")], limits=limits, settings=settings).run()


def test_queue_empty(tree_web, settings):
    summary = run(tree_web, settings, Limits())
    assert (summary.stop_reason, summary.pages) == ("queue-empty", 7)
    assert summary["stop-reason"] == "queue-empty" and summary.pages_visited == 7


def test_page_limit(tree_web, settings):
    summary = run(tree_web, settings, Limits(pages=3))
    assert (summary.stop_reason, summary.pages) == ("limit-pages", 3)
    assert len(documents(tree_web)) == 3  # no request beyond the limit


def test_byte_limit(tree_web, settings):
    summary = run(tree_web, settings, Limits(bytes=300))
    assert summary.stop_reason == "limit-bytes"
    assert summary.bytes >= 300
    assert summary.pages < 7


def endless(path: str):
    """/n/0 -> /n/1 -> ... for ever (a trap a depth limit or the clock must end)."""
    number = int(path.rsplit("/", 1)[-1]) if path.startswith("/n/") else 0
    return html(f"page {number}", "deeper", [(f"/n/{number + 1}", "next")])


def test_time_limit(settings):
    with LoopbackWeb([Site("127.0.6.2", endless)]) as web:
        crawler = Crawler(roots=[web.url("127.0.6.2", "/n/0")], limits=Limits(seconds=1.0),
                          settings=settings)
        summary = crawler.run()
    assert summary.stop_reason == "limit-time"  # the web never ends: only the clock stops it
    assert summary.seconds >= 1.0


def test_depth_limit_ends_a_trap(settings):
    with LoopbackWeb([Site("127.0.6.2", endless)]) as web:
        crawler = Crawler(roots=[web.url("127.0.6.2", "/n/0")], limits=Limits(depth=4),
                          settings=settings)
        summary = crawler.run()
    assert (summary.stop_reason, summary.pages) == ("queue-empty", 5)


class Stopper(Crawler):
    def visit(self, page):
        if page.depth == 1:
            self.abort()


def test_abort(tree_web, settings):
    summary = run(tree_web, settings, Limits(), Stopper)
    assert summary.stop_reason == "aborted"
    assert 2 <= summary.pages < 7
