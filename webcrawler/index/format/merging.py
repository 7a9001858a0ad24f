"""Merging segments: copy their documents and posting lists into the writer's new segment.

Whoosh merges by decoding every posting of every old segment, feeding it to the
new segment's pool, sorting the pool (spilling it to disk as pickles, one per
posting) and encoding it again: so slow that the merge policy had to keep merges
small, which left a large index in many segments, each a cost to every query. Here a
merged W3 segment's posting lists are not decoded at all: `merge_segment` copies
its stored fields and lengths (Whoosh's `write_per_doc`) and registers it as a
`SegmentSource`; the new segment's term writer (`termwriter.py`) then walks the
pool's terms and every source's terms in order, and copies each source list's
blocks with the docnums shifted by the source's place in the new segment (only a
block's first docnum is absolute: its few bytes are rewritten, the rest copied;
`blocks.shift_docnums`). A segment with deletions is
decoded and renumbered posting by posting; a segment from another codec goes
Whoosh's way (`iter_postings` into the pool). The lists are the same lists, so
the merged segment reads the same as Whoosh's.
"""

from __future__ import annotations

import struct
import weakref
import zlib
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import accumulate, chain
from pickle import dumps, loads
from typing import Any, cast

import numpy as np
from whoosh import columns
from whoosh.codec import whoosh3
from whoosh.codec.whoosh3 import _lenfield
from whoosh.fields import Schema
from whoosh.reading import SegmentReader
from whoosh.writing import SegmentWriter

from webcrawler.index.format import vectors
from webcrawler.index.format.blocks import (
    extent,
    is_w3,
    posting_blocks,
    raw_blocks,
    shift_blocks,
    shift_docnums,
    weights_of,
)
from webcrawler.index.format.fastpaths import note
from webcrawler.index.format.lengths import BYTE_LENGTH, segment_lengths
from webcrawler.index.format.mergecolumns import PlainLists

Posting = tuple[int, float, bytes | None, int]  # docnum, weight, value, document length
Term = tuple[str, bytes]

# a W3 term info of a list in the postings file (not inlined): flags, total weight, df, min
# and max length bytes, max weight, first and last docnum, then the list's offset and length
_INFO = struct.Struct("!BfIBBfIIqi")
_RECORD = struct.Struct("!ii")  # a terms file record's key and value lengths (filetables._lengths)
_DF = struct.Struct("!I")  # a term info's document frequency, at offset 5 (inlined or not)
_SOURCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # new segment -> sources


def merge_segment(writer: SegmentWriter, segment: object) -> None:
    """Add `segment`'s live documents and postings to `writer` (Whoosh's add_reader)."""
    reader = SegmentReader(writer.storage, writer.schema, segment)
    schema = writer.schema
    fieldnames = set(schema.names()) | {f for f in reader.indexed_field_names() if f in schema}
    basedoc = writer.docnum
    try:
        docmap = write_per_doc(writer, fieldnames, reader)
    except BaseException:
        reader.close()
        raise
    writer._added = True
    if is_w3(reader) and getattr(writer.fieldwriter, "copies_merged_segments", False):
        _SOURCES.setdefault(writer.newsegment, []).append(SegmentSource(reader, basedoc, docmap))
        note("merging.copied")
        return  # the term writer copies its lists and closes the reader
    note("merging.decoded")
    try:
        add = writer.pool.add
        for fieldname, btext, docnum, weight, value in reader.iter_postings():
            if fieldname not in schema:
                continue
            if docmap is None:
                add((fieldname, btext, basedoc + docnum, weight, value))
            elif docnum in docmap:  # not deleted
                add((fieldname, btext, docmap[docnum], weight, value))
    finally:
        reader.close()


