"""The full-text index: the only package that imports whoosh.

One writer (the engine's, in its own process) adds and deletes documents and
commits every few hundred; any number of read-only searchers, in other
processes or threads, pick up the commits. Documents are weighted by the
paper's peculiarity weighting and ranked by its relevance formula
(`weighting.py`). An index may be split into shards, one writer each, searched as
one (`shards.py`, `sharded.py`). Nothing outside this package sees a Whoosh type.

Its rooms, each importing only those before it (tests/test_boundaries.py): the value types
and shared helpers at the top (`models.py`, `background.py`, `heap.py`); `format/`, the
on-disk format, the only room that names Whoosh's internals; `words/`, the query language
and the word tools; `search/`, reading and ranking; `writing/`, the writer and the check.
"""

from webcrawler.index.format.schema import document_kind
from webcrawler.index.models import (
    Hit,
    IndexDamaged,
    IndexedDocument,
    QueryError,
    SearchIndex,
    SearchResults,
)
from webcrawler.index.search.anchors import AnchorIndex, build_anchor_index
from webcrawler.index.search.searcher import Searcher
from webcrawler.index.search.sharded import open_searcher
from webcrawler.index.writing.check import check, set_aside
from webcrawler.index.writing.shards import (
    open_shard_writer,
    optimize,
    prepare_layout,
    shard_of,
    shards_wanted,
)
from webcrawler.index.writing.writer import IndexWriter, open_writer

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
