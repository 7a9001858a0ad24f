"""The real-time search's crawl order: follow the link whose anchor text best matches the query.

Pinkerton 1994: "the WebCrawler makes a small full-text index from the anchor
text in a document and applies the user's query to select the most relevant
link". Here a document's links become candidates when the search *explores*
it (it ranks near the top of the query's results, or it is a start
document); each candidate gets a priority

    anchor relevance (0..1) + SOURCE_WEIGHT * the source's relevance (0..1)

where the anchor relevance is the link's score in the document's anchor-text
index (`webcrawler.index.search.anchors.build_anchor_index`: the main index's analyzer and
weighting) divided by the score of the query itself as an anchor, so that
links of different documents compare. A target linked from several explored
documents keeps its best priority.

- `AnchorFrontier.next_document(server)`: the server's best candidate.
- `BestLinkOrder`: ready servers by their best candidate (`BestFirstServers`,
  lazy re-push), so the best link of the whole search goes first, as
  politeness allows.

`guided=False` gives the unguided baseline for the benchmark: every link of
every explored document, breadth-first (discovery order), anchors ignored.
This module never does I/O: the job (`engine/realtime/search.py`) feeds it, and gives it at
construction what it asks of the job (`expecting`, `still_queued`) and of the
crawl loop (`work_added`: a server has a new candidate).
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from webcrawler.engine.records import FoundLink, FrontierEntry, ServerState
from webcrawler.engine.scheduling.frontier import Ordering
from webcrawler.engine.scheduling.orders.best_first import NOTHING, BestFirstServers, Key
from webcrawler.index import build_anchor_index

SOURCE_WEIGHT = 0.5
START = 10.0  # start documents (--from URL) go before any link
_QUERY_KEY = -1  # the query's own text, indexed as an anchor: the scale of anchor scores


@dataclass(frozen=True, slots=True)
class Candidate:
    """A link the search may follow: its target as a frontier entry, and where it is served."""

    entry: FrontierEntry
    server: ServerState
    anchor: str


def anchor_scores(query: str, anchors: list[str]) -> list[float]:
    """Each anchor's relevance to `query`, 0..1 (1: as good a match as the query itself)."""
    if not anchors:
        return []
    pairs = [(i, a) for i, a in enumerate(anchors) if a.strip()] + [(_QUERY_KEY, query)]
    scores = dict(build_anchor_index(pairs).best(query, len(pairs)))
    scale = scores.pop(_QUERY_KEY, 0.0)
    if scale <= 0:
        return [0.0] * len(anchors)
    return [min(1.0, scores.get(i, 0.0) / scale) for i in range(len(anchors))]


