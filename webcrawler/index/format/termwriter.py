"""Writing a segment's posting lists: new documents' postings and merged segments' blocks.

Whoosh's W3PostingsWriter makes several method calls and checks per posting;
`TermWriter` writes what Whoosh reads (uncompressed blocks of `BLOCK` postings,
their bodies pickled in `BODY_PROTOCOL`, and a W3TermInfo per term) in one loop.
A term's list is written from parts in docnum order: the postings of documents
added in this commit (from the pool), then each merged segment's list
(`merging.py`), whose blocks are copied with their docnums shifted rather than
decoded posting by posting and sorted again.
Blocks may therefore hold fewer than `BLOCK` postings; Whoosh reads each
block's count from its header. A scorable field's lists of at least
`vectors.MIN_POSTINGS` postings also get their flat arrays (`vectors.py`).
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable, Iterable, Iterator
from hashlib import md5
from itertools import accumulate, chain
from pickle import dumps
from typing import Any

import numpy as np
from whoosh.codec import whoosh3
from whoosh.fields import Schema
from whoosh.filedb import filetables
from whoosh.system import pack_ushort
from whoosh.util.numeric import _length_byte_cache, length_to_byte
from whoosh.util.numlists import GrowableArray

from webcrawler.index.format import merging, vectors
from webcrawler.index.format.commitwords import WordPostings
from webcrawler.index.format.mergecolumns import Written
from webcrawler.index.format.merging import Copied, Posting, Term

BLOCK = 128  # postings per block (Whoosh's default)
# A block's body pickled as protocol 3 rather than Whoosh's 2: protocol 2 writes each
# posting's positions (bytes) as a call of codecs.encode on a str, so a block unpickled in
# 33 us and took 4.7 KB; in 3 its bytes are bytes: 5 us, 2.4 KB (docs/measurements.md).
# Whoosh unpickles either; blocks of older segments stay as they were written.
BODY_PROTOCOL = 3
_INT = struct.Struct("!i")  # Whoosh's structfile write_int
_F32 = struct.Struct("f")  # a weight as Whoosh's array("f") keeps it
_TERMINFO = whoosh3.W3TermInfo._struct  # flags, weight, df, min/max length, max weight, ids
_LONG_INT = struct.Struct("!qi")  # the posting list's offset and length (pack_long, pack_int)
_INFO_EXTENT = struct.Struct(_TERMINFO.format + "qi")  # both in one: a term info as written
_MAGIC = whoosh3.WHOOSH3_HEADER_MAGIC
_RECORD = struct.Struct("!ii")  # a terms file record's key and value lengths (filetables._lengths)
# length_to_byte of every length below _TOP_LENGTH (its bisection done once, as a table)
_TOP_LENGTH = 106374
assert length_to_byte(_TOP_LENGTH) == 255  # Whoosh 2.7: every length from here is 255
_LENGTH_BYTE = np.searchsorted(np.asarray(_length_byte_cache, dtype=np.int64),
                               np.arange(_TOP_LENGTH), side="left").astype(np.uint8).tobytes()
_LENGTH_TABLE = np.frombuffer(_LENGTH_BYTE, np.uint8)


def _stored_weights(weights: array) -> object:
    """A block's weights as Whoosh's W3 block stores them: None when all are 1.0, one float
    when all are alike, else each (the float32 values `weights` holds)."""
    first = weights[0]
    if weights.count(first) == len(weights):
        return None if first == 1.0 else first
    return tuple(weights)


def _length_bytes(lengths: np.ndarray) -> np.ndarray:
    """`_length_byte` of each of `lengths` (0 or more)."""
    return np.where(lengths < _TOP_LENGTH, _LENGTH_TABLE[np.minimum(lengths, _TOP_LENGTH - 1)], 255)


def _length_byte(length: int) -> int:
    """Whoosh's `length_to_byte(length)` for a length of 0 or more, from the table."""
    return _LENGTH_BYTE[length] if length < _TOP_LENGTH else 255


