"""Posting lists as flat arrays, written beside Whoosh's blocks, read with numpy.

Whoosh keeps a posting list as pickled blocks of 128 postings. Unpickling makes a
Python int and float per posting, so a frequent word's list costs more to decode than
to score, and frequent words are the queries people type. So the content field's
writer (`postings.py`) also writes every posting list of at least `MIN_POSTINGS`
postings as two little-endian arrays - docnums (int32) then weights (float32) - right
after the list's blocks in the same postings file, and marks the word's term info with
one extra byte. Whoosh reads neither (it reads a list's blocks by their extent and
ignores bytes after a term info's extent), so the index stays a Whoosh index; a
segment written before this, or a short list, is decoded from its blocks instead.

Deleted documents stay in the arrays, as in the blocks; callers drop them.
"""

from __future__ import annotations

import sys
import weakref
from array import array
from collections.abc import Sequence

import numpy as np
from whoosh.codec import whoosh3
from whoosh.reading import SegmentReader, TermNotFound

from webcrawler.index.format import segcache
from webcrawler.index.format.blocks import extent, posting_blocks
from webcrawler.index.format.fastpaths import note
from webcrawler.index.format.lengths import BYTE_LENGTH, segment_lengths
from webcrawler.index.format.storage import MappedFile

MIN_POSTINGS = 16  # shorter lists decode from one or two blocks in microseconds
MARK = b"V"  # appended to a term info whose list has arrays after its blocks

Postings = tuple[np.ndarray, np.ndarray]  # (docnums int32, weights float32), docnum order

_INFO_SIZE = whoosh3.W3TermInfo._struct.size + 12  # the struct, then the extent (!q, !i)
_EMPTY: Postings = (np.zeros(0, np.int32), np.zeros(0, np.float32))
_LENGTH_OF_BYTE = np.array(BYTE_LENGTH, dtype=np.float64)
_LENGTHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# array("i") and array("f") hold what "<i4" and "<f4" do on this machine
_NATIVE_IS_LITTLE = sys.byteorder == "little" and array("i").itemsize == 4 and array("f").itemsize == 4


def encode(docnums: Sequence[int] | np.ndarray, weights: Sequence[float] | np.ndarray) -> bytes:
    """The arrays written after a posting list's blocks ("" for a short list)."""
    if len(docnums) < MIN_POSTINGS:
        return b""
    return np.asarray(docnums, "<i4").tobytes() + np.asarray(weights, "<f4").tobytes()


def encode_list(docnums: Sequence[int], weights: array) -> bytes:
    """`encode(docnums, weights)` for a list the term writer holds as Python ints and an
    array("f") of its weights (the same float32 values: a double cast to a float either way):
    the same bytes without making NumPy arrays, which cost more than the bytes on a list of
    a few dozen postings, the length of most lists that get arrays."""
    if len(docnums) < MIN_POSTINGS:
        return b""
    if not _NATIVE_IS_LITTLE:
        return encode(docnums, np.frombuffer(weights.tobytes(), np.float32))
    return array("i", docnums).tobytes() + weights.tobytes()


def postings(reader: SegmentReader, field: str, word: str) -> Postings:
    """`word`'s postings in a W3 segment: from the arrays when written, else the blocks."""
    terms = reader._terms
    try:
        raw = terms._tindex[terms._keycoder(field, word.encode("utf-8"))]
    except (KeyError, TermNotFound):
        return _EMPTY
    info = whoosh3.W3TermInfo.from_bytes(raw)
    if info.is_inlined():
        ids, weights, _values = info.inlined_postings()
        return np.array(ids, dtype=np.int32), np.array(weights, dtype=np.float32)
    if has_arrays(raw):
        note("vectors.arrays")
        return postings_from(reader, raw)
    note("vectors.blocks")
    start, length = extent(info)
    all_ids: list[int] = []
    all_weights: list[float] = []
    for ids, weights, _values in posting_blocks(terms._postfile.get(start, length)):
        all_ids += ids
        all_weights += weights  # type: ignore[arg-type]
    return np.array(all_ids, dtype=np.int32), np.array(all_weights, dtype=np.float32)


def has_arrays(raw: bytes) -> bool:
    """Whether the term info `raw` (as the terms file holds it) marks a list with arrays."""
    return len(raw) == _INFO_SIZE + len(MARK) and raw.endswith(MARK)


def postings_from(reader: SegmentReader, raw: bytes) -> Postings:
    """The arrays of the list whose term info `raw` has them (`has_arrays`)."""
    info = whoosh3.W3TermInfo.from_bytes(raw)
    start, length = extent(info)
    return arrays_at(reader, start + length, info.doc_frequency())


def arrays_at(reader: SegmentReader, offset: int, count: int) -> Postings:
    """The arrays of a list of `count` postings, written at `offset` of the postings file (just
    after the list's blocks): its docnums (int32), then its weights (float32)."""
    postfile = reader._terms._postfile
    data = postfile.view(offset, 8 * count) if isinstance(postfile, MappedFile) \
        else postfile.get(offset, 8 * count)
    return np.frombuffer(data, "<i4", count), np.frombuffer(data, "<f4", count, 4 * count)


def lengths(reader: SegmentReader, field: str) -> np.ndarray | None:
    """Each document's length in words (Whoosh's quantised length) as float64, read once
    per open segment; None when the segment does not keep lengths as the W3 codec does."""
    per_field = _LENGTHS.get(reader)
    if per_field is None:
        per_field = _LENGTHS[reader] = {}
    if field not in per_field:  # by segment too: a commit opens every segment's reader anew
        per_field[field] = segcache.remembered(reader, ("lengths", field),
                                               lambda: _read_lengths(reader, field))
    return per_field[field]


def _read_lengths(reader: SegmentReader, field: str) -> np.ndarray | None:
    raw = segment_lengths(reader, field)
    return None if raw is None else _LENGTH_OF_BYTE[np.frombuffer(raw, np.uint8)]
