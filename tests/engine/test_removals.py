"""Index removals are durable outbox rows (engine/pipeline/outbox.py): the last row of a document wins
in both index writers and in a rebuild (`--reindex`), and a crawl killed with kill -9 after
the database said a page is gone, before the index applied it, converges when `webcrawler
index` starts again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import select

from webcrawler.database.schema import INDEXED, REMOVED, connect, documents, index_outbox
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.engine.pipeline.index_sink import IndexSink
from webcrawler.engine.pipeline.outbox import pack
from webcrawler.engine.pipeline.reindex import run_reindex
from webcrawler.engine.pipeline.shard_writer import run_shard_writer
from webcrawler.engine.store.sql import CrawlStore, NewURL
from webcrawler.index import IndexedDocument, open_searcher, open_writer
from webcrawler.settings import Settings

ADDRESS = "127.0.17.1"


def _apply_single(store: CrawlStore, index_dir: Path, url: str) -> None:
    IndexSink(store, index_dir).close()  # re-sends what waits, waits for the index, acknowledges


def _apply_sharded(store: CrawlStore, index_dir: Path, url: str) -> None:
    for shard in range(2):
        run_shard_writer(index_dir, url, shard, 2, lambda: False, until_empty=True)


def _apply_reindex(store: CrawlStore, index_dir: Path, url: str) -> None:
    run_reindex(Settings(data_dir=index_dir.parent, db_url=url), progress=False)


def outbox(url: str) -> dict[int, tuple[int, bytes]]:
    engine = connect(url, readonly=True)
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(index_outbox.c.doc_id, index_outbox.c.batch,
                                       index_outbox.c.payload)).all()
    finally:
        engine.dispose()
    return {int(d): (int(b), bytes(p)) for d, b, p in rows}


@pytest.mark.parametrize("apply", [_apply_single, _apply_sharded, _apply_reindex],
                         ids=["one-index", "two-shards", "reindex"])
def test_the_last_row_of_a_document_wins_in_both_writers(
        tmp_path: Path, database_url: str, apply: Callable[[CrawlStore, Path, str], None]) -> None:
    engine = connect(database_url)
    store = CrawlStore(engine)
    index_dir = tmp_path / "index"
    server = store.add_server(f"http://{ADDRESS}", time.time())  # fetched documents: a rebuild's
    ids, _ = store.add_urls(server, [NewURL("/1", 0), NewURL("/2", 0)], time.time(), State.FETCHED)
    one, two = ids["/1"], ids["/2"]

    def put(doc_id: int, batch: int, text: str | None) -> None:
        document = IndexedDocument(doc_id, f"http://{ADDRESS}/{doc_id}", "note", str(text), ADDRESS)
        store.outbox_put(doc_id, batch, REMOVED if text is None else pack(document))

    try:
        put(one, 1, "tomato")
        put(two, 1, "basil")
        store.commit()
        apply(store, index_dir, database_url)
        with open_searcher(index_dir) as searcher:
            assert searcher.search("tomato").total == searcher.search("basil").total == 1
        put(one, 2, "cider")  # an add, then a removal of the same document: removed
        put(two, 2, None)  # a removal, then an add: indexed
        store.conn.commit()
        put(one, 3, None)
        put(two, 3, "sage")
        store.conn.commit()
        apply(store, index_dir, database_url)
    finally:
        store.close()
        engine.dispose()
    with open_searcher(index_dir) as searcher:
        assert [h.doc_id for h in searcher.search("sage").hits] == [two]
        assert sum(searcher.search(w).total for w in ("tomato", "basil", "cider")) == 0
    assert {d: b for d, (b, _p) in outbox(database_url).items()} == {two: INDEXED}  # removal gone


def _index(data: Path, url: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "webcrawler.cli", "index", "--data-dir", str(data), "--db", url,
            "--delay", "0", "--agents", "2", "--commit-every", "1", "--no-progress", *args]


def _incremental(seed: str, hours: float) -> tuple[str, ...]:
    return ("--incremental", "--recrawl", "uniform", "--hours", str(hours), "--seed", seed,
            "--min-revisit", "0")


def _state(url: str, path: str) -> str | None:
    engine = connect(url, readonly=True)
    try:
        with engine.connect() as conn:
            return conn.execute(select(documents.c.state).where(documents.c.path == path)).scalar()
    finally:
        engine.dispose()


def _hits(index_dir: Path, word: str) -> int:
    with open_searcher(index_dir) as searcher:
        return searcher.search(word).total


def _run(command: list[str]) -> None:
    env = {**os.environ, "WEBCRAWLER_COMMIT_SECONDS": "0.3"}
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]


def test_kill_9_between_the_database_and_the_index_converges_on_restart(
        tmp_path: Path, database_url: str) -> None:
    data, index_dir = tmp_path / "data", tmp_path / "data" / "index"
    pages = {"/": html("home", "home", [("/doomed", "doomed"), ("/kept", "kept")]),
             "/doomed": html("doomed", "the zeppelin hangar page"),
             "/kept": html("kept", "the walrus enclosure page")}
    with LoopbackWeb([Site(ADDRESS, pages)]) as web:
        seed = web.url(ADDRESS, "/")
        _run(_index(data, database_url, "--seed", seed))  # a batch crawl ends when all is fetched
        assert _hits(index_dir, "zeppelin") == 1
        del pages["/doomed"]  # now a 404: the recrawl finds it gone
        blocker = open_writer(index_dir)
        blocker.add([])  # holds the index's write lock: the crawl's index process waits for it
        env = {**os.environ, "WEBCRAWLER_COMMIT_SECONDS": "0.3"}
        crawl = subprocess.Popen(_index(data, database_url, *_incremental(seed, 0.05)), env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        try:
            end = time.monotonic() + 60
            while _state(database_url, "/doomed") != State.GONE and time.monotonic() < end:
                time.sleep(0.1)
        finally:
            os.killpg(crawl.pid, signal.SIGKILL)  # the engine, its agents and its index process
            crawl.wait(timeout=30)
            blocker.close()
        assert _state(database_url, "/doomed") == State.GONE, "the recrawl did not find the 404"
        doomed = _doc_id(database_url, "/doomed")
        batch, payload = outbox(database_url)[doomed]
        assert payload == REMOVED and batch != INDEXED  # committed with the 404, not yet applied
        assert _hits(index_dir, "zeppelin") == 1  # the index never saw it
        _run(_index(data, database_url))  # the restart re-sends what the outbox holds
    assert _hits(index_dir, "zeppelin") == 0 and _hits(index_dir, "walrus") == 1
    assert doomed not in outbox(database_url)


def _doc_id(url: str, path: str) -> int:
    engine = connect(url, readonly=True)
    try:
        with engine.connect() as conn:
            return int(conn.execute(select(documents.c.id).where(documents.c.path == path)).scalar())
    finally:
        engine.dispose()