def write_per_doc(writer: SegmentWriter, fieldnames: set[str],
                  reader: SegmentReader) -> dict[int, int] | None:
    """Whoosh's `SegmentWriter.write_per_doc` (the merged documents' stored fields, lengths
    and columns) with each document's fields in name order, as `postings.add_document` adds
    a new document's: Whoosh walks a set of names, whose order follows the process's string
    hash seed, and a document's stored fields are pickled as a dict in the order they were
    added, so a merged segment's bytes differed from run to run. Returns the old -> new
    docnums when `reader` has deletions, else None."""
    schema = writer.schema
    docmap: dict[int, int] | None = {} if reader.has_deletions() else None
    pdw = writer.perdocwriter
    cols = {}
    # a stored name outside `fieldnames` is outside the schema too: every document's fields
    # are these, in this order, each with its lengths read once (Whoosh's doc_field_length
    # asks the file system whether a field's lengths exist, per document, when they do not)
    names = sorted(fieldnames)
    lengths = {fieldname: _field_lengths(reader, fieldname) for fieldname in names}
    fields = [(fieldname, schema[fieldname], lengths[fieldname]) for fieldname in names]
    for fieldname in names:
        coltype = schema[fieldname].column_type
        if coltype and reader.has_column(fieldname):
            creader = reader.column_reader(fieldname, coltype)
            if isinstance(creader, columns.TranslatingColumnReader):
                creader = creader.raw_column()
            cols[fieldname] = creader
    raw_stored = _raw_stored(reader, pdw)
    for docnum, stored in reader.iter_docs() if raw_stored is None else raw_stored.docs():
        if docmap is not None:
            docmap[docnum] = writer.docnum
        pdw.start_doc(writer.docnum)
        for fieldname, fieldobj, field_lengths in fields:
            length = field_lengths(docnum)
            pdw.add_field(fieldname, fieldobj, stored.get(fieldname), length)
            if fieldobj.vector and reader.has_vector(docnum, fieldname):
                pdw.add_vector_matcher(fieldname, fieldobj, reader.vector(docnum, fieldname, fieldobj.vector))
            if fieldname in cols:
                pdw.add_column_value(fieldname, fieldobj.column_type, cols[fieldname][docnum])
        if raw_stored is not None:
            raw_stored.copy(pdw)
        pdw.finish_doc()
        writer.docnum += 1
    if raw_stored is not None and raw_stored.copied:
        note("merging.stored_copied")
    return docmap


class _RawStored:
    """A merged segment's stored fields copied as the compressed bytes it holds, when the
    document's stored fields pickle to the bytes they were read from (Whoosh decompresses and
    unpickles them, then pickles and compresses them again in `finish_doc`: the compression
    was most of a merged document's cost). The same bytes: zlib at the same level compresses
    the same pickle to the same bytes; any other document goes `finish_doc`'s way."""

    def __init__(self, perdoc: Any, source: Any, target: Any) -> None:
        self._perdoc = perdoc  # the merged segment's per-document reader,
        self._source = source  # its column of compressed pickles (CompressedBytesColumn),
        self._target = target  # and the new segment's
        self._raw = self._plain = b""  # the current document's, compressed and not
        self.copied = 0  # documents whose stored fields were copied

    def docs(self) -> Iterator[tuple[int, dict]]:
        """Whoosh's `iter_docs` (live documents, their stored fields; {} for none), each
        document's bytes kept for `copy`."""
        raw_at = partial(columns.VarBytesColumn.Reader.__getitem__, self._source)
        decompress = self._source._decompress
        for docnum in self._perdoc.all_doc_ids():
            raw = raw_at(docnum)
            plain = decompress(raw) if raw else b""
            self._raw, self._plain = raw, plain
            yield docnum, loads(plain) if plain else {}

    def copy(self, pdw: Any) -> None:
        """Before `pdw.finish_doc()`: write the stored fields it holds for the current
        document as the bytes they were read from, if they pickle to the same."""
        stored = pdw._storedfields
        if stored and self._raw and dumps(stored, 2) == self._plain:
            columns.VarBytesColumn.Writer.add(self._target, pdw._docnum, self._raw)
            stored.clear()  # finish_doc adds nothing then
            self.copied += 1


def _raw_stored(reader: SegmentReader, pdw: Any) -> _RawStored | None:
    """`_RawStored` for a W3 segment merged by a W3 writer whose stored columns are Whoosh's
    (pickles compressed by zlib at the same level), else None."""
    perdoc: Any = getattr(reader, "_perdoc", None)
    if not is_w3(reader) or type(perdoc) is not whoosh3.W3PerDocReader \
            or type(pdw) is not whoosh3.W3PerDocWriter:
        return None
    source = perdoc._cached_reader("_stored", whoosh3.STORED_COLUMN)
    target = pdw._colwriters.get("_stored")
    if type(source) is not columns.PickleColumn.Reader or type(target) is not columns.PickleColumn.Writer:
        return None
    source, target = source._child, target._child
    if type(source) is not columns.CompressedBytesColumn.Reader \
            or type(target) is not columns.CompressedBytesColumn.Writer \
            or source._decompress is not zlib.decompress or target._compress is not zlib.compress \
            or target._level != whoosh3.STORED_COLUMN._child._level:
        return None
    return _RawStored(perdoc, source, target)


