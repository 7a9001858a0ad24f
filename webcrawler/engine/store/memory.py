"""The crawl loop's store in memory: for crawls that keep nothing, and for fast tests.

A toolkit crawl that does not index needs the store's rules - a URL is stored
once and so fetched at most once, servers are known by origin, robots.txt is
kept with its expiry - but not a database. `MemoryStore` keeps them in dicts
with the same meaning as the SQL `CrawlStore` (sql.py): queued documents
come out breadth-first (smallest depth, then discovery order), a duplicate is
another fetched document with the same checksum and no reason against it.
Nothing survives the process; `commit` and `rollback` have nothing to do.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from webcrawler.database.states import State
from webcrawler.engine.interfaces import PageHistory, RecrawlRow
from webcrawler.engine.records import FrontierEntry, NewURL, ServerState
from webcrawler.protocol.messages import SITEMAP_TYPE, Document


@dataclass
class StoredURL:
    """One URL's row: where it is in the crawl, and what its last fetch said."""

    doc_id: int
    server_id: int
    path: str
    depth: int
    redirects: int
    state: str
    values: dict[str, object] = field(default_factory=dict)


class MemoryStore:
    """A `Store` (interfaces.py) in dicts."""

    def __init__(self) -> None:
        self.servers_by_origin: dict[str, ServerState] = {}
        self.servers_by_id: dict[int, ServerState] = {}
        self.urls: dict[int, StoredURL] = {}
        self.links: dict[int, dict[int, str]] = {}  # source id -> target id -> anchor
        self.robots: dict[int, tuple[int | None, str, float]] = {}
        self.runs: list[dict[str, object]] = []
        self._ids: dict[tuple[int, str], int] = {}
        self._queues: dict[int, list[tuple[int, int]]] = {}  # server id -> heap of (depth, id)
        self._by_checksum: dict[str, set[int]] = {}
        self.aliases: dict[int, int] = {}  # alias id -> the canonical id it named
        self._linked_from: dict[int, set[int]] = {}  # target id -> the pages linking to it
        self.indexed_with: dict[int, int] = {}  # doc id -> the in-links its index entry counted
        self._aliases_of: dict[int, list[int]] = {}  # canonical id -> its aliases
        self._requeued: set[int] = set()  # fetched URLs counted in their server's queue again (requeue)

    # --- servers ----------------------------------------------------------
    def load_servers(self) -> list[ServerState]:
        return list(self.servers_by_id.values())

    def server(self, origin: str) -> ServerState | None:
        return self.servers_by_origin.get(origin)

    def add_server(self, origin: str, now: float) -> ServerState:
        server = ServerState(len(self.servers_by_id) + 1, origin)
        self.servers_by_origin[origin] = server
        self.servers_by_id[server.id] = server
        return server

    def robots_rows(self) -> Iterable[tuple[int, int | None, str, float]]:
        return [(sid, status, body, expires) for sid, (status, body, expires) in self.robots.items()]

    def save_robots(self, server: ServerState, status: int | None, body: str,
                    now: float, expires: float) -> None:
        self.robots[server.id] = (status, body, expires)

    # --- URLs ---------------------------------------------------------------
    def add_urls(self, server: ServerState, urls: Sequence[NewURL], now: float,
                 state: str = State.QUEUED) -> tuple[dict[str, int], set[str]]:
        ids: dict[str, int] = {}
        fresh: set[str] = set()
        for u in urls:
            known = self._ids.get((server.id, u.path))
            if known is None:
                known = len(self.urls) + 1
                self._ids[(server.id, u.path)] = known
                self.urls[known] = StoredURL(known, server.id, u.path, u.depth, u.redirects, state)
                if state == State.QUEUED:
                    heapq.heappush(self._queues.setdefault(server.id, []), (u.depth, known))
                fresh.add(u.path)
            ids[u.path] = known
        if fresh:
            server.docs_known += len(fresh)
            if state == State.QUEUED:
                server.queued += len(fresh)
        return ids, fresh

    def lookup(self, server: ServerState, path: str) -> int | None:
        return self._ids.get((server.id, path))

    def fate(self, server: ServerState, path: str) -> tuple[str, str | None, str | None] | None:
        doc_id = self.lookup(server, path)
        if doc_id is None:
            return None
        url = self.urls[doc_id]
        reason, detail = url.values.get("reason"), url.values.get("detail")
        return url.state, None if reason is None else str(reason), None if detail is None else str(detail)

    def next_document(self, server: ServerState) -> FrontierEntry | None:
        queue = self._queues.get(server.id)
        while queue:
            url = self.urls[queue[0][1]]
            if url.state == State.QUEUED:
                return FrontierEntry(url.doc_id, server.id, url.path, url.depth, url.redirects)
            heapq.heappop(queue)
        return None

    def finish(self, entry: FrontierEntry, state: str, **values: object) -> None:
        url = self.urls[entry.doc_id]
        was_queued = url.state == State.QUEUED
        url.state = state
        url.values.update(values)
        if state == State.FETCHED and values.get("reason") is None and values.get("checksum"):
            self._by_checksum.setdefault(str(values["checksum"]), set()).add(url.doc_id)
        requeued = entry.doc_id in self._requeued
        self._requeued.discard(entry.doc_id)
        if (was_queued or requeued) and not entry.recrawl:
            server = self.servers_by_id[entry.server_id]
            server.queued = max(0, server.queued - 1)

    def requeue(self, server: ServerState, doc_id: int) -> None:
        """Counted until finished: `finish` takes out what was queued, and these."""
        self._requeued.add(doc_id)
        server.queued += 1

    def annotate(self, doc_id: int, **values: object) -> None:
        url = self.urls[doc_id]
        state = values.pop("state", None)
        if state is not None:
            url.state = str(state)
        url.values.update(values)
        if url.values.get("reason") is not None:  # out of the index now: no duplicate's original
            self._by_checksum.get(str(url.values.get("checksum")), set()).discard(doc_id)

    # --- one URL per document -----------------------------------------------
    def canonical_ids(self) -> set[int]:
        return set(self._aliases_of)

    def aliases_of(self, canonical_id: int) -> list[int]:
        return list(self._aliases_of.get(canonical_id, ()))

    def add_alias(self, doc_id: int, canonical_id: int) -> None:
        if doc_id not in self.aliases:  # the first canonical it named is kept, as in SQL
            self.aliases[doc_id] = canonical_id
            self._aliases_of.setdefault(canonical_id, []).append(doc_id)

    def indexed(self, doc_id: int) -> bool:
        url = self.urls.get(doc_id)
        return url is not None and url.state == State.FETCHED and url.values.get("reason") is None

    def indexed_sketches(self, ids: Sequence[int] | None = None
                         ) -> list[tuple[int, bytes, str]]:
        chosen = sorted(self.urls) if ids is None else ids
        return [(doc_id, bytes(sketch), str(self.urls[doc_id].values.get("content_type") or ""))
                for doc_id in chosen if self.indexed(doc_id)
                and isinstance(sketch := self.urls[doc_id].values.get("sketch"), bytes) and sketch]

    # --- documents ----------------------------------------------------------
    def record_fetch(self, entry: FrontierEntry, state: str, checksum: str, now: float,
                     **values: object) -> bool:
        stored = self.urls[entry.doc_id].values
        old = stored.get("checksum")
        changed = bool(old) and old != checksum
        self.finish(entry, state, checksum=checksum, last_fetch=now,
                    times_fetched=_count(stored.get("times_fetched")) + 1,
                    times_changed=_count(stored.get("times_changed")) + int(changed), **values)
        return changed

    def duplicate_of(self, checksum: str, doc_id: int) -> int | None:
        same = self._by_checksum.get(checksum, set()) - {doc_id}
        return min(same) if checksum and same else None

    def add_links(self, source_id: int, targets: Iterable[tuple[int, str]]) -> None:
        stored = self.links.setdefault(source_id, {})
        for target, anchor in targets:
            stored.setdefault(target, anchor[:500])
            self._linked_from.setdefault(target, set()).add(source_id)

    def delete_links(self, source_id: int) -> None:
        for target in self.links.pop(source_id, {}):
            self._linked_from.get(target, set()).discard(source_id)

    # --- the index's link counts --------------------------------------------
    def targets_of(self, sources: Sequence[int]) -> list[int]:
        return sorted({t for s in sources for t in self.links.get(s, {}) if t != s})

    def in_link_counts(self, ids: Sequence[int]) -> dict[int, int]:
        counts = {doc_id: len(self._linked_from.get(doc_id, set()) - {doc_id}) for doc_id in ids}
        return {doc_id: n for doc_id, n in counts.items() if n}

    def indexed_in_links(self, ids: Sequence[int]) -> dict[int, int | None]:
        """What the sink that indexes told `record_indexed` (SQL: the outbox's column)."""
        return {doc_id: self.indexed_with[doc_id] for doc_id in ids if doc_id in self.indexed_with}

    def record_indexed(self, inlinks: dict[int, int]) -> None:
        """The in-links the index's entries were built with: a sink that indexes says so."""
        self.indexed_with.update(inlinks)

    def link_targets(self, source_id: int) -> set[int]:
        return set(self.links.get(source_id, {}))

    def save_response(self, doc_id: int, now: float, document: Document) -> None:
        self.urls[doc_id].values["response"] = (now, document.status, document.body)

    # --- the priority orders (scheduling/orders/) ----------------------------
    def queued_of(self, server: ServerState) -> list[tuple[int, str, int, int | None]]:
        queued = {doc_id for _, doc_id in self._queues.get(server.id, ())
                  if self.urls[doc_id].state == State.QUEUED}
        return [(u.doc_id, u.path, u.depth, u.redirects) for u in map(self.urls.__getitem__, sorted(queued))]

    def redirects_of(self, doc_id: int) -> int:
        return self.urls[doc_id].redirects

    def stored_links(self) -> Iterable[tuple[int, int]]:
        return [(source, target) for source, targets in self.links.items() for target in targets]

    def links_per_target(self) -> Iterable[tuple[int, int]]:
        return [(target, len(sources)) for target, sources in self._linked_from.items() if sources]

    # --- an incremental crawl's pages (webcrawler/recrawl/) -------------------
    def schedule_stored(self, states: Sequence[str], first: float, now: float
                        ) -> list[tuple[int, int, float, int | None, float | None]]:
        scheduled = []
        for url in self.urls.values():
            if url.state not in states:
                continue
            values = url.values
            if values.get("next_due") is None and values.get("last_fetch") is not None:
                values["next_due"] = _float(values["last_fetch"]) + first
            if values.get("content_type") == SITEMAP_TYPE:  # a sitemap's news is read first
                values["next_due"] = now
            if values.get("next_due") is not None:
                bucket = values.get("change_bucket")
                scheduled.append((url.doc_id, url.server_id, _float(values["next_due"]),
                                  None if bucket is None else _count(bucket),
                                  _maybe_float(values.get("last_fetch"))))
        return scheduled

    def page_history(self, doc_id: int) -> PageHistory | None:
        url = self.urls.get(doc_id)
        if url is None:
            return None
        v = url.values
        return (url.state, _maybe_str(v.get("checksum")), _maybe_bytes(v.get("sketch")),
                *(_maybe_int(v.get(k)) for k in ("times_fetched", "times_changed", "times_trivial",
                                                  "times_unmodified", "times_not_modified")),
                *(_maybe_float(v.get(k)) for k in ("first_fetch", "last_fetch", "next_due",
                                                    "changed_seconds", "shortest_change")),
                _maybe_str(v.get("last_modified")), _maybe_float(v.get("change_ages")))  # type: ignore[return-value]

    def recrawl_row(self, doc_id: int) -> RecrawlRow | None:
        url = self.urls.get(doc_id)
        if url is None:
            return None
        v = url.values
        return (url.path, url.depth, url.redirects, _maybe_str(v.get("etag")),
                _maybe_str(v.get("last_modified")), url.state, _maybe_float(v.get("next_due")))

    def listed_row(self, doc_id: int) -> tuple[str, float | None] | None:
        url = self.urls.get(doc_id)
        return None if url is None else (url.state, _maybe_float(url.values.get("last_fetch")))

    def set_due(self, doc_id: int, due: float | None) -> None:
        self.urls[doc_id].values["next_due"] = due

    # --- runs ---------------------------------------------------------------
    def start_run(self, mode: str = "index") -> int:
        self.runs.append({"mode": mode})
        return len(self.runs)

    def update_run(self, run_id: int, docs: int, failures: int, ended: bool = False,
                   stop_reason: str | None = None, requests: int | None = None,
                   fetch_rate: float | None = None) -> None:
        self.runs[run_id - 1].update(documents=docs, failures=failures, ended=ended,
                                     stop_reason=stop_reason, requests=requests, fetch_rate=fetch_rate)

    def pending(self) -> bool:
        return False

    def commit(self) -> None:
        pass

    def rollback(self) -> None:
        pass

    def state_of(self, origin: str, path: str) -> str | None:
        """A URL's state (tests and reports), None when it was never stored."""
        server = self.server(origin)
        doc_id = None if server is None else self.lookup(server, path)
        return None if doc_id is None else self.urls[doc_id].state


def _count(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) else 0


def _float(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def _maybe_float(value: object) -> float | None:
    return None if value is None else _float(value)


def _maybe_int(value: object) -> int | None:
    return None if value is None else _count(value)


def _maybe_str(value: object) -> str | None:
    return None if value is None else str(value)


def _maybe_bytes(value: object) -> bytes | None:
    return bytes(value) if isinstance(value, (bytes, bytearray)) and value else None
