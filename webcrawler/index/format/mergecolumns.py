"""A merge's plain terms as columns: their merged lists read, checked and summed at once.

Most of a merge's lists need only be copied with their docnums shifted: one block, in a
merged segment without deletions, not inlined in its term info. `merging._joined` took a
term's lists one by one in Python (a term info unpacked, a block's header parsed and its
docnums shifted, the statistics summed: a dozen calls a list). Here the term infos of a run
of terms are unpacked as one NumPy array, every list's block header and first docnum are
found by NumPy over its segment's postings bytes (mapped, not copied), the shifted docnums
are pickled as columns, and the statistics are summed per term (in the order `_joined` sums
them, so the same floats). A term whose lists are all plain is then written whole
(`PlainLists.written`: its bytes joined, its term info sliced from a column, its arrays
gathered when it gets them), or, when this commit's postings join it, handed to the term
writer as one `merging.Copied` (`PlainLists.parts`). A list these checks do not accept sends
its term `_joined`'s way, as before: the same bytes either way. The terms are taken
`_CHUNK` entries at a time, so that the columns of a large merge are never all in memory.
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pickle import loads
from typing import Any

import numpy as np
from whoosh.codec import whoosh3

from webcrawler.index.format import vectors
from webcrawler.index.format.blocks import MAGIC, weights_of
from webcrawler.index.format.fastpaths import note
from webcrawler.index.format.lengths import BYTE_LENGTH
from webcrawler.index.format.storage import MappedFile

# a W3 term info of a list in the postings file, as merging._INFO unpacks it (packed, big-endian)
_INFO = np.dtype([("flags", "u1"), ("total", ">f4"), ("df", ">u4"), ("low", "u1"), ("high", "u1"),
                  ("top", ">f4"), ("first", ">u4"), ("last", ">u4"), ("start", ">i8"), ("length", ">i4")])
assert _INFO.itemsize == struct.calcsize("!BfIBBfIIqi")
# a term info as the term writer packs it (termwriter._TERMINFO), without the extent
_OUT = np.dtype([("flags", "u1"), ("total", ">f4"), ("df", ">u4"), ("low", "u1"), ("high", "u1"),
                 ("top", ">f4"), ("first", ">u4"), ("last", ">u4")])
assert _OUT.itemsize == whoosh3.W3TermInfo._struct.size
_WIDTH = np.zeros(256, np.int64)  # a pickled integer's opcode -> its bytes with the opcode
_WIDTH[[0x4B, 0x4D, 0x4A]] = (2, 3, 5)  # K, M, J (as blocks._INT_WIDTH)
_BYTE_LENGTH = np.asarray(BYTE_LENGTH, np.int64)
_NONE = np.iinfo(np.int64).max  # no length but 0
_CHUNK = 65536  # entries (a term in a segment) taken at once, at least a whole term's


@dataclass(slots=True)
class Written:
    """A plain term's posting list and term info (without the extent), as the term writer
    writes them."""

    body: bytes
    info: bytes
    arrays: bytes  # the list's arrays (vectors.py), or b"" for none


class PlainLists:
    """The terms of `copied` (a merge's term entries, sorted: (term, segment number, raw
    term info)) in groups, one a term; `plain(g)` says whether group g's lists are written by
    `written(g)` (when no posting of this commit joins them), and `entries(g)` gives them
    for the general path."""

    def __init__(self, copied: Sequence[tuple[Any, int, bytes]], sources: Sequence[Any],
                 scorable: Callable[[str], bool], length_bytes: Callable[[np.ndarray], np.ndarray]) -> None:
        self._copied = copied
        new = [True] * len(copied)  # an entry whose term differs from the one before
        new[1:] = [a[0] != b[0] for a, b in zip(copied, copied[1:], strict=False)]
        self._starts = [i for i, differs in enumerate(new) if differs] + [len(copied)]
        self.terms = [copied[i][0] for i in self._starts[:-1]]
        self._sources = sources
        self._data = [_postings(source) for source in sources]
        self._scorable = scorable
        self._length_bytes = length_bytes
        self._chunk: _Chunk | None = None

    def entries(self, g: int) -> Sequence[tuple[Any, int, bytes]]:
        return self._copied[self._starts[g] : self._starts[g + 1]]

    def plain(self, g: int) -> bool:
        chunk = self.chunk(g)
        return chunk.plain[g - chunk.first]

    def parts(self, g: int, keeps: bool) -> tuple:
        """`_Chunk.parts` of group g (its lists joined by a posting of this commit)."""
        return self.chunk(g).parts(g, keeps)

    def df(self, g: int) -> int:
        return self.chunk(g).df(g)

    def written(self, g: int) -> Written:
        """Group g's posting list (MAGIC, then each list's block framed, its docnums shifted),
        its term info without the extent and its arrays: what `_write_copied` or (with arrays)
        `_write_term`'s general path writes for it."""
        return self.chunk(g).written(g)

    def chunk(self, g: int) -> _Chunk:
        """The chunk of columns that holds group g (made when g is past the last one)."""
        chunk = self._chunk
        if chunk is not None and chunk.first <= g < chunk.end:
            return chunk
        end = max(g + 1, bisect_right(self._starts, self._starts[g] + _CHUNK) - 1)
        chunk = self._chunk = _Chunk(self, g, end)
        return chunk


