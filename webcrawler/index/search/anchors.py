"""A small in-memory index of anchor texts, for the real-time search.

The paper's navigation mode "makes a small full-text index from the anchor text
in a document and applies the user's query to select the most relevant link".
This uses the same analyzer, weighting and relevance as the main index, in a
Whoosh RamStorage that lives as long as the `AnchorIndex`.
"""

from __future__ import annotations

from collections.abc import Iterable

from whoosh.collectors import TopCollector
from whoosh.fields import ID, Schema

from webcrawler.index.format.postings import ContentField
from webcrawler.index.format.schema import CONTENT
from webcrawler.index.format.storage import MemoryStorage
from webcrawler.index.models import QueryError
from webcrawler.index.search.weighting import Peculiarity
from webcrawler.index.words.query import parse, to_whoosh


class AnchorIndex:
    """Anchor texts keyed by an integer id (a link's id); `best()` ranks them for a query."""

    def __init__(self, pairs: Iterable[tuple[int, str]]) -> None:
        schema = Schema(key=ID(stored=True), **{CONTENT: ContentField()})
        self._ix = MemoryStorage().create_index(schema)
        with self._ix.writer() as writer:
            for key, text in pairs:
                writer.add_document(key=str(key), **{CONTENT: text})

    def best(self, query: str, n: int) -> list[tuple[int, float]]:
        """Up to `n` (id, relevance) pairs, most relevant first; [] when the query cannot run."""
        try:
            parsed = parse(query)
        except QueryError:
            return []
        weights, n_words = parsed.weights()
        with self._ix.searcher(weighting=Peculiarity()) as searcher:
            collector = TopCollector(limit=max(n, 1))
            context = searcher.context(weighting=Peculiarity(weights, n_words))
            searcher.search_with_collector(to_whoosh(parsed), collector, context=context)
            return [
                (int(searcher.stored_fields(d)["key"]), s) for s, d in collector.results().top_n
            ]


def build_anchor_index(pairs: Iterable[tuple[int, str]]) -> AnchorIndex:
    """An in-memory anchor-text index of (id, anchor text) pairs."""
    return AnchorIndex(pairs)
