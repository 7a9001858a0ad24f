"""The crawl's single writer of the database: servers, documents, links.

All writes of a crawl go through one connection inside one open transaction,
committed every few hundred documents (and at exit), as the 1994 WebCrawler
did to survive crashes. Reads on the hot path use the schema's indexes
(`webcrawler.database.schema`): no full scans once the crawl is running.

What the engine needs between commits (server counters, robots rules) lives
in `ServerState` objects; `commit()` writes the changed ones back.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import and_, bindparam, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine

from webcrawler.database import dialects
from webcrawler.database.schema import (
    INDEXED,
    aliases,
    connect,
    crawls,
    documents,
    index_outbox,
    links,
    outbox_text,
    responses,
    servers,
)
from webcrawler.database.states import State
from webcrawler.engine.interfaces import PageHistory, RecrawlRow
from webcrawler.engine.records import (
    NOT_PASSING_DETAILS,
    PASSING_REASONS,
    PASSING_STATUSES,
    FrontierEntry,
    NewURL,
    ServerState,
)
from webcrawler.engine.store import outbox_rows
from webcrawler.engine.store.prepared import Prepared
from webcrawler.protocol import urls
from webcrawler.protocol.messages import SITEMAP_TYPE, Document, Reason

CHUNK = 500  # doc_ids per query: well under SQLite's limit on bound parameters
_LINK_NAMES = ("p_source", "p_target", "p_anchor")  # add_links' values, in this order
LOOKUP_CHUNK = 256  # a page's paths on one server asked in one statement (add_urls)
MAX_KNOWN_IDS = 100_000  # URL ids add_urls remembers (some MB), forgotten all at once


class CrawlStore:
    """Owns the write connection and the server table's in-memory image."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.conn: Connection = engine.connect()
        self.servers_by_origin: dict[str, ServerState] = {}
        self.servers_by_id: dict[int, ServerState] = {}
        self._sql = _HotStatements(self.conn)
        self._finish_sql: dict[tuple[str, ...], Prepared] = {}
        self._recrawl: _RecrawlStatements | None = None  # compiled for an incremental crawl
        self._read_only: Engine | None = None  # reads outside the transaction, opened when asked
        self._lookups: dict[int, Prepared] = {}  # IN lists of 1, 2, 4, ... paths (add_urls)
        self._sketch_lookups: dict[int, Prepared] = {}  # IN lists of 1, 2, 4, ... ids (indexed_sketches)
        self._ids: dict[int, dict[str, int]] = {}  # server id -> path -> document id (add_urls)
        self._id_count = 0

    # --- transactions -------------------------------------------------
    def commit(self) -> None:
        """Write changed server counters, then commit everything since the last commit."""
        dirty = [s for s in self.servers_by_id.values() if s.dirty]
        if dirty:
            self.conn.execute(
                update(servers).where(servers.c.id == bindparam("sid")),
                [_server_counters(s) for s in dirty],
            )
            for server in dirty:
                server.dirty = False
        self.conn.commit()

    def pending(self) -> bool:
        """Is anything written since the last commit?"""
        return self.conn.in_transaction()

    def rollback(self) -> None:
        """Drop everything since the last commit (the disk is full: the database keeps it)."""
        self._forget_ids()  # some were inserted by the transaction dropped
        self.conn.rollback()

    def close(self) -> None:
        self.conn.rollback()
        self.conn.close()
        if self._read_only is not None:
            self._read_only.dispose()

    # --- servers --------------------------------------------------------
    def load_servers(self) -> list[ServerState]:
        """Every known server, with its frontier size recounted (once, at start-up)."""
        queued: dict[int, int] = dict(
            self.conn.execute(
                select(documents.c.server_id, func.count())
                .where(documents.c.state == State.QUEUED)
                .group_by(documents.c.server_id)
            ).all()
        )
        result = []
        for row in self.conn.execute(select(servers)).mappings():
            state = ServerState(
                id=row["id"],
                origin=urls.origin(row["scheme"], row["host"], row["port"]),
                visited=bool(row["visited"]),
                queued=queued.get(row["id"], 0),
                docs_fetched=row["docs_fetched"],
                docs_failed=row["docs_failed"],
                docs_known=row["docs_known"],
                last_access=row["last_access"],
            )
            state.dirty = state.queued != row["queued"]
            self._remember(state)
            result.append(state)
        return result

    def robots_rows(self) -> Iterable[tuple[int, int | None, str, float]]:
        """(server id, status, body, expires_at) for servers whose robots.txt is stored."""
        return self.conn.execute(
            select(servers.c.id, servers.c.robots_status, servers.c.robots_txt,
                   servers.c.robots_expires_at).where(servers.c.robots_fetched_at.is_not(None))
        ).all()

    def server(self, origin: str) -> ServerState | None:
        return self.servers_by_origin.get(origin)

    def add_server(self, origin: str, now: float) -> ServerState:
        scheme, host, port_number = urls.origin_parts(origin)
        row = self.conn.execute(  # another writer (a real-time search) may have added it
            select(servers).where(and_(servers.c.scheme == scheme, servers.c.host == host,
                                       servers.c.port == port_number))).mappings().first()
        if row is not None:
            known = ServerState(id=row["id"], origin=origin, visited=bool(row["visited"]),
                                docs_fetched=row["docs_fetched"], docs_failed=row["docs_failed"],
                                docs_known=row["docs_known"], last_access=row["last_access"])
            self._remember(known)
            return known
        server_id = _new_key(self.conn.execute(
            insert(servers).values(scheme=scheme, host=host, port=port_number, first_seen=now,
                                   visited=False, last_access=0.0, next_allowed=0.0, queued=0,
                                   docs_known=0, docs_fetched=0, docs_failed=0)
        ).inserted_primary_key)
        state = ServerState(id=server_id, origin=origin)
        self._remember(state)
        return state

    def save_robots(self, server: ServerState, status: int | None, body: str,
                    now: float, expires: float) -> None:
        self.conn.execute(
            update(servers).where(servers.c.id == server.id).values(
                robots_status=status, robots_txt=body, robots_fetched_at=now,
                robots_expires_at=expires, crawl_delay=server.crawl_delay or None)
        )

    def _remember(self, state: ServerState) -> None:
        self.servers_by_origin[state.origin] = state
        self.servers_by_id[state.id] = state

    # --- documents ----------------------------------------------------
    def add_urls(self, server: ServerState, urls: Sequence[NewURL], now: float,
                 state: str = State.QUEUED) -> tuple[dict[str, int], set[str]]:
        """Store the URLs of `server` not known yet; return (path -> document id, new paths).

        One indexed lookup for all of them ("which of these URLs are known?": a page's links
        to one server asked at once, not one statement each), one insert per new one. A URL's
        id, once read or inserted, is remembered (`MAX_KNOWN_IDS` of them, forgotten all at
        once, and at a rollback): a site's menus link the same URLs from every page, and a
        document's row is never deleted, so the lookup is left to the URLs not seen lately.
        """
        remembered = self._ids.setdefault(server.id, {})
        unseen = [path for path in dict.fromkeys(u.path for u in urls) if path not in remembered]
        known = self._known_ids(server.id, unseen) if unseen else {}
        ids: dict[str, int] = {}
        fresh: set[str] = set()
        for u in urls:
            if u.path in ids:
                continue
            doc_id = remembered.get(u.path)
            if doc_id is None:
                doc_id = known.get(u.path)
                if doc_id is None:
                    doc_id = self._sql.insert_document.row(
                        p_sid=server.id, p_path=u.path, p_state=state, p_depth=u.depth,
                        p_redirects=u.redirects, p_now=now)[0]
                    fresh.add(u.path)
                self._remember_id(remembered, u.path, doc_id)
            ids[u.path] = doc_id
        if fresh:
            server.docs_known += len(fresh)
            if state == State.QUEUED:
                server.queued += len(fresh)
            server.dirty = True
        return ids, fresh

    def _remember_id(self, remembered: dict[str, int], path: str, doc_id: int) -> None:
        if self._id_count >= MAX_KNOWN_IDS:
            self._forget_ids()
        remembered[path] = doc_id
        self._id_count += 1

    def _forget_ids(self) -> None:
        for remembered in self._ids.values():
            remembered.clear()  # the dicts stay: add_urls may hold one
        self._id_count = 0

    def _known_ids(self, server_id: int, paths: list[str]) -> dict[str, int]:
        """path -> id of those of `paths` (distinct) stored for the server."""
        return {path: doc_id for doc_id, path in self._rows_in(
            self._lookups, _lookup_many, paths, p_sid=server_id)}

    def _rows_in(self, compiled: dict[int, Prepared], make: Callable[[Connection, int], Prepared],
                 values: Sequence[object], **fixed: object) -> list[Any]:
        """The rows of `make`'s statement whose IN list is `values`: one statement per
        `LOOKUP_CHUNK` values, its IN list padded to a power of two so that a few statements,
        compiled once into `compiled`, serve every count."""
        rows: list[Any] = []
        for start in range(0, len(values), LOOKUP_CHUNK):
            chunk = list(values[start : start + LOOKUP_CHUNK])
            size = 1 << (len(chunk) - 1).bit_length()
            statement = compiled.get(size)
            if statement is None:
                statement = compiled[size] = make(self.conn, size)
            padded = chunk + [chunk[0]] * (size - len(chunk))
            rows.extend(statement.rows(**fixed, **{f"p_{i}": value for i, value in enumerate(padded)}))
        return rows

    def lookup(self, server: ServerState, path: str) -> int | None:
        """The id of a stored URL of `server`, or None when it was never stored."""
        row = self._sql.lookup.one(p_sid=server.id, p_path=path)
        return None if row is None else int(row[0])

    def next_document(self, server: ServerState) -> FrontierEntry | None:
        """The server's next queued document, breadth-first (smallest depth, then discovery)."""
        row = self._sql.next_document.one(p_sid=server.id)
        if row is None:
            return None
        doc_id, path, depth, redirects = row
        return FrontierEntry(doc_id, server.id, path, depth, redirects)

    def finish(self, entry: FrontierEntry, state: str, **values: object) -> None:
        """Move a queued document to `state` (fetched, failed, excluded, redirected)."""
        keys = tuple(sorted(values))
        statement = self._finish_sql.get(keys)
        if statement is None:
            statement = self._finish_sql[keys] = Prepared(self.conn, update(documents).where(
                documents.c.id == bindparam("p_id")).values(
                state=bindparam("p_state"), **{k: bindparam(f"p_{k}") for k in keys}))
        statement.run(p_id=entry.doc_id, p_state=state, **{f"p_{k}": v for k, v in values.items()})
        if not entry.recrawl:  # a recrawl was never in the frontier's count
            server = self.servers_by_id[entry.server_id]
            server.queued = max(0, server.queued - 1)
            server.dirty = True

    def requeue(self, server: ServerState, doc_id: int) -> None:
        """`finish` takes every first fetch out of its server's count, whatever its state was."""
        server.queued += 1
        server.dirty = True

    def annotate(self, doc_id: int, **values: object) -> None:
        """Change stored values of a document (its state too) without moving it through the
        frontier's counts: a page waiting for a retry, the tries of a recovered one."""
        self.conn.execute(update(documents).where(documents.c.id == doc_id).values(**values))

    def requeue_retries(self) -> int:
        """A resumed crawl: pages that were waiting for a retry, or whose failure was passing
        (engine/loop/retries.py), are queued again (a new set of tries); their history stays.
        Returns how many."""
        d = documents.c
        passing_failure = and_(d.state == State.FAILED, or_(
            and_(d.reason.in_(PASSING_REASONS), or_(d.detail.is_(None), and_(
                *(~d.detail.startswith(start) for start in NOT_PASSING_DETAILS)))),
            and_(d.reason == Reason.HTTP_ERROR, d.status.in_(PASSING_STATUSES))))
        result = self.conn.execute(update(documents).where(
            or_(d.state == State.RETRYING, passing_failure)).values(state=State.QUEUED))
        return result.rowcount or 0

    def record_fetch(self, entry: FrontierEntry, state: str, checksum: str, now: float,
                     **values: object) -> bool:
        """Store a retrieval; True when the content changed since the last one."""
        old_checksum, times_fetched, times_changed = self._sql.previous.row(p_id=entry.doc_id)
        changed = bool(old_checksum) and old_checksum != checksum
        self.finish(entry, state, checksum=checksum, last_fetch=now,
                    times_fetched=times_fetched + 1,
                    times_changed=times_changed + int(changed), **values)
        return changed

    def save_response(self, doc_id: int, now: float, document: Document) -> None:
        """The newest response of a document, for archivists (the `responses` table)."""
        self._sql.response_delete.run(p_id=doc_id)
        self._sql.response_insert.run(p_id=doc_id, p_at=now, p_status=document.status,
                                      p_headers=json.dumps(document.headers),
                                      p_body=document.body)

    def delete_links(self, source_id: int) -> None:
        """Forget the links of `source_id` (it changed, or is gone)."""
        self._sql.delete_links.run(p_source=source_id)

    def link_targets(self, source_id: int) -> set[int]:
        """The ids of the documents `source_id` links to (the links table's primary key)."""
        return set(self.conn.execute(select(links.c.target_id).where(
            links.c.source_id == source_id)).scalars())

    def duplicate_of(self, checksum: str, doc_id: int) -> int | None:
        """Another fetched document with the same content, if any (indexed lookup)."""
        if not checksum:
            return None
        row = self._sql.duplicate.one(p_sum=checksum, p_id=doc_id)
        return row[0] if row else None

    def add_links(self, source_id: int, targets: Iterable[tuple[int, str]]) -> None:
        """Links from `source_id`: (target id, anchor text); a pair already stored is kept."""
        self._sql.add_link.run_many_values(
            _LINK_NAMES, [(source_id, t, a[:500]) for t, a in targets])

    # --- one URL per document (engine/loop/canonical.py, near_duplicates.py) ---
    def canonical_ids(self) -> set[int]:
        """The pages that other pages name as their canonical URL."""
        return set(self.conn.execute(select(aliases.c.canonical_id).distinct()).scalars())

    def aliases_of(self, canonical_id: int) -> list[int]:
        return list(self.conn.execute(select(aliases.c.doc_id).where(
            aliases.c.canonical_id == canonical_id)).scalars())

    def add_alias(self, doc_id: int, canonical_id: int) -> None:
        """`doc_id` names `canonical_id` as its canonical URL (the first it named is kept)."""
        self.conn.execute(dialects.insert_ignore(self.conn.dialect.name, aliases).values(
            doc_id=doc_id, canonical_id=canonical_id))

    def fate(self, server: ServerState, path: str) -> tuple[str, str | None, str | None] | None:
        """(state, reason, detail) of a stored URL; None when it was never stored."""
        d = documents.c
        row = self.conn.execute(select(d.state, d.reason, d.detail).where(
            d.server_id == server.id, d.path == path)).first()
        return None if row is None else (row.state, row.reason, row.detail)

    def indexed(self, doc_id: int) -> bool:
        """Fetched, with no reason to keep it out of the index."""
        row = self.conn.execute(select(documents.c.state, documents.c.reason)
                                .where(documents.c.id == doc_id)).first()
        return row is not None and row.state == State.FETCHED and row.reason is None

    def indexed_sketches(self, ids: Sequence[int] | None = None
                         ) -> list[tuple[int, bytes, str]]:
        """(id, sketch, content type) of the indexed pages with a sketch among `ids` (all of
        them, in id order, when None: a resumed crawl)."""
        if ids is None:
            d = documents.c
            found: Iterable[Any] = self.conn.execute(select(d.id, d.sketch, d.content_type).where(
                d.state == State.FETCHED, d.reason.is_(None), d.sketch.is_not(None)).order_by(d.id))
        else:  # a near-duplicate's few candidates, every page: statements compiled once
            found = self._rows_in(self._sketch_lookups, _sketches_of, list(ids))
        return [(int(doc_id), bytes(sketch), kind or "") for doc_id, sketch, kind in found]

    # --- the index's link counts (engine/pipeline/link_refresh.py) ----------
    def targets_of(self, sources: Sequence[int]) -> list[int]:
        """The distinct pages `sources` link to (self-links left out), through the links
        table's primary key."""
        found: set[int] = set()
        for start in range(0, len(sources), CHUNK):
            found.update(self.conn.execute(select(links.c.target_id).where(and_(
                links.c.source_id.in_(sources[start : start + CHUNK]),
                links.c.target_id != links.c.source_id))).scalars())
        return sorted(found)

    def in_link_counts(self, ids: Sequence[int]) -> dict[int, int]:
        return in_link_counts(self.conn, ids)

    def indexed_in_links(self, ids: Sequence[int]) -> dict[int, int | None]:
        """doc_id -> the in-links its committed index entry was built with, for those of `ids`
        the index holds (a stored, acknowledged document row of the outbox)."""
        o = index_outbox.c
        out: dict[int, int | None] = {}
        for start in range(0, len(ids), CHUNK):
            out.update(self.conn.execute(select(o.doc_id, o.inlinks).where(and_(
                o.doc_id.in_(ids[start : start + CHUNK]), o.batch == INDEXED,
                func.length(o.payload) > 0))).all())
        return out

    def outbox_put(self, doc_id: int, batch: int, payload: bytes) -> None:
        """A document for the full-text index, kept until the index has committed it."""
        if self._sql.outbox_delete is not None:
            self._sql.outbox_delete.run(p_id=doc_id)
        self._sql.outbox_insert.run(p_id=doc_id, p_batch=batch, p_payload=payload)

    # --- the priority orders (engine/scheduling/orders/) ------------------
    def queued_of(self, server: ServerState) -> list[tuple[int, str, int, int | None]]:
        """(id, path, depth, redirects) of the server's queued documents (a resumed crawl)."""
        d = documents.c
        return [(row.id, row.path, row.depth, row.redirects) for row in self.conn.execute(
            select(d.id, d.path, d.depth, d.redirects).where(
                and_(d.server_id == server.id, d.state == State.QUEUED)))]

    def redirects_of(self, doc_id: int) -> int:
        value = self.conn.execute(select(documents.c.redirects).where(documents.c.id == doc_id)).scalar()
        return int(value or 0)

    def stored_links(self) -> Iterable[tuple[int, int]]:
        return ((source, target) for source, target in self.conn.execute(
            select(links.c.source_id, links.c.target_id)))

    def links_per_target(self) -> Iterable[tuple[int, int]]:
        return [(target, n) for target, n in self.conn.execute(
            select(links.c.target_id, func.count()).group_by(links.c.target_id))]

    # --- an incremental crawl's pages (webcrawler/recrawl/) ----------------
    def schedule_stored(self, states: Sequence[str], first: float, now: float
                        ) -> list[tuple[int, int, float, int | None, float | None]]:
        """Pages of the stored crawl, scheduled for an incremental one (interfaces.RecrawlBook)."""
        d = documents.c
        unscheduled = and_(d.state.in_(states), d.next_due.is_(None), d.last_fetch.is_not(None))
        self.conn.execute(update(documents).where(unscheduled).values(next_due=d.last_fetch + first))
        self.conn.execute(update(documents).where(  # a sitemap's news is read first
            d.content_type == SITEMAP_TYPE, d.state.in_(states)).values(next_due=now))
        return [(doc_id, server_id, due, page_bucket, last_fetch) for doc_id, server_id, due,
                page_bucket, last_fetch in self.conn.execute(select(
                    d.id, d.server_id, d.next_due, d.change_bucket, d.last_fetch).where(
                    and_(d.state.in_(states), d.next_due.is_not(None))))]

    def page_history(self, doc_id: int) -> PageHistory | None:
        return self._recrawl_sql().history.one(p_id=doc_id)

    def recrawl_row(self, doc_id: int) -> RecrawlRow | None:
        return self._recrawl_sql().row.one(p_id=doc_id)

    def listed_row(self, doc_id: int) -> tuple[str, float | None] | None:
        return self._recrawl_sql().listed.one(p_id=doc_id)

    def set_due(self, doc_id: int, due: float | None) -> None:
        self._recrawl_sql().set_due.run(p_id=doc_id, p_due=due)

    def _recrawl_sql(self) -> _RecrawlStatements:
        if self._recrawl is None:
            self._recrawl = _RecrawlStatements(self.conn)
        return self._recrawl

    # --- the index outbox (engine/pipeline/: interfaces.OutboxBook) --------
    def database_url(self) -> str:
        return self.engine.url.render_as_string(hide_password=False)

    def outbox_rebatch(self, doc_ids: Sequence[int], batch: int) -> int:
        return outbox_rows.rebatch(self.conn, doc_ids, batch)

    def outbox_acknowledge(self, batches: Sequence[int], removals: Iterable[int],
                           languages: Mapping[int, str], inlinks: Mapping[int, int]) -> None:
        outbox_rows.acknowledge_batches(self.conn, batches, removals)
        outbox_rows.record_languages(self.conn, languages)
        outbox_rows.record_inlinks(self.conn, inlinks)

    def outbox_unsent(self) -> tuple[int, list[int]]:
        top, waiting = outbox_rows.top_batch(self.conn), outbox_rows.unsent_batches(self.conn)
        self.conn.commit()
        return top, waiting

    def outbox_lowest(self) -> int:
        return outbox_rows.lowest_batch(self.conn)

    def outbox_waiting(self) -> int:
        """On a read-only connection of its own, outside the crawl's transaction."""
        with self._reader().connect() as conn:
            return outbox_rows.rows_waiting(conn)

    def outbox_top(self) -> int:
        """The highest batch number committed, read outside the crawl's transaction."""
        with self._reader().connect() as conn:
            return outbox_rows.top_batch(conn)

    def outbox_commit(self) -> None:
        self.conn.commit()

    # --- a real-time search's reads (engine/realtime/search.py) -------------
    def queued_among(self, doc_ids: Sequence[int]) -> set[int]:
        """Those of `doc_ids` still queued, read outside the crawl's transaction."""
        with self._reader().connect() as conn:
            return set(conn.execute(select(documents.c.id).where(
                and_(documents.c.id.in_(doc_ids), documents.c.state == State.QUEUED))).scalars())

    def queued_links(self, source_id: int) -> list[tuple[int, str, str, str, int, int, int]]:
        """(target id, anchor, origin, path, depth, redirects, server id) of the queued pages
        `source_id` links to, read outside the crawl's transaction."""
        with self._reader().connect() as conn:
            rows = conn.execute(
                select(links.c.target_id, links.c.anchor, documents.c.path, documents.c.depth,
                       documents.c.redirects, documents.c.server_id, servers.c.scheme,
                       servers.c.host, servers.c.port)
                .join(documents, documents.c.id == links.c.target_id)
                .join(servers, servers.c.id == documents.c.server_id)
                .where(and_(links.c.source_id == source_id, documents.c.state == State.QUEUED))
            ).all()
        return [(r.target_id, r.anchor, urls.origin(r.scheme, r.host, r.port), r.path, r.depth,
                 r.redirects, r.server_id) for r in rows]

    def _reader(self) -> Engine:
        if self._read_only is None:
            self._read_only = connect(self.database_url(), readonly=True)
        return self._read_only

    # --- crawl runs -----------------------------------------------------
    def start_run(self, mode: str = "index") -> int:
        run_id = _new_key(self.conn.execute(
            insert(crawls).values(mode=mode, started_at=time.time(), documents=0, failures=0)
        ).inserted_primary_key)
        self.conn.commit()
        return int(run_id)

    def update_run(self, run_id: int, docs: int, failures: int, ended: bool = False,
                   stop_reason: str | None = None, requests: int | None = None,
                   fetch_rate: float | None = None) -> None:
        """The run's counts so far; `requests` (every request sent, robots.txt too) and its
        `fetch_rate` cap say what share of its bandwidth the crawl spent (`webcrawler stats`)."""
        values: dict[str, object] = {"documents": docs, "failures": failures}
        if requests is not None:
            values.update(requests=requests, fetch_rate=fetch_rate)
        if ended:
            values.update(ended_at=time.time(), stop_reason=stop_reason)
        self.conn.execute(update(crawls).where(crawls.c.id == run_id).values(**values))