class AnchorFrontier:
    """Candidate links per server, best priority first (see the module docstring)."""

    def __init__(self, query: str, guided: bool = True, max_fetches: int = 0, *,
                 expecting: Callable[[], bool] = lambda: False,
                 still_queued: Callable[[int], bool] = lambda doc_id: True,
                 work_added: Callable[[ServerState], None] = lambda server: None) -> None:
        self.query = query
        self.guided = guided
        self.max_fetches = max_fetches  # 0 = no limit
        self.handed_out = 0
        self.order = BestLinkOrder(self)
        self.fetched_links: dict[int, list[FoundLink]] = {}  # links of documents fetched here
        self.starts: set[int] = set()  # start documents: explored as soon as fetched
        self.expecting = expecting  # more candidates may come soon
        self.still_queued = still_queued  # not fetched by another writer meanwhile
        self.work_added = work_added  # tell the loop's scheduler: a server has a candidate
        self._heaps: dict[int, list[tuple[float, int, Candidate]]] = {}
        self._priority: dict[int, float] = {}  # target doc id -> priority of its live entry
        self._taken: set[int] = set()  # doc ids handed out
        self._live: Counter[int] = Counter()  # server id -> candidates not handed out
        self._seq = itertools.count()

    # --- Frontier -------------------------------------------------------
    def next_document(self, server: ServerState) -> FrontierEntry | None:
        if self.max_fetches and self.handed_out >= self.max_fetches:
            return None
        heap = self._heaps.get(server.id)
        while heap:
            key, _, cand = heapq.heappop(heap)
            doc_id = cand.entry.doc_id
            if doc_id in self._taken or self._priority.get(doc_id) != -key:
                continue
            self._taken.add(doc_id)
            self._live[server.id] -= 1
            if doc_id not in self.starts and not self.still_queued(doc_id):
                continue  # `webcrawler index` fetched it meanwhile
            self.handed_out += 1
            return cand.entry
        return None

    def links_found(self, source: FrontierEntry | None, links: list[FoundLink]) -> None:
        if source is None:  # start documents
            for link in links:
                self.starts.add(link.target_id)
                self._add(Candidate(_entry(link), link.server, ""), START)
            return
        self.fetched_links[source.doc_id] = links
        if source.doc_id in self.starts or not self.guided:
            self.explore(links, 1.0)

    # --- what the job tells it --------------------------------------------
    def explore(self, candidates: Iterable[FoundLink | Candidate], relevance: float) -> int:
        """Make the links of an explored document candidates; returns how many are new."""
        cands = [c if isinstance(c, Candidate) else Candidate(_entry(c), c.server, c.anchor)
                 for c in candidates]
        cands = [c for c in cands if c.entry.doc_id not in self._taken]
        if self.guided:
            anchors = anchor_scores(self.query, [c.anchor for c in cands])
            priorities = [a + SOURCE_WEIGHT * relevance for a in anchors]
        else:  # breadth-first: earlier discoveries first
            priorities = [-float(next(self._seq)) for _ in cands]
        return sum(self._add(c, p) for c, p in zip(cands, priorities, strict=True))

    def best(self, server: ServerState) -> float | None:
        """The priority of `server`'s best candidate, or None when it has none."""
        heap = self._heaps.get(server.id)
        while heap:
            key, _, cand = heap[0]
            if cand.entry.doc_id not in self._taken and self._priority.get(cand.entry.doc_id) == -key:
                return -key
            heapq.heappop(heap)
        return None

    def best_key(self, server: ServerState) -> Key:
        """`best` as a key for `BestFirstServers` (smaller first; NOTHING: no candidate)."""
        best = self.best(server)
        return NOTHING if best is None else (-best,)

    def _add(self, cand: Candidate, priority: float) -> bool:
        doc_id = cand.entry.doc_id
        old = self._priority.get(doc_id)
        if old is not None and old >= priority:
            return False
        self._priority[doc_id] = priority
        self._live[cand.server.id] += old is None
        heapq.heappush(self._heaps.setdefault(cand.server.id, []), (-priority, next(self._seq), cand))
        server = cand.server
        server.queued = max(server.queued, self._live[server.id])  # whatever the database says
        self.order.reprioritise(server)
        self.work_added(server)
        return old is None


class BestLinkOrder(BestFirstServers):
    """A `ServerOrder`: ready servers by their best candidate's priority (best_first.py).

    A server the scheduler offers without a candidate waits here until one
    comes (the scheduler counts it as offered). `backlog` also counts one while
    the frontier expects candidates, so the crawl does not stop for want of
    work while new documents are on their way into the index.
    """

    def __init__(self, frontier: AnchorFrontier) -> None:
        super().__init__(frontier.best_key)
        self.frontier = frontier
        self._waiting: dict[int, ServerState] = {}

    def push(self, server: ServerState) -> None:
        key = self.best_key(server)
        if key == NOTHING:
            self._waiting[server.id] = server
        else:
            self._waiting.pop(server.id, None)
            self.queue.push(server, key)

    def reprioritise(self, server: ServerState) -> None:
        """`server` has a new or better candidate: re-push it if it is offered (waiting here
        for one, or queued)."""
        if server.id in self._waiting or server in self.queue:
            self.push(server)

    def backlog(self) -> int:
        return super().backlog() + int(self.frontier.expecting())


def anchor_ordering(frontier: AnchorFrontier) -> Ordering:
    """The real-time search's `Ordering` around its frontier."""
    name = "anchor-text" if frontier.guided else "breadth-first"
    return Ordering(name, frontier.order, frontier)


def _entry(link: FoundLink) -> FrontierEntry:
    return FrontierEntry(link.target_id, link.server.id, link.path, link.depth)
