"""Issue 35: an incremental crawl fetches new pages first and keeps a floor for recrawls.

The default `recrawl_share` (FIRST_PASS_SHARE) gives a server's due recrawls a tenth of its
turns while it still has new URLs, and every turn once they run out. The queues are driven here
as the crawl loop drives them: the in-memory store, its breadth-first frontier and the real
scheduler, one `next_document` a turn, each page recorded as fetched before the next turn, so
the test counts turns, not I/O.
"""

from __future__ import annotations

import pytest

from webcrawler.database.states import State
from webcrawler.engine.records import NewURL
from webcrawler.engine.scheduling.frontier import BreadthFirstFrontier
from webcrawler.engine.scheduling.scheduler import Scheduler
from webcrawler.engine.store.memory import MemoryStore
from webcrawler.recrawl.queues import RecrawlQueues
from webcrawler.settings import FIRST_PASS_SHARE, Settings

NEW, DUE = 900, 300  # never-fetched pages and due recrawls of one server


def turns(share: float) -> list[bool]:
    """Each turn of the server until both queues are empty: True for a recrawl."""
    store = MemoryStore()
    server = store.add_server("http://127.0.1.1:8000", 0.0)
    old, _ = store.add_urls(server, [NewURL(f"/old/{n}", 1) for n in range(DUE)], 0.0)
    for _ in range(DUE):  # the pages of an earlier crawl, fetched once
        entry = store.next_document(server)
        assert entry is not None
        store.record_fetch(entry, State.FETCHED, f"sum-{entry.doc_id}", 0.0)
    store.add_urls(server, [NewURL(f"/new/{n}", 1) for n in range(NEW)], 0.0)
    queues = RecrawlQueues(store, BreadthFirstFrontier(store), share)
    for doc_id in old.values():  # each stored as due, as the recrawler stores a page's schedule
        store.set_due(doc_id, 0.0)
        queues.schedule(doc_id, server.id, due=0.0)
    assert queues.tick(1.0, Scheduler(0.0), 0.0) == DUE
    out = []
    for _ in range(NEW + DUE + 1):
        entry = queues.next_document(server)
        if entry is None:
            break
        store.record_fetch(entry, State.FETCHED, f"sum-{entry.doc_id}", 2.0)
        out.append(entry.recrawl)
    return out


def test_the_default_share_is_the_first_pass_floor() -> None:
    assert Settings().recrawl_share == FIRST_PASS_SHARE == 0.1  # the documented default
    assert 0 < FIRST_PASS_SHARE <= 0.25


def test_new_pages_come_first_and_recrawls_keep_their_floor() -> None:
    order = turns(Settings().recrawl_share)
    assert len(order) == NEW + DUE and sum(order) == DUE
    # While new URLs remain, recrawls get their floor: about a tenth of the turns, never none.
    first = order[:NEW]
    assert sum(first) == pytest.approx(FIRST_PASS_SHARE * NEW, abs=2)
    gaps = [i for i, recrawl in enumerate(first) if recrawl]
    assert max(b - a for a, b in zip([-1, *gaps], gaps, strict=False)) <= round(1 / FIRST_PASS_SHARE) + 1
    # The first pass ends after NEW / (1 - share) turns; the recrawls left wait until then.
    last_new = max(i for i, recrawl in enumerate(order) if not recrawl)
    assert last_new <= NEW / (1 - FIRST_PASS_SHARE) + 2 and sum(order[last_new + 1:]) >= DUE / 2


def test_the_old_even_share_lets_recrawls_delay_the_first_pass() -> None:
    """The contrast: at 0.5 half the turns go to recrawls while new pages wait."""
    order = turns(0.5)
    assert sum(order[: 2 * DUE]) == pytest.approx(DUE, abs=2)
    assert max(i for i, recrawl in enumerate(order) if not recrawl) == NEW + DUE - 1


def test_a_share_of_zero_starves_recrawls_only_until_the_new_urls_run_out() -> None:
    order = turns(0.0)
    assert order == [False] * NEW + [True] * DUE