def _field_lengths(reader: SegmentReader, fieldname: str) -> Callable[[int], int | None]:
    """A document's length of `fieldname` in `reader`'s segment, as Whoosh's
    `doc_field_length` says it (0 or None: none), from the lengths read once."""
    raw = segment_lengths(reader, fieldname)
    if raw is not None:
        return lambda docnum: BYTE_LENGTH[raw[docnum]]
    if is_w3(reader) and not reader._perdoc.has_column(_lenfield(fieldname)):
        return lambda docnum: 0
    return lambda docnum: reader.doc_field_length(docnum, fieldname)


def merge_all(writer: SegmentWriter, segments: list) -> list:
    """A Whoosh merge policy: merge every segment (`optimize`)."""
    for segment in segments:
        merge_segment(writer, segment)
    return []


def take_sources(segment: object) -> list[SegmentSource]:
    """The segments registered to be merged into `segment`, in docnum order (once)."""
    return _SOURCES.pop(segment, [])


@dataclass(slots=True)
class Copied:
    """One term's posting list from a merged segment, its blocks already renumbered."""

    blocks: list[bytes]  # pickled header + body of each block, as the postings file holds them
    total: float
    df: int
    maxweight: float
    minlength: int | None
    maxlength: int
    first: int
    last: int
    ids: np.ndarray | None  # the new docnums and the weights, for vectors.py (None: a field
    weights: np.ndarray | None  # that keeps no arrays)
    totals: list[float] | None = None  # each merged list's total, for a Copied of several


class SegmentSource:
    """A segment being merged: its terms in order, each list as a part of the new list."""

    def __init__(self, reader: SegmentReader, basedoc: int, docmap: dict[int, int] | None) -> None:
        self.reader = reader
        self.basedoc = basedoc
        self.docmap = docmap  # None: no deletions, docnum + basedoc; else old -> new docnum
        self._get = reader._terms._postfile.get  # a W3 segment's (merge_segment)

    def terms(self, schema: Schema, number: int) -> Iterator[tuple[Term, int, bytes]]:
        """(term, `number`, raw term info) in the order the segment wrote them: (field,
        text), numbered as `merged_terms` merges its streams. The
        terms file's records are read in one piece and split here (Whoosh's `items` reads
        each record's lengths, key and value in three reads of the file)."""
        terms = self.reader._terms
        names = [name if name in schema else None for name in terms._fieldunmap]
        tindex = terms._tindex
        start, end = tindex.startofdata, tindex.endofdata
        data = tindex.dbfile.get(start, end - start)
        unpack = _RECORD.unpack_from
        pos, size = 0, len(data)
        while pos < size:
            keylen, valuelen = unpack(data, pos)
            key = pos + 8
            value = key + keylen
            fieldname = names[int.from_bytes(data[key : key + 2], "big")]
            if fieldname is not None:
                yield (fieldname, data[key + 2 : value]), number, data[value : value + valuelen]
            pos = value + valuelen

    def part(self, raw: bytes, field_lengths: list[int] | None, with_arrays: bool) -> Copied | list[Posting]:
        """`raw`'s list as a part of the new list: copied blocks, or renumbered postings when
        the segment has deletions. `with_arrays`: the new list gets posting arrays (its field
        keeps them and its parts hold enough postings), so this part brings its docnums and
        weights: read from its own arrays when it has them, else from the blocks it copies.
        The term info is unpacked here in one call (Whoosh's `from_bytes` makes an object
        of it, with the lengths decoded and the extent read in three more calls)."""
        if self.docmap is not None or raw[0]:  # deletions, or postings inlined in the info
            return self._renumbered(whoosh3.W3TermInfo.from_bytes(raw), field_lengths)
        _flags, total, df, low, high, maxweight, first, last, start, length = _INFO.unpack_from(raw)
        base = self.basedoc
        keep = with_arrays and not vectors.has_arrays(raw)  # the arrays come from these blocks
        blocks, bodies = _shifted(self._get(start, length), base, keep)
        ids = weights = None
        if keep:  # docnums from the bodies' gaps (each block's first is absolute)
            all_ids: list[int] = []
            all_weights: list[float] = []
            for body in bodies:
                gaps, block_weights, _values = loads(body)
                all_ids += accumulate(gaps)
                all_weights += weights_of(block_weights, len(gaps))  # type: ignore[arg-type]
            ids, weights = np.array(all_ids, np.int64) + base, np.array(all_weights, np.float64)
        elif with_arrays:
            ids, weights = vectors.arrays_at(self.reader, start + length, df)
            ids = ids.astype(np.int64) + base
        return Copied(blocks, total, df, maxweight, BYTE_LENGTH[low] or None, BYTE_LENGTH[high],
                      first + base, last + base, ids, weights)

    def _renumbered(self, info: whoosh3.W3TermInfo, field_lengths: list[int] | None) -> list[Posting]:
        """The list's live postings with their new docnums (a segment with deletions)."""
        docmap = self.docmap
        if info.is_inlined():
            ids, weights, values = info.inlined_postings()
            blocks: Iterable[tuple[Any, Any, Any]] = [(ids, weights, values)]
        else:
            blocks = posting_blocks(self.reader._terms._postfile.get(*extent(info)))
        out: list[Posting] = []
        for ids, weights, values in blocks:
            for docnum, weight, value in zip(ids, weights, values, strict=False):
                new = docnum + self.basedoc if docmap is None else docmap.get(docnum)
                if new is not None:
                    out.append((new, weight, value, field_lengths[new] if field_lengths else 0))
        return out

    def close(self) -> None:
        self.reader.close()