class _Chunk:
    """The columns of groups [first, end) of a `PlainLists`."""

    def __init__(self, lists: PlainLists, first: int, end: int) -> None:
        self.first, self.end = first, end
        starts = np.asarray(lists._starts[first : end + 1], np.int64)
        entries = lists._copied[starts[0] : starts[-1]]
        count = len(entries)
        number = np.fromiter((entry[1] for entry in entries), np.int64, count) - 1
        raws = [entry[2] for entry in entries]
        size = _INFO.itemsize  # a shorter info (inlined postings) padded, to be refused by its flags
        info = np.frombuffer(b"".join([raw[:size] if len(raw) >= size else raw.ljust(size, b"\1")
                                       for raw in raws]), _INFO)
        ok = (info["flags"] == 0) & (np.fromiter(map(len, raws), np.int64, count) >= _INFO.itemsize)
        base, cuts, shifted = _located(lists, number, info, ok)
        ok &= ((shifted >= 0) & (shifted < 2**31)).all(axis=1)  # pickled as K, M or J
        widths = np.where(shifted < 256, 2, np.where(shifted < 65536, 3, 5))
        framed = (cuts[:, 1] - cuts[:, 0]) + (cuts[:, 3] - cuts[:, 2]) + (cuts[:, 5] - cuts[:, 4]) \
            + widths.sum(1)  # the shifted block's length
        local = starts - starts[0]
        last_of_group = np.zeros(count, bool)
        last_of_group[local[1:] - 1] = True
        self._frames = np.where(last_of_group, -framed, framed).astype(">i4").tobytes()
        self._pickled = _pickled(shifted)
        self._number = number.tolist()
        self._cuts = cuts.tolist()
        self._widths = widths.tolist()
        self._local = local.tolist()
        self._data = lists._data
        self._base = base.tolist()
        self._df = info["df"].tolist()
        marked = _INFO.itemsize + len(vectors.MARK)  # vectors.has_arrays of each
        self._has_arrays = [len(raw) == marked and raw.endswith(vectors.MARK) for raw in raws]
        self._totals = info["total"].astype(np.float64).tolist()
        self.plain, self._keeps, self._stats, self._infos = _groups(info, base, ok, local, lists, first, end)
        if any(self.plain):
            note("mergecolumns.plain")

    def written(self, g: int) -> Written:
        k = g - self.first
        first, end = self._local[k], self._local[k + 1]
        pieces = [MAGIC]
        frames = self._frames
        for i in range(first, end):
            pieces.append(frames[4 * i : 4 * i + 4])
            pieces += self._block(i)
        size = _OUT.itemsize
        arrays = vectors.encode(*self._columns(first, end)) if self._keeps[k] else b""
        return Written(b"".join(pieces), self._infos[size * k : size * (k + 1)], arrays)

    def parts(self, g: int, keeps: bool) -> tuple:
        """`merging.Copied`'s fields for group g's lists (`keeps`: with their docnums and
        weights)."""
        k = g - self.first
        first, end = self._local[k], self._local[k + 1]
        blocks = [b"".join(self._block(i)) for i in range(first, end)]
        ids, weights = self._columns(first, end) if keeps else (None, None)
        return (blocks, 0.0, *self._stats[k], ids, weights, self._totals[first:end])

    def df(self, g: int) -> int:
        return self._stats[g - self.first][0]

    def _block(self, i: int) -> tuple[Any, ...]:
        """The pieces of entry i's block with its docnums shifted (`blocks.shift_block`)."""
        a, pos, rest, at, after, stop = self._cuts[i]
        last_width, first_width = self._widths[i]
        source, pickled = self._data[self._number[i]], self._pickled
        return (source[a:pos], pickled[10 * i : 10 * i + last_width], source[rest:at],
                pickled[10 * i + 5 : 10 * i + 5 + first_width], source[after:stop])

    def _columns(self, first: int, end: int) -> tuple[np.ndarray, np.ndarray]:
        """The docnums and weights of entries [first, end): each list's own arrays shifted
        where it has them, else its block's body decoded (fewer than MIN_POSTINGS postings,
        gathered in Python lists: an array a short list costs more than its postings)."""
        id_arrays: list[np.ndarray] = []
        weight_arrays: list[np.ndarray] = []
        ids: list[int] = []
        weights: list[float] = []
        for i in range(first, end):
            source, base, count = self._data[self._number[i]], self._base[i], self._df[i]
            _a, _pos, rest, _at, _after, stop = self._cuts[i]
            if self._has_arrays[i]:
                if ids:
                    id_arrays.append(np.array(ids, np.int64))
                    weight_arrays.append(np.array(weights, np.float64))
                    ids, weights = [], []
                id_arrays.append(np.frombuffer(source, "<i4", count, stop).astype(np.int64) + base)
                weight_arrays.append(np.frombuffer(source, "<f4", count, stop + 4 * count))
            else:
                gaps, stored, _values = loads(source[rest + 19 : stop])  # the body, after the header
                ids += map(base.__add__, accumulate(gaps))
                weights += weights_of(stored, len(gaps))  # type: ignore[arg-type]
        if ids:
            id_arrays.append(np.array(ids, np.int64))
            weight_arrays.append(np.array(weights, np.float64))
        return np.concatenate(id_arrays), np.concatenate(weight_arrays)


