"""The crawled Web as a graph: pages (fetched documents) and the links between them.

Read-only: the database room reads the rows (database/graph_rows.py, the database opened
read-only) and nothing is written. A page is a fetched document that is not a duplicate of
another; a link to a redirected URL counts as a link to where the redirect
leads; links to pages outside the graph (failed, excluded, never fetched)
and links from a page to itself are dropped, as the paper's repository
"stands in for the Web".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webcrawler.database.graph_rows import Database, graph_rows

MAX_REDIRECT_HOPS = 6


@dataclass
class CrawlGraph:
    """Pages numbered 0..n-1; `out[i]` are the pages page i links to (distinct, no self-links)."""

    doc_ids: list[int]
    urls: list[str]
    titles: list[str]
    out: list[list[int]]
    anchors: dict[tuple[int, int], str] = field(default_factory=dict)  # (source, target) -> text

    def __len__(self) -> int:
        return len(self.doc_ids)

    def node_of(self) -> dict[int, int]:
        return {doc_id: i for i, doc_id in enumerate(self.doc_ids)}

    def in_links(self) -> list[list[int]]:
        """`in_links()[j]`: the pages that link to page j."""
        result: list[list[int]] = [[] for _ in self.doc_ids]
        for source, targets in enumerate(self.out):
            for target in targets:
                result[target].append(source)
        return result

    @classmethod
    def from_edges(cls, n: int, edges: list[tuple[int, int]], urls: list[str] | None = None,
                   anchors: dict[tuple[int, int], str] | None = None) -> CrawlGraph:
        """A hand-made graph (tests, examples): pages 0..n-1, doc ids = page numbers."""
        out: list[list[int]] = [[] for _ in range(n)]
        for source, target in edges:
            if source != target and target not in out[source]:
                out[source].append(target)
        return cls(list(range(n)), urls or [f"http://h/{i}" for i in range(n)], [""] * n, out,
                   dict(anchors or {}))


def load_graph(db: Database) -> CrawlGraph:
    """The pages and links of the stored crawl at `db` (an SQLAlchemy URL or engine)."""
    stored = graph_rows(db)
    redirect_to = {source: target for source, target, _ in stored.links if source in stored.redirected}
    graph = CrawlGraph([p[0] for p in stored.pages], [stored.origins[p[1]] + p[2] for p in stored.pages],
                       [p[3] or "" for p in stored.pages], [[] for _ in stored.pages])
    node = graph.node_of()
    seen: set[tuple[int, int]] = set()
    for source_id, target_id, anchor in stored.links:
        source = node.get(source_id)
        target = node.get(_follow(target_id, redirect_to))
        if source is None or target is None or source == target or (source, target) in seen:
            continue
        seen.add((source, target))
        graph.out[source].append(target)
        if anchor:
            graph.anchors[(source, target)] = anchor
    return graph


def _follow(doc_id: int, redirect_to: dict[int, int]) -> int:
    for _ in range(MAX_REDIRECT_HOPS):
        if doc_id not in redirect_to:
            break
        doc_id = redirect_to[doc_id]
    return doc_id