def waiting_engine(url: str, busy_timeout_ms: int) -> Engine:
    """An engine for a second writer beside a running crawl (a real-time search): it waits
    up to `busy_timeout_ms` for the other's commits."""
    engine = connect(url)
    dialects.wait_for_writers(engine, busy_timeout_ms)
    return engine


def stored_text(conn: Connection, doc_id: int) -> str | None:
    """The text the index holds for a document (its newest indexed version), read from the
    outbox the index is fed from (engine/pipeline/index_sink.py): no Whoosh needed. None: not indexed."""
    return outbox_text(conn.execute(select(index_outbox.c.payload)
                                .where(index_outbox.c.doc_id == doc_id)).scalar())


class _HotStatements:
    """The statements the crawl runs for every document, compiled once."""

    def __init__(self, conn: Connection) -> None:
        d = documents.c
        self.next_document = Prepared(conn, select(d.id, d.path, d.depth, d.redirects).where(
            and_(d.server_id == bindparam("p_sid"), d.state == State.QUEUED)
        ).order_by(d.depth, d.id).limit(1))
        self.lookup = Prepared(conn, select(d.id).where(
            and_(d.server_id == bindparam("p_sid"), d.path == bindparam("p_path"))))
        self.insert_document = Prepared(conn, insert(documents).values(
            server_id=bindparam("p_sid"), path=bindparam("p_path"), state=bindparam("p_state"),
            depth=bindparam("p_depth"), redirects=bindparam("p_redirects"),
            discovered_at=bindparam("p_now"), times_fetched=0, times_changed=0,
            times_trivial=0, times_unmodified=0, times_not_modified=0, change_bucket=0,
        ).returning(d.id))
        self.previous = Prepared(conn, select(d.checksum, d.times_fetched, d.times_changed).where(
            d.id == bindparam("p_id")))
        # The state is wrapped so that only the checksum's index can serve the query: SQLite's
        # planner, without statistics, took the state's index and read every indexed row.
        self.duplicate = Prepared(conn, select(d.id).where(and_(
            d.checksum == bindparam("p_sum"), func.coalesce(d.state, "") == State.FETCHED,
            d.reason.is_(None), d.id != bindparam("p_id"))).limit(1))
        self.add_link = Prepared(conn, dialects.insert_ignore(conn.dialect.name, links).values(
            source_id=bindparam("p_source"), target_id=bindparam("p_target"),
            anchor=bindparam("p_anchor")))
        self.response_delete = Prepared(conn, responses.delete().where(
            responses.c.doc_id == bindparam("p_id")))
        self.response_insert = Prepared(conn, insert(responses).values(
            doc_id=bindparam("p_id"), fetched_at=bindparam("p_at"), status=bindparam("p_status"),
            headers=bindparam("p_headers"), body=bindparam("p_body")))
        self.delete_links = Prepared(conn, links.delete().where(
            links.c.source_id == bindparam("p_source")))
        # a document's row replaced in one statement where the database can (None: DELETE first)
        replacing = dialects.insert_replacing(conn.dialect.name, index_outbox, "doc_id")
        self.outbox_delete = None if replacing is not None else Prepared(
            conn, index_outbox.delete().where(index_outbox.c.doc_id == bindparam("p_id")))
        self.outbox_insert = Prepared(conn, (replacing if replacing is not None else insert(
            index_outbox)).values(doc_id=bindparam("p_id"), batch=bindparam("p_batch"),
                                  payload=bindparam("p_payload")))


