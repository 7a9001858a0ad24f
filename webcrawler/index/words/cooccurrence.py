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

from webcrawler.index.format import vectors
from webcrawler.index.format.blocks import is_w3
from webcrawler.index.format.schema import CONTENT
from webcrawler.index.format.segments import deleted_docs

MAX_DOCUMENTS = 5000  # documents of the earlier words a segment looks in, at most


Segments = list[tuple[SegmentReader, np.ndarray]]  # each segment's documents of the earlier words


def segments_of(searcher: WhooshSearcher, earlier: list[str]) -> Segments:
    """The segments holding every `earlier` word in some document, with those documents
    (the same for every letter typed after them: the caller may keep it for the commit)."""
    segments = []
    for sub, _offset in searcher.leaf_searchers():
        reader = sub.reader()
        if isinstance(reader, SegmentReader) and is_w3(reader):
            documents = _documents(reader, earlier)
            if len(documents):
                segments.append((reader, documents))
    return sorted(segments, key=lambda segment: -len(segment[1]))  # likeliest to meet first


def together(segments: Segments, candidates: list[str], limit: int) -> list[str]:
    """The first `limit` of `candidates` (in their order) found in one of the documents of
    `segments_of`: the candidates come most frequent first, so the look stops early."""
    found: list[str] = []
    for word in candidates:
        if len(found) >= limit or not segments:
            break
        if any(_meets(vectors.postings(reader, CONTENT, word)[0], documents)
               for reader, documents in segments):
            found.append(word)
    return found


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
        deleted = deleted_docs(reader)
        documents = documents[~np.isin(documents, deleted)]
    return documents[:MAX_DOCUMENTS]


def _meets(docnums: np.ndarray, documents: np.ndarray) -> bool:
    """Whether the sorted `docnums` hold any of `documents`."""
    if not len(docnums):
        return False
    at = np.searchsorted(docnums, documents)
    inside = at < len(docnums)
    return bool(np.any(docnums[at[inside]] == documents[inside]))
