"""Sitemap `lastmod` in the incremental crawl, and `priority` in the crawl order.

A loopback site names its sitemap in robots.txt; between two incremental crawls one listed
page is edited and the sitemap dates the edit. The second crawl reads the sitemap first,
makes the edited page due, and dates its change by the sitemap (the server sends no
Last-Modified: without the sitemap's date the change could not be dated at all).
"""

from __future__ import annotations

import dataclasses
import random
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.recrawl.test_incremental import crawl, rows
from tests.support.waiting import wait_until
from webcrawler.agents import sitemap
from webcrawler.commands.index import run_index
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.recrawl.buckets import History, bucket
from webcrawler.recrawl.lastmod import UNTRUSTED
from webcrawler.recrawl.policies import RecrawlPlan
from webcrawler.settings import Settings

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
ADDRESS = "127.0.64.1"


def urlset(entries: list[tuple[str, str, str]]) -> str:
    """A sitemap of (path, lastmod, priority) entries ("" leaves the field out)."""
    body = "".join(f"<url><loc>{loc}</loc>" + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "")
                   + (f"<priority>{priority}</priority>" if priority else "") + "</url>"
                   for loc, lastmod, priority in entries)
    return f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="{NS}">{body}</urlset>'


DAILY = RecrawlPlan(first_interval=86400.0)  # a real site's pace: in the test only a sitemap
# makes a page due


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", agents=2, delay=0.0, hours=6 / 3600,
                    incremental=True, recrawl="adaptive", fetch_rate=25.0, commit_every=5,
                    min_revisit=0.0, commit_seconds=0.5, progress_interval=60.0,
                    connect_timeout=2.0, read_timeout=2.0, total_timeout=5.0)


def test_lastmod_and_priority_are_read() -> None:
    found = sitemap.parse(urlset([
        ("/low", "2024-05-01", "0.1"), ("/plain", "2024-05-01T10:30:00+02:00", ""),
        ("/high", "2024", "0.9"), ("/tie", "not a date", "0.5"), ("/odd", "2024-06", "7"),
    ]).encode(), "http://a.test/sitemap.xml")
    assert found.urls == ("http://a.test/odd", "http://a.test/high", "http://a.test/plain",
                          "http://a.test/tie", "http://a.test/low")  # 7 is taken as 1.0
    assert dict(found.lastmods) == {
        "http://a.test/low": datetime(2024, 5, 1, tzinfo=UTC).timestamp(),
        "http://a.test/plain": datetime(2024, 5, 1, 8, 30, tzinfo=UTC).timestamp(),
        "http://a.test/high": datetime(2024, 1, 1, tzinfo=UTC).timestamp(),
        "http://a.test/odd": datetime(2024, 6, 1, tzinfo=UTC).timestamp(),
    }  # an unreadable date is no date


def test_a_sitemaps_pages_are_fetched_by_priority_then_in_its_order(settings: Settings) -> None:
    listed = [("/low", "", "0.1"), ("/plain", "", ""), ("/high", "", "0.9"), ("/tie", "", "0.5")]
    routes = {"/": html("home", "no links"), "/sitemap.xml": Page(urlset(listed))}
    routes.update({path: html(path, f"page {path}") for path, _, _ in listed})
    with LoopbackWeb([Site(ADDRESS, routes, robots_txt="User-agent: *\n")]) as web:
        run_index(dataclasses.replace(settings, incremental=False, agents=1, hours=0.05,
                                      seeds=(web.url(ADDRESS, "/"),)), progress=False)
        fetched = [path for path in web.log.paths() if path in dict.fromkeys(p for p, _, _ in listed)]
    assert fetched == ["/high", "/plain", "/tie", "/low"]


