"""The store's per-page lookups go through their index on SQLite.

A lookup that reads every indexed row costs nothing on a small crawl and makes a
large one quadratic; SQLite's planner has no statistics to choose by, so the
statements must leave it one choice.
"""

from __future__ import annotations

from pathlib import Path

from webcrawler.database.schema import connect
from webcrawler.database.states import State
from webcrawler.engine.store.sql import CrawlStore, NewURL

ORIGIN = "http://127.0.4.91:8080"


def test_the_duplicate_lookup_uses_the_checksum_index(tmp_path: Path) -> None:
    engine = connect(f"sqlite:///{tmp_path / 'webcrawler.db'}")
    store = CrawlStore(engine)
    try:
        server = store.add_server(ORIGIN, 0.0)
        ids, _ = store.add_urls(server, [NewURL(f"/p{n}", 1) for n in range(3)], 0.0)
        for n, (_, doc_id) in enumerate(sorted(ids.items())):
            store.conn.exec_driver_sql(
                "UPDATE documents SET state = ?, checksum = ? WHERE id = ?",
                (State.FETCHED, "same" if n < 2 else "other", doc_id))
        first, second, third = (ids[p] for p in sorted(ids))
        assert store.duplicate_of("same", second) == first
        assert store.duplicate_of("other", third) is None
        sql = store._sql.duplicate.sql
        values = ("same", *[0] * (sql.count("?") - 1))  # the plan does not depend on the values
        plan = store.conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", values).all()
        assert any("ix_documents_checksum" in str(row[-1]) for row in plan), plan
    finally:
        store.close()
        engine.dispose()
