"""Traps on a loopback site that counts its requests: a relative link loop and an endless
calendar cost a bounded number of requests, far below what the depth limit would allow, and
are refused with the reason `trap`; a long pagination without a year is not a trap, and a
blog's monthly archive of ten years is crawled whole."""

from __future__ import annotations

import datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.calendars import (
    busy_calendar,
    daily_calendar,
    endless_calendar,
    monthly_archive,
)
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.engine.loop.traps import Calendars, date_in, date_pattern, likeness, loop_in

from .conftest import crawl, rows


def trap_site(path: str) -> Page | None:
    """/ links to a loop, a calendar and a 40-page pagination."""
    if path == "/":
        return html("home", "traps ahead", [("/loop/", "loop"), ("/cal?month=2026-11", "calendar"),
                                            ("/list?page=1", "list")])
    if path.startswith("/loop/"):
        # relative: /loop/a/, /loop/a/a/, ...; each a page of its own (it names where it is)
        return html(f"loop at {path}", "again", [("a/", "deeper")])
    if path.startswith("/cal"):
        year, month = map(int, parse_qs(urlsplit(path).query)["month"][0].split("-"))
        before = f"{year - (month == 1)}-{(month - 2) % 12 + 1:02d}"
        after = f"{year + (month == 12)}-{month % 12 + 1:02d}"
        return html(f"{year}-{month}", "no events", [(f"/cal?month={before}", "previous"),
                                                     (f"/cal?month={after}", "next")])
    if path.startswith("/list"):
        page = int(parse_qs(urlsplit(path).query)["page"][0])
        return html(f"list {page}", "items", [(f"/list?page={page + 1}", "next")] if page < 40 else [])
    return None


def test_a_link_loop_and_a_calendar_cost_bounded_requests(settings):
    with LoopbackWeb([Site("127.0.6.40", trap_site)]) as web:
        summary = crawl(settings, [web.url("127.0.6.40")], trap_repeats=3, trap_budget=12)
        paths = web.log.paths()
    loop = [p for p in paths if p.startswith("/loop/")]
    calendar = [p for p in paths if p.startswith("/cal")]
    assert loop == ["/loop/", "/loop/a/", "/loop/a/a/", "/loop/a/a/a/"]
    assert 0 < len(calendar) <= 12
    assert len([p for p in paths if p.startswith("/list")]) == 40  # no year: not a calendar
    refused = [r for r in rows(settings).values() if r["reason"] == "trap"]
    assert refused and all(r["state"] == State.EXCLUDED for r in refused)  # calendar pages
    assert "trap" in summary


def test_the_rules():
    assert loop_in("/a/b/a/b/a/b/a/", 3) and not loop_in("/a/b/a/b/a/b/", 3)
    assert not loop_in("/a/a/a/a/a", 0)
    assert date_pattern("/cal?month=2026-11") == "/cal?month=#-#"
    assert date_pattern("/events/20261126/") == "/events/#/"
    assert date_pattern("/list?page=1234567") is None
    budget = Calendars(2)
    assert budget.allows("o", "/c/2026/1", 1) and budget.allows("o", "/c/2026/2", 2)
    assert not budget.allows("o", "/c/2026/3", 3) and budget.allows("o", "/c/2026/1", 1)
    assert budget.allows("other", "/c/2026/3", 3)


def test_dates_and_likeness():
    assert date_in("/cal?month=2026-11") == datetime.date(2026, 11, 1)
    assert date_in("/events/2026/11/29/") == datetime.date(2026, 11, 29)
    assert date_in("/agenda/202611") == datetime.date(2026, 11, 1)
    assert date_in("/y/2031/") == datetime.date(2031, 1, 1)
    assert date_in("/list?page=12") is None
    assert likeness("Events on Sunday, 29 November 2026", "none", ["/e/2026/11/30/"]) == \
        likeness("Events on Monday, 30 November 2026", "none", ["/e/2026/12/01/"])
    assert likeness("Archive 2026-10", "post one", []) != likeness("Archive 2026-11", "post two", [])


def test_a_date_beyond_a_year_ahead_is_refused():
    today = datetime.date(2026, 11, 29)
    calendars = Calendars(400, today=today)
    assert calendars.allows("o", "/agenda/202711", 1)
    assert not calendars.allows("o", "/agenda/202801", 2)
    assert calendars.allows("o", "/agenda/201001", 3)  # the past: an archive's


def test_pages_alike_but_for_their_dates_close_the_pattern_even_before_1900():
    calendars = Calendars(400)
    for day in range(1, 9):
        calendars.answered("o", f"/cal/1901-01-{day:02d}", f"Day 1901-01-{day:02d}", "none", [])
    assert not calendars.allows("o", "/cal/1901-01-09", 9)
    assert not calendars.allows("o", "/cal/1899-12-31", 10)
    assert calendars.allows("other", "/cal/1901-01-09", 11)


TODAY = datetime.date.today()
FEW_DOZEN = 36  # requests: what an endless date sequence may cost, at most


@pytest.mark.parametrize("routes", [endless_calendar, daily_calendar, busy_calendar],
                         ids=["months-both-ways", "days", "months-that-differ"])
def test_an_endless_date_sequence_is_stopped_within_a_few_dozen_requests(settings, routes):
    """With the default trap settings, whichever way the dates run."""
    with LoopbackWeb([Site("127.0.6.41", routes(TODAY))]) as web:
        summary = crawl(settings, [web.url("127.0.6.41")], hours=60 / 3600)
        asked = [p for p in web.log.paths() if p not in ("/", "/robots.txt")]
    assert 0 < len(asked) <= FEW_DOZEN, len(asked)
    assert "(nothing left to fetch)" in summary and "trap" in summary


def test_a_monthly_archive_of_ten_years_is_crawled_whole(settings):
    with LoopbackWeb([Site("127.0.6.42", monthly_archive(TODAY, 120))]) as web:
        crawl(settings, [web.url("127.0.6.42")], hours=60 / 3600)
        months = [p for p in web.log.paths() if p.count("/") == 4 and p.startswith("/archive/")]
    assert len(set(months)) == 120
    assert not [r for r in rows(settings).values() if r["reason"] == "trap"]
