"""The database: servers, documents and links, as in the 1994 WebCrawler.

Whole URLs are never stored. A URL is a server (scheme, host, port) and a
document on it (path + query); a link is a pair of documents and its anchor
text. The three tables are indexed for the engine's hot questions, each
O(log n):

- "is this URL known?"            documents (server_id, path) unique
- "next document of server S"     documents (server_id, state, depth, id)
- "least recently accessed server with work"
                                  servers (last_access) where queued > 0

This module defines the schema and opens connections (SQLite in WAL mode by
default, PostgreSQL with psycopg 3; what differs between them is in
`webcrawler.database.dialects`). The engine is the only writer; the
query server opens the same database read-only.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from pathlib import Path

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    inspect,
    text,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, DatabaseError, DBAPIError, NoSuchModuleError

from webcrawler.database import dialects
from webcrawler.datadir import PRIVATE_FILE, DataDir, create_private
from webcrawler.errors import DataDamaged, install_command

SCHEMA_VERSION = 1

metadata = MetaData()


servers = Table(
    "servers",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("scheme", String(8), nullable=False),
    Column("host", String(255), nullable=False),
    Column("port", Integer, nullable=False),
    Column("first_seen", Float, nullable=False),
    Column("visited", Boolean, nullable=False, default=False),  # first document attempted
    Column("last_access", Float, nullable=False, default=0.0),
    Column("next_allowed", Float, nullable=False, default=0.0),
    Column("queued", Integer, nullable=False, default=0),  # documents waiting
    Column("docs_known", Integer, nullable=False, default=0),
    Column("docs_fetched", Integer, nullable=False, default=0),
    Column("docs_failed", Integer, nullable=False, default=0),
    Column("robots_status", Integer),  # HTTP status of robots.txt, None = unreachable / not yet
    Column("robots_txt", Text),
    Column("robots_fetched_at", Float),
    Column("robots_expires_at", Float),
    Column("crawl_delay", Float),
    UniqueConstraint("scheme", "host", "port", name="uq_server_origin"),
)
_SERVERS_WORK = Index(
    "ix_servers_work",
    servers.c.last_access,
    sqlite_where=servers.c.queued > 0,
)  # and postgresql_where, given once a PostgreSQL database is opened (_postgresql_options)

documents = Table(
    "documents",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("server_id", Integer, ForeignKey("servers.id"), nullable=False),
    Column("path", Text, nullable=False),
    Column("state", String(12), nullable=False),
    Column("reason", String(32)),
    Column("detail", Text),
    Column("depth", Integer, nullable=False, default=0),
    Column("discovered_at", Float, nullable=False),
    Column("status", Integer),
    Column("content_type", String(128)),
    Column("language", String(16)),  # ISO 639-1 or "unknown", as indexed (engine/pipeline/languages.py)
    Column("title", Text),
    Column("length", Integer),
    Column("checksum", String(64)),
    Column("last_fetch", Float),
    Column("times_fetched", Integer, nullable=False, default=0),
    Column("times_changed", Integer, nullable=False, default=0),
    Column("redirects", Integer, nullable=False, default=0),  # hops that led here
    # Recrawling (after WebFountain): the HTTP validators as received, the change
    # history and its one-byte bucket, when the page is due again, and its MinHash sketch.
    Column("etag", String(256)),
    Column("last_modified", String(64)),
    Column("last_change", Float),  # when the last non-trivial change was seen (first fetch too)
    # body differed, shingles alike; then 304s and byte-identical bodies
    Column("times_trivial", Integer, nullable=False, default=0, server_default="0"),
    Column("times_unmodified", Integer, nullable=False, default=0, server_default="0"),
    Column("times_not_modified", Integer, nullable=False, default=0, server_default="0"),  # 304s
    Column("change_bucket", SmallInteger, nullable=False, default=0, server_default="0"),  # 0-255
    Column("next_due", Float),
    Column("first_fetch", Float),  # with last_fetch, the span the change history covers
    # seconds of the recrawls that saw a change, and the shortest of them (buckets.History)
    Column("changed_seconds", Float),
    Column("shortest_change", Float),
    # sum of the last change's age (from Last-Modified) at each changed recrawl; -1: the page's
    # dates are untrusted (recrawl/lastmod.py)
    Column("change_ages", Float),
    Column("sketch", LargeBinary),
    # Retries (engine/loop/retries.py): tries made of a page that failed at least once, and each
    # failed try's reason as JSON [[reason, status, detail], ...]; NULL: one try sufficed.
    Column("tries", Integer),
    Column("attempts", Text),
    UniqueConstraint("server_id", "path", name="uq_document_url"),
)
Index("ix_documents_frontier", documents.c.server_id, documents.c.state, documents.c.depth, documents.c.id)
Index("ix_documents_state", documents.c.state, documents.c.reason)
Index("ix_documents_checksum", documents.c.checksum)
Index("ix_documents_due", documents.c.server_id, documents.c.next_due)

links = Table(
    "links",
    metadata,
    Column("source_id", Integer, ForeignKey("documents.id"), primary_key=True),
    Column("target_id", Integer, ForeignKey("documents.id"), primary_key=True),
    Column("anchor", Text, nullable=False, default=""),
)
Index("ix_links_target", links.c.target_id)

# A page that names another URL its canonical one (engine/loop/canonical.py): an alias, kept out of
# the index once the canonical page is in it.
aliases = Table(
    "aliases",
    metadata,
    Column("doc_id", Integer, ForeignKey("documents.id"), primary_key=True),
    Column("canonical_id", Integer, ForeignKey("documents.id"), nullable=False),
)
Index("ix_aliases_canonical", aliases.c.canonical_id)

crawls = Table(
    "crawls",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("mode", String(16), nullable=False, default="index"),
    Column("started_at", Float, nullable=False),
    Column("ended_at", Float),
    Column("documents", Integer, nullable=False, default=0),  # retrieved in this crawl
    Column("failures", Integer, nullable=False, default=0),
    Column("stop_reason", String(64)),
    Column("requests", Integer),  # requests sent (robots.txt too): fetches a second against
    Column("fetch_rate", Float),  # ... the run's --fetch-rate cap (0: none)
)

# What the full-text index is built from: each indexed document's text, written in the
# same transaction as the document. A row whose batch is not INDEXED is waiting for the
# index (re-sent after a crash: the outbox pattern); once the index has committed it, its
# batch becomes INDEXED and the row stays, so that `webcrawler index --reindex` can rebuild
# the index from the database. Rows are deleted only with their document's place in the index.
index_outbox = Table(
    "index_outbox",
    metadata,
    Column("doc_id", Integer, primary_key=True),
    Column("batch", Integer, nullable=False),
    Column("payload", LargeBinary, nullable=False),  # zlib-compressed JSON of the document
    # the in-links the index's committed entry was built with (engine/pipeline/link_refresh.py)
    Column("inlinks", Integer),
)
Index("ix_index_outbox_batch", index_outbox.c.batch)
INDEXED = 0  # index_outbox.batch of a row the index has committed (batches are never 0)
REMOVED = b""  # the payload of a removal row (engine/pipeline/outbox.py)


def outbox_text(payload: bytes | None) -> str | None:
    """The indexed text an outbox payload holds (zlib'd JSON [doc_id, url, title, text, host],
    engine/outbox.pack); None for no row or a removal. Here, with the table, so that readers of
    stored text (the store, export) need not load the index package."""
    return None if not payload else str(json.loads(zlib.decompress(payload))[3])


# The newest response of each document that brought a body, for archivists (WARC export).
responses = Table(
    "responses",
    metadata,
    Column("doc_id", Integer, ForeignKey("documents.id"), primary_key=True),
    Column("fetched_at", Float, nullable=False),
    Column("status", Integer, nullable=False),
    Column("headers", Text, nullable=False),  # JSON list of [name, value]
    Column("body", LargeBinary, nullable=False),  # zlib-compressed body after content decoding
)

# meta key: when this database started keeping indexed text (documents fetched before have none)
TEXT_KEPT_SINCE = "index_text_kept_since"

meta = Table(
    "meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text),
)


def sqlite_url(data_dir: Path) -> str:
    """The URL of the SQLite database in `data_dir`."""
    return DataDir(data_dir).database_url


def connect(url: str, readonly: bool = False) -> Engine:
    """Open the database (creating the schema unless `readonly`).

    What each database needs (SQLite's WAL mode and locks, PostgreSQL's writer
    lock, read-only sessions for readers) is set by `webcrawler.database.dialects`.
    """
    path = dialects.sqlite_file(url)
    if path is not None and not readonly:
        _create_private_file(path)
    engine = _engine(url, readonly)
    if engine.dialect.name == "postgresql":
        _postgresql_options()
    dialects.configure(engine, readonly)
    if not readonly:
        metadata.create_all(engine)
        _add_missing_columns(engine)
        keep = dialects.insert_ignore(engine.dialect.name, meta)
        with engine.begin() as conn:
            conn.execute(keep.values(key="schema_version", value=str(SCHEMA_VERSION)))
            conn.execute(keep.values(key=TEXT_KEPT_SINCE, value=repr(time.time())))
    return engine


def _postgresql_options() -> None:
    """The partial index's condition for PostgreSQL. Not given where the index is defined: a
    `postgresql_` argument makes SQLAlchemy import its PostgreSQL dialect (0.1 s of start-up
    of every process that imports this schema, the crawl's engine and index writer too) to
    check it, and SQLite's crawls never use it."""
    if _SERVERS_WORK.dialect_options["postgresql"]["where"] is None:
        _SERVERS_WORK.dialect_kwargs["postgresql_where"] = servers.c.queued > 0


def _create_private_file(path: Path) -> None:
    """A new SQLite database is an empty file made readable by its owner only: SQLite opens it
    as a new database, and gives its -wal, -shm and -journal files the same mode."""
    create_private(path.parent)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE))
    except FileExistsError:
        return
    os.chmod(path, PRIVATE_FILE)  # whatever the umask


