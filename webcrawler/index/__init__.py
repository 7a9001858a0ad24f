"""The full-text index: the only package that imports whoosh.

One writer (the engine's, in its own process) adds and deletes documents and
commits every few hundred; any number of read-only searchers, in other
processes or threads, pick up the commits. Documents are weighted by the
paper's peculiarity weighting and ranked by its relevance formula
(`weighting.py`). An index may be split into shards, one writer each, searched as
one (`shards.py`, `sharded.py`). Nothing outside this package sees a Whoosh type.
"""

from webcrawler.index.anchors import AnchorIndex, build_anchor_index
from webcrawler.index.check import check, set_aside
from webcrawler.index.models import (
    Hit,
    IndexDamaged,
    IndexedDocument,
    QueryError,
    SearchIndex,
    SearchResults,
)
from webcrawler.index.schema import document_kind
from webcrawler.index.searcher import Searcher
from webcrawler.index.sharded import open_searcher
from webcrawler.index.shards import (
    open_shard_writer,
    optimize,
    prepare_layout,
    shard_of,
    shards_wanted,
)
from webcrawler.index.writer import IndexWriter, open_writer

__all__ = [
    "AnchorIndex",
    "Hit",
    "IndexDamaged",
    "IndexWriter",
    "IndexedDocument",
    "QueryError",
    "SearchIndex",
    "SearchResults",
    "Searcher",
    "build_anchor_index",
    "check",
    "document_kind",
    "open_searcher",
    "open_shard_writer",
    "open_writer",
    "optimize",
    "prepare_layout",
    "shard_of",
    "shards_wanted",
    "set_aside",
]
