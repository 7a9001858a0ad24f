"""Virtual crawlers' visiting sequences, the paper's measures, and the harness end to end."""

from __future__ import annotations

import csv
import random

import pytest

from webcrawler.evaluate import evaluate
from webcrawler.evaluate import measures as m
from webcrawler.evaluate.report import table, write_csv, write_plots
from webcrawler.evaluate.virtual import HotQueue, VirtualCrawler
from webcrawler.importance import CrawlGraph, Importance, backlinks

# 0 -> 1, 2, 3; 1 -> 4; 2 -> 4. Pages 0, 1, 3 on server a, 2 on b, 4 on c.
URLS = ["http://a/", "http://a/x", "http://b/", "http://a/y", "http://c/"]
EDGES = [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4)]


def visits(name: str, **kw) -> list[int]:
    return VirtualCrawler(CrawlGraph.from_edges(5, EDGES, URLS), name, [0], **kw).run().visits


def test_visiting_sequences():
    assert visits("breadth-first") == [0, 1, 2, 3, 4]
    assert visits("backlink") == [0, 1, 2, 4, 3]  # after 1 and 2, page 4 has two links seen
    assert visits("server-first") == [0, 2, 4, 1, 3]  # new servers b and c before a's second page
    assert sorted(visits("pagerank")) == [0, 1, 2, 3, 4]
    # page 4 has all of page 1's rank; pages 2 and 3 share page 0's three ways
    assert visits("pagerank") == [0, 1, 4, 2, 3]
    assert sorted(visits("random")) == [0, 1, 2, 3, 4]


def test_hot_queue_puts_named_urls_first():
    graph = CrawlGraph.from_edges(4, [(0, 1), (0, 2), (2, 3)],
                                  ["http://a/", "http://a/p", "http://a/q", "http://a/z"],
                                  anchors={(0, 2): "about topic"})
    hot = HotQueue(["topic"], on_topic=lambda p: False)
    assert VirtualCrawler(graph, "breadth-first", [0], hot=hot).run().visits == [0, 2, 1, 3]
    hot = HotQueue(["topic"], on_topic=lambda p: p == 2)  # page 2 turns out to be on the topic
    assert VirtualCrawler(graph, "breadth-first", [0], hot=hot).run().visits == [0, 2, 3, 1]


def test_ideal_and_random_crawlers_match_their_formulas():
    total, importance = 50, list(range(50))  # distinct values: page 49 the most important
    hot = m.hot_pages(importance, 40, range(total))
    ks = list(range(1, total + 1))
    ideal = sorted(range(total), key=lambda p: -importance[p])
    assert m.pcs(ideal, importance, ks) == m.ideal_pcs(ks)
    assert m.pst(ideal, hot, ks) == m.ideal_pst(ks, len(hot))
    assert m.pbc(set(ideal[:5]), hot, 5) == m.ideal_pbc([5], len(hot))[0]
    rng = random.Random(1)
    runs = 500
    pcs_sum, pst_sum = [0.0] * total, [0.0] * total
    for _ in range(runs):
        order = rng.sample(range(total), total)
        pcs_sum = [a + b for a, b in zip(pcs_sum, m.pcs(order, importance, ks), strict=True)]
        pst_sum = [a + b for a, b in zip(pst_sum, m.pst(order, hot, ks), strict=True)]
    assert [v / runs for v in pcs_sum] == pytest.approx(m.random_pcs(ks, total), abs=3.0)
    assert [v / runs for v in pst_sum] == pytest.approx(m.random_pst(ks, total), abs=3.0)


def test_evaluate_writes_curves_plots_and_table(tmp_path):
    rng = random.Random(3)
    n = 120
    edges = [(i, rng.randrange(n)) for i in range(n) for _ in range(4)] + [(0, i) for i in range(1, 6)]
    graph = CrawlGraph.from_edges(n, edges)
    importance = Importance("backlink", [float(v) for v in backlinks(graph.out)])
    result = evaluate(graph, importance, [0], threshold=6)
    assert set(result.curves["pst"]) >= {"breadth-first", "backlink", "pagerank", "server-first", "random",
                                         "ideal", "random (expected)"}
    for measure in ("pst", "pcs"):
        for crawler, curve in result.curves[measure].items():
            assert len(curve) == 100 and all(0 <= v <= 100 for v in curve), crawler
    assert all(curve[-1] == pytest.approx(100.0) for curve in result.curves["pst"].values())
    write_csv(result, tmp_path / "c.csv")
    rows = list(csv.DictReader((tmp_path / "c.csv").read_text().splitlines()))
    assert {r["measure"] for r in rows} == {"pst", "pcs", "pbc"}
    paths = write_plots(result, tmp_path)
    assert [p.name for p in paths] == ["ordering-pst.png", "ordering-pcs.png", "ordering-pbc.png"]
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in paths)
    assert "PST" in table(result) and "pagerank" in table(result)
