"""The crawl's store on both databases it runs on (SQLite, PostgreSQL: `database_url`).

The hot path runs prepared statements on the driver's own cursor (sqlite3 or
psycopg 3), so every statement of it is run here against each driver, with
what a hostile web can put in text, and with a second writer beside the crawl.
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from webcrawler.database.schema import (
    DatabaseDamaged,
    check_database,
    connect,
    documents,
    index_outbox,
    links,
    servers,
)
from webcrawler.database.states import State
from webcrawler.engine.records import FrontierEntry, NewURL
from webcrawler.engine.store.memory import MemoryStore
from webcrawler.engine.store.outbox_rows import record_inlinks
from webcrawler.engine.store.sql import CrawlStore

ORIGIN = "http://127.0.4.90:8080"


@pytest.fixture
def store(database_url: str):
    engine = connect(database_url)
    store = CrawlStore(engine)
    yield store
    store.close()
    engine.dispose()


def rows(database_url: str, statement) -> list:  # type: ignore[no-untyped-def]
    engine = connect(database_url, readonly=True)
    try:
        with engine.connect() as conn:
            return list(conn.execute(statement).all())
    finally:
        engine.dispose()


def test_hot_path_round_trip(store: CrawlStore, database_url: str) -> None:
    server = store.add_server(ORIGIN, now=1.0)
    ids, fresh = store.add_urls(server, [NewURL("/", 0), NewURL("/a", 1), NewURL("/", 0),
                                         NewURL("/b", 1)], now=2.0)
    assert fresh == {"/", "/a", "/b"} and len(set(ids.values())) == 3
    again, fresh_again = store.add_urls(server, [NewURL("/a", 5), NewURL("/c", 2)], now=3.0)
    assert again["/a"] == ids["/a"] and fresh_again == {"/c"}
    assert server.queued == 4 and server.docs_known == 4

    home = store.next_document(server)
    assert home is not None and (home.path, home.depth) == ("/", 0)  # breadth-first
    assert store.record_fetch(home, State.FETCHED, "sum1", 4.0, status=200, title="Home") is False
    assert store.duplicate_of("sum1", ids["/a"]) == ids["/"]
    assert store.duplicate_of("sum1", ids["/"]) is None
    store.add_links(ids["/"], [(ids["/a"], "to a"), (ids["/b"], "to b")])
    store.add_links(ids["/"], [(ids["/a"], "to a again")])  # a stored pair is kept
    store.outbox_put(ids["/"], 7, b"\x00\xffpayload")
    store.outbox_put(ids["/"], 8, b"newer")
    page_a = store.next_document(server)
    assert page_a is not None and page_a.path == "/a"
    store.finish(page_a, State.FAILED, reason="http-404", status=404)
    run = store.start_run()
    store.update_run(run, docs=2, failures=1, ended=True, stop_reason="done")
    store.commit()

    home_again = store.next_document(server)
    assert home_again is not None and home_again.path == "/b"
    store.commit()
    assert rows(database_url, select(documents.c.path, documents.c.state, documents.c.times_fetched)
                .order_by(documents.c.id)) == [("/", "fetched", 1), ("/a", "failed", 0),
                                                ("/b", "queued", 0), ("/c", "queued", 0)]
    assert rows(database_url, select(links.c.target_id, links.c.anchor).order_by(links.c.target_id)) \
        == [(ids["/a"], "to a"), (ids["/b"], "to b")]
    assert rows(database_url, select(index_outbox.c.batch, index_outbox.c.payload)) == [(8, b"newer")]
    assert rows(database_url, select(servers.c.queued, servers.c.docs_known)) == [(2, 4)]


def test_a_refetch_that_changed_is_counted(store: CrawlStore) -> None:
    server = store.add_server(ORIGIN, now=1.0)
    store.add_urls(server, [NewURL("/", 0)], now=1.0)
    first = store.next_document(server)
    assert first is not None
    store.record_fetch(first, State.QUEUED, "old", 2.0)  # back in the queue, as a recrawl would
    again = store.next_document(server)
    assert again is not None
    assert store.record_fetch(again, State.FETCHED, "new", 3.0) is True


def test_urls_added_again_after_a_rollback_are_new_again(store: CrawlStore,
                                                          database_url: str) -> None:
    """The ids add_urls remembers go with the transaction that inserted them."""
    server = store.add_server(ORIGIN, now=1.0)
    store.commit()
    kept, _ = store.add_urls(server, [NewURL("/kept", 1)], now=2.0)
    store.commit()
    store.add_urls(server, [NewURL("/dropped", 1)], now=3.0)
    store.rollback()
    ids, fresh = store.add_urls(server, [NewURL("/kept", 1), NewURL("/dropped", 1)], now=4.0)
    assert fresh == {"/dropped"} and ids["/kept"] == kept["/kept"]
    store.commit()
    stored = dict(rows(database_url, select(documents.c.path, documents.c.id)))
    assert stored == {"/kept": ids["/kept"], "/dropped": ids["/dropped"]}


def test_text_a_hostile_server_sends_is_stored(store: CrawlStore, database_url: str) -> None:
    """PostgreSQL refuses NUL in text: it is stored as U+FFFD there. Text longer than its
    column's declared length is kept whole, as SQLite keeps it."""
    server = store.add_server(ORIGIN, now=1.0)
    ids, _ = store.add_urls(server, [NewURL("/nul", 0)], now=1.0)
    entry = store.next_document(server)
    assert entry is not None
    store.finish(entry, State.FAILED, reason="r" * 100, content_type="text/" + "x" * 300,
                 detail="bad\x00byte \u00e9\U0001f600")
    store.save_robots(server, 200, "User-agent: *\x00\nDisallow: /x", 2.0, 3.0)
    store.commit()
    (detail, reason, kind), = rows(database_url, select(
        documents.c.detail, documents.c.reason, documents.c.content_type).where(
        documents.c.id == ids["/nul"]))
    assert (reason, kind) == ("r" * 100, "text/" + "x" * 300)
    (robots,), = rows(database_url, select(servers.c.robots_txt))
    assert detail.replace("\ufffd", "\x00") == "bad\x00byte \u00e9\U0001f600"
    assert robots.replace("\ufffd", "\x00") == "User-agent: *\x00\nDisallow: /x"


