"""How the content field is turned into postings and written: the index's hot path.

Whoosh's generic path makes a `Token` per word, pickles each posting's positions
and reads each posting's document length back from disk while writing. Measured
on the documentation pages that was most of the indexing time, so here:

- `ContentField` analyses a document in one pass (`analysis.words`: one regex over
  the lower-cased text, a frozenset stop list) and builds the postings directly,
  with no Token objects. Title words weigh `TITLE_WEIGHT` each in the word's
  weight (a field-level boost would weigh the whole field; the weight of a word
  must count its title occurrences only), and count once in the document length.
- `WordPositions` stores a posting's positions as deltas in a byte string (one
  byte per position when the gaps are small) instead of a pickle.
- `ContentCodec` writes uncompressed posting blocks (no zlib on the query path)
  and looks a segment's document lengths up once per field, not once per posting;
  a long posting list of the content field is also written as flat arrays after
  its blocks (`vectors.py`), for the query path.

Both classes are pickled into the index's table of contents: renaming or moving
them makes existing indexes unreadable. Indexes written with Whoosh's stock
`Positions` format stay readable (the schema is read from the index).
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Iterator
from itertools import accumulate
from operator import sub
from pickle import dumps

from whoosh import writing
from whoosh.codec import whoosh3
from whoosh.fields import TEXT
from whoosh.formats import Positions
from whoosh.system import pack_ushort
from whoosh.util.numeric import length_to_byte

from webcrawler.index import vectors
from webcrawler.index.analysis import TITLE_GAP, TITLE_WEIGHT, analyzer, words

_ONE_BYTE = [b"B" + bytes((n,)) for n in range(256)]
_ONE_SHORT = struct.Struct("=H")


def encode_positions(positions: list[int]) -> bytes:
    """Ascending positions -> a type byte and the gaps ("B": bytes, "H"/"I": arrays)."""
    if len(positions) == 1:  # most postings: a word once in the document
        first = positions[0]
        if first < 256:
            return _ONE_BYTE[first]
        if first < 65536:
            return b"H" + _ONE_SHORT.pack(first)
        return b"I" + array("I", positions).tobytes()
    gaps = [positions[0]]
    gaps += map(sub, positions[1:], positions)
    top = max(gaps)
    if top < 256:
        return b"B" + bytes(gaps)
    code = "H" if top < 65536 else "I"
    return code.encode() + array(code, gaps).tobytes()


def decode_positions(value: bytes) -> list[int]:
    code = value[:1]
    if code == b"B":
        return list(accumulate(value[1:]))
    gaps = array(code.decode())
    gaps.frombytes(value[1:])
    return list(accumulate(gaps))


BLOCK = 128  # postings per block (Whoosh's default)
_INT = struct.Struct("!i")  # Whoosh's structfile write_int
_F32 = struct.Struct("f")  # a weight as Whoosh's array("f") keeps it
_TERMINFO = whoosh3.W3TermInfo._struct  # flags, weight, df, min/max length, max weight, ids
_LONG_INT = struct.Struct("!qi")  # the posting list's offset and length (pack_long, pack_int)
_ITEM_SIZE = {b"B": 1, b"H": 2, b"I": 4}


class WordPositions(Positions):
    """Whoosh's Positions format with the compact encoding above."""

    def encode(self, poslist):  # type: ignore[no-untyped-def]
        return encode_positions(list(poslist))

    def decode_positions(self, valuestring):  # type: ignore[no-untyped-def]
        return decode_positions(valuestring)

    def decode_frequency(self, valuestring):  # type: ignore[no-untyped-def]
        return (len(valuestring) - 1) // _ITEM_SIZE[valuestring[:1]]

    def decode_weight(self, valuestring):  # type: ignore[no-untyped-def]
        return self.decode_frequency(valuestring) * self.field_boost


def word_positions(value: str) -> tuple[dict[str, list[int]], dict[str, int]]:
    """(word -> positions, word -> count in the title) for a str or a `TitledText`."""
    positions: dict[str, list[int]] = {}
    get = positions.get
    heading = getattr(value, "heading", None)
    start = 0
    in_title: dict[str, int] = {}
    if heading is not None:
        title = words(heading)
        for pos, word in enumerate(title):
            found = get(word)
            if found is None:
                positions[word] = [pos]
                in_title[word] = 1
            else:
                found.append(pos)
                in_title[word] += 1
        start = len(title) + TITLE_GAP
    for pos, word in enumerate(words(str(value)), start):
        found = get(word)
        if found is None:
            positions[word] = [pos]
        else:
            found.append(pos)
    return positions, in_title


class ContentField(TEXT):
    """A TEXT field (positions, scorable) with the fast analysis and postings above."""

    def __init__(self) -> None:
        super().__init__(analyzer=analyzer(), phrase=True)
        self.format = WordPositions()

    def index(self, value, **kwargs) -> Iterator[tuple[bytes, int, float, bytes]]:  # type: ignore[no-untyped-def, override]
        positions, in_title = word_positions(value)
        extra = TITLE_WEIGHT - 1.0
        for word, poslist in positions.items():
            weight = len(poslist) + extra * in_title.get(word, 0)
            yield word.encode("utf-8"), len(poslist), weight, encode_positions(poslist)


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