def _add_missing_columns(engine: Engine) -> None:
    """Upgrade a database made by an older version in place: create_all() makes missing
    tables but never alters existing ones, so each column this schema has and the table lacks
    is added (nullable, or with its constant default), and missing indexes are created."""
    with engine.begin() as conn:
        inspector = inspect(conn)
        for table in metadata.sorted_tables:
            present = {column["name"] for column in inspector.get_columns(table.name)}
            for column in table.columns:
                if column.name not in present:
                    conn.execute(text(_add_column_sql(engine, table.name, column)))
        for table in metadata.sorted_tables:
            for index in table.indexes:
                index.create(conn, checkfirst=True)


def _add_column_sql(engine: Engine, table: str, column: Column) -> str:
    kind = column.type.compile(dialect=engine.dialect)
    default = getattr(column.default, "arg", None)  # a constant default (ScalarElementColumnDefault)
    if default is None:
        return f"ALTER TABLE {table} ADD COLUMN {column.name} {kind}"
    return f"ALTER TABLE {table} ADD COLUMN {column.name} {kind} NOT NULL DEFAULT {default!r}"


def _engine(url: str, readonly: bool) -> Engine:
    """create_engine, with a URL it cannot use (or a driver not installed) as one line."""
    try:
        return create_engine(url, connect_args=dialects.connect_args(url, readonly))
    except ModuleNotFoundError as error:
        raise DatabaseUnavailable(dialects.shown(url), f"needs the Python module {error.name}, "
                                  f"which is not installed (PostgreSQL's: {install_command('postgres')})"
                                  ) from None
    except (ArgumentError, NoSuchModuleError):
        raise DatabaseUnavailable(dialects.shown(url), "is not a database URL webcrawler can open: "
                                  "sqlite:///FILE or postgresql+psycopg://USER@HOST/NAME") from None