def test_a_second_writer_waits_for_the_first(store: CrawlStore, database_url: str) -> None:
    """A real-time search beside `webcrawler index`: both add the same URL; the second waits
    for the first's commit and then finds it, rather than failing on the unique key."""
    server = store.add_server(ORIGIN, now=1.0)
    store.commit()
    ids, _ = store.add_urls(server, [NewURL("/shared", 0)], now=2.0)  # transaction stays open
    started, done = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def second_writer() -> None:
        started.set()
        engine = connect(database_url)
        other = CrawlStore(engine)
        try:
            other_server = other.add_server(ORIGIN, now=3.0)
            seen["ids"], seen["fresh"] = other.add_urls(other_server, [NewURL("/shared", 0)], 3.0)
            other.commit()
        except Exception as error:  # reported below, in the test's thread
            seen["error"] = error
        finally:
            other.close()
            engine.dispose()
            done.set()

    thread = threading.Thread(target=second_writer)
    thread.start()
    started.wait(30)
    assert not done.wait(0.5), "the second writer did not wait for the first to commit"
    store.commit()
    thread.join(60)
    assert "error" not in seen, seen.get("error")
    assert seen["ids"] == ids and seen["fresh"] == set()


def test_a_reader_cannot_write(database_url: str) -> None:
    connect(database_url).dispose()
    reader = connect(database_url, readonly=True)
    try:
        with reader.connect() as conn, pytest.raises(DBAPIError):
            conn.execute(servers.delete())
    finally:
        reader.dispose()


