"""One implementation of each order's estimate: the live crawl's keys and the ordering
harness's virtual crawlers rank the same links alike (engine/scheduling/orders/estimates.py)."""

from __future__ import annotations

import pytest

from webcrawler.engine.records import FoundLink
from webcrawler.engine.scheduling.orders.document_keys import BacklinkKeys, HotQueryKeys, PageRankKeys
from webcrawler.engine.scheduling.orders.estimates import HOT_DISTANCE, Backlinks, HotQueue, PageRankEstimate
from webcrawler.evaluate.orders import make_estimate_order
from webcrawler.evaluate.virtual import HotQueue as HarnessHotQueue

# 0 -> 1, 2, 3; 1 -> 3; 2 -> 3, 4; 3 -> 4: visited in this order, pages numbered as found.
VISITS = [(0, [1, 2, 3]), (1, [3]), (2, [3, 4]), (3, [4])]


def links(targets: list[int], anchors: dict[int, str] | None = None) -> list[FoundLink]:
    return [FoundLink(t, None, f"/{t}", (anchors or {}).get(t, ""), 1, True) for t in targets]  # type: ignore[arg-type]


def test_both_crawls_count_backlinks_with_one_implementation() -> None:
    live, harness = BacklinkKeys(), make_estimate_order("backlink", 5)
    harness.discovered(0)
    for page, targets in VISITS:
        for target in targets:
            if target not in harness.discovery:
                harness.discovered(target)
        live.links_found(page, links(targets))
        harness.visited(page, targets)
    assert isinstance(live.backlinks, Backlinks) and isinstance(harness.backlinks, Backlinks)
    by_live = sorted(range(5), key=lambda p: live.key(p, 0))
    by_harness = sorted(range(5), key=lambda p: (-harness.value(p), harness.discovery[p]))
    assert by_live == by_harness == [3, 4, 1, 2, 0]


def test_pagerank_between_recomputes_passes_on_a_share_of_the_source() -> None:
    rank = PageRankEstimate(every=10, d=0.9)
    assert rank.linked(0, [1, 2]) == [1, 2]  # 0.1 each at first, + 0.9 * 0.1 / 2
    assert rank.value(1) == rank.value(2) == pytest.approx(0.1 + 0.045)
    rank.recompute()
    assert rank.value(1) == rank.value(2) > rank.value(0)
    assert isinstance(PageRankKeys().rank, PageRankEstimate)
    assert isinstance(make_estimate_order("pagerank", 5).rank, PageRankEstimate)


def test_the_hot_queue_is_one_for_both_crawls() -> None:
    live = HotQueryKeys("topic", BacklinkKeys())
    harness = HarnessHotQueue(["topic"], on_topic=lambda page: page == 1)
    assert isinstance(live.queue, HotQueue) and isinstance(harness, HotQueue)
    live.links_found(0, links([1, 2], {2: "on the topic"}))
    harness.visited(0, [1, 2], {(0, 2): "on the topic"})
    live.page_read(1, "About the topic", "")
    live.links_found(1, links([3]))
    harness.visited(1, [3], {})
    queued = [2, 3]  # 2 named by its anchor; 3 one link from page 1, on the topic
    assert [live.hot(p) for p in queued] == [harness.hot(p) for p in queued] == [True, True]
    assert harness.distance[3] == 1 <= HOT_DISTANCE
