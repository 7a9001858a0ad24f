"""Politeness that adapts to the server (slow answers, 429/503) and comes back down, and an
incremental crawl's minimum revisit interval, read from the servers' own access logs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tests.support.flakyweb import RateLimited, slow
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Site
from webcrawler.engine.records import ServerState
from webcrawler.engine.scheduling.leases import ServerLeases, next_leased_server
from webcrawler.engine.scheduling.politeness import FLOOR_ON_OVERLOAD, HOLD, AdaptiveDelay
from webcrawler.engine.scheduling.scheduler import Scheduler
from webcrawler.protocol.messages import Document, Failure
from webcrawler.settings import Settings

from .conftest import crawl, pages, rows


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


def refused(retry_after: float | None = None) -> Failure:
    return Failure(1, "http://a/", "http-error", status=429, retry_after=retry_after)


def test_a_refused_interval_is_not_tried_again_until_the_server_has_answered_calmly():
    adapt, server = AdaptiveDelay(Settings(delay=0.5, max_delay=30.0)), ServerState(1, "x")
    adapt.observe(server, refused())  # 0.5 s was too close
    assert server.wait(0.5) == 1.0
    waits = []
    for _ in range(HOLD + 10):
        adapt.observe(server, answer(0.01))
        waits.append(server.wait(0.5))
    assert waits[:HOLD] == [1.0] * HOLD  # held at twice the refused interval
    steps = [round(a - b, 9) for a, b in zip(waits[HOLD - 1:], waits[HOLD:], strict=False)]
    assert len(set(steps)) == 1 and steps[0] > 0  # then down by equal steps (additive)
    assert waits[-1] == 0.5  # ten answers more to reach the interval that was refused


def test_a_refusal_during_the_descent_doubles_the_interval_it_refused():
    adapt, server = AdaptiveDelay(Settings(delay=0.0)), ServerState(1, "x")
    adapt.observe(server, refused())
    for _ in range(HOLD + 5):
        adapt.observe(server, answer(0.01))
    drew = server.wait(0.0)
    adapt.observe(server, refused())
    assert server.wait(0.0) == 2 * drew


def test_retry_after_pauses_the_server_whatever_answer_drew_it():
    adapt, server = AdaptiveDelay(Settings()), ServerState(1, "x")
    adapt.observe(server, refused(retry_after=7.0), now=100.0)
    assert server.paused_until == 107.0


def test_the_lease_waits_what_the_scheduler_waits(tmp_path: Path):
    """A server that taught us 5 s is not asked by another process 0 s after our request."""
    server = ServerState(1, "http://127.0.6.23:1", queued=1)
    server.adaptive_delay = 5.0
    ours, theirs = ServerLeases(tmp_path), ServerLeases(tmp_path)
    assert ours.acquire(server.origin, server.wait(0.0)) is None
    ours.release(server.origin)
    scheduler = Scheduler(0.0)
    scheduler.add(server, 0.0)
    assert next_leased_server(scheduler, theirs, 0.0, 0.0) is None  # deferred for the 5 s
    assert 0.0 < server.next_allowed <= 5.0
    theirs.close()
    ours.close()


def test_a_rate_limited_server_refuses_at_most_a_tenth_of_our_requests(settings):
    """A server that refuses requests closer than 0.05 s (429, no Retry-After, as nginx's
    limit_req): refused requests at most a tenth of all, and no page lost."""
    limited = RateLimited(pages(40), interval=0.05)
    with LoopbackWeb([Site("127.0.6.22", limited)]) as web:
        crawl(settings, [web.url("127.0.6.22")])
    asked = limited.accepted + limited.refused
    assert limited.refused <= asked / 10, (limited.refused, asked)
    found = rows(settings)
    assert len(found) == 41 and all(r["state"] == State.FETCHED for r in found.values())


def test_429_and_503_double_the_delay_up_to_the_ceiling():
    adapt, server = AdaptiveDelay(Settings(delay=1.0, max_delay=5.0)), ServerState(1, "x")
    adapt.observe(server, Failure(1, "http://a/", "http-error", status=429))
    assert server.adaptive_delay == 2.0
    adapt.observe(server, Failure(1, "http://a/", "http-error", status=503))
    assert server.adaptive_delay == 4.0
    for _ in range(5):
        adapt.observe(server, Failure(1, "http://a/", "http-error", status=503))
    assert server.adaptive_delay == 5.0


def test_with_no_delay_asked_only_429_and_503_slow_a_server():
    adapt, server = AdaptiveDelay(Settings(delay=0.0)), ServerState(1, "x")
    adapt.observe(server, answer(5.0))
    assert server.adaptive_delay == 0.0
    adapt.observe(server, Failure(1, "http://a/", "http-error", status=503))
    assert server.adaptive_delay == FLOOR_ON_OVERLOAD  # we waited nothing: a first guess
    for _ in range(HOLD):
        adapt.observe(server, answer(5.0))
    assert server.adaptive_delay == FLOOR_ON_OVERLOAD  # held
    adapt.observe(server, answer(5.0))
    assert 0 < server.adaptive_delay < FLOOR_ON_OVERLOAD  # then coming down


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
