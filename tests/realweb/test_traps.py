"""Traps on a loopback site that counts its requests: a relative link loop and an endless
calendar cost a bounded number of requests, far below what the depth limit would allow, and
are refused with the reason `trap`; a long pagination without a year is not a trap."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.engine.loop.traps import DateBudget, date_pattern, loop_in

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
    assert len(calendar) == 12
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
    budget = DateBudget(2)
    assert budget.allows("o", "/c/2026/1", 1) and budget.allows("o", "/c/2026/2", 2)
    assert not budget.allows("o", "/c/2026/3", 3) and budget.allows("o", "/c/2026/1", 1)
    assert budget.allows("other", "/c/2026/3", 3)
