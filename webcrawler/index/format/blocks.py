"""Reading Whoosh's W3 posting lists a block at a time, without its matchers.

A posting list in a W3 postings file is a 4-byte magic number, then blocks:
a signed length (negative for the last block), a pickled header (count, last
docnum, top weight, compression, min and max length bytes) and a pickled body
(docnum gaps - the first one absolute - weights, values), zlib-compressed when
the header says so. Merging (`merging.py`), the posting arrays (`vectors.py`),
term-at-a-time search and proximity (`values_of`: only the blocks that hold the
wanted documents are unpickled) read lists this way; Whoosh reads the same bytes.
"""

from __future__ import annotations

import io
import pickle
import struct
import zlib
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate, repeat

import numpy as np
from whoosh.codec import whoosh3
from whoosh.filedb.structfile import StructFile
from whoosh.reading import SegmentReader, TermNotFound

from webcrawler.index.format import segcache

Header = tuple[int, int, float, int, int, int]  # count, last docnum, top weight, comp, lo, hi

_INT = struct.Struct("!i")
MAGIC = whoosh3.WHOOSH3_HEADER_MAGIC
_PROTOS = (b"\x80\x02", b"\x80\x03")  # Whoosh's blocks, and termwriter's since (BODY_PROTOCOL)
_INT_WIDTH = {0x4B: 2, 0x4D: 3, 0x4A: 5}  # pickle opcode K, M, J -> bytes with the opcode
_BYTE = [bytes((n,)) for n in range(256)]


def is_w3(reader: SegmentReader) -> bool:
    terms = getattr(reader, "_terms", None)
    return type(terms) is whoosh3.W3TermsReader and isinstance(reader.codec(), whoosh3.W3Codec)


def extent(info: whoosh3.W3TermInfo) -> tuple[int, int]:
    """(offset, length) of a term's posting list in the postings file."""
    offset, length = info.extent()
    if isinstance(length, tuple):  # Whoosh 2.7 decodes the length as a 1-tuple
        length = length[0]
    return offset, length


def raw_blocks(data: bytes) -> Iterator[tuple[Header, bytes]]:
    """(header, pickled body, decompressed) of each block of one posting list."""
    if data[:4] != MAGIC:
        raise ValueError("not a W3 posting list")
    for block in _framed(data):
        stream = io.BytesIO(block)
        header = pickle.load(stream)
        body = stream.read()
        if header[3]:
            body = zlib.decompress(body)
        yield header, body


def _framed(data: bytes) -> Iterator[bytes]:
    """Each block's bytes (pickled header, then body) of a posting list whose MAGIC is checked:
    a block is framed by its signed size, negative on the last."""
    pos = 4
    while pos < len(data):
        size = _INT.unpack_from(data, pos)[0]
        pos += 4
        end = pos + abs(size)
        yield data[pos:end]
        pos = end
        if size < 0:
            break


def posting_blocks(data: bytes) -> Iterator[tuple[list[int], object, object]]:
    """(docnums, weights, values) of each block of one uncompressed or zlib posting list."""
    for (count, *_rest), body in raw_blocks(data):
        gaps, weights, values = pickle.loads(body)
        yield list(accumulate(gaps)), weights_of(weights, count), _values(values, count)


def values_of(reader: SegmentReader, field: str, word: str, docnums: Sequence[int],
              table: tuple[np.ndarray, np.ndarray] | None = None) -> Iterator[tuple[int, bytes]]:
    """(docnum, posting value) of `word` in those of the W3 segment's `docnums` (sorted)
    that hold it. Only the blocks whose docnums reach a wanted one are read and
    unpickled, found in the list's block table (`table` when the caller has it, else
    `block_table`, made once per segment and word), where a matcher's skips unpickle
    much more."""
    terms = reader._terms
    try:
        info = terms.term_info(field, word.encode("utf-8"))
    except (KeyError, TermNotFound):
        return
    if info.is_inlined():
        ids, _weights, values = info.inlined_postings()
        blocks: Iterator[tuple[list[int], object]] = iter([(list(ids), values)])
    else:
        start, length = extent(info)
        postfile = terms._postfile
        if table is None:
            table = segcache.remembered(reader, ("blocks", field, word),
                                        lambda: block_table(postfile.get(start, length)))
        blocks = _bodies_reaching(postfile, start, table, docnums)
    for ids, values in blocks:
        wanted = [d for d in docnums if ids[0] <= d <= ids[-1]]
        if not wanted:
            continue
        values = _values(values, len(ids))
        for docnum in wanted:
            at = bisect_right(ids, docnum) - 1
            if ids[at] == docnum:
                yield docnum, values[at]  # type: ignore[index]