# --- checking a database before use ---------------------------------------------------

SQLITE_MAGIC = b"SQLite format 3\x00"
# The tables every webcrawler database has had since schema version 1 (newer tables are
# created by connect(), so an older database lacking them is not damaged).
REQUIRED_TABLES = ("servers", "documents", "links", "crawls", "index_outbox", "meta")


class DatabaseDamaged(DataDamaged):
    """The database cannot be used: not SQLite, truncated, or missing a table. The message
    names the file and what to do; nothing is changed."""

    def __init__(self, where: object, reason: str) -> None:
        self.where = where
        super().__init__(f"the database {where} {reason}: restore it from a backup, or move it "
                         "aside and start a new crawl with --seed (the index is rebuilt from it, "
                         "not it from the index)")


class DatabaseUnavailable(DataDamaged):
    """The database cannot be opened at all: a URL of no known database, a driver not
    installed, a server not answering. Nothing is damaged, but the command line reports it
    the same way: one line (the URL without its password), exit status 1."""

    def __init__(self, where: str, reason: str) -> None:
        self.where = where
        super().__init__(f"the database {where} {reason}")


def unreadable(error: BaseException) -> DatabaseDamaged | None:
    """`error` as DatabaseDamaged when it is the driver saying the file is damaged (SQLAlchemy's
    plain DatabaseError: "file is not a database", "disk image is malformed"), met after
    `check_database` passed; None for every other error, which stays what it is."""
    if type(error) is not DatabaseError:
        return None
    return DatabaseDamaged("of this crawl", f"cannot be read ({_short(error)})")