class _RecrawlStatements:
    """The statements an incremental crawl runs for every recrawl, compiled once."""

    def __init__(self, conn: Connection) -> None:
        d = documents.c
        self.history = Prepared(conn, select(
            d.state, d.checksum, d.sketch, d.times_fetched, d.times_changed, d.times_trivial,
            d.times_unmodified, d.times_not_modified, d.first_fetch, d.last_fetch, d.next_due,
            d.changed_seconds, d.shortest_change, d.last_modified, d.change_ages,
        ).where(d.id == bindparam("p_id")))
        self.row = Prepared(conn, select(
            d.path, d.depth, d.redirects, d.etag, d.last_modified, d.state, d.next_due
        ).where(d.id == bindparam("p_id")))
        self.listed = Prepared(conn, select(d.state, d.last_fetch).where(d.id == bindparam("p_id")))
        self.set_due = Prepared(conn, update(documents).where(
            d.id == bindparam("p_id")).values(next_due=bindparam("p_due")))


def _lookup_many(conn: Connection, size: int) -> Prepared:
    """(id, path) of the stored URLs of server `p_sid` among the paths `p_0` .. `p_<size-1>`."""
    d = documents.c
    return Prepared(conn, select(d.id, d.path).where(and_(
        d.server_id == bindparam("p_sid"),
        d.path.in_([bindparam(f"p_{i}") for i in range(size)]))))


