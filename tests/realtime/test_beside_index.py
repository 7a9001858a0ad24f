"""A real-time search while `webcrawler index` crawls the same data directory.

Both write the database (SQLite, one writer at a time) and the index (Whoosh, one
writer at a time): neither may fail, nothing may be lost, and each sees the
other's documents.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

from sqlalchemy import select, text

from tests.realtime.conftest import search
from tests.realtime.topicweb import TopicWeb
from tests.support.waiting import wait_until
from webcrawler.database.schema import connect, crawls, documents
from webcrawler.database.states import State
from webcrawler.engine.realtime.search import Found
from webcrawler.index import open_searcher, open_writer


def wait_for_index(index_dir: Path, documents: int, timeout: float = 40.0) -> None:
    def indexed() -> bool:
        try:
            with open_searcher(index_dir) as searcher:
                return searcher.doc_count() >= documents
        except FileNotFoundError:
            return False

    wait_until(indexed, timeout, f"the index crawl indexing {documents} documents", interval=0.2)


def test_realtime_search_beside_a_running_index_crawl(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with TopicWeb(servers=3, pages_per_topic=25, seed=11) as web:
        command = [sys.executable, "-m", "webcrawler.cli", "index", "--data-dir", str(data),
                   "--agents", "2", "--delay", "0.1", "--commit-every", "10", "--max-docs", "100",
                   "--hours", "0.02", "--no-progress"]
        for home in web.homes():
            command += ["--seed", home]
        indexer = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        try:
            wait_for_index(data / "index", 10)
            assert indexer.poll() is None, "the index crawl should still be running"
            events: list = []
            summary = search(data, "sailing boats", events, settings={"delay": 0.1},
                             want=1000, threshold=1, max_fetches=30, seconds=25.0)
            out, err = indexer.communicate(timeout=90)
        finally:
            if indexer.poll() is None:
                indexer.kill()
        served = Counter(web.fetched())
    assert indexer.returncode == 0, err
    assert "Traceback" not in err and "locked" not in err, err
    assert summary.fetched == 30 and summary.stop_reason == "nothing left to fetch"
    assert any(isinstance(e, Found) and not e.new for e in events), "it saw the crawl's documents"
    assert any(isinstance(e, Found) and e.new for e in events)

    engine = connect(f"sqlite:///{data / 'webcrawler.db'}", readonly=True)
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        runs = dict(conn.execute(select(crawls.c.mode, crawls.c.documents)).all())
        fetched = set(conn.execute(select(documents.c.id).where(
            documents.c.state == State.FETCHED, documents.c.reason.is_(None))).scalars())
    engine.dispose()
    assert runs["index"] > 0 and runs["realtime"] > 0
    with open_writer(data / "index") as writer:
        assert writer.doc_ids() == fetched  # every document of both is indexed, nothing else
    # each skips what the other fetched, but for documents both took at about the same moment
    # (the crawl sees the search's documents at its next transaction, every 10 documents)
    twice = sum(n > 1 for url, n in served.items() if not url.endswith("/"))
    assert twice <= 0.1 * len(served), (twice, len(served))
