"""The query server answers while `webcrawler index` writes in another process.

A writer process (spawned, as on Python 3.14) adds documents to the index and
rows to the database in batches and commits; between commits the app keeps
answering, and soon after each commit it finds the new documents: no lock
errors, no searcher left stale.
"""

from __future__ import annotations

import multiprocessing
import queue
import time
from pathlib import Path

from sqlalchemy import insert

from webcrawler.database.schema import connect, documents, sqlite_url
from webcrawler.database.states import State
from webcrawler.index import IndexedDocument, open_writer
from webcrawler.query_server import create_app

BATCHES = 4
PER_BATCH = 3


def write_batches(
    data_dir: Path, commands: multiprocessing.Queue, done: multiprocessing.Queue
) -> None:
    """The writer: one batch per command (a batch number), None to stop."""
    writer = open_writer(data_dir / "index")
    engine = connect(sqlite_url(data_dir))
    try:
        while (batch := commands.get()) is not None:
            ids = [1000 + batch * PER_BATCH + n for n in range(PER_BATCH)]
            writer.add(
                [
                    IndexedDocument(
                        i,
                        f"http://127.0.3.5/zebra{i}.html",
                        f"Zebra {i}",
                        f"zebra stripes number {i}",
                        "127.0.3.5",
                    )
                    for i in ids
                ]
            )
            with engine.begin() as conn:
                conn.execute(
                    insert(documents),
                    [
                        dict(
                            id=i,
                            server_id=1,
                            path=f"/zebra{i}",
                            state=State.FETCHED,
                            discovered_at=time.time(),
                        )
                        for i in ids
                    ],
                )
            time.sleep(0.05)  # readers run while the batch is written but not committed
            writer.commit()
            done.put(batch)
    finally:
        writer.close()
        engine.dispose()


def until_seen(client, url: str, key: str, expected: int) -> dict:  # type: ignore[no-untyped-def]
    """The JSON answer to `url` once its `key` is `expected`: the searcher opens a new commit
    in the background, so it shows within a fraction of a second (here: within 10 s)."""
    deadline = time.monotonic() + 10
    while True:
        data = client.get(url).get_json()
        if data[key] == expected or time.monotonic() > deadline:
            assert data[key] == expected, data
            return data
        time.sleep(0.05)


def test_new_documents_appear_after_each_commit(data_dir: Path) -> None:
    app = create_app(data_dir, testing=True, stats_ttl=0.0)
    client = app.test_client()
    context = multiprocessing.get_context("spawn")
    commands, done = context.Queue(), context.Queue()
    writer = context.Process(target=write_batches, args=(data_dir, commands, done), daemon=True)
    writer.start()
    answered = 0
    try:
        assert client.get("/api/search?q=zebra").get_json()["total"] == 0
        for batch in range(1, BATCHES + 1):
            commands.put(batch)
            deadline = time.monotonic() + 60
            while True:  # keep searching while the other process writes
                response = client.get("/api/search?q=zebra+OR+biology&n=100")
                assert response.status_code == 200, response.get_data(as_text=True)
                assert client.get("/api/stats").status_code == 200
                answered += 1
                try:
                    assert done.get(timeout=0.01) == batch
                    break
                except queue.Empty:
                    assert time.monotonic() < deadline, "the writer did not commit in time"
            data = until_seen(client, "/api/search?q=zebra&n=100", "total", batch * PER_BATCH)
            assert data["results"][0]["score"] == 1000
            stats = until_seen(client, "/api/stats", "index_documents", 26 + batch * PER_BATCH)
            assert stats["documents"]["fetched"] == 26 + batch * PER_BATCH
    finally:
        commands.put(None)
        writer.join(timeout=30)
        app.extensions["webcrawler.sources"].close()
    assert writer.exitcode == 0
    assert answered >= BATCHES
