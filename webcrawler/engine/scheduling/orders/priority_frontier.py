"""A frontier that fetches each server's documents by priority, and servers by their best one.

`PriorityFrontier` keeps, per server, an in-memory heap of its queued
documents keyed by a policy (`document_keys`); a key that changes is re-pushed
and the old entry skipped when it surfaces (lazy, O(log n)). A server's heap
is filled from the database the first time the server is asked for (a
resumed crawl), then kept up to date from `links_found`.

Its server order, `self.order`, is a `BestFirstServers` (best_first.py): the
ready servers keyed by each one's best queued document, re-pushed when that
changes. The Scheduler around it keeps politeness (one request per server,
the delay) exactly as for the WebCrawler's order; robots.txt stays
engine/loop/robots_txt.py's. A pick costs O(log servers) + O(log documents of that server).
"""

from __future__ import annotations

import heapq
from typing import Any

from webcrawler.engine.interfaces import OrderBook
from webcrawler.engine.records import FoundLink, FrontierEntry, ServerState
from webcrawler.engine.scheduling.orders.best_first import NOTHING, BestFirstServers, Key
from webcrawler.engine.scheduling.orders.document_keys import DocumentKeys


class PriorityFrontier:
    """Each server's queued documents in a heap by `keys`."""

    def __init__(self, store: OrderBook, keys: DocumentKeys) -> None:
        self.store = store
        self.keys = keys
        self.order = BestFirstServers(self.best_key)  # told when a server's best document changes
        self._heaps: dict[int, list[tuple[Key, int]]] = {}
        self._live: dict[int, Key] = {}  # doc id -> key of its live heap entry
        self._docs: dict[int, tuple[int, str, int, int | None]] = {}  # id -> server, path, depth, redirects
        self._loaded: set[int] = set()
        keys.load(store)

    # --- Frontier -------------------------------------------------------
    def next_document(self, server: ServerState) -> FrontierEntry | None:
        heap = self._heap(server)
        while heap:
            key, doc_id = heapq.heappop(heap)
            if self._live.get(doc_id) != key:
                continue
            del self._live[doc_id]
            server_id, path, depth, redirects = self._docs.pop(doc_id)
            if redirects is None:
                redirects = self._redirects(doc_id)
            return FrontierEntry(doc_id, server_id, path, depth, redirects)
        return None

    def links_found(self, source: FrontierEntry | None, links: list[FoundLink]) -> None:
        for link in links:
            if link.new:
                self._docs[link.target_id] = (link.server.id, link.path, link.depth,
                                              None if source is None else 0)
                self.keys.seen(link.target_id, link.server.origin + link.path)
        changed = self.keys.links_found(None if source is None else source.doc_id, links)
        if changed is None:
            self.rebuild()
            return
        touched = {link.target_id: link.server for link in links if link.new}
        servers = {link.target_id: link.server for link in links}
        for doc_id in {*changed, *touched}:
            if doc_id in self._docs and self._push(doc_id):
                touched[doc_id] = servers.get(doc_id) or self.store.servers_by_id[self._docs[doc_id][0]]
        for server in {id(s): s for s in touched.values()}.values():
            self.order.reprioritise(server)

    # --- priorities -----------------------------------------------------
    def best_key(self, server: ServerState) -> Key:
        heap = self._heap(server)
        while heap and self._live.get(heap[0][1]) != heap[0][0]:
            heapq.heappop(heap)
        return heap[0][0] if heap else NOTHING

    def rebuild(self) -> None:
        """Every key may have changed: re-key all queued documents (O(n))."""
        self._heaps = {sid: [] for sid in self._heaps}
        self._live = {}
        for doc_id, (server_id, _, depth, _) in self._docs.items():
            key = self._live[doc_id] = self.keys.key(doc_id, depth)
            self._heaps.setdefault(server_id, []).append((key, doc_id))
        for heap in self._heaps.values():
            heapq.heapify(heap)
        for server_id in self._heaps:
            self.order.reprioritise(self.store.servers_by_id[server_id])

    def queued(self) -> int:
        return len(self._docs)

    def page_read(self, doc_id: int, title: str, text: str) -> None:
        """A fetched page's text, for policies that judge pages by content (the hot queue)."""
        reader = getattr(self.keys, "page_read", None)
        if reader is None:
            return
        servers = set()
        for target in reader(doc_id, title, text):
            if target in self._docs and self._push(target):
                servers.add(self._docs[target][0])
        for server_id in servers:
            self.order.reprioritise(self.store.servers_by_id[server_id])

    # --- internals ------------------------------------------------------
    def _push(self, doc_id: int) -> bool:
        """(Re-)key a queued document; True when its key changed."""
        server_id, _, depth, _ = self._docs[doc_id]
        key = self.keys.key(doc_id, depth)
        if self._live.get(doc_id) == key:
            return False
        self._live[doc_id] = key
        heapq.heappush(self._heaps.setdefault(server_id, []), (key, doc_id))
        return True

    def _heap(self, server: ServerState) -> list[tuple[Key, int]]:
        if server.id not in self._loaded:
            self._loaded.add(server.id)
            self._load(server)
        return self._heaps.setdefault(server.id, [])

    def _load(self, server: ServerState) -> None:
        """A resumed crawl's queued documents of `server` (those not already known here)."""
        for doc_id, path, depth, redirects in self.store.queued_of(server):
            if doc_id not in self._docs:
                self._docs[doc_id] = (server.id, path, depth, redirects)
                self.keys.seen(doc_id, server.origin + path)
                self._push(doc_id)

    def _redirects(self, doc_id: int) -> int:
        return self.store.redirects_of(doc_id)


class PageReadingSink:
    """Passes documents on to the real sink, and lets a hot-query frontier read their text."""

    def __init__(self, sink: Any, frontier: PriorityFrontier) -> None:
        self.sink = sink
        self.frontier = frontier

    def add(self, doc_id: int, document: Any) -> None:
        self.frontier.page_read(doc_id, document.title, document.text)
        self.sink.add(doc_id, document)

    def remove(self, doc_id: int) -> None:
        self.sink.remove(doc_id)

    def commit(self) -> None:
        self.sink.commit()

    def close(self) -> None:
        self.sink.close()

    def abort(self) -> None:
        self.sink.abort()