def _located(lists: PlainLists, number: np.ndarray, info: np.ndarray, ok: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each entry's segment base, where its block's pieces lie in its segment's postings
    (`_one_blocks`' cuts) and its last and first docnums shifted; `ok` (each entry's term info
    a plain one) cleared where the list is not one block `_one_blocks` accepts or its segment
    has deletions or is not mapped."""
    count = len(number)
    base = np.zeros(count, np.int64)
    cuts = np.zeros((count, 6), np.int64)
    shifted = np.zeros((count, 2), np.int64)
    for n, source in enumerate(lists._sources):
        mine = number == n
        base[mine] = source.basedoc
        at = np.flatnonzero(mine & ok)
        if source.docmap is not None or lists._data[n] is None:
            ok[mine] = False
        elif len(at):
            data = np.frombuffer(lists._data[n], np.uint8)
            good, cut, last, head = _one_blocks(data, info["start"][at].astype(np.int64),
                                                info["length"][at].astype(np.int64))
            ok[at] = good
            cuts[at] = cut
            shifted[at, 0], shifted[at, 1] = last + source.basedoc, head + source.basedoc
    return base, cuts, shifted


def _groups(info: np.ndarray, base: np.ndarray, ok: np.ndarray, local: np.ndarray,
            lists: PlainLists, first: int, end: int) -> tuple[list[bool], list[bool], list[tuple], bytes]:
    """Whether each group is plain, whether it gets arrays (alone), its `Copied` statistics
    (df, top, least length or None, greatest, first and last docnums), and its term info as
    `_write_copied` packs it from the statistics `_joined` sums (`_OUT.itemsize` bytes a
    group; the general path's `_Stats` sums the same for a list with arrays)."""
    starts, count = local[:-1], len(ok)
    sizes = np.diff(local)
    df = np.add.reduceat(info["df"].astype(np.int64), starts)
    keeps = np.fromiter((lists._scorable(term[0]) for term in lists.terms[first:end]), bool, len(starts))
    keeps &= df >= vectors.MIN_POSTINGS
    plain = np.add.reduceat((~ok).astype(np.int64), starts) == 0
    rank = np.arange(count) - np.repeat(starts, sizes)  # an entry's place in its group
    group = np.repeat(np.arange(len(starts)), sizes)
    totals = info["total"].astype(np.float64)
    total = np.zeros(len(starts))
    for k in range(int(rank.max()) + 1):  # summed in order, as `_joined` sums them
        at = rank == k
        total[group[at]] += totals[at]
    out = np.zeros(len(starts), _OUT)
    out["total"] = total
    out["df"] = df
    least = _BYTE_LENGTH[info["low"]]
    least = np.minimum.reduceat(np.where(least == 0, _NONE, least), starts)
    out["low"] = np.where(least == _NONE, 0, lists._length_bytes(np.where(least == _NONE, 0, least)))
    most = np.maximum.reduceat(_BYTE_LENGTH[info["high"]], starts)
    out["high"] = lists._length_bytes(most)
    # `_joined` keeps a part's top when above the one so far (from 0.0), and a NaN never is
    out["top"] = np.fmax(np.fmax.reduceat(info["top"].astype(np.float64), starts), 0.0) + 0.0
    ends = local[1:] - 1
    out["first"] = info["first"][starts].astype(np.int64) + base[starts]
    out["last"] = info["last"][ends].astype(np.int64) + base[ends]
    stats = zip(df.tolist(), out["top"].astype(np.float64).tolist(),
                [None if n == _NONE else n for n in least.tolist()], most.tolist(),
                out["first"].tolist(), out["last"].tolist(), strict=True)
    return plain.tolist(), keeps.tolist(), list(stats), out.tobytes()


def _postings(source: Any) -> Any:
    """`source`'s postings file as bytes or a view of its map (one piece, not copied when
    mapped), or None when it is not a file this reads whole."""
    postfile = source.reader._terms._postfile
    if isinstance(postfile, MappedFile):
        return postfile.view(0, postfile._length)
    return None


def _one_blocks(data: np.ndarray, start: np.ndarray, length: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For the lists at `start` (`length` bytes each) of a postings file's bytes `data`: which
    are one block that `blocks.shift_block` shifts in place (MAGIC, one frame, a header of
    protocol 2 as termwriter and Whoosh 2.7 pickle it, a body of protocol 2 or 3 whose first
    docnum is K, M or J), where the block's pieces lie (its start, the header's last docnum's
    opcode and end, the body's first docnum's opcode and end, the block's end), and the
    last and first docnums."""
    top = len(data) - 1

    def at(offsets: np.ndarray) -> np.ndarray:
        return data[np.clip(offsets, 0, top)].astype(np.int64)

    end = start + length
    ok = (length >= 8 + 22) & (end <= len(data))
    for k, byte in enumerate(MAGIC):
        ok &= at(start + k) == byte
    size = (at(start + 4) << 24) | (at(start + 5) << 16) | (at(start + 6) << 8) | at(start + 7)
    ok &= size == 2**32 - (length - 8)  # negative: the last block, and the only one
    block = start + 8
    ok &= (at(block) == 0x80) & (at(block + 1) == 2) & (at(block + 2) == 0x28)
    count_width = _WIDTH[at(block + 3)]
    pos = block + 3 + count_width
    width = _WIDTH[at(pos)]
    ok &= (count_width > 0) & (width > 0)
    rest = pos + width  # the top weight: G and 8 bytes
    stop = rest + 19  # the header's end, the body's start
    ok &= (end >= stop) & (at(rest) == 0x47) & (at(rest + 10) == 0)
    for k in (9, 11, 13):
        ok &= at(rest + k) == 0x4B
    for k, byte in enumerate(b"tq\x00."):
        ok &= at(rest + 15 + k) == byte
    ok &= (at(stop) == 0x80) & ((at(stop + 1) == 2) | (at(stop + 1) == 3))
    head = stop + np.where(at(stop + 2) == 0x28, 3, 2)
    head_width = _WIDTH[at(head)]
    ok &= (head < end) & (head_width > 0) & (head + head_width <= end)
    last, first = _int_at(at, pos, width), _int_at(at, head, head_width)
    cuts = np.stack([block, pos, rest, head, head + head_width, end], axis=1)
    return ok, cuts, last, first


def _int_at(at: Callable[[np.ndarray], np.ndarray], pos: np.ndarray, width: np.ndarray) -> np.ndarray:
    """The pickled integers whose opcode (K, M or J, `width` bytes with it) is at `pos`."""
    value = np.zeros(len(pos), np.int64)
    for k in range(4):
        value |= np.where(k < width - 1, at(pos + 1 + k) << (8 * k), 0)
    return np.where((width == 5) & (value >= 2**31), value - 2**32, value)


def _pickled(numbers: np.ndarray) -> bytes:
    """Each of `numbers` (n x 2, each 0 <= number < 2**31) pickled as `blocks._pickled_int`
    does, in slots of 5 bytes (the opcode, then the little-endian bytes; a slot's first
    `width` bytes are the pickle)."""
    slots = np.zeros((len(numbers), 2, 5), np.uint8)
    slots[:, :, 0] = np.where(numbers < 256, 0x4B, np.where(numbers < 65536, 0x4D, 0x4A))
    for k in range(4):
        slots[:, :, 1 + k] = (numbers >> (8 * k)) & 0xFF
    return slots.tobytes()