class _FieldWriter(whoosh3.W3FieldWriter):
    """Writes a segment's sorted postings in one tight loop, byte for byte what Whoosh's
    W3PostingsWriter writes (uncompressed blocks of `BLOCK` postings, a W3TermInfo each),
    without its per-posting method calls and checks."""

    def add_postings(self, schema, lengths, items):  # type: ignore[no-untyped-def]
        lengths = _Lengths(lengths) if lengths else None
        self._offset = self._postfile.tell()
        self._write = self._postfile.file.write
        term: tuple[str, bytes] | None = None
        block: list[tuple[int, float, bytes | None, int]] = []
        blocks: list[list[tuple[int, float, bytes | None, int]]] = []
        field, field_lengths = None, None
        for fieldname, btext, docnum, weight, value in items:
            if docnum == -1:  # a spelling word, not a posting (never written by Whoosh 2.7)
                continue
            if (fieldname, btext) != term:
                if term is not None:
                    self._write_term(schema, term, blocks, block)
                term, block, blocks = (fieldname, btext), [], []
                if fieldname != field:
                    field = fieldname
                    field_lengths = lengths.of(fieldname) if lengths else None
            elif len(block) == BLOCK:
                blocks.append(block)
                block = []
            block.append((docnum, weight, value, field_lengths[docnum] if field_lengths else 0))
        if term is not None:
            self._write_term(schema, term, blocks, block)

    def _write_term(self, schema, term, blocks, last) -> None:  # type: ignore[no-untyped-def]
        fieldname, btext = term
        if fieldname != self._fieldname:
            self.start_field(fieldname, schema[fieldname])
            fixed = self._format.fixed_value_size()
            self._values = _values_variable if fixed is None or fixed < 0 else (
                _values_none if fixed == 0 else _values_joined
            )
            self._with_arrays = isinstance(self._format, WordPositions)
        blocks.append(last)
        out = [whoosh3.WHOOSH3_HEADER_MAGIC]
        total, df, maxweight, minlength, maxlength = 0.0, 0, 0.0, None, 0
        for n, postings in enumerate(blocks, 1):
            if len(postings) == 1:  # most terms of a segment: one posting
                docnum, top, value, bmax = postings[0]
                single = _F32.unpack(_F32.pack(top))[0]
                total += single
                df += 1
                bmin = bmax or None
                ids: tuple[int, ...] = (docnum,)
                mini_weights: object = None if single == 1.0 else single
                mini_values = self._values((value,))
            else:
                ids, weights, values, lens = zip(*postings, strict=True)
                farray = array("f", weights)
                top = max(weights)
                total += sum(farray)
                df += len(ids)
                positive = [x for x in lens if x]
                bmin = min(positive) if positive else None
                bmax = max(lens)
                first = farray[0]
                if first == 1.0 and farray.count(1.0) == len(farray):
                    mini_weights = None
                elif farray.count(first) == len(farray):
                    mini_weights = first
                else:
                    mini_weights = tuple(farray)
                ids_out = [ids[0]]
                ids_out += map(sub, ids[1:], ids)
                ids = tuple(ids_out)  # gaps
                mini_values = self._values(values)
            if bmin is not None and (minlength is None or bmin < minlength):
                minlength = bmin
            if bmax > maxlength:
                maxlength = bmax
            if top > maxweight:
                maxweight = top
            data = dumps((ids, mini_weights, mini_values), 2)
            head = dumps(
                (len(ids), postings[-1][0], top, 0, length_to_byte(bmin), length_to_byte(bmax)),
                2,
            )
            size = len(head) + len(data)
            out += (_INT.pack(-size if n == len(blocks) else size), head, data)
        body = b"".join(out)
        arrays = b""
        if self._with_arrays and (len(blocks) - 1) * BLOCK + len(last) >= vectors.MIN_POSTINGS:
            everything = [posting for block in blocks for posting in block]
            arrays = vectors.encode([p[0] for p in everything], [p[1] for p in everything])
        start = self._offset
        self._write(body + arrays)
        self._offset += len(body) + len(arrays)
        info = _TERMINFO.pack(
            0,
            total,
            df,
            0 if minlength is None else length_to_byte(minlength),
            length_to_byte(maxlength),
            maxweight,
            blocks[0][0][0],
            last[-1][0],
        )
        mark = vectors.MARK if arrays else b""
        self._tindex.add(pack_ushort(self._fieldid) + btext, info + _LONG_INT.pack(start, len(body)) + mark)


def _values_variable(values: tuple) -> tuple:
    return tuple(v or b"" for v in values)


def _values_none(values: tuple) -> None:
    return None


def _values_joined(values: tuple) -> bytes:
    return b"".join(v or b"" for v in values)


class PostingPool(writing.PostingPool):
    """Whoosh's posting pool without its per-posting checks; sizes are estimated the same
    way (bytes of Python objects) so runs spill to disk at about the same `limitmb`."""

    def add(self, item):  # type: ignore[no-untyped-def]
        self.current.append(item)
        self.currentsize += 160 + 2 * len(item[1]) + len(item[4] or b"")
        if self.currentsize > self.limit:
            self.save()


def fast_pool(writer: writing.SegmentWriter) -> writing.SegmentWriter:
    """`writer` with the pool above (call before adding anything)."""
    old = writer.pool
    writer.pool = PostingPool(old.tempstore, old.segment, limitmb=old.limit // (1024 * 1024))
    writer.pool.fieldnames = old.fieldnames
    return writer


class ContentCodec(whoosh3.W3Codec):
    """Whoosh's W3 codec, uncompressed, with the length lookups above."""

    def __init__(self) -> None:
        super().__init__(blocklimit=BLOCK, compression=0)

    def field_writer(self, storage, segment):  # type: ignore[no-untyped-def]
        return _FieldWriter(self, storage, segment)
