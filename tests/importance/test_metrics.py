"""Importance metrics on hand-made graphs and on a real SQLite crawl database."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import insert

from webcrawler.database.schema import connect, documents, links, servers
from webcrawler.importance import (
    CrawlGraph,
    ImportanceError,
    backlinks,
    compute_importance,
    load_graph,
    location_score,
    pagerank,
)


def exact_pagerank(out: list[list[int]], d: float = 0.9) -> np.ndarray:
    """Solve (I - d M) IR = (1 - d) directly; dangling pages link to every page."""
    n = len(out)
    matrix = np.zeros((n, n))
    for i, targets in enumerate(out):
        if targets:
            for j in targets:
                matrix[j, i] += 1.0 / len(targets)
        else:
            matrix[:, i] = 1.0 / n
    return np.linalg.solve(np.eye(n) - d * matrix, np.full(n, 1.0 - d))


def test_pagerank_by_hand():
    # 0 <-> 1, 2 -> 0. IR(2) = 0.1; IR(0) = 0.1 + 0.9 (IR(1) + IR(2)); IR(1) = 0.1 + 0.9 IR(0)
    ranks = pagerank([[1], [0], [0]])
    assert ranks == pytest.approx([0.28 / 0.19, 0.1 + 0.9 * 0.28 / 0.19, 0.1], abs=1e-6)
    assert sum(ranks) == pytest.approx(3.0)


def test_pagerank_with_dangling_pages_matches_a_linear_solve():
    out = [[1, 2], [3], [3, 4], [], [0, 3], []]
    assert pagerank(out) == pytest.approx(list(exact_pagerank(out)), abs=1e-6)
    assert pagerank(out, d=0.5) == pytest.approx(list(exact_pagerank(out, 0.5)), abs=1e-6)


def test_backlinks_count_linking_pages():
    graph = CrawlGraph.from_edges(4, [(0, 1), (0, 2), (1, 2), (3, 2), (2, 2), (0, 1)])
    assert backlinks(graph.out) == [0, 1, 3, 0]  # self-links and repeated links are dropped


def test_location_prefers_short_home_and_com_urls():
    assert location_score("http://a.com/") > location_score("http://a.org/")
    assert location_score("http://a.org/x") > location_score("http://a.org/x/y/z")
    assert location_score("http://a.org/d/home.html") > location_score("http://a.org/d/faq.html")


def test_combinations_and_errors():
    graph = CrawlGraph.from_edges(4, [(0, 1), (2, 1), (3, 1), (0, 2), (3, 2)],
                                  urls=["http://h/", "http://h/db", "http://h/db/x", "http://h/y"])
    assert compute_importance("backlink", graph).values == [0, 3, 2, 0]
    on_topic = compute_importance("similarity:db", graph)
    assert on_topic.query == "db" and [v > 0 for v in on_topic.values] == [False, True, True, False]
    both = compute_importance("similarity:db&backlink>=3", graph)
    assert [v > 0 for v in both.values] == [False, True, False, False]
    assert compute_importance("backlink>=3", graph).values == [0, 3, 0, 0]
    with pytest.raises(ImportanceError):
        compute_importance("popularity", graph)


def test_load_graph_follows_redirects_and_skips_duplicates(tmp_path):
    url = f"sqlite:///{tmp_path / 'w.db'}"
    engine = connect(url)
    docs = [(1, "/", "fetched", None), (2, "/a", "fetched", None), (3, "/r", "redirected", None),
            (4, "/b", "fetched", None), (5, "/dup", "fetched", "duplicate"), (6, "/gone", "failed", None)]
    with engine.begin() as conn:
        conn.execute(insert(servers).values(id=1, scheme="http", host="h", port=80, first_seen=0))
        conn.execute(insert(documents), [dict(id=i, server_id=1, path=p, state=s, reason=r,
                                              discovered_at=0, title=p) for i, p, s, r in docs])
        conn.execute(insert(links), [dict(source_id=s, target_id=t, anchor=a) for s, t, a in
                                     [(1, 2, "a page"), (1, 3, ""), (3, 4, ""), (2, 5, ""), (2, 6, ""),
                                      (2, 1, "home"), (4, 4, "")]])
    engine.dispose()
    graph = load_graph(url)
    assert graph.urls == ["http://h/", "http://h/a", "http://h/b"]
    assert graph.out == [[1, 2], [0], []]
    assert graph.anchors[(0, 1)] == "a page"
