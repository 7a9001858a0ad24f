"""Retries that respect the server, on loopback servers that fail as real ones do: every page
that a later try would get is indexed, no request falls in a Retry-After window, tries are
bounded and each try's reason is kept."""

from __future__ import annotations

import dataclasses
import itertools

from tests.support.flakyweb import RESET, Flaky, error, first, too_many, unavailable
from webcrawler.agents.retry_after import retry_after
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Site

from .conftest import crawl, pages, rows, windows_kept

ROTATION = [unavailable(1), error(500), RESET, too_many(1), error(502), error(504)]


def test_every_page_of_a_flaky_site_is_indexed_and_retry_after_is_obeyed(settings):
    kinds = itertools.cycle(ROTATION)
    plan = {f"/p{i}": next(kinds) for i in range(1, 13)}
    routes = Flaky(pages(12), lambda path, n: plan.get(path) if n == 1 else None)
    with LoopbackWeb([Site("127.0.6.1", routes)]) as web:
        summary = crawl(settings, [web.url("127.0.6.1")])
        web.log.settle()
        hits = web.log.snapshot()
    found = rows(settings)
    assert all(found[f"/p{i}"]["state"] == State.FETCHED for i in range(1, 13)), summary
    assert routes.requests["/p1"] == 2 and max(routes.requests.values()) == 2  # one retry each
    assert windows_kept(hits, 1.0) == []
    assert found["/p1"]["tries"] == 2
    assert found["/p1"]["attempts"] == [["http-error", 503, "HTTP 503"]]
    assert found["/p3"]["attempts"][0][0] == "connection-error"  # the reset
    assert "retries 12" in summary and "recovered 12" in summary


def test_tries_are_bounded_and_only_the_last_failure_is_final(settings):
    routes = Flaky(pages(2), lambda path, n: error(500) if path == "/p1" else None)
    with LoopbackWeb([Site("127.0.6.2", routes)]) as web:
        summary = crawl(settings, [web.url("127.0.6.2")], retries=2)
    row = rows(settings)["/p1"]
    assert routes.requests["/p1"] == 3
    assert (row["state"], row["reason"], row["status"], row["tries"]) == (
        State.FAILED, "http-error", 500, 3)
    assert [a[1] for a in row["attempts"]] == [500, 500, 500]
    assert "final failures 1" in summary and "recovered 0" in summary


def test_a_429_slows_the_whole_server_not_just_the_url(settings):
    routes = Flaky(pages(6), first(1, too_many(1)))  # every path's first request: 429
    with LoopbackWeb([Site("127.0.6.3", routes)]) as web:
        crawl(settings, [web.url("127.0.6.3")])
        web.log.settle()
        hits = web.log.snapshot()
    assert all(r["state"] == State.FETCHED for r in rows(settings).values())
    assert windows_kept(hits, 1.0) == []


def test_a_retry_after_beyond_the_cap_fails_the_page_and_is_still_obeyed(settings):
    routes = Flaky(pages(3), lambda path, n: unavailable(3600) if path == "/p2" else None)
    with LoopbackWeb([Site("127.0.6.4", routes)]) as web:
        summary = crawl(settings, [web.url("127.0.6.4")])
        web.log.settle()
        hits = web.log.snapshot()
    row = rows(settings)["/p2"]
    assert routes.requests["/p2"] == 1 and row["state"] == State.FAILED
    assert "3600" in row["attempts"][0][2] or "3600" in (row["detail"] or ""), row
    assert windows_kept(hits, 3600) == []  # the server's other pages wait for a later crawl
    assert "nothing left to fetch" in summary


def test_a_resumed_crawl_retries_passing_failures(settings, database_url):
    settings = dataclasses.replace(settings, db_url=database_url)  # SQLite and PostgreSQL
    down = {"on": True}
    routes = Flaky(pages(3), lambda path, n: error(503) if down["on"] and path.startswith("/p") else None)
    with LoopbackWeb([Site("127.0.6.5", routes)]) as web:
        crawl(settings, [web.url("127.0.6.5")], retries=0)
        assert {r["state"] for p, r in rows(settings).items() if p != "/"} == {State.FAILED}
        down["on"] = False
        crawl(settings, [])
    assert all(r["state"] == State.FETCHED for r in rows(settings).values())
    assert rows(settings)["/p1"]["attempts"] == [["http-error", 503, "HTTP 503"]]


def test_retry_after_in_seconds_and_as_an_http_date():
    assert retry_after({"Retry-After": "7"}) == 7.0
    assert retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:30 GMT",
                        "Date": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 30.0
    assert retry_after({"Retry-After": "soon"}) is None
    assert retry_after({}) is None


def test_a_new_server_paused_for_long_does_not_hold_back_the_others(settings):
    """Server-first order waits for new servers' first documents; one whose robots.txt asks
    for an hour (503, Retry-After: 3600) must not make every other server wait that hour."""
    paused = pages(2, "paused")
    paused["/robots.txt"] = unavailable(3600)
    sites = [Site("127.0.6.6", pages(6, "open")), Site("127.0.6.7", paused)]
    with LoopbackWeb(sites) as web:
        summary = crawl(settings, [web.url("127.0.6.6"), web.url("127.0.6.7")])
        asked = web.log.paths(web.name("127.0.6.7"))
    assert "documents retrieved  7" in summary
    assert asked == ["/robots.txt"]  # and nothing inside its hour
