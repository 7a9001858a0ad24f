"""Politeness that adapts to the server (slow answers, 429/503) and comes back down, and an
incremental crawl's minimum revisit interval, read from the servers' own access logs."""

from __future__ import annotations

from collections import Counter

from tests.support.flakyweb import slow
from webcrawler.demoweb.server import LoopbackWeb, Site
from webcrawler.engine.scheduling.politeness import AdaptiveDelay
from webcrawler.engine.scheduling.scheduler import ServerState
from webcrawler.protocol.messages import Document, Failure
from webcrawler.settings import Settings

from .conftest import crawl, pages


def answer(elapsed: float) -> Document:
    return Document(1, "http://a/", "http://a/", 200, "text/html", "utf-8", "", "",
                    elapsed=elapsed)


def test_the_delay_follows_the_response_time_and_comes_back_down():
    adapt, server = AdaptiveDelay(Settings(delay_factor=2.0, max_delay=30.0)), ServerState(1, "x")
    for _ in range(12):
        adapt.observe(server, answer(1.0))
    assert 1.9 < server.adaptive_delay <= 2.0  # two times a one-second answer
    for _ in range(12):
        adapt.observe(server, answer(0.01))
    assert server.adaptive_delay < 0.05  # the server recovered: so do we


def test_429_and_503_double_the_delay_up_to_the_ceiling():
    adapt, server = AdaptiveDelay(Settings(max_delay=5.0)), ServerState(1, "x")
    adapt.observe(server, Failure(1, "http://a/", "http-error", status=429))
    assert server.adaptive_delay == 1.0
    adapt.observe(server, Failure(1, "http://a/", "http-error", status=503))
    assert server.adaptive_delay == 2.0
    for _ in range(5):
        adapt.observe(server, Failure(1, "http://a/", "http-error", status=503))
    assert server.adaptive_delay == 5.0


def test_with_no_delay_asked_only_429_and_503_slow_a_server():
    adapt, server = AdaptiveDelay(Settings(delay=0.0)), ServerState(1, "x")
    adapt.observe(server, answer(5.0))
    assert server.adaptive_delay == 0.0
    adapt.observe(server, Failure(1, "http://a/", "http-error", status=503))
    assert server.adaptive_delay == 1.0
    adapt.observe(server, answer(5.0))
    assert server.adaptive_delay == 0.5


def test_no_adaptation_with_a_zero_factor():
    adapt, server = AdaptiveDelay(Settings(delay_factor=0.0)), ServerState(1, "x")
    adapt.observe(server, Failure(1, "http://a/", "http-error", status=503))
    assert server.adaptive_delay == 0.0


def test_a_slow_server_is_asked_less_often_one_request_at_a_time(settings):
    routes = {path: slow(0.2, page) for path, page in pages(6).items()}
    with LoopbackWeb([Site("127.0.6.20", routes)]) as web:
        crawl(settings, [web.url("127.0.6.20")], delay=0.01, delay_factor=1.0)
        web.log.settle()
        hits = web.log.snapshot()
    gaps = [after.started - before.finished for before, after in zip(hits, hits[1:], strict=False)]
    assert min(gaps) >= 0  # never two requests in flight
    assert all(gap >= 0.09 for gap in gaps[1:]), gaps  # at least half the 0.2 s answer time


def test_an_incremental_crawl_revisits_a_page_at_most_once_per_interval(settings):
    with LoopbackWeb([Site("127.0.6.21", pages(3))]) as web:
        crawl(settings, [web.url("127.0.6.21")], incremental=True, recrawl="uniform",
              hours=2.0 / 3600, min_revisit=60.0)
        per_path = Counter(web.log.paths())
    assert per_path["/"] == 1 and max(per_path.values()) == 1, per_path
