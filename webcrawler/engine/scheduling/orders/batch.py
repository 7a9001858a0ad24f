"""The crawl orders `webcrawler index --order` offers, as compositions of parts.

- `server-first` (the default): Pinkerton 1994. New servers first, then the
  least recently accessed server; each server's documents breadth-first
  (straight from the database's frontier index).
- `breadth-first`: documents by depth, then discovery, across servers: the
  server holding the shallowest queued document goes first.
- `backlink`: most links seen so far first (IB'(P), Cho et al. 1998).
- `pagerank`: highest PageRank over the graph seen so far first (IR'(P), d = 0.9).

Every order but server-first is a `PriorityFrontier` (per-server heaps of
queued documents) under a `BestFirstServers` (ready servers by their best
document), with the key policy of `document_keys`. `hot_query` puts the
paper's hot queue in front of any of them: URLs whose anchor text or URL
mention the query words, or within three links of a page that does, first.
Politeness stays in the Scheduler and robots.txt in engine/loop/robots_txt.py for all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webcrawler.engine.interfaces import Store
from webcrawler.engine.scheduling.frontier import Ordering, server_first
from webcrawler.engine.scheduling.orders.document_keys import (
    BacklinkKeys,
    BreadthFirstKeys,
    DocumentKeys,
    HotQueryKeys,
    PageRankKeys,
)
from webcrawler.engine.scheduling.orders.priority_frontier import PageReadingSink, PriorityFrontier
from webcrawler.errors import SettingError


def by_priority(name: str, store: Store, keys: DocumentKeys) -> Ordering:
    frontier = PriorityFrontier(store, keys)
    return Ordering(name, frontier.order, frontier)


KEYS: dict[str, Callable[[], DocumentKeys]] = {
    "server-first": BreadthFirstKeys,  # used only under a hot query
    "breadth-first": BreadthFirstKeys,
    "backlink": BacklinkKeys,
    "pagerank": PageRankKeys,
}

ORDERINGS: dict[str, Callable[[Store], Ordering]] = {
    "server-first": server_first,
    **{name: (lambda store, name=name: by_priority(name, store, KEYS[name]()))  # type: ignore[misc]
       for name in ("breadth-first", "backlink", "pagerank")},
}


def make_ordering(name: str, store: Store, hot_query: str = "") -> Ordering:
    """The ordering called `name`, behind a hot queue for `hot_query` when one is given.

    ValueError naming the choices for an unknown name.
    """
    if name not in ORDERINGS:
        raise SettingError(f"unknown order {name!r}: choose from {', '.join(ORDERINGS)}")
    if hot_query.strip():
        return by_priority(f"{name}+hot", store, HotQueryKeys(hot_query, KEYS[name]()))
    return ORDERINGS[name](store)


def watch_pages(ordering: Ordering, sink: Any) -> Any:
    """`sink`, wrapped so that a hot-query ordering reads each stored page's text."""
    frontier = ordering.frontier
    if isinstance(frontier, PriorityFrontier) and isinstance(frontier.keys, HotQueryKeys):
        return PageReadingSink(sink, frontier)
    return sink
