"""The index's link counts follow the links table during a crawl (`engine/pipeline/link_refresh.py`):
a page indexed before the pages linking to it were crawled is sent to the index again once
they are, so its rank changes without `--reindex` (on both databases). A hand-made loopback
web, crawled in two runs: the first indexes two equal pages with one in-link each; the
second finds four more links to one of them. With the refresh it ranks first, as in an index
rebuilt afterwards; without it the two still tie."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from sqlalchemy import insert, select

from tests.engine.conftest import crawl
from webcrawler.database.schema import INDEXED, connect, documents, index_outbox, links, servers
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.engine.pipeline import link_refresh
from webcrawler.engine.pipeline.reindex import run_reindex
from webcrawler.index import open_searcher
from webcrawler.settings import Settings

SITE = "127.0.18.31"
PAGES = {"/": html("Front", "welcome", [("/x", "first"), ("/y", "second"), ("/hub", "days")]),
         "/x": html("Note", "hangar report alpha"),
         "/y": html("Note", "hangar report betas"),
         "/hub": html("Days", "every day", [(f"/d{n}", f"day {n}") for n in range(1, 5)]),
         **{f"/d{n}": html(f"Day {n}", "daily page", [("/y", "the report")]) for n in range(1, 5)}}


def _hangar(settings: Settings) -> list[tuple[str, int]]:
    with open_searcher(settings.index_dir) as searcher:
        return [(h.url.rsplit("/", 1)[1], h.score) for h in searcher.search("hangar").hits]


def _indexed_inlinks(settings: Settings, path: str) -> int | None:
    engine = connect(settings.database_url, readonly=True)
    try:
        with engine.connect() as conn:
            return conn.execute(select(index_outbox.c.inlinks).join(
                documents, documents.c.id == index_outbox.c.doc_id)
                .where(documents.c.path == path)).scalar()
    finally:
        engine.dispose()


Ranks = list[tuple[str, int]]


def _two_runs(settings: Settings, every: int) -> tuple[Ranks, Ranks, str]:
    """The ranks of "hangar" after each run, and the second run's summary."""
    settings = dataclasses.replace(settings, link_refresh=every)
    with LoopbackWeb([Site(SITE, PAGES)]) as web:
        crawl(settings, [web.url(SITE, "/")], max_docs=4)  # /, /x, /y, /hub: breadth-first
        first = _hangar(settings)
        summary = crawl(settings, [], max_docs=0)  # the days, each linking to /y
    return first, _hangar(settings), summary


def test_a_page_gains_rank_as_links_to_it_are_crawled(database_url: str, settings: Settings) -> None:
    settings = dataclasses.replace(settings, db_url=database_url)
    first, then, summary = _two_runs(settings, every=2)
    assert "1 page sent to the index again as their in-links grew" in summary
    assert sorted(first) == [("x", 1000), ("y", 1000)]  # one link each, from the front page
    assert [page for page, _score in then] == ["y", "x"]
    assert _indexed_inlinks(settings, "/y") == 5 and _indexed_inlinks(settings, "/x") == 1
    run_reindex(settings, progress=False)  # every count read afresh: the same ranking, the
    rebuilt = _hangar(settings)  # scores within 1% (the replaced entry counts until a merge)
    assert [page for page, _s in rebuilt] == ["y", "x"] and abs(rebuilt[1][1] - then[1][1]) <= 10


def test_without_the_refresh_the_index_keeps_the_counts_it_was_built_with(tmp_path: Path,
                                                                           settings: Settings) -> None:
    first, then, summary = _two_runs(settings, every=0)
    assert "sent to the index again" not in summary
    assert sorted(first) == sorted(then) == [("x", 1000), ("y", 1000)]
    assert _indexed_inlinks(settings, "/y") == 1


def test_a_look_sends_the_largest_changes_first_and_at_most_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Targets 10-15 indexed with no in-link gain 1-6 links; 16 is indexed with the one it
    has; 17's row waits for the index already; 18 was indexed with 100 and has one left (a
    recrawl dropped the rest). With a bound of 3, a look sends 18, 15, 14, in that order,
    and forgets its sources; without the bound, every changed page the index holds."""
    monkeypatch.setattr(link_refresh, "MAX_RESEND", 3)
    engine = connect(f"sqlite:///{tmp_path / 'db.sqlite'}")
    with engine.begin() as conn:
        conn.execute(insert(servers).values(id=1, scheme="http", host="a.test", port=80,
                                            first_seen=0.0))
        conn.execute(insert(documents), [{"id": n, "server_id": 1, "path": f"/{n}",
                                          "state": "fetched", "discovered_at": 0.0}
                                         for n in range(1, 120)])
        conn.execute(insert(index_outbox), [
            {"doc_id": n, "batch": 7 if n == 17 else INDEXED, "payload": b"x",
             "inlinks": {16: 1, 18: 100}.get(n, 0)} for n in range(10, 19)])
        conn.execute(insert(links), _links({10 + i: i + 1 for i in range(6)} | {16: 1, 17: 6, 18: 1}))
    with engine.connect() as conn:
        refresh = link_refresh.LinkRefresh(conn, every=2, clock=iter(range(0, 10**6, 60)).__next__)
        for source in range(100, 120):
            refresh.fetched(source)
        assert refresh.due()
        assert refresh.look() == [18, 15, 14]
        assert not refresh.due() and refresh.sent == 3
        monkeypatch.setattr(link_refresh, "MAX_RESEND", 100)
        for source in range(100, 120):
            refresh.fetched(source)
        assert refresh.look() == [18, 15, 14, 13, 12, 11, 10]  # not 16 (no change), nor 17
    engine.dispose()


def test_looks_are_half_a_minute_apart_however_fast_documents_arrive(tmp_path: Path) -> None:
    """Two documents make a look due with `every=2` only once MIN_LOOK_SECONDS have passed
    since the last look (or the crawl's start); a minute makes one due with fewer."""
    engine = connect(f"sqlite:///{tmp_path / 'db.sqlite'}")
    now = [1000.0]
    with engine.connect() as conn:
        refresh = link_refresh.LinkRefresh(conn, every=2, clock=lambda: now[0])
        refresh.fetched(1)
        refresh.fetched(2)
        assert not refresh.due()  # two documents, but the crawl has just begun
        now[0] += link_refresh.MIN_LOOK_SECONDS
        assert refresh.due()
        assert refresh.look() == []  # nothing indexed links anywhere
        refresh.fetched(3)
        refresh.fetched(4)
        now[0] += link_refresh.MIN_LOOK_SECONDS - 1
        assert not refresh.due()  # `every` documents, a second too soon after the last look
        now[0] += 1
        assert refresh.due()
    with engine.connect() as conn:
        refresh = link_refresh.LinkRefresh(conn, every=1000, clock=lambda: now[0])
        refresh.fetched(5)
        now[0] += link_refresh.REFRESH_SECONDS
        assert refresh.due()  # a slow crawl: a look a minute
    engine.dispose()


def _links(gains: dict[int, int]) -> list[dict[str, object]]:
    """Links from sources 100-119 giving each target its number of in-links."""
    return [{"source_id": 100 + i, "target_id": target, "anchor": ""}
            for target, n in gains.items() for i in range(n)]