def test_check_database(database_url: str) -> None:
    check_database(database_url)  # empty: a new crawl
    engine = connect(database_url)
    check_database(database_url)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE index_outbox"))
    engine.dispose()
    with pytest.raises(DatabaseDamaged, match="index_outbox"):
        check_database(database_url)


def test_an_older_database_gains_the_columns_it_lacks(database_url: str) -> None:
    connect(database_url).dispose()
    engine = connect(database_url)
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE documents DROP COLUMN change_bucket"))
    engine.dispose()
    connect(database_url).dispose()  # adds it back, with its default
    assert rows(database_url, select(documents.c.change_bucket)) == []
    engine = connect(database_url)
    store = CrawlStore(engine)
    try:
        server = store.add_server(ORIGIN, now=1.0)
        store.add_urls(server, [NewURL("/", 0)], now=1.0)
        store.commit()
    finally:
        store.close()
        engine.dispose()
    assert rows(database_url, select(documents.c.change_bucket)) == [(0,)]


def test_the_servers_work_index_is_partial_on_either_database(database_url: str) -> None:
    """The index of servers with work holds only those with URLs queued, on PostgreSQL too,
    whose condition the schema adds only when a PostgreSQL database is opened."""
    connect(database_url).dispose()
    query = (text("SELECT sql FROM sqlite_master WHERE name = 'ix_servers_work'")
             if database_url.startswith("sqlite") else
             text("SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_servers_work'"))
    [(definition,)] = rows(database_url, query)
    assert "WHERE" in definition.upper() and "queued > 0" in definition


def test_the_schema_imports_no_postgresql_dialect() -> None:
    """Every crawl's engine and index writer import the schema: PostgreSQL's dialect is loaded
    by the databases that use it only."""
    import subprocess
    import sys

    code = ("import sys, webcrawler.database.schema; "
            "print('sqlalchemy.dialects.postgresql' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True).stdout.split() == ["False"]


def test_a_documents_new_outbox_row_replaces_the_old_one_whole(store: CrawlStore,
                                                               database_url: str) -> None:
    """A document sent again replaces its row, the in-links its indexed entry was built with
    forgotten (the writer records them again with the new entry), as a removal's row would be."""
    server = store.add_server(ORIGIN, now=1.0)
    ids, _ = store.add_urls(server, [NewURL("/", 0), NewURL("/other", 1)], now=2.0)
    store.outbox_put(ids["/"], 3, b"first")
    store.outbox_put(ids["/other"], 3, b"other")
    record_inlinks(store.conn, {ids["/"]: 5, ids["/other"]: 2})
    store.outbox_put(ids["/"], 4, b"second")
    store.commit()
    assert sorted(rows(database_url, select(index_outbox.c.doc_id, index_outbox.c.batch,
                                            index_outbox.c.payload, index_outbox.c.inlinks))) \
        == [(ids["/"], 4, b"second", None), (ids["/other"], 3, b"other", 2)]


@pytest.mark.parametrize("in_memory", [False, True], ids=["database", "memory"])
def test_a_url_fetched_again_is_counted_in_its_servers_queue_until_finished(
        store: CrawlStore, in_memory: bool) -> None:
    """`requeue` (a toolkit crawl fetching a URL its data directory knows) counts the URL in
    its server's queue, and the fetch's `finish` takes it out again: in either store."""
    book: CrawlStore | MemoryStore = MemoryStore() if in_memory else store
    server = book.add_server(ORIGIN, now=1.0)
    ids, _ = book.add_urls(server, [NewURL("/", 0), NewURL("/a", 1)], now=2.0)
    home = book.next_document(server)
    assert home is not None and home.path == "/"
    book.record_fetch(home, State.FETCHED, "sum", 3.0)
    assert server.queued == 1  # /a
    book.requeue(server, ids["/"])
    assert server.queued == 2
    book.record_fetch(FrontierEntry(ids["/"], server.id, "/", 0), State.FETCHED, "sum", 4.0)
    assert server.queued == 1