class _Lengths:
    """A segment's document lengths, read once per field (Whoosh reads one per posting)."""

    def __init__(self, reader: whoosh3.W3PerDocReader) -> None:
        self._reader = reader
        self._fields: dict[str, list] = {}

    def of(self, fieldname: str) -> list[int]:
        """The length of `fieldname` in each document of the segment (0: none)."""
        lengths = self._fields.get(fieldname)
        if lengths is None:
            read = self._reader.doc_field_length
            count = self._reader.doc_count_all()
            lengths = self._fields[fieldname] = [read(n, fieldname) or 0 for n in range(count)]
        return lengths


class TermWriter(whoosh3.W3FieldWriter):
    """A W3 field writer that writes each term's list in one step (see the module)."""

    copies_merged_segments = True  # merging.merge_segment registers sources for it

    def add_postings(self, schema: Schema, lengths: Any, items: Iterable[tuple]) -> None:
        self._lengths = _Lengths(lengths) if lengths else None
        self._schema = schema
        self._lengths_of: dict[str, list[int] | None] = {}
        self._offset = self._postfile.tell()
        self._write = self._postfile.file.write
        self._add_info, self._add_many, finish = _TermIndex.adders(self._tindex)
        sources = merging.take_sources(self._segment)
        try:
            if not sources:
                fields = getattr(items, "fields", None)
                if fields is None:
                    self._write_pool_terms(schema, self._pool_terms(items))
                    return
                for fieldname, terms in fields():  # postings.GroupedPostings
                    if isinstance(terms, WordPostings):
                        self._write_columns(schema, fieldname, terms)
                    else:
                        self._write_pool_terms(schema, self._with_lengths(terms))
                return
            terms = merging.merged_terms(self._pool_terms(items), sources, schema, self._field_lengths,
                                         _length_bytes)
            for term, parts in terms:
                self._write_term(schema, term, parts)
        finally:
            finish()
            for source in sources:
                source.close()

    def _write_pool_terms(self, schema: Schema, terms: Iterable[tuple[Term, list[Posting]]]) -> None:
        """`_write_term` of each term of a commit that merges nothing (each term's list is
        the pool's), its commonest cases called directly: a term in the current field with
        one posting, or a block's worth."""
        write_single, write_block, write_term = self._write_single, self._write_block, self._write_term
        for term, postings in terms:
            count = len(postings)
            if term[0] != self._fieldname or not count or count > BLOCK:
                write_term(schema, term, [postings])
            elif count == 1:
                write_single(term[1], postings[0])
            else:
                write_block(term[1], postings)

    def _write_columns(self, schema: Schema, fieldname: str, made: WordPostings) -> None:
        """The lists of a field whose commit's postings came as columns (`commitwords`): what
        `_write_term` writes (`_write_single`, `_write_block`, `_encode_block`), each list's and
        block's statistics, gaps, stored weights and length bytes computed for all of them at
        once, and the lists and their term infos written `_TermIndex._FLUSH` at a time."""
        if not made.words:
            return
        if fieldname != self._fieldname:
            self._start(schema, fieldname)
        bounds = made.bounds
        blocks = (np.diff(bounds) + BLOCK - 1) // BLOCK  # each list's blocks
        firsts = np.repeat(bounds[:-1], blocks)  # each block's first posting
        firsts += BLOCK * (np.arange(len(firsts)) - np.repeat(np.cumsum(blocks) - blocks, blocks))
        docs = made.docs
        gaps = docs.copy()  # each block's docnums: its first, then the gaps
        gaps[1:] -= docs[:-1]
        gaps[firsts] = docs[firsts]
        floats = made.weights.astype(np.float32)  # as Whoosh's array("f") keeps them
        as_stored = floats.astype(np.float64)
        word = _Spans(made, as_stored, bounds[:-1])
        block = word if len(firsts) == len(made.words) else _Spans(made, as_stored, firsts)
        block_ends = np.append(firsts[1:], bounds[-1]).tolist()
        firsts_list = firsts.tolist()
        doc_list, gap_list, value_list = docs.tolist(), gaps.tolist(), made.values
        stored_list = as_stored.tolist()
        doc_bytes, weight_bytes = docs.astype("<i4").tobytes(), floats.astype("<f4").tobytes()
        values, least_arrays = self._values, vectors.MIN_POSTINGS if self._with_arrays else len(docs) + 1
        as_is = values is _values_variable  # the columns hold no None: their tuple as it is
        pack_info, pack_int = _INFO_EXTENT.pack, _INT.pack
        dump, magic = dumps, _MAGIC
        prefix, mark = self._prefix, vectors.MARK
        out: list[bytes] = []
        keys: list[bytes] = []
        infos: list[bytes] = []
        offset = self._offset
        j = 0  # the list's first block
        for btext, a, b, many, total, same, top, low, high in zip(
                made.words, bounds.tolist(), bounds[1:].tolist(), (blocks > 1).tolist(), word.sums,
                word.alike, word.tops, word.lows, word.highs, strict=False):
            count = b - a
            last = doc_list[b - 1]
            if count == 1:  # most lists: a rare word's
                j += 1
                stored: object = None if stored_list[a] == 1.0 else stored_list[a]
                chunk = dump((1, last, top, 0, low, high), 2) + dump(
                    ((last,), stored, (value_list[a],) if as_is else values((value_list[a],))), BODY_PROTOCOL)
                body = magic + pack_int(-len(chunk)) + chunk
            elif not many:
                j += 1
                stored = tuple(stored_list[a:b]) if not same else (
                    None if stored_list[a] == 1.0 else stored_list[a])
                found = tuple(value_list[a:b])
                chunk = dump((count, last, top, 0, low, high), 2) + dump(
                    (tuple(gap_list[a:b]), stored, found if as_is else values(found)), BODY_PROTOCOL)
                body = magic + pack_int(-len(chunk)) + chunk
            else:
                pieces = [magic]
                for k in range(j, j + (count + BLOCK - 1) // BLOCK):
                    c, d = firsts_list[k], block_ends[k]
                    stored = tuple(stored_list[c:d]) if not block.alike[k] else (
                        None if stored_list[c] == 1.0 else stored_list[c])
                    head = (d - c, doc_list[d - 1], block.tops[k], 0, block.lows[k], block.highs[k])
                    chunk = dump(head, 2) + dump(
                        (tuple(gap_list[c:d]), stored, values(tuple(value_list[c:d]))), BODY_PROTOCOL)
                    pieces += (pack_int(len(chunk) if d < b else -len(chunk)), chunk)
                    j += 1
                body = b"".join(pieces)
            info = pack_info(0, total, count, low, high, max(0.0, top), doc_list[a], last, offset, len(body))
            out.append(body)
            offset += len(body)
            if count >= least_arrays:
                out.append(doc_bytes[4 * a : 4 * b] + weight_bytes[4 * a : 4 * b])
                offset += 8 * count
                info += mark
            keys.append(prefix + btext)
            infos.append(info)
            if len(keys) >= _TermIndex._FLUSH:
                self._write(b"".join(out))
                self._add_many(keys, infos)
                out, keys, infos = [], [], []
        self._write(b"".join(out))
        self._add_many(keys, infos)
        self._offset = offset

    def _field_lengths(self, fieldname: str) -> list[int] | None:
        """Each document's length of `fieldname`, or None for none (lengths of 0): a field
        that is not scorable has no lengths (Whoosh and `postings.add_document` count a
        document's length of a field only when it is scorable), so they are not read."""
        try:
            return self._lengths_of[fieldname]  # asked once a term of a merged segment
        except KeyError:
            pass
        found = None
        if self._lengths and (fieldname not in self._schema or self._schema[fieldname].scorable):
            found = self._lengths.of(fieldname)
        self._lengths_of[fieldname] = found
        return found

    def _pool_terms(self, items: Iterable[tuple]) -> Iterator[tuple[tuple[str, bytes], list[Posting]]]:
        """The pool's sorted postings grouped by term, each with its document's length."""
        grouped = getattr(items, "terms", None)
        if grouped is not None:  # postings.GroupedPostings: grouped already
            yield from self._with_lengths(grouped())
            return
        term: tuple[str, bytes] | None = None
        postings: list[Posting] = []
        field, field_lengths = None, None
        for fieldname, btext, docnum, weight, value in items:
            if docnum == -1:  # a spelling word, not a posting (never written by Whoosh 2.7)
                continue
            if (fieldname, btext) != term:
                if term is not None:
                    yield term, postings
                term, postings = (fieldname, btext), []
                if fieldname != field:
                    field, field_lengths = fieldname, self._field_lengths(fieldname)
            postings.append((docnum, weight, value, field_lengths[docnum] if field_lengths else 0))
        if term is not None:
            yield term, postings

    def _with_lengths(self, terms: Iterable[tuple[tuple[str, bytes], list[tuple], bool]]
                      ) -> Iterator[tuple[tuple[str, bytes], list[Posting]]]:
        field, field_lengths = None, None
        for term, postings, with_lengths in terms:
            if with_lengths:  # postings.PostingPool.add_terms: as written
                yield term, postings
                continue
            if term[0] != field:
                field, field_lengths = term[0], self._field_lengths(term[0])
            if field_lengths:
                yield term, [(docnum, weight, value, field_lengths[docnum])
                             for docnum, weight, value in postings]
            else:
                yield term, [(docnum, weight, value, 0) for docnum, weight, value in postings]

    def _start(self, schema: Schema, fieldname: str) -> None:
        self.start_field(fieldname, schema[fieldname])
        fixed = self._format.fixed_value_size()
        self._values = _values_variable if fixed is None or fixed < 0 else (
            _values_none if fixed == 0 else _values_joined
        )
        self._with_arrays = bool(schema[fieldname].scorable)
        self._prefix = pack_ushort(self._fieldid)  # each key of the field starts with it

    def _write_term(self, schema: Schema, term: tuple[str, bytes],
                    parts: list[Any]) -> None:
        fieldname, btext = term
        if fieldname != self._fieldname:
            self._start(schema, fieldname)
        if parts and type(parts[0]) is Written:  # a merge's plain term (mergecolumns), ready to write
            self._put(btext, parts[0].body, parts[0].arrays, parts[0].info)
            return
        if len(parts) == 1 and type(parts[0]) is list and len(parts[0]) <= BLOCK:
            if len(parts[0]) == 1:
                self._write_single(btext, parts[0][0])
            elif parts[0]:
                self._write_block(btext, parts[0])
            return
        if len(parts) == 1 and type(parts[0]) is Copied \
                and not (self._with_arrays and parts[0].df >= vectors.MIN_POSTINGS):
            self._write_copied(btext, parts[0])
            return
        stats = _Stats()
        chunks: list[bytes] = []
        for part in parts:
            if isinstance(part, Copied):
                chunks += part.blocks
                stats.add_copied(part)
            else:
                for i in range(0, len(part), BLOCK):
                    chunks.append(self._encode_block(part[i : i + BLOCK], stats))
        if not chunks:
            return
        out = [whoosh3.WHOOSH3_HEADER_MAGIC]
        for n, chunk in enumerate(chunks, 1):
            out += (_INT.pack(-len(chunk) if n == len(chunks) else len(chunk)), chunk)
        body = b"".join(out)
        arrays = b""
        if self._with_arrays and stats.df >= vectors.MIN_POSTINGS:
            arrays = vectors.encode(*_arrays(parts))
        info = _TERMINFO.pack(
            0,
            stats.total,
            stats.df,
            0 if stats.minlength is None else _length_byte(stats.minlength),
            _length_byte(stats.maxlength),
            stats.maxweight,
            stats.first,
            stats.last,
        )
        self._put(btext, body, arrays, info)

    def _put(self, btext: bytes, body: bytes, arrays: bytes, info: bytes) -> None:
        """Append a term's posting list (`body`, then its `arrays` if any) to the postings
        file and its term info, which points at the list (and marks the arrays), to the terms
        index: every path of `_write_term` ends here."""
        start = self._offset
        self._write(body)
        if arrays:
            self._write(arrays)
            self._offset = start + len(body) + len(arrays)
            self._add_info(self._prefix + btext, info + _LONG_INT.pack(start, len(body)) + vectors.MARK)
            return
        self._offset = start + len(body)
        self._add_info(self._prefix + btext, info + _LONG_INT.pack(start, len(body)))

    def _write_single(self, btext: bytes, posting: Posting) -> None:
        """`_write_term` for a term with one posting, most of a commit's terms (rare words):
        the same block and term info, without the general path's lists and statistics."""
        docnum, top, value, length = posting
        single = _F32.unpack(_F32.pack(top))[0]
        high = _length_byte(length)
        low = high if length else 0
        chunk = dumps((1, docnum, top, 0, low, high), 2) + dumps(
            ((docnum,), None if single == 1.0 else single, self._values((value,))), BODY_PROTOCOL)
        info = _TERMINFO.pack(0, single, 1, low, high, max(0.0, top), docnum, docnum)
        self._put(btext, _MAGIC + _INT.pack(-len(chunk)) + chunk, b"", info)

    def _write_copied(self, btext: bytes, part: Copied) -> None:
        """`_write_term` for a term whose list is one `Copied` and gets no arrays (a merge's
        terms without a posting from the pool and with fewer than MIN_POSTINGS postings, or
        in a field that keeps no arrays: `merging._joined` gives the list of all of a term's
        merged segments as one): its blocks framed and its term info, without the general
        path's statistics and chunks."""
        blocks = part.blocks
        if len(blocks) == 1:
            chunk = blocks[0]
            body = _MAGIC + _INT.pack(-len(chunk)) + chunk
        else:
            out = [_MAGIC]
            for chunk in blocks[:-1]:
                out += (_INT.pack(len(chunk)), chunk)
            out += (_INT.pack(-len(blocks[-1])), blocks[-1])
            body = b"".join(out)
        low = 0 if part.minlength is None else _length_byte(part.minlength)
        info = _TERMINFO.pack(0, part.total, part.df, low, _length_byte(part.maxlength),
                              max(0.0, part.maxweight), part.first, part.last)
        self._put(btext, body, b"", info)

    def _write_block(self, btext: bytes, postings: list[Posting]) -> None:
        """`_write_term` for a term whose postings, from the pool, fit in one block (most
        terms with more than one posting): the same block, arrays and term info, without
        the general path's statistics object and its parts."""
        docnums, weights, values, lens = zip(*postings, strict=True)
        farray = array("f", weights)
        top = max(weights)
        count = len(docnums)
        bmin = min(lens) or min(filter(None, lens), default=0)  # no length of 0: the least
        bmax = max(lens)
        mini_weights = _stored_weights(farray)
        gaps = [docnums[0]]
        gaps += map(int.__sub__, docnums[1:], docnums)
        high = _length_byte(bmax)
        low = _length_byte(bmin) if bmin else 0
        chunk = dumps((count, docnums[-1], top, 0, low, high), 2) + dumps(
            (tuple(gaps), mini_weights, self._values(values)), BODY_PROTOCOL)
        body = _MAGIC + _INT.pack(-len(chunk)) + chunk
        arrays = b""
        if self._with_arrays and count >= vectors.MIN_POSTINGS:
            arrays = vectors.encode_list(docnums, farray)
        info = _TERMINFO.pack(0, sum(farray), count, low, high, max(0.0, top), docnums[0], docnums[-1])
        self._put(btext, body, arrays, info)

    def _encode_block(self, postings: list[Posting], stats: _Stats) -> bytes:
        """One block's pickled header and body, as Whoosh's W3PostingsWriter writes them
        (the body in `BODY_PROTOCOL`)."""
        if len(postings) == 1:  # most terms of a segment: one posting
            docnum, top, value, bmax = postings[0]
            single = _F32.unpack(_F32.pack(top))[0]
            weight_sum, count = single, 1
            bmin = bmax
            ids: tuple[int, ...] = (docnum,)
            mini_weights: object = None if single == 1.0 else single
            mini_values = self._values((value,))
        else:
            docnums, weights, values, lens = zip(*postings, strict=True)
            farray = array("f", weights)
            top = max(weights)
            weight_sum, count = sum(farray), len(docnums)
            bmin = min(lens) or min(filter(None, lens), default=0)  # no length of 0: the least
            bmax = max(lens)
            mini_weights = _stored_weights(farray)
            gaps = [docnums[0]]
            gaps += map(int.__sub__, docnums[1:], docnums)
            ids = tuple(gaps)
            mini_values = self._values(values)
        stats.add(weight_sum, count, top, bmin or None, bmax, postings[0][0], postings[-1][0])
        data = dumps((ids, mini_weights, mini_values), BODY_PROTOCOL)
        high = _length_byte(bmax)
        low = _length_byte(bmin) if bmin else 0
        head = dumps((len(ids), postings[-1][0], top, 0, low, high), 2)
        return head + data


class _Spans:
    """What `_write_columns` writes of each span of a field's columns (a list, or a block),
    for the spans starting at `starts`: the sum and top of its weights, whether their stored
    values (`as_stored`: float32's) are all alike, and its least (but 0) and greatest length
    as Whoosh's length bytes."""

    def __init__(self, made: WordPostings, as_stored: np.ndarray, starts: np.ndarray) -> None:
        weights, lengths = made.weights, made.lengths
        self.sums: list[float] = np.add.reduceat(as_stored, starts).tolist()  # whole: exact in any order
        self.alike: list[bool] = (np.minimum.reduceat(as_stored, starts)
                                  == np.maximum.reduceat(as_stored, starts)).tolist()
        self.tops: list[float] = np.maximum.reduceat(weights, starts).tolist()
        self.highs: list[int] = _length_bytes(np.maximum.reduceat(lengths, starts)).tolist()
        none = np.iinfo(np.int64).max  # no length but 0: a low byte of 0
        least = np.minimum.reduceat(np.where(lengths == 0, none, lengths), starts)
        self.lows: list[int] = np.where(least == none, 0, _length_bytes(least)).tolist()


class _Stats:
    """What a term info says about the whole list, summed over its blocks and parts."""

    def __init__(self) -> None:
        self.total, self.df, self.maxweight = 0.0, 0, 0.0
        self.minlength: int | None = None
        self.maxlength = 0
        self.first: int | None = None
        self.last = 0

    def add(self, total: float, df: int, top: float, minlength: int | None, maxlength: int,
            first: int, last: int) -> None:
        self.total += total
        self.df += df
        self.maxweight = max(self.maxweight, top)
        if minlength is not None and (self.minlength is None or minlength < self.minlength):
            self.minlength = minlength
        self.maxlength = max(self.maxlength, maxlength)
        if self.first is None:
            self.first = first
        self.last = last

    def add_copied(self, part: Copied) -> None:
        total = part.total
        if part.totals is not None:  # several lists' (merging._joined): summed one by one, as
            for total in part.totals:  # their parts would be, for the same float total
                self.total += total
            total = 0.0
        self.add(total, part.df, part.maxweight, part.minlength, part.maxlength, part.first, part.last)


def _arrays(parts: list[list[Posting] | Copied]) -> tuple[np.ndarray, np.ndarray]:
    ids: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for part in parts:
        if isinstance(part, Copied):
            assert part.ids is not None and part.weights is not None  # its field keeps arrays
            part_ids, part_weights = part.ids, part.weights
        else:
            columns = list(zip(*part, strict=True))
            part_ids = np.array(columns[0], np.int64)
            part_weights = np.array(columns[1], np.float64)
        ids.append(part_ids)
        weights.append(part_weights)
    return np.concatenate(ids), np.concatenate(weights)


def _values_variable(values: tuple) -> tuple:
    return values if None not in values else tuple(v or b"" for v in values)


def _values_none(values: tuple) -> None:
    return None


def _values_joined(values: tuple) -> bytes:
    return b"".join(v or b"" for v in values)


class _TermIndex:
    """Whoosh's `OrderedHashWriter.add` (the terms file's records and hash buckets) with its
    position counted rather than asked of the file, the key's MD5 taken from the digest's
    bytes (Whoosh's hex round trip gives the same number), and the records and their
    positions kept and written `_FLUSH` at a time (Whoosh writes each record and appends its
    position to a growable array, a call each): the same file. Only the term writer writes
    to the terms file while it adds terms; `finish` writes what is kept before anything else
    does."""

    _FLUSH = 4096  # records written in one call

    def __init__(self, tindex: filetables.OrderedHashWriter) -> None:
        self._tindex = tindex
        self._write = tindex.dbfile.write
        self._position = tindex.dbfile.tell()
        self._buckets = tindex.buckets
        self._lastkey = tindex.lastkey
        self._records: list[bytes] = []
        self._positions: list[int] = []

    @classmethod
    def adders(cls, tindex: filetables.HashWriter) -> tuple[
            Callable[[bytes, bytes], None], Callable[[list[bytes], list[bytes]], None], Callable[[], None]]:
        """(`tindex`'s add, an add of many keys and values at once, what to call once the terms
        are added): these for Whoosh's ordered MD5 hash writer, else its own (and nothing to
        finish)."""
        if type(tindex) is filetables.OrderedHashWriter and tindex.hashfn is filetables.md5_hash \
                and type(tindex.index) is GrowableArray and isinstance(tindex.index.array, array):
            tindex._write_hashes = lambda: _write_hash_tables(tindex)
            index = cls(tindex)
            return index.add, index.add_many, index.finish

        def add_many(keys: list[bytes], values: list[bytes]) -> None:
            for key, value in zip(keys, values, strict=True):
                tindex.add(key, value)
        return tindex.add, add_many, lambda: None

    def add_many(self, keys: list[bytes], values: list[bytes]) -> None:
        """`add` of each key (in increasing order) and its value."""
        if not keys:
            return
        if keys[0] <= self._lastkey or any(map(bytes.__ge__, keys, keys[1:])):
            raise ValueError(f"Keys must increase: {self._lastkey!r}..{keys!r}")
        pack = _RECORD.pack
        records = [pack(len(key), len(value)) + key + value for key, value in zip(keys, values, strict=True)]
        positions = list(accumulate(map(len, records), initial=self._position))
        self._position = positions.pop()
        buckets = self._buckets
        for key, position in zip(keys, positions, strict=True):
            digest = int.from_bytes(md5(key, usedforsecurity=False).digest()[-4:], "big")
            buckets[digest & 255].append((digest, position))
        self._records += records
        self._positions += positions
        self._lastkey = keys[-1]
        if len(self._records) >= self._FLUSH:
            self.finish()

    def add(self, key: bytes, value: bytes) -> None:
        if key <= self._lastkey:
            raise ValueError(f"Keys must increase: {self._lastkey!r}..{key!r}")
        position = self._position
        self._positions.append(position)
        record = _RECORD.pack(len(key), len(value)) + key + value
        records = self._records
        records.append(record)
        self._position = position + len(record)
        digest = int.from_bytes(md5(key, usedforsecurity=False).digest()[-4:], "big")
        self._buckets[digest & 255].append((digest, position))
        self._lastkey = key
        if len(records) >= self._FLUSH:
            self.finish()

    def finish(self) -> None:
        """Write the records kept and add their positions to the index of positions, whose
        type becomes what Whoosh's growable array would have made it (positions rise: the
        type of the largest, from "H" up)."""
        tindex = self._tindex
        tindex.lastkey = self._lastkey
        if not self._records:
            return
        self._write(b"".join(self._records))
        positions, self._records, self._positions = self._positions, [], []
        index = tindex.index
        try:
            array(index.array.typecode, positions[-1:])
        except OverflowError:
            index._retype(positions[-1])
        index.array.extend(array(index.array.typecode, positions))


def _write_hash_tables(tindex: filetables.HashWriter) -> None:
    """Whoosh's `HashWriter._write_hashes`, the same bytes: each bucket's table of (hash,
    position) slots filled in the same order with the same probing, then written in one
    call rather than a call per slot (an empty slot is (0, 0): no record starts at 0)."""
    dbfile = tindex.dbfile
    for entries in tindex.buckets:
        numslots = 2 * len(entries)
        tindex.directory.append((dbfile.tell(), numslots))
        if not numslots:
            continue
        table: list[tuple[int, int] | None] = [None] * numslots
        for entry in entries:
            slot = (entry[0] >> 8) % numslots
            while table[slot] is not None:
                slot = (slot + 1) % numslots
            table[slot] = entry
        flat = chain.from_iterable(entry or (0, 0) for entry in table)
        dbfile.write(struct.pack("!" + "Iq" * numslots, *flat))