def merged_terms(
    pool_terms: Iterator[tuple[Term, list[Posting]]],
    sources: list[SegmentSource],
    schema: Schema,
    field_lengths: Callable[[str], list[int] | None],
    length_bytes: Callable[[np.ndarray], np.ndarray],
) -> Iterator[tuple[Term, list]]:
    """Every term of the new segment in order, with its parts in docnum order: the pool's
    postings (documents added in this commit come first), then each source's list; or, for
    a plain term (`mergecolumns`), its list and term info as one `Written`. `length_bytes`:
    Whoosh's length byte of each of an array of lengths."""
    if not sources:  # a commit that merges nothing: the pool's terms are the segment's
        for term, postings in pool_terms:
            yield term, [postings]
        return
    scorable: dict[str, bool] = {}  # by field: asked once a term of every merged segment

    def keeps_arrays(fieldname: str) -> bool:
        keeps = scorable.get(fieldname)
        if keeps is None:
            keeps = scorable[fieldname] = bool(schema[fieldname].scorable)
        return keeps

    # (term, stream number, item) tuples compare by term, then by stream, never by item: a
    # stream's terms are distinct, its number too. The merged segments' terms (a few bytes
    # each) sorted as one list, the sort merging their sorted runs in C (heapq.merge is a
    # Python generator: a step an item and a heap of all streams); the pool's terms (their
    # postings in memory, or read back from disk when the pool spilled) go in as they come,
    # before the merged terms' group of the same term or the next one, found by bisection
    copied = sorted(chain.from_iterable(source.terms(schema, number)
                                        for number, source in enumerate(sources, 1)))
    lists = PlainLists(copied, sources, keeps_arrays, length_bytes)
    terms, at = lists.terms, 0

    def groups(end: int) -> Iterator[tuple[Term, list]]:
        g = at
        while g < end:  # a chunk's terms at a time: no look-up of the chunk a term
            chunk = lists.chunk(g)
            plain, first, stop = chunk.plain, chunk.first, min(end, chunk.end)
            for k in range(g, stop):
                if plain[k - first]:
                    yield terms[k], [chunk.written(k)]
                else:
                    yield terms[k], _parts(list(lists.entries(k)), sources, keeps_arrays, field_lengths)
            g = stop

    for term, postings in pool_terms:
        end = bisect_left(terms, term, at)
        yield from groups(end)
        if end < len(terms) and terms[end] == term:
            if lists.plain(end):
                keeps = keeps_arrays(term[0]) and len(postings) + lists.df(end) >= vectors.MIN_POSTINGS
                yield term, [postings, Copied(*lists.parts(end, keeps))]
            else:
                yield term, _parts([(term, 0, postings), *lists.entries(end)], sources, keeps_arrays,
                                   field_lengths)
            at = end + 1
        else:
            yield term, [postings]
            at = end
    yield from groups(len(terms))


def _parts(items: list[tuple[Term, int, Any]], sources: list[SegmentSource],
           keeps_arrays: Callable[[str], bool], field_lengths: Callable[[str], list[int] | None]) -> list:
    """A term's parts (its `items`: the pool's postings, number 0, then each merged segment's
    raw term info) as the term writer's general path takes them: the merged segments' lists
    as one `Copied` when `_joined` can, else a part each."""
    term = items[0][0]
    keeps = keeps_arrays(term[0])
    if keeps:  # arrays only for a list that may reach MIN_POSTINGS: decode no block else
        keeps = _most_postings(items) >= vectors.MIN_POSTINGS
    pooled = not items[0][1]  # the first part is the pool's
    joined = _joined(items[1:] if pooled else items, sources, keeps)
    if joined is not None:  # every merged segment's list as one Copied
        return [items[0][2], joined] if pooled else [joined]
    parts = []
    for _term, number, item in items:
        if number == 0:
            parts.append(item)
        else:
            part = sources[number - 1].part(cast(bytes, item), field_lengths(term[0]), keeps)
            if part:
                parts.append(part)
    return parts


