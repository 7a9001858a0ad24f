"""Sequencers: small composable parts that decide an order (after WebFountain).

Every sequencer answers three questions:

- `has_next()`: can `next()` give something *now*?
- `next()`: take the next item (only after `has_next()` said True).
- `backlog()`: how many items it holds in all, including items that are not
  ready now (a server cooling down between requests still counts).

Queues hold items; aggregators hold sequencers and decide which child goes
next. The WebCrawler's server-first breadth-first search is a composition:
`PriorityAggregator([new servers (FIFO), all servers (least recently accessed
first)], strict=True)`; other orderings are other compositions.

Sequencers never do I/O and never look at the clock: readiness is whatever
the items' owner puts in or takes out.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Sequence
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Sequencer(Protocol[T_co]):
    def has_next(self) -> bool: ...
    def next(self) -> T_co: ...
    def backlog(self) -> int: ...


class FifoQueue(Generic[T]):
    """First in, first out: the order of discovery."""

    def __init__(self) -> None:
        self._items: deque[T] = deque()

    def push(self, item: T) -> None:
        self._items.append(item)

    def has_next(self) -> bool:
        return bool(self._items)

    def next(self) -> T:
        return self._items.popleft()

    def backlog(self) -> int:
        return len(self._items)

    def __contains__(self, item: object) -> bool:
        return item in self._items


class PriorityQueue(Generic[T]):
    """Smallest key first; ties in insertion order. Keys are fixed when pushed.

    `discard` is lazy (O(1)): a discarded entry is skipped when it surfaces,
    so callers may re-push an item with a new key without a search.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[object, int, T]] = []
        self._live: dict[int, int] = {}  # id(item) -> sequence number of its live entry
        self._counter = itertools.count()

    def push(self, item: T, key: object) -> None:
        seq = next(self._counter)
        self._live[id(item)] = seq
        heapq.heappush(self._heap, (key, seq, item))

    def discard(self, item: T) -> None:
        self._live.pop(id(item), None)

    def _drop_stale(self) -> None:
        while self._heap and self._live.get(id(self._heap[0][2])) != self._heap[0][1]:
            heapq.heappop(self._heap)

    def has_next(self) -> bool:
        self._drop_stale()
        return bool(self._heap)

    def next(self) -> T:
        self._drop_stale()
        _, _, item = heapq.heappop(self._heap)
        del self._live[id(item)]
        return item

    def backlog(self) -> int:
        return len(self._live)

    def __contains__(self, item: object) -> bool:
        return id(item) in self._live


class RoundRobinAggregator(Generic[T]):
    """Takes from each ready child in turn, so no child starves another."""

    def __init__(self, children: Sequence[Sequencer[T]]) -> None:
        self.children = list(children)
        self._turn = 0

    def has_next(self) -> bool:
        return any(child.has_next() for child in self.children)

    def next(self) -> T:
        for offset in range(len(self.children)):
            index = (self._turn + offset) % len(self.children)
            if self.children[index].has_next():
                self._turn = index + 1
                return self.children[index].next()
        raise IndexError("next() on an empty RoundRobinAggregator")

    def backlog(self) -> int:
        return sum(child.backlog() for child in self.children)


class PriorityAggregator(Generic[T]):
    """Takes from the first child that can give.

    With `strict=True`, a child that holds work (backlog) that is not ready
    yet blocks the children after it: "before any other documents are
    visited, a document on each of the new servers is retrieved" even when
    one of those servers is still busy fetching its robots.txt.
    """

    def __init__(self, children: Sequence[Sequencer[T]], strict: bool = False) -> None:
        self.children = list(children)
        self.strict = strict

    def _giver(self) -> Sequencer[T] | None:
        for child in self.children:
            if child.has_next():
                return child
            if self.strict and child.backlog():
                return None
        return None

    def has_next(self) -> bool:
        return self._giver() is not None

    def next(self) -> T:
        giver = self._giver()
        if giver is None:
            raise IndexError("next() on a PriorityAggregator with nothing ready")
        return giver.next()

    def backlog(self) -> int:
        return sum(child.backlog() for child in self.children)
