"""The crawl orders `webcrawler index --order` offers, as compositions of parts.

- `server-first` (the default): Pinkerton 1994. New servers first, then the
  least recently accessed server; each server's documents breadth-first.
"""

from __future__ import annotations

from collections.abc import Callable

from webcrawler.engine.frontier import BreadthFirstFrontier, Ordering
from webcrawler.engine.scheduler import ServerFirstOrder
from webcrawler.engine.store import CrawlStore


def server_first(store: CrawlStore) -> Ordering:
    return Ordering("server-first", ServerFirstOrder(), BreadthFirstFrontier(store))


ORDERINGS: dict[str, Callable[[CrawlStore], Ordering]] = {
    "server-first": server_first,
}


def make_ordering(name: str, store: CrawlStore) -> Ordering:
    """The ordering called `name`; ValueError naming the choices for an unknown one."""
    try:
        return ORDERINGS[name](store)
    except KeyError:
        raise ValueError(f"unknown order {name!r}: choose from {', '.join(ORDERINGS)}") from None
