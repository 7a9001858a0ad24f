"""Index shards fed from the outbox: a crawl with two shards searches like one index, the
writers can run as separate `webcrawler index-writer` processes, a row the engine
replaced while a writer indexed it stays waiting, and a removal reaches its shard."""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import select

from webcrawler.cli import main
from webcrawler.database.schema import INDEXED, REMOVED, connect, index_outbox
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.engine.pipeline.outbox import pack
from webcrawler.engine.pipeline.reindex import run_reindex
from webcrawler.engine.pipeline.shard_writer import (
    Databases,
    ShardWriterSummary,
    _acknowledge,
    run_shard_writer,
    take,
)
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.index import IndexedDocument, open_searcher, open_shard_writer
from webcrawler.index.format.version import shard_count
from webcrawler.query_server import create_app
from webcrawler.settings import Settings

from .conftest import crawl

WORDS = "tomato rose basil garden soil water seed harvest compost shade sun leaf".split()
QUERIES = ["tomato", "rose garden", "basil -water", '"garden soil"', "harvest compost sun"]


def _pages(count: int = 24) -> dict:
    rng = random.Random(15)
    pages = {"/": html("Garden", "garden home", [(f"/p{i}", f"page {i}") for i in range(count)])}
    for i in range(count):
        text = " ".join(rng.choices(WORDS, k=rng.randint(5, 40)))
        pages[f"/p{i}"] = html(f"{WORDS[i % len(WORDS)]} notes", text, [("/", "home")])
    return pages


def _answers(index_dir: Path) -> list[tuple[int, list[tuple[int, str]]]]:
    """Per query: the total and the (score, url) pairs; by URL, as two crawls number
    documents in their own fetch order."""
    with open_searcher(index_dir) as searcher:
        found = [searcher.search(q, per_page=100) for q in QUERIES]
    return [(r.total, sorted((h.score, h.url) for h in r.hits)) for r in found]


def _waiting(settings: Settings) -> int:
    engine = connect(settings.database_url, readonly=True)
    try:
        with engine.connect() as conn:
            return len(conn.execute(select(index_outbox.c.doc_id)
                                    .where(index_outbox.c.batch != INDEXED)).all())
    finally:
        engine.dispose()


def test_a_crawl_with_two_index_shards_searches_like_one_index(settings: Settings) -> None:
    with LoopbackWeb([Site("127.0.15.1", _pages())]) as web:
        seeds = [web.url("127.0.15.1", "/")]
        one = dataclasses.replace(settings, data_dir=settings.data_dir / "one")
        two = dataclasses.replace(settings, data_dir=settings.data_dir / "two", index_shards=2)
        crawl(one, seeds)
        crawl(two, seeds)
    assert sorted(p.name for p in two.index_dir.iterdir() if p.is_dir()) == ["shard-0", "shard-1"]
    assert _waiting(two) == 0
    # A page's link counts and anchor texts are those the links table held when it was
    # indexed, which the timing of each crawl decides: rebuilt after both crawls, the two
    # indexes read the same complete links table.
    for settled in (one, two):
        run_reindex(settled, progress=False)
    expected = _answers(one.index_dir)
    assert all(hits for _total, hits in expected)
    assert _answers(two.index_dir) == expected
    answers = []
    for data_dir in (one.data_dir, two.data_dir):  # the query server searches every shard
        app = create_app(data_dir, testing=True)
        try:
            with app.test_client() as client:
                found = client.get("/api/search?q=rose+garden&per_page=50").get_json()
                stats = client.get("/api/stats").get_json()
        finally:
            app.extensions["webcrawler.sources"].close()  # its searcher holds the shards' segments
        answers.append((found["total"], sorted((r["score"], r["url"]) for r in found["results"]),
                        stats["index_documents"]))
    assert answers[0] == answers[1] and answers[0][2] == 25


