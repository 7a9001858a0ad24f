"""The index's link counts kept fresh during a long crawl, at a bounded cost.

A page is indexed with the in-links the links table holds at that moment
(`link_evidence.py`): the pages crawled first - often the ones most linked to -
are indexed knowing almost none of their in-links. So every `link_refresh`
documents fetched (or `REFRESH_SECONDS` when fetching is slow, but never sooner
than `MIN_LOOK_SECONDS` after the last look, and once more when the crawl ends), the engine looks
at the pages the documents fetched since the last look link to (their targets,
read through the links table's primary key: a look costs the links of those
documents, not of the crawl), counts each target's in-links now, and compares
them with the count its index entry was built with (`index_outbox.inlinks`,
stored when the index's commit is acknowledged). A target whose link prior
(`index/search/prior.py`) would now differ by at least `MIN_CHANGE` is sent to the index
again - its outbox row joins the open batch, and the index re-adds it with its
anchor texts and counts read afresh - the largest changes first, at most
`MAX_RESEND` a look, so re-indexing costs at most that share of the crawl's own
indexing. Nothing on the query side changes: the counts stay in the same columns,
read on the fast path as before. Pages whose index entry is not committed yet
are left alone (they read the links table when indexed).

Looks are spaced in time as well as in documents because the refresh serves the
searchers of an index that is still being crawled, and they notice staleness in
seconds: a fast crawl (a local web, hundreds of pages a second) would otherwise look
every few seconds and send the same hub pages again at each look (their in-links grow
between any two), for a freshness nobody sees; the look at the crawl's end catches up.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from webcrawler.engine.interfaces import LinkBook
from webcrawler.index.search.prior import factor

REFRESH_SECONDS = 60.0  # a look at least this often while documents arrive
MIN_LOOK_SECONDS = 30.0  # ... and no look sooner than this after the last (but the crawl's end)
MAX_RESEND = 200  # documents sent again per look, the largest changes first
MIN_CHANGE = 0.05  # the prior's relative change from which a page is sent again


class LinkRefresh:
    """Remembers the documents fetched since the last look; `due()` says when to look,
    `look()` picks the pages to send to the index again."""

    def __init__(self, store: LinkBook, every: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.every = every  # documents between two looks (0: never)
        self.sources: list[int] = []
        self._clock = clock
        self._last = clock()
        self.sent = 0  # pages sent again, over the crawl
        self.looks = 0
        self.seconds = 0.0  # spent looking

    def fetched(self, doc_id: int) -> None:
        if self.every:
            self.sources.append(doc_id)

    def due(self) -> bool:
        """Time for a look: `every` documents and half a minute since the last, or a minute
        with some."""
        if not self.sources:
            return False
        since = self._clock() - self._last
        return since >= REFRESH_SECONDS or (len(self.sources) >= self.every and since >= MIN_LOOK_SECONDS)

    def look(self) -> list[int]:
        """The pages whose index entries' link prior is out of date by at least `MIN_CHANGE`,
        most out of date first, at most `MAX_RESEND`; the sources are forgotten."""
        started = time.monotonic()
        sources, self.sources, self._last = self.sources, [], self._clock()
        indexed = self.store.indexed_in_links(self.store.targets_of(sources))
        now = self.store.in_link_counts(list(indexed))
        changes = [(_change(indexed[doc_id], now.get(doc_id, 0)), doc_id) for doc_id in indexed]
        stale = sorted((c for c in changes if c[0] >= MIN_CHANGE), reverse=True)[:MAX_RESEND]
        self.sent += len(stale)
        self.looks += 1
        self.seconds += time.monotonic() - started
        return [doc_id for _change_, doc_id in stale]

    def line(self) -> str:
        """The summary's words on it ("" when nothing was sent again)."""
        if not self.sent:
            return ""
        return (f"{self.sent:,} page{'' if self.sent == 1 else 's'} sent to the index again as "
                f"their in-links grew "
                f"({self.looks:,} looks, {self.seconds:.2f} s)")


def _change(before: int | None, now: int) -> float:
    """How far the prior of a page with `now` in-links is from its index entry's (None: built
    before the counts were kept, taken as 0)."""
    old, new = factor(before or 0, 0), factor(now, 0)
    return max(old, new) / min(old, new) - 1.0

