"""A segment's parts that Whoosh keeps private, behind typed functions.

The rooms above (`words/`, `search/`, `writing/`) need a few things of a segment that Whoosh
2.7 has no public call for: the index's segments, a field's terms with their raw term infos
in order, a posting list's bytes, the deleted documents, the folder a segment's files lie
in, the parts of a compound segment file. Each is one function here, annotated, so that a
Whoosh upgrade that moves one of them breaks here (and in tests/index/), nowhere else.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from whoosh.codec import whoosh3
from whoosh.codec.base import Segment as Segment  # re-exported: a TOC's record of one segment
from whoosh.index import Index
from whoosh.reading import SegmentReader

from webcrawler.index.format.blocks import extent

_DOC_FREQUENCY = struct.Struct("!BfI")  # W3TermInfo's first fields: flags, weight, doc frequency


def segments(ix: Index) -> list[Segment]:
    """The segments of `ix`'s table of contents, as opened."""
    return list(ix._segments())


def field_terms(reader: SegmentReader, field: str) -> Iterator[tuple[str, bytes]]:
    """(word, raw term info) of each of `field`'s terms in a W3 segment, in the terms file's
    order (`blocks.is_w3` first): the terms file's index walked without decoding the infos."""
    terms = reader._terms
    start = terms._keycoder(field, b"")
    for key, raw in terms._tindex.items_from(start):
        if key[:2] != start:
            break
        yield key[2:].decode("utf-8"), raw


def doc_frequency(raw: bytes) -> int:
    """The document frequency in a raw W3 term info (`field_terms`), read without decoding it."""
    return int(_DOC_FREQUENCY.unpack_from(raw)[2])


def posting_list(reader: SegmentReader, raw: bytes) -> bytes | None:
    """The bytes of the posting list a raw term info points to (None: its postings are inlined
    in the info, with no list in the postings file)."""
    info = whoosh3.W3TermInfo.from_bytes(raw)
    if info.is_inlined():
        return None
    begin, length = extent(info)
    return reader._terms._postfile.get(begin, length)


def deleted_docs(reader: SegmentReader) -> np.ndarray:
    """The segment's deleted document numbers, as int64."""
    return np.fromiter(reader._perdoc.deleted_docs(), dtype=np.int64)


def segment_folder(reader: SegmentReader) -> Path | None:
    """The folder the segment's files lie in (None: a storage without one, such as RAM)."""
    storage = reader._storage
    folder = getattr(getattr(storage, "b", storage), "folder", None)
    return None if folder is None else Path(folder)


def compound_parts(reader: SegmentReader) -> Iterator[tuple[str, int, int]]:
    """(name, offset, length) of each part of the segment's compound file."""
    compound = reader._storage
    if not hasattr(compound, "range"):  # an OverlayStorage: the compound file, then the folder
        compound = compound.a
    for name in compound.list():
        offset, length = compound.range(name)
        yield name, offset, length
