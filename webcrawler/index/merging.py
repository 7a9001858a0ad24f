"""Merging segments: copy their documents and postings into the writer's new segment.

Whoosh merges by asking each old segment for every term's matcher (a hash lookup,
a term-info decode and a matcher per term) and stepping it one posting at a time;
measured, that was two thirds of a merge. Here a W3 segment's terms file is read
in order and each posting list is decoded a block at a time; other segments go
Whoosh's way. Stored fields and columns are copied by Whoosh (`write_per_doc`).
The postings are the same, so the merged segment is the same as Whoosh's.
"""

from __future__ import annotations

import io
import pickle
import struct
import zlib
from collections.abc import Iterator
from itertools import accumulate, repeat

from whoosh.codec import whoosh3
from whoosh.reading import SegmentReader
from whoosh.writing import SegmentWriter

Posting = tuple[str, bytes, int, float, bytes]

_INT = struct.Struct("!i")
_MAGIC = whoosh3.WHOOSH3_HEADER_MAGIC


def merge_segment(writer: SegmentWriter, segment: object) -> None:
    """Add `segment`'s live documents and postings to `writer` (Whoosh's add_reader)."""
    reader = SegmentReader(writer.storage, writer.schema, segment)
    try:
        schema = writer.schema
        fieldnames = set(schema.names()) | {
            f for f in reader.indexed_field_names() if f in schema
        }
        basedoc = writer.docnum
        docmap = writer.write_per_doc(fieldnames, reader)
        add = writer.pool.add
        postings = _postings(reader) if is_w3(reader) else reader.iter_postings()
        for fieldname, btext, docnum, weight, value in postings:
            if fieldname not in schema:
                continue
            if docmap is None:
                add((fieldname, btext, basedoc + docnum, weight, value))
            elif docnum in docmap:  # not deleted
                add((fieldname, btext, docmap[docnum], weight, value))
        writer._added = True
    finally:
        reader.close()


def merge_all(writer: SegmentWriter, segments: list) -> list:
    """A Whoosh merge policy: merge every segment (`optimize`)."""
    for segment in segments:
        merge_segment(writer, segment)
    return []


def is_w3(reader: SegmentReader) -> bool:
    terms = getattr(reader, "_terms", None)
    return type(terms) is whoosh3.W3TermsReader and isinstance(reader.codec(), whoosh3.W3Codec)


def _postings(reader: SegmentReader) -> Iterator[Posting]:
    """Every posting of a W3 segment, in (field, term, docnum) order, deleted ones too."""
    terms = reader._terms
    names = terms._fieldunmap
    get = terms._postfile.get
    for key, value in terms._tindex.items():
        fieldname = names[int.from_bytes(key[:2], "big")]
        btext = key[2:]
        info = whoosh3.W3TermInfo.from_bytes(value)
        if info.is_inlined():
            ids, weights, values = info.inlined_postings()
            for docnum, weight, vbytes in zip(ids, weights, values, strict=True):
                yield fieldname, btext, docnum, weight, vbytes or b""
            continue
        offset, length = extent(info)
        for ids, weights, values in posting_blocks(get(offset, length)):
            for docnum, weight, vbytes in zip(ids, weights, values, strict=True):
                yield fieldname, btext, docnum, weight, vbytes


def extent(info: whoosh3.W3TermInfo) -> tuple[int, int]:
    """(offset, length) of a term's posting list in the postings file."""
    offset, length = info.extent()
    if isinstance(length, tuple):  # Whoosh 2.7 decodes the length as a 1-tuple
        length = length[0]
    return offset, length


def posting_blocks(data: bytes) -> Iterator[tuple[list[int], object, object]]:
    """(docnums, weights, values) of each block of one uncompressed or zlib posting list."""
    if data[:4] != _MAGIC:
        raise ValueError("not a W3 posting list")
    pos = 4
    while pos < len(data):
        size = _INT.unpack_from(data, pos)[0]
        pos += 4
        end = pos + abs(size)
        stream = io.BytesIO(data[pos:end])
        count, _last, _top, compression, _lo, _hi = pickle.load(stream)
        body = stream.read()
        if compression:
            body = zlib.decompress(body)
        gaps, weights, values = pickle.loads(body)
        ids = list(accumulate(gaps))
        if weights is None:
            weights = repeat(1.0, count)
        elif isinstance(weights, float):
            weights = repeat(weights, count)
        if values is None:
            values = repeat(b"", count)
        elif isinstance(values, bytes):
            width = len(values) // count
            values = [values[i : i + width] for i in range(0, len(values), width)]
        yield ids, weights, values
        pos = end
        if size < 0:
            break