def check_database(url: str) -> None:
    """Raise DatabaseDamaged unless the database at `url` reads as a webcrawler database.
    An absent or empty SQLite file is fine (a new crawl). Cheap: the file's header, the
    table list and one row of each table; writes nothing, creates no file."""
    path = dialects.sqlite_file(url)
    if path is not None:
        if not path.exists() or path.stat().st_size == 0:
            return
        _check_sqlite_file(path)
    where = path or dialects.shown(url)
    engine = _engine(url, readonly=True)
    try:
        try:
            conn = engine.connect()
        except DBAPIError as error:
            if path is None:  # a server: not there, or refusing us
                raise DatabaseUnavailable(str(where), f"cannot be reached ({_short(error)}): is "
                                          "the server running, and the URL right?") from None
            raise
        with conn:
            names = set(inspect(conn).get_table_names())
            missing = [t for t in REQUIRED_TABLES if t not in names]
            if missing and names:
                raise DatabaseDamaged(where, f"has no table {', '.join(missing)}")
            for table in REQUIRED_TABLES if names else ():
                conn.execute(text(f"SELECT * FROM {table} LIMIT 1")).all()
    except DBAPIError as error:
        raise DatabaseDamaged(where, f"cannot be read ({_short(error)})") from None
    finally:
        engine.dispose()


def _check_sqlite_file(path: Path, attempts: int = 3) -> None:
    """The header says SQLite, and the file is as long as the header says (it never shrinks
    below that: write-ahead-log pages only add to it), unless a log waits beside it. A
    checkpoint by a running crawl writes the header before the pages that lengthen the
    file: a short file is looked at again, `attempts` times in all, before it is called
    truncated."""
    for attempt in range(1, attempts + 1):
        with open(path, "rb") as file:
            header = file.read(100)
        if not header.startswith(SQLITE_MAGIC):
            raise DatabaseDamaged(path, "is not an SQLite database")
        if len(header) < 100:
            raise DatabaseDamaged(path, f"is truncated ({len(header)} bytes)")
        page_size = int.from_bytes(header[16:18], "big")
        expected = (65536 if page_size == 1 else page_size) * int.from_bytes(header[28:32], "big")
        valid = header[24:28] == header[92:96]  # the page count is valid for this change counter
        size = path.stat().st_size
        if not valid or size >= expected or _wal_waiting(path):
            return
        if attempt < attempts:
            time.sleep(0.2)
    raise DatabaseDamaged(path, f"is truncated ({size} bytes of {expected})")


def _wal_waiting(path: Path) -> bool:
    """Is there a write-ahead log beside `path`? Then a short file can be a checkpoint that
    stopped part-way (a full disk): the log still holds every page, and SQLite finishes the
    checkpoint from it at the next open, so the length proves nothing."""
    wal = path.with_name(path.name + "-wal")
    return wal.exists() and wal.stat().st_size > 0


def _short(error: DBAPIError) -> str:
    """The driver's first line, without SQLAlchemy's SQL echo and links."""
    return str(error.orig).splitlines()[0][:120] if error.orig is not None else "error"