def test_external_index_writers_drain_the_outbox(settings: Settings) -> None:
    """`--external-index-writers`: the crawl only fills the outbox; two `webcrawler
    index-writer` processes index it, each its own shard."""
    sharded = dataclasses.replace(settings, index_shards=2, external_index_writers=True)
    with LoopbackWeb([Site("127.0.15.2", _pages(12))]) as web:
        crawl(sharded, [web.url("127.0.15.2", "/")])
    assert _waiting(sharded) == 13
    writers = [subprocess.run([sys.executable, "-m", "webcrawler.cli", "index-writer", "--shard",
                               str(k), "--shards", "2", "--until-empty", "--no-progress",
                               "--data-dir", str(sharded.data_dir)],
                              capture_output=True, text=True, timeout=120, check=False)
               for k in range(2)]
    assert [w.returncode for w in writers] == [0, 0], [w.stderr[-2000:] for w in writers]
    counts = [int(w.stdout.split("documents indexed")[0].split(":")[-1].replace(",", ""))
              for w in writers]
    assert sorted(counts) == [6, 7] and _waiting(sharded) == 0
    with open_searcher(sharded.index_dir) as searcher:
        assert searcher.doc_count() == 13
    runner = CliRunner()
    data = ["--data-dir", str(sharded.data_dir)]
    assert runner.invoke(main, ["optimize", *data]).exit_code == 0
    refused = runner.invoke(main, ["optimize", "--shard", "2", *data])
    assert refused.exit_code == 1 and "has no shard 2 (it has 2)" in refused.output
    assert runner.invoke(main, ["optimize", "--shard", "1", *data]).exit_code == 0
    with open_searcher(sharded.index_dir) as searcher:
        assert searcher.doc_count() == 13


def _document(doc_id: int, text: str) -> IndexedDocument:
    return IndexedDocument(doc_id, f"http://127.0.15.3/{doc_id}", "note", text, "127.0.15.3")


def test_a_removal_reaches_its_shard_and_a_replaced_row_stays_waiting(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'webcrawler.db'}"
    index_dir = tmp_path / "index"
    databases = Databases.open(url)
    store = CrawlStore(databases.writer)

    def put(doc_id: int, batch: int, text: str | None) -> None:
        payload = REMOVED if text is None else pack(_document(doc_id, text))
        store.outbox_put(doc_id, batch, payload)
        store.conn.commit()

    def shard_1(until_empty: bool = True) -> ShardWriterSummary:
        return run_shard_writer(index_dir, url, 1, 2, lambda: False, until_empty=until_empty)

    try:
        for doc_id in range(1, 7):
            put(doc_id, 1, f"tomato {doc_id}")
        assert shard_1().documents == 3  # 1, 3, 5: doc_id % 2 == 1
        put(3, 2, "basil")
        put(5, 2, None)
        second = shard_1()
        assert (second.documents, second.removed) == (1, 1)
        put(1, 3, "cider")
        with databases.reader.connect() as conn:
            rows = take(conn, 1, 2)
        put(1, 4, "sage")  # fetched again while the writer indexed batch 3
        _acknowledge(databases.writer, rows, {}, {})
        with databases.reader.connect() as conn:
            assert [(d, b) for d, b, _p in take(conn, 1, 2)] == [(1, 4)]
            assert [(d, b) for d, b, _p in take(conn, 0, 2)] == [(2, 1), (4, 1), (6, 1)]
    finally:
        store.close()
        databases.close()
    with open_shard_writer(index_dir, 1, 2) as writer:
        assert writer.doc_ids() == {1, 3}
    with open_searcher(index_dir) as searcher:
        assert [h.doc_id for h in searcher.search("basil").hits] == [3]
        assert searcher.search("tomato").total == 1  # doc 1 still; 3 replaced, 5 removed


def test_reindex_splits_one_index_into_shards(settings: Settings) -> None:
    with LoopbackWeb([Site("127.0.15.4", _pages(12))]) as web:
        crawl(settings, [web.url("127.0.15.4", "/")])
    expected = _answers(settings.index_dir)
    summary = run_reindex(dataclasses.replace(settings, index_shards=3), progress=False)
    assert "13 documents" in summary and "moved to" in summary
    assert shard_count(settings.index_dir) == 3
    assert _answers(settings.index_dir) == expected
    run_reindex(settings, progress=False)  # no --index-shards: as many as the index has
    assert shard_count(settings.index_dir) == 3
    assert _answers(settings.index_dir) == expected
