"""Which document of a server comes next: the document-level half of an ordering.

The scheduler picks a server (politely); the frontier picks that server's
next document, and learns from every link the crawl finds (a backlink count,
an anchor text that matches a query, ...). The WebCrawler's own frontier is
breadth-first per server, straight from the database's frontier index, and
learns nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from webcrawler.engine.interfaces import URLBook
from webcrawler.engine.records import FoundLink, FrontierEntry, ServerState
from webcrawler.engine.scheduling.scheduler import ServerFirstOrder, ServerOrder


class Frontier(Protocol):
    def next_document(self, server: ServerState) -> FrontierEntry | None:
        """The queued document of `server` to fetch next, or None when it has none."""

    def links_found(self, source: FrontierEntry | None, links: list[FoundLink]) -> None:
        """Links found in `source` (None for seeds), already stored and queued."""


class BreadthFirstFrontier:
    """Each server's documents by depth, then discovery order (the database's index)."""

    def __init__(self, store: URLBook) -> None:
        self.store = store

    def next_document(self, server: ServerState) -> FrontierEntry | None:
        return self.store.next_document(server)

    def links_found(self, source: FrontierEntry | None, links: list[FoundLink]) -> None:
        pass


@dataclass
class Ordering:
    """A crawl order: how ready servers are ordered, and how a server's documents are."""

    name: str
    servers: ServerOrder
    frontier: Frontier


def server_first(store: URLBook) -> Ordering:
    """The WebCrawler's own order: servers first-new then least recently accessed
    (scheduler.py), each server's documents breadth-first from the store."""
    return Ordering("server-first", ServerFirstOrder(), BreadthFirstFrontier(store))