def _sketches_of(conn: Connection, size: int) -> Prepared:
    """(id, sketch, content type) of the indexed pages with a sketch among ids `p_0` ..
    `p_<size-1>`."""
    d = documents.c
    return Prepared(conn, select(d.id, d.sketch, d.content_type).where(
        d.state == State.FETCHED, d.reason.is_(None), d.sketch.is_not(None),
        d.id.in_([bindparam(f"p_{i}") for i in range(size)])))


def _server_counters(server: ServerState) -> dict[str, object]:
    return {
        "sid": server.id,
        "visited": server.visited,
        "queued": server.queued,
        "docs_known": server.docs_known,
        "docs_fetched": server.docs_fetched,
        "docs_failed": server.docs_failed,
        "last_access": server.last_access,
    }


def _new_key(row: Any) -> int:
    """The primary key of the one row an INSERT added."""
    if row is None:
        raise LookupError("the INSERT added no row")
    return int(row[0])


def in_link_counts(conn: Connection, ids: Sequence[int]) -> dict[int, int]:
    """doc_id -> the distinct pages linking to it, for those of `ids` with any (self-links
    left out); the index writer's read path asks it too (pipeline/link_evidence.py)."""
    counts: dict[int, int] = {}
    for start in range(0, len(ids), CHUNK):
        counts.update(conn.execute(select(links.c.target_id, func.count()).where(and_(
            links.c.target_id.in_(list(ids[start : start + CHUNK])),
            links.c.source_id != links.c.target_id)).group_by(links.c.target_id)).all())
    return counts
