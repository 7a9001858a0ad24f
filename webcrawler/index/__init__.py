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

The package's names below are its public face, each imported from its module when first asked
for (`__getattr__`): a process that needs the check and the document type alone (the crawl's
engine) does not pay for the searcher, the anchors and the spelling it never runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOMES = {  # each public name's module
    "document_kind": "webcrawler.index.format.schema",
    "Hit": "webcrawler.index.models",
    "IndexDamaged": "webcrawler.index.models",
    "IndexedDocument": "webcrawler.index.models",
    "QueryError": "webcrawler.index.models",
    "SearchIndex": "webcrawler.index.models",
    "SearchResults": "webcrawler.index.models",
    "AnchorIndex": "webcrawler.index.search.anchors",
    "build_anchor_index": "webcrawler.index.search.anchors",
    "Searcher": "webcrawler.index.search.searcher",
    "open_searcher": "webcrawler.index.search.sharded",
    "check": "webcrawler.index.writing.check",
    "set_aside": "webcrawler.index.writing.check",
    "open_shard_writer": "webcrawler.index.writing.shards",
    "optimize": "webcrawler.index.writing.shards",
    "prepare_layout": "webcrawler.index.writing.shards",
    "shard_of": "webcrawler.index.writing.shards",
    "shards_wanted": "webcrawler.index.writing.shards",
    "IndexWriter": "webcrawler.index.writing.writer",
    "open_writer": "webcrawler.index.writing.writer",
}

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


def __getattr__(name: str) -> Any:
    """A public name, imported from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
