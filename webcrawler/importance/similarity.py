"""IS(P): similarity of each page to a driving query.

The index's own vector-space relevance (the WebCrawler's ranking, scores
normalised to 1000 for the best page) when an index is at hand; otherwise a
plain count of the query's words in the page's title and URL. A page the
query does not match has similarity 0.
"""

from __future__ import annotations

import re
from pathlib import Path

from webcrawler.importance.graph import CrawlGraph

PER_PAGE = 100
WORD = re.compile(r"[a-z0-9]+")


def query_words(query: str) -> list[str]:
    return WORD.findall(query.lower())


def similarity_scores(graph: CrawlGraph, query: str, index_dir: Path | None = None) -> list[float]:
    """IS(P) of every page of `graph` for `query`."""
    if index_dir is not None and Path(index_dir).exists():
        return _index_scores(graph, query, Path(index_dir))
    words = query_words(query)
    return [float(sum(text.count(w) for w in words))
            for text in (f"{title} {url}".lower() for title, url in zip(graph.titles, graph.urls,
                                                                        strict=True))]


def _index_scores(graph: CrawlGraph, query: str, index_dir: Path) -> list[float]:
    from webcrawler.index import open_searcher

    node = graph.node_of()
    scores = [0.0] * len(graph)
    with open_searcher(index_dir) as searcher:
        page = 1
        while True:
            results = searcher.search(query, page=page, per_page=PER_PAGE)
            for hit in results.hits:
                if hit.doc_id in node:
                    scores[node[hit.doc_id]] = float(hit.score)
            if page * PER_PAGE >= results.total or not results.hits:
                return scores
            page += 1


def mentions(text: str, words: list[str]) -> bool:
    """Does `text` (an anchor, a URL) contain every one of the query's words?"""
    found = set(WORD.findall(text.lower()))
    return bool(words) and all(w in found for w in words)