def test_a_newer_lastmod_makes_a_page_due_and_dates_its_change(settings: Settings) -> None:
    dates = {"/edited": "2020-01-01", "/same": "2020-01-01"}
    text = {"/edited": "the ferry timetable for the winter months lists four crossings a day "
                       "from the harbour to the island and back again",
            "/same": "the museum opens on sundays only and keeps its collection of old maps "
                     "in the tower room above the library"}

    def route(path: str) -> Page | None:
        if path == "/sitemap.xml":
            return Page(urlset([(web.url(ADDRESS, p), d, "") for p, d in dates.items()]),
                        content_type="application/xml")
        if path in text:
            return html(path, text[path])
        return html("home", "nothing linked") if path == "/" else None

    robots = "User-agent: *\nSitemap: /sitemap.xml\n"
    with LoopbackWeb([Site(ADDRESS, route, robots_txt=robots)]) as web:
        run_index(dataclasses.replace(settings, incremental=False, hours=0.05,  # a batch crawl first
                                      seeds=(web.url(ADDRESS, "/"),)), progress=False)
        first = rows(settings)
        assert first["/edited"]["times_fetched"] >= 1 and first["/sitemap.xml"]["times_fetched"] >= 1
        edited_at = int(time.time()) + 1  # a whole second after its last fetch, as sitemaps date
        wait_until(lambda: time.time() > edited_at + 0.1, timeout=5)
        text["/edited"] += ", and in summer a fifth crossing leaves at midnight for the festival"
        dates["/edited"] = datetime.fromtimestamp(edited_at, UTC).isoformat()
        before = len(web.log.paths())
        crawl(settings, web.url(ADDRESS, "/"), DAILY)
        second = [path for path in web.log.paths()[before:] if path != "/robots.txt"]
    after = rows(settings)
    assert second[0] == "/sitemap.xml" and "/edited" in second  # the sitemap first, then the page
    edited = after["/edited"]
    assert edited["times_changed"] == 1
    assert edited["change_ages"] not in (None, UNTRUSTED)  # dated by the sitemap
    assert 0 <= edited["change_ages"] <= edited["last_change"] - edited_at + 1
    assert after["/same"]["times_changed"] == 0


def test_changefreq_is_read_as_written() -> None:
    body = (f'<urlset xmlns="{NS}"><url><loc>/a</loc><changefreq>Daily</changefreq></url>'
            "<url><loc>/b</loc><changefreq>now and then</changefreq></url><url><loc>/c</loc></url>"
            "</urlset>").encode()
    found = sitemap.parse(body, "http://a.test/sitemap.xml")
    assert dict(found.changefreqs) == {"http://a.test/a": "daily", "http://a.test/b": "now and then"}


WORDS = ("harbour ferry island tower library museum winter summer crossing festival map room "
         "garden bridge market river mill school chapel square").split()


def words(seed: int, count: int = 60) -> str:
    """`count` words drawn by `seed` (no digits: shingles read every number as one)."""
    draw = random.Random(seed)
    return " ".join(draw.choice(WORDS) + draw.choice(WORDS) for _ in range(count))


def test_a_sitemaps_changefreq_groups_give_pages_their_priors(settings: Settings) -> None:
    """Six pages the sitemap calls "always" change at every request, six it calls "never" never
    do. Recrawled alike (uniform), each group's pooled recrawls become its pages' prior
    (recrawl/priors.py): a "never" page's bucket is far slower than its own few recrawls alone
    would say, an "always" page's no slower."""
    served = {"n": 0}
    always, never = [f"/always{k}" for k in range(6)], [f"/never{k}" for k in range(6)]

    def route(path: str) -> Page | None:
        if path == "/sitemap.xml":
            body = "".join(f"<url><loc>{web.url(ADDRESS, p)}</loc><changefreq>{freq}</changefreq></url>"
                           for group, freq in ((always, "always"), (never, "never")) for p in group)
            return Page(f'<?xml version="1.0"?><urlset xmlns="{NS}">{body}</urlset>',
                        content_type="application/xml")
        if path in always:
            served["n"] += 1
            n = served["n"]
            return html(path, words(n))
        if path in never:
            return html(path, words(-1 - never.index(path)))
        return html("home", "nothing linked") if path == "/" else None

    robots = "User-agent: *\nSitemap: /sitemap.xml\n"
    with LoopbackWeb([Site(ADDRESS, route, robots_txt=robots)]) as web:
        crawl(dataclasses.replace(settings, recrawl="uniform", hours=10 / 3600, fetch_rate=50.0),
              web.url(ADDRESS, "/"), RecrawlPlan(first_interval=0.2))
    found = rows(settings)

    def alone(row: dict) -> int:  # the bucket of the page's own history, no prior
        return bucket(History(row["times_fetched"], row["times_changed"],
                              row["last_fetch"] - row["first_fetch"]))

    slow = [found[p] for p in never if found[p]["times_fetched"] >= 3]
    fast = [found[p] for p in always if found[p]["times_fetched"] >= 3]
    assert len(slow) >= 4 and len(fast) >= 4  # the crawl recrawled both groups
    assert all(row["times_changed"] == 0 for row in slow)
    assert all(row["change_bucket"] > alone(row) for row in slow)
    assert all(row["change_bucket"] <= alone(row) for row in fast)
