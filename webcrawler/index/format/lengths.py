"""Document lengths as Whoosh's W3 codec stores them: one quantised byte per document and field.

Read once per open segment for the weighting (`search/weighting.py`) and the flat arrays
(`vectors.py`): Whoosh reads them one seek at a time, per scored document.
"""

from __future__ import annotations

import weakref

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3PerDocReader, _lenfield
from whoosh.reading import SegmentReader
from whoosh.util.numeric import byte_to_length

BYTE_LENGTH = [byte_to_length(b) for b in range(256)]  # a stored length byte -> the length it stands for
_SEGMENT_LENGTHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def segment_lengths(reader: object, fieldname: str) -> bytes | None:
    """A segment's quantised document lengths of `fieldname`, one byte per document, read
    once per open segment (Whoosh reads them one seek at a time, per scored document);
    None when the segment does not keep them the way Whoosh 2.7's W3 codec does."""
    if not isinstance(reader, SegmentReader):
        return None
    per_field = _SEGMENT_LENGTHS.get(reader)
    if per_field is None:
        per_field = _SEGMENT_LENGTHS[reader] = {}
    if fieldname not in per_field:
        per_field[fieldname] = _read_lengths(reader, fieldname)
    return per_field[fieldname]


def _read_lengths(reader: SegmentReader, fieldname: str) -> bytes | None:
    perdoc = reader._perdoc
    if not isinstance(perdoc, W3PerDocReader):
        return None
    column = perdoc._cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
    if column is None or getattr(column, "_fixedlen", None) != 1:
        return None
    count = min(column._count, perdoc.doc_count_all())
    data = column._dbfile.get(column._basepos, count)
    return data + bytes(perdoc.doc_count_all() - count)