def _joined(items: list[tuple[Term, int, Any]], sources: list[SegmentSource], keeps: bool) -> Copied | None:
    """A term's lists in merged segments as one `Copied` of all their blocks, renumbered, with
    what the term writer's `_Stats` sums over them (each part's total kept, to be summed in
    the same order) and (`keeps`, as `part`'s `with_arrays`) the docnums and weights of them
    all; None when one of them is not a plain W3 list of a segment without deletions (`part`
    and `_write_term`'s general path take the term then). Most of a merge's terms come this
    way: one call and at most one pair of NumPy arrays a term, not a `Copied` and two arrays
    a part."""
    blocks: list[bytes] = []
    totals: list[float] = []
    total, df, top, least, most = 0.0, 0, 0.0, 0, 0
    first = last = 0
    id_arrays: list[np.ndarray] = []
    weight_arrays: list[np.ndarray] = []
    ids: list[int] = []  # decoded docnums and weights not yet in an array
    weights: list[float] = []
    for n, (_term, number, raw) in enumerate(items):
        source = sources[number - 1]
        if source.docmap is not None or raw[0]:
            return None
        _flags, part_total, part_df, low, high, part_top, part_first, part_last, start, length = \
            _INFO.unpack_from(raw)
        base = source.basedoc
        decode = keeps and not vectors.has_arrays(raw)
        bodies: list[bytes] | None = [] if decode else None
        shifted = shift_blocks(source._get(start, length), base, bodies)
        if shifted is None:
            return None
        blocks += shifted
        if decode:
            for body in cast(list[bytes], bodies):
                gaps, block_weights, _values = loads(body)
                ids += map(base.__add__, accumulate(gaps))
                weights += weights_of(block_weights, len(gaps))  # type: ignore[arg-type]
        elif keeps:
            if ids:
                id_arrays.append(np.array(ids, np.int64))
                weight_arrays.append(np.array(weights, np.float64))
                ids, weights = [], []
            part_ids, part_weights = vectors.arrays_at(source.reader, start + length, part_df)
            id_arrays.append(part_ids.astype(np.int64) + base)
            weight_arrays.append(part_weights)
        totals.append(part_total)
        total += part_total
        df += part_df
        if part_top > top:
            top = part_top
        low_length = BYTE_LENGTH[low]
        if low_length and (not least or low_length < least):
            least = low_length
        if BYTE_LENGTH[high] > most:
            most = BYTE_LENGTH[high]
        if not n:
            first = part_first + base
        last = part_last + base
    all_ids = all_weights = None
    if keeps:
        if ids:
            id_arrays.append(np.array(ids, np.int64))
            weight_arrays.append(np.array(weights, np.float64))
        all_ids = id_arrays[0] if len(id_arrays) == 1 else np.concatenate(id_arrays)
        all_weights = weight_arrays[0] if len(weight_arrays) == 1 else np.concatenate(weight_arrays)
    return Copied(blocks, total, df, top, least or None, most, first, last, all_ids, all_weights, totals)


def _most_postings(items: list[tuple[Term, int, Any]]) -> int:
    """How many postings a term's parts hold at most: the pool's (number 0) counted, each
    merged segment's document frequency as its term info says (deleted documents included)."""
    return sum(len(item) if number == 0 else _DF.unpack_from(item, 5)[0] for _term, number, item in items)


def _shifted(data: bytes, base: int, keep: bool) -> tuple[list[bytes], list[bytes]]:
    """The blocks of the list `data` with every docnum `base` higher, and (`keep`) each block's
    body as it was: copied without decoding (`shift_blocks`) where the blocks are as it knows,
    else decoded and pickled again."""
    bodies: list[bytes] = []
    blocks = shift_blocks(data, base, bodies if keep else None)
    if blocks is not None:
        return blocks, bodies
    blocks = []
    for (count, last, top, _comp, low, high), body in raw_blocks(data):
        blocks.append(dumps((count, last + base, top, 0, low, high), 2) + shift_docnums(body, base))
        if keep:
            bodies.append(body)
    return blocks, bodies
