"""The real-time search on a loopback web with a known topic structure."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from tests.realtime.conftest import search
from tests.realtime.topicweb import TopicWeb
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.engine.realtime.search import Found
from webcrawler.engine.scheduling.orders.anchor_text import anchor_scores
from webcrawler.index import open_searcher


def test_anchor_scores_put_the_matching_anchor_first() -> None:
    scores = anchor_scores("sailing boats", ["chess rook", "sailing boats and yachts", "see also",
                                             "boats", "cooking soup"])
    assert scores[1] > scores[3] > 0
    assert scores[0] == scores[2] == scores[4] == 0
    assert all(0 <= s <= 1 for s in scores)
    assert anchor_scores("sailing", []) == []


# Timing: on a busy machine the last page can be fetched before the found one is counted
# ("nothing left to fetch" instead of "enough found"), so it runs alone.
@pytest.mark.wallclock
def test_follows_the_link_whose_anchor_matches_the_query_first(tmp_path: Path) -> None:
    routes: dict = {}
    site = Site("127.0.7.20", routes, robots_txt="User-agent: *\nAllow: /\n")
    with LoopbackWeb([site]) as web:
        # Not indexed (X-Robots-Tag): its anchors hold the query's words, and while it was the
        # only page in the index it would be the best result, found or not by the timing.
        routes["/"] = dataclasses.replace(html("A start page", "links to many things", [
            ("/a.html", "chess openings"), ("/b.html", "soup recipes"), ("/c.html", "see also"),
            ("/d.html", "sailing boats in the harbour"), ("/e.html", "garden roses")]),
            headers=(("X-Robots-Tag", "noindex"),))
        for path, title in [("/a.html", "Chess"), ("/b.html", "Soup"), ("/c.html", "Misc"),
                            ("/e.html", "Roses")]:
            routes[path] = html(title, f"a page about {title.lower()}")
        routes["/d.html"] = html("Sailing boats", "sailing boats yacht harbour sailing boats")
        events: list = []
        summary = search(tmp_path / "data", "sailing boats", events, settings={"agents": 1},
                         start_urls=(web.url("127.0.7.20", "/"),), want=1, threshold=500)
        documents = [p for p in web.log.paths() if p != "/robots.txt"]
    assert documents[:2] == ["/", "/d.html"]
    assert summary.stop_reason == "enough found"
    assert [(f.url.rsplit("/", 1)[1], f.new) for f in events if isinstance(f, Found)] == [
        ("d.html", True)]


def test_documents_found_now_are_indexed_and_returned(topic_web: TopicWeb, indexed: Path) -> None:
    events: list = []
    summary = search(indexed, "sailing boats", events, want=4, threshold=600, max_fetches=60)
    assert summary.stop_reason == "enough found", summary
    new = [e for e in events if isinstance(e, Found) and e.new]
    old = [e for e in events if isinstance(e, Found) and not e.new]
    assert len(new) >= 4 and summary.found == len(new)
    assert old, "the index's own answers come first"
    # pages of other topics mention sailing in their anchors, but rank below the threshold
    assert all(topic_web.topic_of(e.url) == "sailing" for e in new)
    with open_searcher(indexed / "index") as searcher:
        urls = {h.url for h in searcher.search("sailing boats", per_page=100).hits}
    assert {e.url for e in new} <= urls


@pytest.mark.wallclock
def test_the_time_limit_stops_the_search(indexed: Path) -> None:
    started = time.monotonic()
    summary = search(indexed, "chess opening", settings={"delay": 0.5}, seconds=2.0,
                     want=1000, threshold=1, max_fetches=1000)
    assert summary.stop_reason == "time limit"
    assert time.monotonic() - started < 15


def test_the_fetch_limit_stops_the_search(topic_web: TopicWeb, indexed: Path) -> None:
    mark = len(topic_web.fetched())
    summary = search(indexed, "astronomy telescope", want=1000, threshold=1, max_fetches=5)
    assert summary.fetched == 5
    assert len(topic_web.fetched()) - mark == 5
    assert summary.stop_reason == "nothing left to fetch"


def test_a_query_that_cannot_run_is_refused(indexed: Path) -> None:
    import pytest

    from webcrawler.index import QueryError

    with pytest.raises(QueryError):
        search(indexed, "the of and")
