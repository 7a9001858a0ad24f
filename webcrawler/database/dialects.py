"""What differs between the databases webcrawler runs on, in one place.

SQLite is the embedded default; PostgreSQL (psycopg 3,
``postgresql+psycopg://...``) is the database for a crawl that outgrows one
machine. Everything else in webcrawler speaks SQLAlchemy Core and never asks
which one it has: the differences below are all there are.

- One writer at a time. The engine's store keeps one transaction open for a
  few hundred documents, and a real-time search beside `webcrawler index` is a
  second writer of the same rows. SQLite serialises them with
  ``BEGIN IMMEDIATE`` (behind a file-lock turnstile, so that the waiting writer
  gets the lock next); PostgreSQL with a transaction-level advisory lock taken
  at BEGIN, which the server hands out in arrival order. Without it, two
  writers adding the same URL would meet on the unique key and one would fail.
- Readers. SQLite readers get ``query_only``; PostgreSQL sessions of a reader
  are ``default_transaction_read_only``.
- Text. PostgreSQL refuses NUL characters in text, which a hostile server can
  put in a robots.txt or a redirect; on PostgreSQL they are stored as U+FFFD.
  (SQLite's path pays nothing for this.)
- Lengths. SQLite never enforces VARCHAR(n), and what a server sends (an ETag, a
  Content-Type) is not always cut to fit; PostgreSQL would refuse the whole
  transaction for one long header, so there its VARCHAR(n) columns are TEXT (as
  fast; the schema's lengths stay as documentation).
- "Insert unless the key exists" is spelled per dialect (`insert_ignore`), and so is
  "insert, or replace the row with the same key" (`insert_replacing`).
- Patience: how long a writer waits for the lock (`wait_for_writers`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX: no turnstile
    fcntl = None  # type: ignore[assignment]

from sqlalchemy import String, Table, event, insert
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.dml import Insert

SQLITE = "sqlite"
POSTGRESQL = "postgresql"
BUSY_TIMEOUT_MS = 30_000
# pg_advisory_xact_lock key of "the webcrawler writer" (advisory locks are per database)
WRITER_LOCK = 0x77656263  # "webc"
REPLACEMENT = "\ufffd"


def shown(url: str) -> str:
    """The URL as messages show it: without its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return repr(url)


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite URL (None: not SQLite, in memory, or not a URL at all)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if parsed.get_backend_name() != SQLITE or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def configure(engine: Engine, readonly: bool) -> None:
    """Give a freshly created engine its database's connection settings (see the docstring)."""
    name = engine.dialect.name
    if name == SQLITE:
        _configure_sqlite(engine, readonly)
    elif name == POSTGRESQL:
        _configure_postgresql(engine, readonly)


def connect_args(url: str, readonly: bool) -> dict[str, Any]:
    """Arguments for the driver's connect(): PostgreSQL readers are read-only sessions."""
    if readonly and url.startswith(POSTGRESQL):
        return {"options": "-c default_transaction_read_only=on"}
    return {}


def insert_ignore(dialect: str, table: Table) -> Insert:
    """INSERT that keeps an existing row with the same key (SQLite, PostgreSQL, MySQL)."""
    if dialect == SQLITE:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table).on_conflict_do_nothing()
    if dialect == POSTGRESQL:
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(table).on_conflict_do_nothing()
    return insert(table).prefix_with("IGNORE")


def insert_replacing(dialect: str, table: Table, key: str) -> Insert | None:
    """INSERT whose row replaces the one with the same `key` (every other column taken from
    the new row, a column it does not name set to NULL), as a DELETE then INSERT would, in one
    statement (SQLite, PostgreSQL); None for another database, which keeps the two."""
    if dialect == SQLITE:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        statement: Any = sqlite_insert(table)
    elif dialect == POSTGRESQL:
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        statement = postgresql_insert(table)
    else:
        return None
    replaced = {c.name: statement.excluded[c.name] for c in table.columns if c.name != key}
    return statement.on_conflict_do_update(index_elements=[key], set_=replaced)


def wait_for_writers(engine: Engine, milliseconds: int) -> None:
    """Let the engine's writes wait up to `milliseconds` for another writer's lock (SQLite's
    busy timeout; a PostgreSQL writer waits for the advisory lock as long as it takes)."""
    if engine.dialect.name == SQLITE:
        @event.listens_for(engine, "connect")
        def _patient(dbapi_conn, _record):
            dbapi_conn.execute(f"PRAGMA busy_timeout = {milliseconds}")

        engine.dispose()


def param_cleaner(dialect: str) -> Callable[[Any], Any] | None:
    """What a statement's parameters must go through before the driver (None: nothing)."""
    return _without_nul if dialect == POSTGRESQL else None


# --- SQLite ---------------------------------------------------------------------------------

def _configure_sqlite(engine: Engine, readonly: bool) -> None:
    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn, _record):
        # Let SQLAlchemy's BEGIN (below) decide when a transaction starts.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if readonly:
            cursor.execute("PRAGMA query_only = ON")
        else:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    turnstile = None if engine.url.database in (None, "", ":memory:") else \
        f"{engine.url.database}-turnstile"

    @event.listens_for(engine, "begin")
    def _begin(conn):
        if readonly:
            conn.exec_driver_sql("BEGIN")
            return
        # Writers take the write lock up front: a deferred transaction that read first fails at
        # once ("database is locked", no busy wait) when another writer - a real-time search
        # beside `webcrawler index` - committed meanwhile. The turnstile, a file lock held while
        # waiting, hands the lock to the waiting writer rather than back to the one that just
        # committed.
        with _turnstile(turnstile):
            conn.exec_driver_sql("BEGIN IMMEDIATE")


@contextmanager
def _turnstile(path: str | None) -> Iterator[None]:
    if path is None or fcntl is None:
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


# --- PostgreSQL -----------------------------------------------------------------------------

@compiles(String, POSTGRESQL)
def _unbounded(type_: String, compiler: Any, **kw: Any) -> str:
    """VARCHAR(n) is created as TEXT on PostgreSQL (see the module's docstring)."""
    return "TEXT" if type_.length else compiler.visit_string(type_, **kw)


def _configure_postgresql(engine: Engine, readonly: bool) -> None:
    @event.listens_for(engine, "before_cursor_execute", retval=True)
    def _clean(conn, cursor, statement, parameters, context, executemany):
        return statement, _without_nul(parameters)

    if readonly:
        return

    @event.listens_for(engine, "begin")
    def _begin(conn):
        # The lock is released by the transaction's COMMIT or ROLLBACK, or when the session dies.
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITER_LOCK})")


def _without_nul(value: Any) -> Any:
    """`value` (a parameter, or a dict / list / tuple of them) with NUL characters replaced."""
    if isinstance(value, str):
        return value.replace("\x00", REPLACEMENT) if "\x00" in value else value
    if isinstance(value, Mapping):
        return {key: _without_nul(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_without_nul(item) for item in value)
    return value