def block_table(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(where each block's header starts and ends in the list, the block's last docnum):
    every header of one posting list read once, so that a query finds the blocks
    holding its documents without reading the others' headers again."""
    if data[:4] != MAGIC:
        raise ValueError("not a W3 posting list")
    view = memoryview(data)
    bounds: list[int] = []
    lasts: list[int] = []
    pos = 4
    while pos < len(data):
        size = _INT.unpack_from(data, pos)[0]
        pos += 4
        end = pos + abs(size)
        header = pickle.loads(view[pos:end])  # the header: loads stops before the body
        bounds += (pos, end)
        lasts.append(header[1])
        pos = end
        if size < 0:
            break
    wide = np.int32 if len(data) < 2**31 else np.int64  # remembered: the narrower, the more
    return np.array(bounds, dtype=wide).reshape(-1, 2), np.array(lasts, dtype=np.int32)


def _bodies_reaching(postfile: StructFile, start: int, table: tuple[np.ndarray, np.ndarray],
                     docnums: Sequence[int]) -> Iterator[tuple[list[int], object]]:
    """(docnums, values) of the blocks of one list whose range holds one of `docnums`."""
    bounds, lasts = table
    for block in sorted(set(np.searchsorted(lasts, docnums).tolist())):
        if block >= len(lasts):
            break
        begin, end = bounds[block].tolist()
        stream = io.BytesIO(postfile.get(start + begin, end - begin))
        header = pickle.load(stream)
        body = stream.read()
        gaps, _weights, values = pickle.loads(zlib.decompress(body) if header[3] else body)
        yield list(accumulate(gaps)), values


def _pickled_int(number: int) -> bytes:
    """`pickle.dumps(number, 2)` without its protocol and stop opcodes (K, M or J and the
    number's bytes, as `shift_docnums` reads them), without a pickler made for it."""
    if 0 <= number < 256:
        return b"K" + _BYTE[number]
    if 0 <= number < 65536:
        return b"M" + number.to_bytes(2, "little")
    if -(2**31) <= number < 2**31:
        return b"J" + number.to_bytes(4, "little", signed=True)
    return pickle.dumps(number, 2)[2:-1]


def shift_docnums(data: bytes, base: int, start: int = 0, end: int | None = None) -> bytes:
    """A block's pickled body (data[start:end], read where it lies) with every docnum `base`
    higher: only the first gap changes (it is absolute), so its pickled integer is rewritten
    in place; the rest is copied."""
    end = len(data) if end is None else end
    found = _first_docnum(data, start, end, base)
    if found is None:  # not as Whoosh 2.7 or termwriter writes it: decode and encode
        gaps, weights, values = pickle.loads(data[start:end])
        return pickle.dumps(((gaps[0] + base, *gaps[1:]), weights, values), 3)
    at, shifted, after = found
    return b"".join((data[start:at], shifted, data[after:end]))


def _first_docnum(data: bytes, start: int, end: int, base: int) -> tuple[int, bytes, int] | None:
    """The first docnum of the block body data[start:end]: where its pickled integer starts
    and ends, and the integer `base` higher pickled; None when the body is not pickled as
    Whoosh 2.7 and termwriter pickle it. Pickle protocols 2 and 3 write the body as [MARK]
    first-int ..., and an integer as K (1 byte), M (2), J (4) or LONG1; memo references
    count objects, not bytes."""
    at = start + (3 if data[start + 2 : start + 3] == b"(" else 2)
    width = _INT_WIDTH.get(data[at]) if at < end and data[start : start + 2] in _PROTOS else None
    if width is None:
        return None
    first = int.from_bytes(data[at + 1 : at + width], "little", signed=data[at] == 0x4A)
    return at, _pickled_int(first + base), at + width


def shift_block(block: bytes, base: int, bodies: list[bytes] | None = None) -> bytes | None:
    """An uncompressed block (pickled header, then body) with every docnum `base` higher, as
    `raw_blocks`, `shift_docnums` and the header pickled again give it: the header's last
    docnum is rewritten in place like the body's first gap, the rest copied. None when the
    header is not as Whoosh 2.7 and termwriter write it (protocol 2: MARK, count and last
    docnum as K, M or J, the top weight as G, then K 0 (not compressed), K low, K high,
    TUPLE, BINPUT 0, STOP): the caller decodes it then. `bodies`: gets the block's body as
    it was (for a caller that decodes the postings too)."""
    return _shift_at(block, 0, len(block), base, bodies)


def _shift_at(data: bytes, start: int, end: int, base: int, bodies: list[bytes] | None) -> bytes | None:
    """`shift_block` of the block data[start:end], read where it lies (a list's bytes are not
    sliced into blocks, nor a block into its header and body, before they are copied)."""
    if data[start : start + 3] != b"\x80\x02(":
        return None
    count_width = _INT_WIDTH.get(data[start + 3]) if start + 3 < end else None
    if count_width is None:
        return None
    pos = start + 3 + count_width
    opcode = data[pos] if pos < end else 0
    width = _INT_WIDTH.get(opcode)
    if width is None:
        return None
    rest = pos + width  # the top weight: G and 8 bytes
    stop = rest + 19  # the header's end, the body's start
    if (end < stop or data[rest] != 0x47 or data[rest + 9 : rest + 15 : 2] != b"KKK"
            or data[rest + 10] or data[rest + 15 : stop] != b"tq\x00."):
        return None
    last = int.from_bytes(data[pos + 1 : rest], "little", signed=opcode == 0x4A)
    if bodies is not None:
        bodies.append(data[stop:end])
    found = _first_docnum(data, stop, end, base)
    if found is None:  # shift_docnums decodes and encodes the body
        return b"".join((data[start:pos], _pickled_int(last + base), data[rest:stop],
                         shift_docnums(data, base, stop, end)))
    at, first, after = found
    return b"".join((data[start:pos], _pickled_int(last + base), data[rest:at], first, data[after:end]))


def shift_blocks(data: bytes, base: int, bodies: list[bytes] | None = None) -> list[bytes] | None:
    """Every block of the posting list `data` as `shift_block` gives it (what a merge copies),
    or None when one of them is not as it knows (the caller decodes them then); `bodies`
    gets each block's body as it was."""
    if data[:4] != MAGIC:
        return None
    size = _INT.unpack_from(data, 4)[0] if len(data) >= 8 else 0
    if size < 0 and len(data) == 8 - size:  # one block, the last: most lists (rare words)
        shifted = _shift_at(data, 8, len(data), base, bodies)
        return None if shifted is None else [shifted]
    blocks = []
    pos, whole = 4, len(data)
    while pos < whole:  # as _framed, at offsets
        size = _INT.unpack_from(data, pos)[0]
        pos += 4
        end = min(pos + abs(size), whole)
        shifted = _shift_at(data, pos, end, base, bodies)
        if shifted is None:
            return None
        blocks.append(shifted)
        pos = end
        if size < 0:
            break
    return blocks


def weights_of(weights: object, count: int) -> object:
    """A block's weights as stored (None: all 1.0; one float: all that) -> one per posting."""
    if weights is None:
        return repeat(1.0, count)
    if isinstance(weights, float):
        return repeat(weights, count)
    return weights


def _values(values: object, count: int) -> object:
    if values is None:
        return repeat(b"", count)
    if isinstance(values, bytes):
        width = len(values) // count
        return [values[i : i + width] for i in range(0, len(values), width)]
    return values
