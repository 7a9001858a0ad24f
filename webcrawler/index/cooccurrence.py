"""Which completions of a query's last word share a document with the words before it.

"json d" completed with the index's most frequent d-words offered "json delattr",
though no document holds both: the completion led to a query whose words never meet.
So the completer (`completion.py`) asks, for its most frequent candidates, which
appear in some document beside every earlier word, and offers those first. Read from
the posting arrays (`vectors.py`): the earlier words' documents intersected in each
segment (at most `MAX_DOCUMENTS` of them kept, so a query of common words costs a
bounded look), then each candidate's sorted document numbers searched for them.
Never writes.
"""

from __future__ import annotations

import numpy as np
from whoosh.reading import SegmentReader
from whoosh.searching import Searcher as WhooshSearcher

from webcrawler.index import vectors
from webcrawler.index.blocks import is_w3
from webcrawler.index.schema import CONTENT

MAX_DOCUMENTS = 5000  # documents of the earlier words a segment looks in, at most


def together(searcher: WhooshSearcher, earlier: list[str], candidates: list[str]) -> list[str]:
    """The `candidates` (in their order) found in a document with every `earlier` word."""
    found: set[str] = set()
    for sub, _offset in searcher.leaf_searchers():
        reader = sub.reader()
        if not isinstance(reader, SegmentReader) or not is_w3(reader):
            continue
        documents = _documents(reader, earlier)
        if not len(documents):
            continue
        for word in candidates:
            if word not in found and _meets(vectors.postings(reader, CONTENT, word)[0], documents):
                found.add(word)
        if len(found) == len(candidates):
            break
    return [word for word in candidates if word in found]


def _documents(reader: SegmentReader, words: list[str]) -> np.ndarray:
    """The live documents of a segment holding every one of `words` (a bounded sample)."""
    documents: np.ndarray | None = None
    for word in dict.fromkeys(words):
        docnums = vectors.postings(reader, CONTENT, word)[0]
        documents = docnums if documents is None else np.intersect1d(documents, docnums, assume_unique=True)
        if not len(documents):
            break
    if documents is None:
        return np.zeros(0, np.int32)
    if reader.has_deletions():
        deleted = np.fromiter(reader._perdoc.deleted_docs(), dtype=np.int64)
        documents = documents[~np.isin(documents, deleted)]
    return documents[:MAX_DOCUMENTS]


def _meets(docnums: np.ndarray, documents: np.ndarray) -> bool:
    """Whether the sorted `docnums` hold any of `documents`."""
    if not len(docnums):
        return False
    at = np.searchsorted(docnums, documents)
    inside = at < len(docnums)
    return bool(np.any(docnums[at[inside]] == documents[inside]))
